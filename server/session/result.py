"""A session's result in the form applying it needs, and who runs sessions.

`run_and_diff` runs a session and turns a success into the diff and the minimal changes from
the session's text to the result, where the session ran (in the language server's session
process: off its event loop). `SessionRunner` is what the edit flow runs sessions with: the
session process for the language server, `InProcess` for the CLI, the MCP server and tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from complex_edit.server.check.pool import CheckerPool
from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.providers.base import Provider
from complex_edit.server.session.events import EventSink
from complex_edit.server.session.loop import EditedFile, run_session
from complex_edit.server.session.request import EditRequest
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.unified import unified_diff


@dataclass(frozen=True)
class OtherDocument:
    """A document other than the command's own that the session changed: `path` absolute,
    `label` workspace-relative with forward slashes, `original` the snapshot the session
    started that file from (`version`: the editor buffer's version then, None from disk),
    `diff` its unified diff (`a/` and `b/` headers), `changes` the minimal changes from
    `original` to the result."""

    path: str
    label: str
    original: str
    version: int | None
    diff: str
    changes: tuple[TextChange, ...]

    @classmethod
    def of(cls, edited: EditedFile) -> OtherDocument:
        return cls(
            edited.path,
            edited.label,
            edited.original,
            edited.version,
            unified_diff(edited.original, edited.text, edited.label),
            tuple(compute_edits(edited.original, edited.text)),
        )

    def target(self) -> str:
        """The result: `changes` applied to `original`."""
        return apply_changes(self.original, self.changes)


@dataclass(frozen=True)
class FinishedSession:
    """A finished session and, for a success, the diff and the changes from the session's
    text to the result. The outcome's `final_text` is dropped: `changes` carry the result, so
    a multi-megabyte text does not travel back from the session process twice."""

    outcome: SessionOutcome
    diff: str = ""
    changes: tuple[TextChange, ...] = ()
    others: tuple[OtherDocument, ...] = ()
    """Documents other than the command's own that the session changed, in the order they
    joined the edit."""

    @classmethod
    def of(
        cls,
        request: EditRequest,
        outcome: SessionOutcome,
        target: str,
        others: tuple[EditedFile, ...] = (),
    ) -> FinishedSession:
        """The successful `outcome` of `request`, whose result is `target` (and `others`)."""
        return cls(
            outcome.model_copy(update={"final_text": None}),
            unified_diff(request.text, target, request.path_label or ""),
            tuple(compute_edits(request.text, target)),
            tuple(OtherDocument.of(edited) for edited in others),
        )

    def target(self, text: str) -> str:
        """The result: `changes` applied to `text`, the text the session was given."""
        return apply_changes(text, self.changes)


async def run_and_diff(
    request: EditRequest,
    provider: Provider,
    on_event: EventSink,
    checks: CheckerPool | None = None,
) -> FinishedSession:
    outcome, others = await run_session(request, provider, on_event, checks)
    if not outcome.success or outcome.final_text is None:
        return FinishedSession(outcome)
    return FinishedSession.of(request, outcome, outcome.final_text, others)


class SessionRunner(Protocol):
    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        """`run_and_diff` with a provider of the runner's; cancellation propagates."""
        ...


class InProcess:
    """Runs sessions on the caller's event loop, with `provider` (and the checkers of
    `checks`, which the caller closes)."""

    def __init__(self, provider: Provider, checks: CheckerPool | None = None) -> None:
        self._provider = provider
        self.checks = checks

    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        return await run_and_diff(request, self._provider, on_event, self.checks)
