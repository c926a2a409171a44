"""The running `performComplexEdit` commands of one server: which document each holds, what
cancels it, and the waiters for a document's next change.

A command holds its document from the moment it is accepted (while its progress is created,
then while it runs) until it ends; a second command on that document is `busy`. Cancelling
its request or its progress cancels its task and frees the document at once. Once its edit is
on its way to the editor (`unlink`), nothing cancels it any more, not even closing the
document: the edit lands or is refused as a whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from complex_edit.server.outcome import EditResult

AnyFuture = Future[Any] | asyncio.Future[Any]


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

    def start(
        self, uri: str, task: asyncio.Task[EditResult], cancels: list[AnyFuture | None]
    ) -> Callable[[], None]:
        """`task` runs the command on `uri`; it is cancelled when one of `cancels` (the
        request's future, the progress') is. Returns `unlink`: from then on, nothing cancels
        it (call it right before the edit is sent)."""
        self.running[uri] = task
        linked = True

        def on_done(future: AnyFuture) -> None:
            if linked and future.cancelled() and not task.done():
                task.cancel()
                # The client may already have its -32800 and send the next command before
                # this task has unwound; it can no longer apply anything, so it no longer
                # holds the document.
                for held, running in list(self.running.items()):
                    if running is task:
                        del self.running[held]

        for future in cancels:
            if future is not None:
                future.add_done_callback(on_done)

        def unlink() -> None:
            nonlocal linked
            linked = False
            if not task.done():
                self._sending.add(task)

        return unlink

    def finished(self, uri: str, task: asyncio.Task[EditResult]) -> None:
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
