"""The language server's state, with one owner (as ruff's server keeps its `Session`): the
documents, the commands holding them and the waiters for their changes, the review proposals,
the edit reports still awaited after an answer, what the client said at `initialize`, and the
slots for what is kept across commands (the workspace listing, the checkers). A command starts
from a `CommandSnapshot` of it.

The protocol class feeds it (`opened`, `changed`, `closed`); nothing else keeps server state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from complex_edit.server.lsp.abilities import ClientAbilities
from complex_edit.server.lsp.commands import Commands
from complex_edit.server.text.documents import DocumentStore, Snapshot

if TYPE_CHECKING:  # loaded with the command machinery at `initialized` (`ready`)
    from complex_edit.server.edit.review import Proposals
    from complex_edit.server.session.request import OpenDocument, WorkspaceRoot


@dataclass(frozen=True)
class CommandSnapshot:
    """What a command starts from: its document and the others open, as they are now, the
    workspace's roots, and what the state keeps across commands."""

    document: Snapshot
    open_documents: tuple[OpenDocument, ...]
    roots: tuple[WorkspaceRoot, ...]
    proposals: Proposals
    listing: object | None
    checkers: object | None


class ServerState:
    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.documents = DocumentStore()
        self.commands = Commands()
        # What the client can do, from its capabilities at `initialize`.
        self.abilities = ClientAbilities()
        # As the editor sent them; `SettingsLayer.client` reads them at each command.
        self.init_options: Any = None
        self.pushed_settings: Any = None
        # Edits answered before their change report, still watched for it (`echo.py`): each
        # ends with the report, its document's close, its time limit, or the wind-down.
        self.late_echoes: set[asyncio.Task[None]] = set()
        # The workspace's files, listed once and kept up to date across commands (a slot).
        self.listing: object | None = None
        # The checkers run on an edit's result, started once (a slot).
        self.checkers: object | None = None
        self._proposals: Proposals | None = None

    def ready(self) -> None:
        """Make what the commands need (at `initialized`, with their modules: made with the
        server, the proposals' imports would delay the answer to `initialize`)."""
        if self._proposals is None:
            from complex_edit.server.edit.review import Proposals

            self._proposals = Proposals()

    @property
    def proposals(self) -> Proposals:
        """The review proposals waiting for `complexEdit.applyReview`."""
        self.ready()  # a command before `initialized` (which no client sends)
        assert self._proposals is not None
        return self._proposals

    def opened(self, uri: str, text: str, version: int, language_id: str) -> None:
        self.documents.open(uri, text, version, language_id)
        self.commands.changed(uri)  # an edit of a file not open may be waiting for it

    def changed(self, uri: str) -> None:
        self.commands.changed(uri)

    def closed(self, uri: str) -> None:
        """`uri` was closed: its command learns it, and its proposals go."""
        self.documents.close(uri)
        self.commands.closed(uri)
        if self._proposals is not None:
            self._proposals.forget_document(uri)

    def snapshot(self, uri: str, roots: tuple[WorkspaceRoot, ...]) -> CommandSnapshot | None:
        """What the command on `uri` starts from; None when `uri` is not open."""
        from complex_edit.server.lsp.folders import open_documents  # pydantic: after start

        document = self.documents.get(uri)
        if document is None:
            return None
        return CommandSnapshot(
            document=document,
            open_documents=open_documents(self.documents, uri),
            roots=roots,
            proposals=self.proposals,
            listing=self.listing,
            checkers=self.checkers,
        )

    def tasks(self) -> set[asyncio.Task[Any]]:
        """What still runs of the commands: their tasks, and the reports awaited after them."""
        return {*self.commands.tasks(), *self.late_echoes}
