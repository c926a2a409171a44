"""`EditorPort` over a pygls connection: settings, versioned applyEdit, and its echo."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from complex_edit.server.edit.port import ApplyAnswer, ApplyRefused, Echo, Review, StaleDocument
from complex_edit.server.lsp.bridge import annotated, to_text_edits
from complex_edit.server.settings import SECTION, SettingsLayer
from complex_edit.server.text.diff import TextChange
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk, landed_hunks
from complex_edit.server.text.positions import Encoding
from complex_edit.server.text.rebase import edit_landed

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


def _nothing() -> None:
    return None


class LspEditor:
    def __init__(self, ls: ComplexEditServer) -> None:
        self._ls = ls
        self.before_send: Callable[[], None] = _nothing
        self._echo: asyncio.Future[bool] | None = None

    def is_open(self, uri: str) -> bool:
        return self._ls.documents.is_open(uri)

    def snapshot(self, uri: str) -> Snapshot:
        return self._ls.documents.snapshot(uri)

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        return self._ls.documents.changes_since(uri, version)

    def can_apply_edits(self) -> bool:
        workspace = self._ls.client_capabilities.workspace
        return bool(workspace is not None and workspace.apply_edit)

    def can_review(self) -> bool:
        return (
            self.can_apply_edits()
            and self._supports_document_changes()
            and self._supports_change_annotations()
        )

    def encoding(self) -> Encoding:
        return self._ls.documents.encoding

    def _supports_document_changes(self) -> bool:
        workspace = self._ls.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        return bool(edit is not None and edit.document_changes)

    def _supports_change_annotations(self) -> bool:
        workspace = self._ls.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        return bool(edit is not None and edit.change_annotation_support is not None)

    def _supports_configuration(self) -> bool:
        workspace = self._ls.client_capabilities.workspace
        return bool(workspace is not None and workspace.configuration)

    async def settings_layers(self, uri: str) -> list[Mapping[str, Any] | None]:
        layers: list[Mapping[str, Any] | None] = [
            SettingsLayer.client("initializationOptions", self._ls.init_options),
            SettingsLayer.client("workspace/didChangeConfiguration", self._ls.pushed_settings),
        ]
        if self._supports_configuration():
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
    ) -> ApplyAnswer:
        uri = base.uri
        store = self._ls.documents
        live = store.get(uri)
        if live is None or live.version != base.version or live.text != base.text:
            raise StaleDocument()
        edits = to_text_edits(base.text, changes, store.encoding, line_index=store.line_index(uri))
        confirm = (
            self._supports_document_changes()
            and self._supports_change_annotations()
            and deletes_most(base.text, changes)
        )
        if review is not None and self.can_review():
            edit = self._review_edit(base, review)
            confirm = True
        else:
            edit = self._workspace_edit(base, edits, confirm=confirm)
        if confirm:
            limit_seconds = max(limit_seconds, CONFIRMATION_TIMEOUT_SECONDS)
        self.before_send()
        self._echo = self._ls.commands.next_change(uri)
        try:
            async with asyncio.timeout(limit_seconds):
                result = await self._ls.workspace_apply_edit_async(
                    types.ApplyWorkspaceEditParams(edit=edit, label=label)
                )
        except TimeoutError:
            raise
        except Exception as exc:
            raise ApplyRefused(f"The editor answered the edit with an error: {exc}") from None
        return ApplyAnswer(applied=bool(result.applied), failure_reason=result.failure_reason)

    async def confirm(
        self, base: Snapshot, changes: Sequence[TextChange], limit_seconds: float
    ) -> Echo:
        echo = self._echo
        self._echo = None
        if echo is None:
            return "silent"
        heard = False
        try:
            async with asyncio.timeout(limit_seconds):
                while await echo:
                    heard = True
                    if self._landed(base, changes):
                        return "matches"
                    # The rest may follow in later didChanges (Neovim sends a multi-range
                    # edit's first range at once and the others after its debounce).
                    echo = self._ls.commands.next_change(base.uri)
        except TimeoutError:
            echo.cancel()
            return "differs" if heard else "silent"
        return "closed"

    async def landed(
        self, base: Snapshot, hunks: Sequence[Hunk], limit_seconds: float
    ) -> list[int] | None:
        echo = self._echo
        self._echo = None
        found = self._hunks_landed(base, hunks)
        if echo is None:
            return found
        try:
            async with asyncio.timeout(limit_seconds) as scope:
                while await echo:
                    found = self._hunks_landed(base, hunks)
                    if found is not None and len(found) == len(hunks):
                        return found
                    if found:
                        # Some landed: the rest may still be on their way, or declined.
                        scope.reschedule(asyncio.get_running_loop().time() + SETTLE_SECONDS)
                    echo = self._ls.commands.next_change(base.uri)
        except TimeoutError:
            echo.cancel()
            return found
        return None

    def _hunks_landed(self, base: Snapshot, hunks: Sequence[Hunk]) -> list[int] | None:
        store = self._ls.documents
        live = store.get(base.uri)
        if live is None:
            return None
        reported = store.changes_since(base.uri, base.version)
        return landed_hunks(base.text, hunks, reported, live.text)

    def _review_edit(self, base: Snapshot, review: Review) -> types.WorkspaceEdit:
        store = self._ls.documents
        index = store.line_index(base.uri)
        edits: list[types.TextEdit | types.AnnotatedTextEdit] = []
        notes: dict[str, types.ChangeAnnotation] = {}
        for number, hunk in enumerate(review.hunks, start=1):
            key = HUNK_ID.format(number)
            plain = to_text_edits(base.text, hunk.changes, store.encoding, line_index=index)
            edits.extend(annotated(plain, key))
            notes[key] = types.ChangeAnnotation(
                label=hunk.label, needs_confirmation=True, description=review.description
            )
        document = types.OptionalVersionedTextDocumentIdentifier(uri=base.uri, version=base.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)],
            change_annotations=notes,
        )

    def _landed(self, base: Snapshot, changes: Sequence[TextChange]) -> bool:
        store = self._ls.documents
        live = store.get(base.uri)
        if live is None:
            return False
        reported = store.changes_since(base.uri, base.version)
        return edit_landed(base.text, changes, reported, live.text)

    def _workspace_edit(
        self, base: Snapshot, edits: list[types.TextEdit], *, confirm: bool = False
    ) -> types.WorkspaceEdit:
        if not self._supports_document_changes():
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
