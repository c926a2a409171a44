"""What the editor's reports show of an edit it answered (`LspDelivery`, the port's
`Delivery` over a pygls connection): the command's document's hunks as its change reports
arrive (`landed`), and whether each other document of the edit shows its change
(`others_landed`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from complex_edit.server.edit.port import DocumentEdit, Landing
from complex_edit.server.lsp.echo import LATE_ECHO_SECONDS, confirm_later
from complex_edit.server.text.diff import apply_changes
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk, landed_hunks

if TYPE_CHECKING:
    from complex_edit.server.lsp.server import ComplexEditServer

# After some, not all, of the reviewed hunks have landed: how long to wait for the rest to be
# reported before answering with what landed.
SETTLE_SECONDS = 0.5


class LspDelivery:
    """An edit the editor answered, and the change report that answers it in the command's
    document (`echo`: the next didChange after the edit was sent)."""

    def __init__(
        self,
        ls: ComplexEditServer,
        base: Snapshot,
        echo: asyncio.Future[bool],
        answer: types.ApplyWorkspaceEditResult,
        *,
        late: bool = False,
        others: Sequence[tuple[DocumentEdit, asyncio.Future[bool]]] = (),
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

    async def _other_landed(self, other: DocumentEdit, echo: asyncio.Future[bool]) -> bool:
        uri = other.base.uri
        while not self._other_shows(other):
            if not await echo and other.versioned:
                return False  # closed
            echo = self._ls.commands.next_change(uri)
        return True

    def _other_shows(self, other: DocumentEdit) -> bool:
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
