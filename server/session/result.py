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

from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.providers.base import Provider
from complex_edit.server.session.events import EventSink
from complex_edit.server.session.loop import EditedFile, run_session
from complex_edit.server.session.request import EditRequest
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.unified import unified_diff


@dataclass(frozen=True)
class DocumentResult:
    """One document of a session's result: `label` heads its diff (its path from the
    workspace root, else its path as given), `path` is absolute (None: the command's document
    when it is no file), `original` the text the session started it from (`version`: the
    editor buffer's version then; None from disk, or the command's document, whose snapshot
    the edit flow holds), `diff` its unified diff (`a/` and `b/` headers), `changes` the
    minimal changes from `original` to the result."""

    label: str
    original: str
    diff: str
    changes: tuple[TextChange, ...]
    path: str | None = None
    version: int | None = None

    @classmethod
    def of(cls, edited: EditedFile) -> DocumentResult:
        """`edited`, with its diff and its changes worked out."""
        return cls.to(edited.original, edited.text, edited.label, edited.path, edited.version)

    @classmethod
    def to(
        cls,
        original: str,
        target: str,
        label: str,
        path: str | None = None,
        version: int | None = None,
    ) -> DocumentResult:
        """The change of `original` into `target`."""
        changes = tuple(compute_edits(original, target))
        return cls(label, original, unified_diff(original, target, label), changes, path, version)

    def target(self) -> str:
        """The result: `changes` applied to `original`."""
        return apply_changes(self.original, self.changes)


@dataclass(frozen=True)
class FinishedSession:
    """A finished session and, for a success, each document it changed (`documents`: the
    command's own first, even unchanged; then the others in the order they joined the
    edit). The outcome has no `final_text` (`run_session` drops it): the documents carry the
    result, so a multi-megabyte text does not travel back from the session process twice."""

    outcome: SessionOutcome
    documents: tuple[DocumentResult, ...] = ()


async def run_and_diff(
    request: EditRequest, provider: Provider, on_event: EventSink
) -> FinishedSession:
    outcome, edited = await run_session(request, provider, on_event)
    return FinishedSession(outcome, tuple(DocumentResult.of(one) for one in edited))


class SessionRunner(Protocol):
    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        """`run_and_diff` with a provider of the runner's; cancellation propagates."""
        ...


class InProcess:
    """Runs sessions on the caller's event loop, with `provider`."""

    def __init__(self, provider: Provider) -> None:
        self._provider = provider

    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        return await run_and_diff(request, self._provider, on_event)
