"""Which command holds which document (a second command on it is `busy`), and the waiters for a
document's next change.

A command holds its document from the moment it is accepted until it ends or is cancelled;
whether a close still cancels it is the command's own business (`server/lsp/life.py`).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Protocol


class Holder(Protocol):
    """A command holding a document: told when the document is closed."""

    @property
    def task(self) -> asyncio.Task[Any] | None: ...

    def closed(self) -> None: ...


class Commands:
    def __init__(self) -> None:
        self._holders: dict[str, Holder] = {}
        self._waiters: dict[str, list[asyncio.Future[bool]]] = {}

    def busy(self, uri: str) -> bool:
        return uri in self._holders

    def hold(self, uri: str, holder: Holder) -> None:
        self._holders[uri] = holder

    def release(self, uri: str, holder: Holder) -> None:
        """`holder` lets go of `uri` (if it still holds it)."""
        if self._holders.get(uri) is holder:
            del self._holders[uri]

    def tasks(self) -> set[asyncio.Task[Any]]:
        """The tasks of the commands holding a document and running."""
        return {holder.task for holder in self._holders.values() if holder.task is not None}

    def next_change(self, uri: str) -> asyncio.Future[bool]:
        """Resolves with True on the next didChange of `uri`, False if it is closed."""
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(uri, []).append(waiter)
        # A wait given up (cancelled) goes at once: a document never opened never wakes it.
        waiter.add_done_callback(functools.partial(self._forget, uri))
        return waiter

    def changed(self, uri: str) -> None:
        self._wake(uri, True)

    def closed(self, uri: str) -> None:
        """`uri` was closed: its waiters learn it, and so does the command holding it."""
        self._wake(uri, False)
        holder = self._holders.get(uri)
        if holder is not None:
            holder.closed()

    def waiter_count(self) -> int:
        return sum(len(waiters) for waiters in self._waiters.values())

    def _forget(self, uri: str, waiter: asyncio.Future[bool]) -> None:
        waiters = self._waiters.get(uri)
        if waiters is not None and waiter in waiters:
            waiters.remove(waiter)
            if not waiters:
                del self._waiters[uri]

    def _wake(self, uri: str, changed: bool) -> None:
        for waiter in self._waiters.pop(uri, []):
            if not waiter.done():
                waiter.set_result(changed)
