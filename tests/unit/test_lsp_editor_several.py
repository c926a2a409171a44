"""`LspEditor` sending one edit of several documents (`server/lsp/editor.py`): one
`workspace/applyEdit` whose `documentChanges` hold the command's document and each other one,
versioned when open, `version: null` for a file; the others' change reports read back (a
file not open too: it must be reported opened with the edit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from lsprotocol import types

from complex_edit.server.edit.apply import DISK_VERSION
from complex_edit.server.edit.port import DocumentEdit
from complex_edit.server.lsp.abilities import ClientAbilities
from complex_edit.server.lsp.commands import Commands
from complex_edit.server.lsp.editor import LspEditor
from complex_edit.server.text.diff import compute_edits
from complex_edit.server.text.documents import ContentChange, DocumentStore, Snapshot

OWN, OPEN, FILE = "file:///w/own.py", "file:///w/open.py", "file:///w/file.py"


@dataclass
class _Server:
    """The parts of the language server the editor uses; the editor applies each edit to the
    open documents at once (reporting each as a whole-text change), and opens a file it edits
    with the edit in it (reporting its didOpen)."""

    abilities: ClientAbilities
    documents: DocumentStore = field(default_factory=DocumentStore)
    commands: Commands = field(default_factory=Commands)
    sent: list[types.WorkspaceEdit] = field(default_factory=list)
    report: bool = True
    files: dict[str, str] = field(default_factory=lambda: {FILE: "c = 1\n"})

    async def workspace_apply_edit_async(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        self.sent.append(params.edit)
        if self.report:
            for change in params.edit.document_changes or []:
                assert isinstance(change, types.TextDocumentEdit)
                self._apply(change)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _apply(self, change: types.TextDocumentEdit) -> None:
        uri = change.text_document.uri
        live = self.documents.get(uri)
        if live is None:
            self.documents.open(uri, self.files[uri], 0)
            live = self.documents.snapshot(uri)
        text = live.text
        lines = text.splitlines(keepends=True)
        for edit in sorted(change.edits, key=lambda e: e.range.start.line, reverse=True):
            assert isinstance(edit, types.TextEdit)
            start = sum(map(len, lines[: edit.range.start.line])) + edit.range.start.character
            end = sum(map(len, lines[: edit.range.end.line])) + edit.range.end.character
            text = text[:start] + edit.new_text + text[end:]
        self.documents.change(uri, live.version + 1, [ContentChange(text)])
        self.commands.changed(uri)


def _server(*, document_changes: bool = True, name: str = "") -> _Server:
    abilities = ClientAbilities(apply_edit=True, document_changes=document_changes)
    if name:
        caps = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(apply_edit=True)
        )
        abilities = ClientAbilities.of(caps, "utf-16", types.ClientInfo(name=name))
    server = _Server(abilities)
    server.documents.open(OWN, "a = 1\n", 3)
    server.documents.open(OPEN, "b = 1\n", 7)
    return server


def _other(server: _Server, uri: str, before: str, after: str) -> DocumentEdit:
    """The change of `uri`: against its buffer when it is open, else against its file."""
    live = server.documents.get(uri)
    base = live if live is not None else Snapshot(uri, DISK_VERSION, before, "")
    return DocumentEdit(base, compute_edits(before, after), live is not None)


async def _send(server: _Server) -> bool:
    editor = LspEditor(cast(Any, server))
    base = server.documents.snapshot(OWN)
    others = [
        _other(server, OPEN, "b = 1\n", "b = 2\n"),
        _other(server, FILE, "c = 1\n", "c = 2\n"),
    ]
    own = DocumentEdit(base, compute_edits(base.text, "a = 2\n"))
    sent = await editor.apply([own, *others], "t", 5.0, None)
    assert sent.applied
    return await sent.others_landed(0.2)


async def test_one_edit_carries_every_document() -> None:
    server = _server()
    assert await _send(server) is True
    (edit,) = server.sent
    documents = [c.text_document for c in edit.document_changes or []]
    assert [(d.uri, d.version) for d in documents] == [(OWN, 3), (OPEN, 7), (FILE, None)]
    assert server.documents.snapshot(OPEN).text == "b = 2\n"


async def test_an_unreported_other_document_is_not_confirmed() -> None:
    server = _server()
    server.report = False
    assert await _send(server) is False


async def test_neovim_gets_document_changes_though_it_does_not_announce_them() -> None:
    server = _server(name="Neovim")
    assert LspEditor(cast(Any, server)).can_edit_several() is True
    assert LspEditor(cast(Any, _server(document_changes=False))).can_edit_several() is False
    assert await _send(server) is True
    (edit,) = server.sent
    assert edit.changes is None
    assert len(edit.document_changes or []) == 3
