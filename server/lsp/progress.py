"""The work-done progress of one command: cancellable, and coalesced so a busy session does not
flood the editor (or the event loop) with a report per tool call."""

from __future__ import annotations

import asyncio
import logging
import uuid
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from complex_edit.server.outcome import scrub
from complex_edit.server.session.events import SessionEvent, SessionFinished, describe

if TYPE_CHECKING:
    from complex_edit.server.lsp.server import ComplexEditServer

log = logging.getLogger("complex_edit.progress")
CREATE_TIMEOUT_SECONDS = 5.0
# At most one report per interval; the latest message wins and the end is always sent.
REPORT_INTERVAL_SECONDS = 0.1


class Progress:
    """A cancellable work-done progress, or nothing when the client cannot show one."""

    def __init__(
        self,
        ls: ComplexEditServer,
        token: str | None,
        interval: float = REPORT_INTERVAL_SECONDS,
    ) -> None:
        self._ls = ls
        self.token = token
        self._interval = interval
        self._ended = False
        self._pending: str | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._last_sent = float("-inf")

    @classmethod
    async def start(cls, ls: ComplexEditServer, title_message: str) -> Progress:
        if not ls.abilities.work_done_progress:
            return cls(ls, None)
        token = f"complex-edit/{uuid.uuid4()}"
        try:
            async with asyncio.timeout(CREATE_TIMEOUT_SECONDS):
                await ls.work_done_progress.create_async(token)
        except Exception as exc:
            log.warning("could not create progress: %s", type(exc).__name__)
            return cls(ls, None)
        ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="Complex Edit", message=title_message, cancellable=True
            ),
        )
        return cls(ls, token)

    def cancel_future(self) -> Future[Any] | None:
        if self.token is None:
            return None
        return self._ls.work_done_progress.tokens.get(self.token)

    def report(self, event: SessionEvent) -> None:
        if self.token is None or self._ended or isinstance(event, SessionFinished):
            return
        self._pending = describe(event)
        if self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_sent + self._interval - loop.time()
        if wait <= 0:
            self._flush()
        else:
            self._timer = loop.call_later(wait, self._flush)

    def _flush(self) -> None:
        self._timer = None
        if self._pending is None or self._ended or self.token is None:
            return
        message, self._pending = scrub(self._pending, self._ls.env), None
        self._last_sent = asyncio.get_running_loop().time()
        self._ls.work_done_progress.report(
            self.token, types.WorkDoneProgressReport(message=message)
        )

    def end(self, message: str) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.token is None or self._ended:
            return
        self._ended = True
        self._ls.work_done_progress.end(
            self.token, types.WorkDoneProgressEnd(message=scrub(message, self._ls.env))
        )
        self._ls.work_done_progress.tokens.pop(self.token, None)
