"""A session's result in the form applying it needs, and who runs sessions.

`run_and_diff` runs a session and turns a success into each document's diff and minimal
changes from the text the session read to the result, where the session ran (in the language
server's session process: off its event loop). `SessionRunner` is what the edit flow runs
sessions with: the session process for the language server, `InProcess` for the CLI, the MCP
server and tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from complex_edit.server.check.pool import CheckerPool
from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.providers.base import Provider
from complex_edit.server.session.changed import DocumentResult
from complex_edit.server.session.events import EventSink
from complex_edit.server.session.loop import run_session
from complex_edit.server.session.request import EditRequest
from complex_edit.server.workspace.kept import Kept


@dataclass(frozen=True)
class FinishedSession:
    """A finished session and, for a success, each document it changed (`documents`: the
    command's own first, even unchanged; then the others in the order they joined the
    edit). The outcome has no `final_text` (`run_session` drops it): the documents carry the
    result, so a multi-megabyte text does not travel back from the session process twice."""

    outcome: SessionOutcome
    documents: tuple[DocumentResult, ...] = ()


async def run_and_diff(
    request: EditRequest,
    provider: Provider,
    on_event: EventSink,
    checks: CheckerPool | None = None,
    kept: Kept | None = None,
) -> FinishedSession:
    outcome, edited = await run_session(request, provider, on_event, checks, kept)
    return FinishedSession(outcome, edited)


class SessionRunner(Protocol):
    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        """`run_and_diff` with a provider of the runner's; cancellation propagates."""
        ...


class InProcess:
    """Runs sessions on the caller's event loop, with `provider` (and the checkers of
    `checks`, which the caller closes); the workspace's listing kept between its sessions."""

    def __init__(self, provider: Provider, checks: CheckerPool | None = None) -> None:
        self._provider = provider
        self.checks = checks
        self._kept = Kept()

    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        return await run_and_diff(request, self._provider, on_event, self.checks, self._kept)
