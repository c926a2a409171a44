"""`EditorPort` over a pygls connection: settings, and an edit of one or several documents
as one versioned `workspace/applyEdit` (its answer read by `server/lsp/delivery.py`)."""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from complex_edit.server.edit.files import FileRefused, read_text_file
from complex_edit.server.edit.port import DocumentEdit, Review, StaleEdit
from complex_edit.server.lsp.bridge import (
    annotated,
    label_for_uri,
    path_of,
    to_text_edits,
    uri_of,
)
from complex_edit.server.lsp.delivery import LspDelivery
from complex_edit.server.outcome import EditRefused
from complex_edit.server.settings import SECTION, SettingsLayer
from complex_edit.server.text.diff import TextChange
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import make_hunks
from complex_edit.server.text.positions import Encoding, LineIndex

if TYPE_CHECKING:
    from complex_edit.server.lsp.server import ComplexEditServer

log = logging.getLogger("complex_edit.editor")
CONFIGURATION_TIMEOUT = 5.0
# A result that removes more than half of a document of at least this many characters is sent
# as an edit that needs the user's confirmation, when the client supports change annotations.
CONFIRM_MIN_CHARS = 200
# How long the server waits for an edit that needs confirmation: a person is deciding.
CONFIRMATION_TIMEOUT_SECONDS = 300.0
CONFIRMATION_ID = "complex-edit/large-deletion"
HUNK_ID = "complex-edit/hunk-{}"
# A refusal that names the version the editor has (eglot: "Edits on `x' require version 3,
# you have 5"): the document had moved on, by changes it may not have reported yet.
STALE_REFUSAL = re.compile(r"require version (?P<sent>\d+), you have (?P<have>\d+)")
# How long to wait after such a refusal for those reports (eglot sends them from a 0.5 s idle
# timer).
STALE_WAIT_SECONDS = 2.0


