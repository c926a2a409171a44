"""The work-done progress of one command: cancellable, and coalesced so a busy session does not
flood the editor (or the event loop) with a report per tool call."""

from __future__ import annotations

import asyncio
import logging
import uuid
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from complex_edit.server.lsp.pacing import Latest
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
        self._ended = False
        self._reports = Latest(self._send_report, interval)

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
        self._reports.offer(describe(event))

    def _send_report(self, message: str) -> None:
        if self._ended or self.token is None:
            return
        self._ls.work_done_progress.report(
            self.token, types.WorkDoneProgressReport(message=scrub(message, self._ls.env))
        )

    def end(self, message: str) -> None:
        self._reports.drop()
        if self.token is None or self._ended:
            return
        self._ended = True
        self._ls.work_done_progress.end(
            self.token, types.WorkDoneProgressEnd(message=scrub(message, self._ls.env))
        )
        self._ls.work_done_progress.tokens.pop(self.token, None)
