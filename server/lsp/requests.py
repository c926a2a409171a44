"""pygls' request bookkeeping, behind one small adapter: the only module that reads pygls'
private `_request_futures` and `msg_id`.

pygls answers request N from the future it keeps under N in `_request_futures`; a
`$/cancelRequest` pops that future, cancels it and answers -32800 at once. So a request is
cancelled when its id is gone from there, and taking it out (`forget`) makes a late cancel
answer nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method


class RequestBookkeeping(LanguageServerProtocol):
    """pygls' protocol with its request futures kept bounded, and a shutdown that does not
    trip over them."""

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls keeps the future of every handler it runs under a made-up id (notifications,
        and the command inside `workspace/executeCommand`) and never removes it: one entry,
        holding its result, per didChange and per command. Remove it once it is done."""

        def done(future: Any) -> None:
            try:
                callback(future)
            finally:
                if self._request_futures.get(msg_id) is future:
                    del self._request_futures[msg_id]

        super()._execute_handler(msg_id, handler, done, args, kwargs)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' own shutdown cancels in-flight requests while iterating the dict that their
        cancellation callbacks pop from; iterate over a copy instead."""
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        yield from ()
        return None


@dataclass(frozen=True)
class Request:
    """The request a handler is answering: its id, and the future pygls answers it from (None
    when it was cancelled before the handler ran)."""

    protocol: LanguageServerProtocol
    msg_id: Any
    future: Future[Any] | None

    @classmethod
    def current(cls, protocol: LanguageServerProtocol) -> Request:
        msg_id = protocol.msg_id
        future = protocol._request_futures.get(msg_id) if msg_id is not None else None
        return cls(protocol, msg_id, future)

    def cancelled(self) -> bool:
        """Was it cancelled (or answered)? pygls has then sent its answer."""
        return self.msg_id not in self.protocol._request_futures

    def forget(self) -> None:
        """Take it out of pygls' cancellable set: a late cancel must not answer -32800 for an
        edit that lands."""
        self.protocol._request_futures.pop(self.msg_id, None)


def pending_count(protocol: LanguageServerProtocol) -> int:
    return len(protocol._request_futures)


def cancel_pending(protocol: LanguageServerProtocol) -> set[asyncio.Future[Any]]:
    """Cancel every request still pending; the tasks of those a coroutine handler runs."""
    tasks: set[asyncio.Future[Any]] = set()
    # Typed as concurrent futures, but a coroutine handler's entry is its asyncio task.
    pending: list[object] = list(protocol._request_futures.values())
    for future in pending:
        if isinstance(future, asyncio.Future | Future):
            future.cancel()
        if isinstance(future, asyncio.Future):
            tasks.add(future)
    return tasks
