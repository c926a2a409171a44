"""The running `performComplexEdit` commands of one server, by document (busy), and the waiters
for a document's next change.

A command holds its document from the moment it is accepted (while its progress is created,
then while it runs) until it ends; a second command on that document is `busy`. Once its edit
is on its way to the editor (`sending`), closing the document no longer cancels it: the edit
lands or is refused as a whole. What cancels a command otherwise (its request, its progress)
is the command's own business (`server/lsp/command.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from complex_edit.server.outcome import EditResult


class Commands:
    def __init__(self) -> None:
        self.running: dict[str, asyncio.Task[EditResult]] = {}
        # Commands whose edit is on its way to the editor: no longer cancelled by a close.
        self._sending: set[asyncio.Task[EditResult]] = set()
        # Commands creating their progress, by document (the value identifies the command).
        self._starting: dict[str, object] = {}
        self._waiters: dict[str, list[asyncio.Future[bool]]] = {}

    def busy(self, uri: str) -> bool:
        return uri in self.running or uri in self._starting

    def hold(self, uri: str) -> Callable[[object], None]:
        """Hold `uri` for a command not yet running; call the result (with any argument: it
        is also a done-callback) to let go, which only lets go of this command's hold."""
        token = object()
        self._starting[uri] = token

        def release(_: object = None) -> None:
            if self._starting.get(uri) is token:
                del self._starting[uri]

        return release

    def start(self, uri: str, task: asyncio.Task[EditResult]) -> None:
        """`task` runs the command on `uri`."""
        self.running[uri] = task

    def sending(self, task: asyncio.Task[EditResult]) -> None:
        """`task`'s edit is on its way to the editor: a close no longer cancels it."""
        if not task.done():
            self._sending.add(task)

    def finished(self, uri: str, task: asyncio.Task[EditResult]) -> None:
        """`task` ended, or can no longer apply anything: it no longer holds `uri`."""
        self._sending.discard(task)
        if self.running.get(uri) is task:
            del self.running[uri]

    def next_change(self, uri: str) -> asyncio.Future[bool]:
        """Resolves with True on the next didChange of `uri`, False if it is closed."""
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(uri, []).append(waiter)
        return waiter

    def changed(self, uri: str) -> None:
        self._wake(uri, True)

    def closed(self, uri: str) -> None:
        """`uri` was closed: its waiters learn it, and its command is cancelled unless its
        edit is already on its way."""
        self._wake(uri, False)
        task = self.running.get(uri)
        if task is not None and not task.done() and task not in self._sending:
            task.cancel("closed")

    def waiter_count(self) -> int:
        return sum(len(waiters) for waiters in self._waiters.values())

    def _wake(self, uri: str, changed: bool) -> None:
        for waiter in self._waiters.pop(uri, []):
            if not waiter.done():
                waiter.set_result(changed)
