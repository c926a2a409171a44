"""`EditorPort` over a pygls connection: settings, versioned applyEdit, and its echo."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from server.command import ApplyAnswer, ApplyRefused, Echo, StaleDocument
from server.documents import Snapshot
from server.edits import TextChange, to_text_edits

if TYPE_CHECKING:
    from server.lsp import ComplexEditServer

log = logging.getLogger("complex_edit.editor")
CONFIGURATION_TIMEOUT = 5.0


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

    def _supports_document_changes(self) -> bool:
        workspace = self._ls.client_capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        return bool(edit is not None and edit.document_changes)

    def _supports_configuration(self) -> bool:
        workspace = self._ls.client_capabilities.workspace
        return bool(workspace is not None and workspace.configuration)

    async def settings_layers(self, uri: str) -> list[Mapping[str, Any] | None]:
        layers: list[Mapping[str, Any] | None] = [self._ls.init_options, self._ls.pushed_settings]
        if self._supports_configuration():
            try:
                async with asyncio.timeout(CONFIGURATION_TIMEOUT):
                    answer = await self._ls.workspace_configuration_async(
                        types.ConfigurationParams(
                            items=[types.ConfigurationItem(scope_uri=uri, section="complexEdit")]
                        )
                    )
                if answer and isinstance(answer[0], Mapping):
                    layers.append(answer[0])
            except Exception as exc:
                log.warning("workspace/configuration failed: %s", type(exc).__name__)
        return layers

    async def apply(
        self, base: Snapshot, changes: Sequence[TextChange], label: str, limit_seconds: float
    ) -> ApplyAnswer:
        uri = base.uri
        store = self._ls.documents
        live = store.get(uri)
        if live is None or live.version != base.version or live.text != base.text:
            raise StaleDocument()
        edits = to_text_edits(base.text, changes, store.encoding, line_index=store.line_index(uri))
        edit = self._workspace_edit(base, edits)
        self.before_send()
        self._echo = self._ls.next_change(uri)
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

    async def confirm(self, base: Snapshot, target_text: str, limit_seconds: float) -> Echo:
        echo = self._echo
        if echo is None:
            return "silent"
        try:
            async with asyncio.timeout(limit_seconds):
                still_open = await echo
        except TimeoutError:
            echo.cancel()
            return "silent"
        if not still_open:
            return "closed"
        live = self._ls.documents.get(base.uri)
        return "matches" if live is not None and live.text == target_text else "differs"

    def _workspace_edit(self, base: Snapshot, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        if self._supports_document_changes():
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=base.uri, version=base.version
                        ),
                        edits=list(edits),
                    )
                ]
            )
        return types.WorkspaceEdit(changes={base.uri: list(edits)})
