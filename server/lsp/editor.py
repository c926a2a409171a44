"""`EditorPort` over a pygls connection: settings, versioned applyEdit, and its echo (what the
editor then reports of the edit, read by `Sent.landed`)."""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from complex_edit.server.edit.files import FileRefused, read_text_file
from complex_edit.server.edit.port import Landing, OtherEdit, Review, StaleEdit
from complex_edit.server.lsp.bridge import (
    annotated,
    label_for_uri,
    path_of,
    to_text_edits,
    uri_of,
)
from complex_edit.server.lsp.echo import LATE_ECHO_SECONDS, confirm_later
from complex_edit.server.outcome import EditRefused
from complex_edit.server.settings import SECTION, SettingsLayer
from complex_edit.server.text.diff import TextChange, apply_changes
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk, landed_hunks, make_hunks
from complex_edit.server.text.positions import Encoding

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
# After some, not all, of the reviewed hunks have landed: how long to wait for the rest to be
# reported before answering with what landed.
SETTLE_SECONDS = 0.5
# A refusal that names the version the editor has (eglot: "Edits on `x' require version 3,
# you have 5"): the document had moved on, by changes it may not have reported yet.
STALE_REFUSAL = re.compile(r"require version (?P<sent>\d+), you have (?P<have>\d+)")
# How long to wait after such a refusal for those reports (eglot sends them from a 0.5 s idle
# timer).
STALE_WAIT_SECONDS = 2.0


