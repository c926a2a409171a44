"""Sessions run on a worker thread's own event loop, so the language server's loop only does
protocol work.

A session spends 10–50 ms of CPU between two awaits (the first message, the SDK building a
request and parsing the answer, tools on large texts). On the server's loop, twenty sessions
whose model turns come back together would keep every other request waiting behind all of
that; here the loop stays free and the interpreter switches threads every millisecond.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.events import EventSink, SessionEvent
    from server.outcome import SessionOutcome
    from server.providers.base import Provider
    from server.session import EditRequest

log = logging.getLogger("complex_edit.sessions")


class SessionThread:
    """One daemon thread running an event loop, started on first use."""

    def __init__(self, name: str = "complex-edit-sessions") -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def _worker_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name=self._name, daemon=True).start()
                self._loop = loop
            return self._loop

    def close(self) -> None:
        """Stop the worker loop (sessions still on it are abandoned)."""
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)

    def submit(self, work: Callable[[], None]) -> concurrent.futures.Future[None]:
        """Run the blocking `work` on the worker thread (it holds up the sessions meanwhile)."""
        done: concurrent.futures.Future[None] = concurrent.futures.Future()

        def call() -> None:
            try:
                work()
            except BaseException as exc:
                done.set_exception(exc)
            else:
                done.set_result(None)

        self._worker_loop().call_soon_threadsafe(call)
        return done

    async def run_session(
        self, request: EditRequest, provider: Provider, on_event: EventSink
    ) -> SessionOutcome:
        """`server.session.run_session` on the worker loop; `on_event` is called on the
        caller's loop, in order. Cancelling the caller cancels the session (its HTTP request
        is aborted on the worker loop) without waiting for it to unwind."""
        from server.session import run_session

        home = asyncio.get_running_loop()

        def forward(event: SessionEvent) -> None:
            try:
                home.call_soon_threadsafe(on_event, event)
            except RuntimeError:
                log.debug("event dropped: the server's loop is closed")

        future: concurrent.futures.Future[Any] = asyncio.run_coroutine_threadsafe(
            run_session(request, provider, forward), self._worker_loop()
        )
        try:
            outcome: SessionOutcome = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise
        return outcome