class LspEditor:
    def __init__(self, ls: ComplexEditServer) -> None:
        self._ls = ls
        self._can = ls.abilities

    def is_open(self, uri: str) -> bool:
        return self._ls.documents.is_open(uri)

    def snapshot(self, uri: str) -> Snapshot:
        return self._ls.documents.snapshot(uri)

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        return self._ls.documents.changes_since(uri, version)

    def can_apply_edits(self) -> bool:
        return self._can.apply_edit

    def can_review(self) -> bool:
        return self._can.can_review

    def can_edit_several(self) -> bool:
        return self._can.apply_edit and self._can.several_documents

    def uri_for(self, path: str) -> str:
        """The URI of the open document whose file is `path`, as the editor spells it; else
        the path's `file:` URI."""
        for uri in self._ls.documents.uris():
            if path_of(uri) == path:
                return uri
        return uri_of(path)

    def disk_text(self, uri: str) -> str | None:
        path = path_of(uri)
        if path is None:
            return None
        try:
            # (bounded by its size now: a file that grows meanwhile has changed anyway)
            return read_text_file(Path(path), os.path.getsize(path)).text
        except (FileRefused, OSError):
            return None

    def encoding(self) -> Encoding:
        return self._ls.documents.encoding

    async def settings_layers(self, uri: str | None) -> list[Mapping[str, Any] | None]:
        layers: list[Mapping[str, Any] | None] = [
            SettingsLayer.client("initializationOptions", self._ls.init_options),
            SettingsLayer.client("workspace/didChangeConfiguration", self._ls.pushed_settings),
        ]
        if self._can.configuration:
            try:
                async with asyncio.timeout(CONFIGURATION_TIMEOUT):
                    answer = await self._ls.workspace_configuration_async(
                        types.ConfigurationParams(
                            items=[types.ConfigurationItem(scope_uri=uri, section=SECTION)]
                        )
                    )
                if answer and isinstance(answer[0], Mapping):
                    layers.append(SettingsLayer(answer[0], f"workspace/configuration {SECTION}."))
            except Exception as exc:
                log.warning("workspace/configuration failed: %s", type(exc).__name__)
        return layers

    async def apply(
        self,
        edits: Sequence[DocumentEdit],
        label: str,
        limit_seconds: float,
        review: Review | None = None,
    ) -> LspDelivery:
        if not all(self._still(edit) for edit in edits):
            raise EditRefused(
                "document_changed",
                "The document changed just before the edit could be sent; nothing was applied.",
            )
        edit = self._workspace_edit(edits, review if self.can_review() else None)
        if CONFIRMATION_ID in (edit.change_annotations or {}):
            limit_seconds = max(limit_seconds, CONFIRMATION_TIMEOUT_SECONDS)
        echoes = [(one, self._ls.commands.next_change(one.base.uri)) for one in edits]
        base, echo = edits[0].base, echoes[0][1]
        try:
            async with asyncio.timeout(limit_seconds):
                answer = await self._ls.workspace_apply_edit_async(
                    types.ApplyWorkspaceEditParams(edit=edit, label=label)
                )
        except TimeoutError:
            raise
        except Exception as exc:
            refusal = f"The editor answered the edit with an error: {exc}"
            if await self._caught_up(base, str(exc), echo):
                raise StaleEdit(refusal) from None
            raise EditRefused("client_rejected", refusal) from None
        if not answer.applied and await self._caught_up(base, answer.failure_reason, echo):
            raise StaleEdit(f"The editor rejected the edit: {answer.failure_reason}")
        late = self._can.reports_after_answer
        return LspDelivery(self._ls, base, echo, answer, late=late, others=echoes[1:])

    def _still(self, edit: DocumentEdit) -> bool:
        """Is the document still `base` (open at its version), or, a file not open, still
        not open (its disk text was checked when the edit was placed, with no await since)?"""
        base, live = edit.base, self._ls.documents.get(edit.base.uri)
        if not edit.versioned:
            return live is None
        return live is not None and live.version == base.version and live.text == base.text

    def _workspace_edit(
        self, edits: Sequence[DocumentEdit], review: Review | None
    ) -> types.WorkspaceEdit:
        """The one `WorkspaceEdit` of `edits`: a `TextDocumentEdit` per document, versioned
        when open in the editor, `version: null` for a file. For `review`, each hunk is its
        own annotated change needing confirmation (labelled with its file's name when the
        edit has several documents); else a document whose change deletes most of it is
        annotated as such. An editor without `documentChanges` gets one document's `changes`."""
        several = len(edits) > 1
        changes: list[types.TextDocumentEdit] = []
        notes: dict[str, types.ChangeAnnotation] = {}
        for edit in edits:
            base = edit.base
            index = self._ls.documents.line_index(base.uri) if edit.versioned else None
            text_edits: list[types.TextEdit | types.AnnotatedTextEdit] = []
            if review is not None:
                for hunk in edit.hunks:
                    key = HUNK_ID.format(len(notes) + 1)
                    text_edits += annotated(self._text_edits(base, hunk.changes, index), key)
                    named = f"{label_for_uri(base.uri)}, {hunk.label[:1].lower()}{hunk.label[1:]}"
                    notes[key] = types.ChangeAnnotation(
                        label=named if several else hunk.label,
                        needs_confirmation=True,
                        description=review.description,
                    )
            elif self._confirms(base.text, edit.changes):
                plain = self._text_edits(base, edit.changes, index)
                text_edits += annotated(plain, CONFIRMATION_ID)
                notes[CONFIRMATION_ID] = types.ChangeAnnotation(
                    label="Complex Edit: removes most of the document",
                    needs_confirmation=True,
                    description="The result deletes more than half of the document's text.",
                )
            else:
                text_edits += self._text_edits(base, edit.changes, index)
            version = base.version if edit.versioned else None
            document = types.OptionalVersionedTextDocumentIdentifier(uri=base.uri, version=version)
            changes.append(types.TextDocumentEdit(text_document=document, edits=text_edits))
        if not self._can.document_changes and not several and review is None:
            base = edits[0].base
            index = self._ls.documents.line_index(base.uri)
            return types.WorkspaceEdit(
                changes={base.uri: self._text_edits(base, edits[0].changes, index)}
            )
        return types.WorkspaceEdit(document_changes=changes, change_annotations=notes or None)

    def _confirms(self, text: str, changes: Sequence[TextChange]) -> bool:
        """Does this change need the user's confirmation (it deletes most of its document,
        and the editor can ask)?"""
        can = self._can.document_changes and self._can.change_annotations
        return can and deletes_most(text, changes)

    def _text_edits(
        self, base: Snapshot, changes: Sequence[TextChange], index: LineIndex | None
    ) -> list[types.TextEdit]:
        lines = whole_lines(base.text, changes) if self._can.whole_lines else changes
        return to_text_edits(base.text, lines, self._ls.documents.encoding, line_index=index)

    async def _caught_up(
        self, base: Snapshot, refusal: str | None, echo: asyncio.Future[bool]
    ) -> bool:
        """Was `refusal` the editor's "the document has moved on" (it names the version it
        has), and has the document since caught up with that version? Waits briefly for the
        changes it had not reported yet."""
        stale = STALE_REFUSAL.search(refusal or "")
        if stale is None or int(stale["have"]) <= base.version:
            return False
        have, uri, store = int(stale["have"]), base.uri, self._ls.documents
        try:
            async with asyncio.timeout(STALE_WAIT_SECONDS):
                while (live := store.get(uri)) is not None and live.version < have:
                    if not await echo:
                        break
                    echo = self._ls.commands.next_change(uri)
        except TimeoutError:
            pass
        finally:
            echo.cancel()
        live = store.get(uri)
        return live is not None and live.version >= have


def deletes_most(text: str, changes: Sequence[TextChange]) -> bool:
    """Does applying `changes` to `text` leave less than half of it (for documents of at
    least CONFIRM_MIN_CHARS characters)?"""
    if len(text) < CONFIRM_MIN_CHARS:
        return False
    result = len(text) + sum(len(c.new_text) - (c.end - c.start) for c in changes)
    return 2 * result < len(text)


def whole_lines(text: str, changes: Sequence[TextChange]) -> list[TextChange]:
    """The same edit of `text` as changes of whole lines (its hunks: each from the start of its
    first line to the start of the line after its last, or the end of the text). Their
    positions name no column but at the end of a text without a final line break, so a client
    that counts columns its own way applies them right."""
    return [hunk.change() for hunk in make_hunks(text, changes)]
