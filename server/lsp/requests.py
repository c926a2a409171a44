"""The requests in flight, in tables of our own: the editor's requests being answered (`Request`),
the coroutine handlers running, and our requests to the editor. pygls' own table
(`_request_futures`) is never read: its hooks are overridden instead.

pygls answers request N from a future of its own; a `$/cancelRequest` cancels that future,
which answers -32800 at once. Here a cancel also reaches our `Request` (its `on_cancel`
callbacks), and a request taken out of the cancellable set (`forget`) makes a late cancel
answer nothing. pygls also keeps the future of every handler it runs under a made-up id
(notifications, and the command inside `workspace/executeCommand`) and never removes it; those
handlers run here without being kept.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Coroutine, Generator
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

log = logging.getLogger("complex_edit")


class Request:
    """A request of the editor being answered: cancelled by `$/cancelRequest` (or `shutdown`),
    which pygls answers with -32800, or forgotten (a late cancel then answers nothing)."""

    def __init__(self, msg_id: Any, *, cancelled: bool = False) -> None:
        self.msg_id = msg_id
        self.answered_cancelled = cancelled
        """pygls has answered it with -32800 (it drops whatever its handler returns)."""
        self.started = False
        """pygls runs a handler for it (else it has answered it with an error)."""
        self._forgotten = False
        self._on_cancel: list[Callable[[], None]] = []

    @classmethod
    def current(cls, protocol: RequestBookkeeping) -> Request:
        """The request the running handler answers (already cancelled when pygls answered it
        before the handler ran)."""
        found = protocol.requests.get(protocol.msg_id)
        return found if found is not None else cls(protocol.msg_id, cancelled=True)

    def cancelled(self) -> bool:
        """Was it cancelled (or forgotten)? A cancel no longer reaches it."""
        return self.answered_cancelled or self._forgotten

    def forget(self) -> None:
        """Take it out of the cancellable set: a late cancel must not answer -32800 for an
        edit that lands."""
        self._forgotten = True
        self._on_cancel.clear()

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Call `callback` when the request is cancelled (at once if it was)."""
        if self.answered_cancelled:
            callback()
        elif not self._forgotten:
            self._on_cancel.append(callback)

    def cancel(self) -> None:
        """pygls has answered it with -32800: tell who listens."""
        if self.cancelled():
            return
        self.answered_cancelled = True
        callbacks, self._on_cancel = self._on_cancel, []
        for callback in callbacks:
            callback()


class RequestBookkeeping(LanguageServerProtocol):
    """pygls' protocol with the requests in flight in our own tables, its made-up-id handlers
    not kept, and a shutdown that cancels what runs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.requests: dict[Any, Request] = {}
        self._handlers: set[asyncio.Task[Any]] = set()
        self._outgoing: set[Future[Any]] = set()

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        request = self.requests[msg_id] = Request(msg_id)
        super()._handle_request(msg_id, method_name, params)
        if not request.started:  # no handler for it: pygls has answered with an error
            self.requests.pop(msg_id, None)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        request = self.requests.get(msg_id)
        if request is not None and request.cancelled():
            log.debug("Cancel of request %s ignored: its edit is on its way.", msg_id)
            return
        super()._handle_cancel_notification(msg_id)  # pygls answers -32800
        if request is not None:
            self.requests.pop(msg_id, None)
            request.cancel()

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        if asyncio.iscoroutinefunction(handler):
            handler = self._tracked(handler)
        request = self.requests.get(msg_id)
        if request is not None:  # the editor's request: pygls answers it from its own future
            request.started = True

            def answered(future: Any) -> None:
                if self.requests.get(msg_id) is request:
                    del self.requests[msg_id]
                callback(future)

            super()._execute_handler(msg_id, handler, answered, args, kwargs)
            return
        # A notification or a step of a generator handler, under an id pygls made up: pygls
        # would keep its future for ever (one per keystroke). Run it the same way, unkept.
        args, kwargs = args or (), kwargs or {}
        if asyncio.iscoroutinefunction(handler):
            asyncio.ensure_future(handler(*args, **kwargs)).add_done_callback(callback)
        elif inspect.isgeneratorfunction(handler):
            future: Future[Any] = Future()
            future.add_done_callback(callback)
            try:
                self._run_generator(future=None, gen=handler(*args, **kwargs), result_future=future)
            except Exception as exc:
                future.set_exception(exc)
        else:  # plain functions pygls never keeps; thread functions (we register none) it does
            super()._execute_handler(msg_id, handler, callback, args, kwargs)

    def _tracked(
        self, handler: Callable[..., Coroutine[Any, Any, Any]]
    ) -> Callable[..., Coroutine[Any, Any, Any]]:
        """`handler`, its task in `_handlers` while it runs."""

        async def tracked(*args: Any, **kwargs: Any) -> Any:
            task = asyncio.current_task()
            assert task is not None
            self._handlers.add(task)
            try:
                return await handler(*args, **kwargs)
            finally:
                self._handlers.discard(task)

        return tracked

    def send_request(
        self,
        method: str,
        params: Any | None = None,
        callback: Callable[[Any], None] | None = None,
        msg_id: Any = None,
    ) -> Future[Any]:
        future = super().send_request(method, params, callback, msg_id)
        self._outgoing.add(future)
        future.add_done_callback(self._outgoing.discard)
        return future

    def pending_count(self) -> int:
        """The editor's requests being answered (but the one asking), handlers running and
        requests to the editor not answered yet."""
        answering = [msg_id for msg_id in self.requests if msg_id != self.msg_id]
        return len(answering) + len(self._handlers) + len(self._outgoing)

    def cancel_pending(self) -> set[asyncio.Task[Any]]:
        """Cancel every request in flight but the one being handled (the editor's: pygls
        answers -32800), every handler running (its task: CancelledError inside it) and every
        request to the editor; the handlers' tasks, to wait for."""
        current = self.msg_id
        for msg_id in [msg_id for msg_id in self.requests if msg_id != current]:
            self._handle_cancel_notification(msg_id)
        running = {task for task in self._handlers if task is not asyncio.current_task()}
        for task in running:
            task.cancel()
        for future in list(self._outgoing):
            future.cancel()
        return running

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' own shutdown cancels in-flight requests while iterating the dict that their
        cancellation callbacks pop from; cancel ours instead."""
        self.cancel_pending()
        self._shutdown = True
        yield from ()
        return None