class Sent:
    """An edit the editor answered, and the change report that answers it in the document
    (`echo`: the next didChange after the edit was sent)."""

    def __init__(
        self,
        ls: ComplexEditServer,
        base: Snapshot,
        echo: asyncio.Future[bool],
        answer: types.ApplyWorkspaceEditResult,
        *,
        late: bool = False,
        others: Sequence[tuple[OtherEdit, asyncio.Future[bool]]] = (),
    ) -> None:
        """`late`: the editor reports the change only after the command is answered.
        `others`: the edit's other open documents, each with the wait for its next report."""
        self._ls = ls
        self._base = base
        self._echo = echo
        self._late = late
        self._others = others
        self.applied = bool(answer.applied)
        self.failure_reason = answer.failure_reason

    async def others_landed(self, limit_seconds: float) -> bool:
        """Has each other document of the edit reported its change (its text now the edit's
        result)? A file that was not open must be opened by the editor (`didOpen`): of the
        text on disk, then the edit as a `didChange` (VS Code; Neovim when its client attaches
        to the buffer it loaded), or of the text already edited; an editor that loads it
        without a word to the server (Neovim's client attached to one buffer) never shows it."""
        try:
            async with asyncio.timeout(limit_seconds):
                for other, echo in self._others:
                    if not await self._other_landed(other, echo):
                        return False
        except TimeoutError:
            return False
        finally:
            for _, echo in self._others:
                echo.cancel()
        return True

    async def _other_landed(self, other: OtherEdit, echo: asyncio.Future[bool]) -> bool:
        uri = other.base.uri
        while not self._other_shows(other):
            if not await echo and other.versioned:
                return False  # closed
            echo = self._ls.commands.next_change(uri)
        return True

    def _other_shows(self, other: OtherEdit) -> bool:
        """Does the other document hold its change now: its text the edit's result, or (the
        user typed after it) its reported changes show every hunk landing?"""
        uri, store = other.base.uri, self._ls.documents
        live = store.get(uri)
        if live is None:
            return False
        if live.text == apply_changes(other.base.text, other.changes):
            return True
        if not other.versioned or not other.hunks:
            return False
        reported = store.changes_since(uri, other.base.version)
        found = landed_hunks(other.base.text, other.hunks, reported, live.text)
        return found is not None and len(found) == len(other.hunks)

    async def landed(self, hunks: Sequence[Hunk], limit_seconds: float, *, settle: bool) -> Landing:
        """Read each change the editor reports until all of `hunks` show landing. The rest
        may follow in later didChanges (Neovim sends a multi-range edit's first range at once
        and the others after its debounce)."""
        if self._late and not settle:
            found = self._what_landed(hunks)
            if found is None or len(found) < len(hunks):
                # Nothing more can arrive before the answer: answer now, confirm later.
                reading = self._read(hunks, LATE_ECHO_SECONDS, lambda _, first: first)
                confirm_later(self._ls, self._base.uri, len(hunks), reading)
                return Landing(found, pending=True)
        # Some landed: the rest may still be on their way, or declined.
        return await self._read(hunks, limit_seconds, lambda kept, _: bool(kept) and settle)

    async def _read(
        self,
        hunks: Sequence[Hunk],
        limit_seconds: float,
        settles: Callable[[list[int] | None, bool], bool],
    ) -> Landing:
        """The one wait for the editor's reports of the edit: until all of `hunks` show
        landing, the document closes or `limit_seconds` pass. When `settles(kept, first)` says
        so after a report (`first`: the first one heard), the rest may take only
        SETTLE_SECONDS more."""
        echo = self._echo
        found = self._what_landed(hunks)
        heard = False
        try:
            async with asyncio.timeout(limit_seconds) as scope:
                while await echo:
                    first, heard = not heard, True
                    found = self._what_landed(hunks)
                    if found is not None and len(found) == len(hunks):
                        return Landing(found, heard=True)
                    if settles(found, first):
                        scope.reschedule(asyncio.get_running_loop().time() + SETTLE_SECONDS)
                    echo = self._ls.commands.next_change(self._base.uri)
        except TimeoutError:
            echo.cancel()
            return Landing(found, heard=heard)
        return Landing(None, heard=heard, closed=True)

    def _what_landed(self, hunks: Sequence[Hunk]) -> list[int] | None:
        store = self._ls.documents
        live = store.get(self._base.uri)
        if live is None:
            return None
        reported = store.changes_since(self._base.uri, self._base.version)
        return landed_hunks(self._base.text, hunks, reported, live.text)


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
        base: Snapshot,
        changes: Sequence[TextChange],
        label: str,
        limit_seconds: float,
        review: Review | None = None,
        others: Sequence[OtherEdit] = (),
    ) -> Sent:
        uri = base.uri
        store = self._ls.documents
        if not all(
            self._still(edit.base, edit.versioned)
            for edit in (OtherEdit(base, changes, True), *others)
        ):
            raise EditRefused(
                "document_changed",
                "The document changed just before the edit could be sent; nothing was applied.",
            )
        if review is not None and self.can_review():
            edit = self._review_edit(base, review)
            confirm = True
        else:
            edits = to_text_edits(
                base.text,
                self._lines(base.text, changes),
                store.encoding,
                line_index=store.line_index(uri),
            )
            confirm = self._can.document_changes and self._can.change_annotations
            confirm = confirm and deletes_most(base.text, changes)
            edit = self._workspace_edit(base, edits, confirm=confirm, several=bool(others))
        if confirm:
            limit_seconds = max(limit_seconds, CONFIRMATION_TIMEOUT_SECONDS)
        if others:
            edit = self._with_others(edit, others, review=review if self.can_review() else None)
        echo = self._ls.commands.next_change(uri)
        echoes = [(o, self._ls.commands.next_change(o.base.uri)) for o in others]
        try:
            async with asyncio.timeout(limit_seconds) as wait:
                with self._ls.apply_waits.watching(wait):  # a question stretches it (asking.py)
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
        return Sent(self._ls, base, echo, answer, late=late, others=echoes)

    def _still(self, base: Snapshot, versioned: bool) -> bool:
        """Is the document still `base` (open at its version), or, a file not open, still
        not open (its disk text was checked when the edit was placed, with no await since)?"""
        live = self._ls.documents.get(base.uri)
        if not versioned:
            return live is None
        return live is not None and live.version == base.version and live.text == base.text

    def _with_others(
        self, edit: types.WorkspaceEdit, others: Sequence[OtherEdit], review: Review | None
    ) -> types.WorkspaceEdit:
        """`edit` (one document's) with the other documents' changes: one `TextDocumentEdit`
        each, versioned when open in the editor, `version: null` for a file; for `review`,
        each of their hunks annotated as the command's document's are."""
        store = self._ls.documents
        changes = list(edit.document_changes or [])
        notes = dict(edit.change_annotations or {})
        for other in others:
            base = other.base
            index = store.line_index(base.uri) if other.versioned else None
            version = base.version if other.versioned else None
            document = types.OptionalVersionedTextDocumentIdentifier(uri=base.uri, version=version)
            edits: list[types.TextEdit | types.AnnotatedTextEdit] = []
            if review is None:
                lines = self._lines(base.text, other.changes)
                edits.extend(to_text_edits(base.text, lines, store.encoding, line_index=index))
                hunks: Sequence[Hunk] = ()
            else:
                hunks, description = other.hunks, review.description
            for hunk in hunks:
                key = HUNK_ID.format(len(notes) + 1)
                lines = self._lines(base.text, hunk.changes)
                plain = to_text_edits(base.text, lines, store.encoding, line_index=index)
                edits.extend(annotated(plain, key))
                label = f"{label_for_uri(base.uri)}, {hunk.label[:1].lower()}{hunk.label[1:]}"
                notes[key] = types.ChangeAnnotation(
                    label=label, needs_confirmation=True, description=description
                )
            changes.append(types.TextDocumentEdit(text_document=document, edits=edits))
        return types.WorkspaceEdit(document_changes=changes, change_annotations=notes or None)

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

    def _lines(self, text: str, changes: Sequence[TextChange]) -> Sequence[TextChange]:
        return whole_lines(text, changes) if self._can.whole_lines else changes

    def _review_edit(self, base: Snapshot, review: Review) -> types.WorkspaceEdit:
        store = self._ls.documents
        index = store.line_index(base.uri)
        edits: list[types.TextEdit | types.AnnotatedTextEdit] = []
        notes: dict[str, types.ChangeAnnotation] = {}
        for number, hunk in enumerate(review.hunks, start=1):
            key = HUNK_ID.format(number)
            lines = self._lines(base.text, hunk.changes)
            plain = to_text_edits(base.text, lines, store.encoding, line_index=index)
            edits.extend(annotated(plain, key))
            notes[key] = types.ChangeAnnotation(
                label=hunk.label, needs_confirmation=True, description=review.description
            )
        document = types.OptionalVersionedTextDocumentIdentifier(uri=base.uri, version=base.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)],
            change_annotations=notes,
        )

    def _workspace_edit(
        self,
        base: Snapshot,
        edits: list[types.TextEdit],
        *,
        confirm: bool = False,
        several: bool = False,
    ) -> types.WorkspaceEdit:
        if not self._can.document_changes and not several:
            return types.WorkspaceEdit(changes={base.uri: list(edits)})
        document = types.OptionalVersionedTextDocumentIdentifier(uri=base.uri, version=base.version)
        if not confirm:
            return types.WorkspaceEdit(
                document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)]
            )
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=document, edits=annotated(edits, CONFIRMATION_ID)
                )
            ],
            change_annotations={
                CONFIRMATION_ID: types.ChangeAnnotation(
                    label="Complex Edit: removes most of the document",
                    needs_confirmation=True,
                    description="The result deletes more than half of the document's text.",
                )
            },
        )


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
