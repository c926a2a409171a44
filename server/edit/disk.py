"""Edit one file on disk with the shared flow (`server.edit.flow`): the CLI's and the MCP
tool's editor.

read (refuse binary / too large / read-only) → the flow (its checks, session, diff; dry run:
stop) → atomic, change-checked write. Problems found before any model call raise
`EditRefused`; everything after is an `EditResult`. The write is the last step and has no
await inside it, so a cancelled task writes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from complex_edit.server.edit.apply import FlowEvent, Sending
from complex_edit.server.edit.files import (
    FileChanged,
    FileRefused,
    TextFile,
    check_writable,
    read_text_file,
    write_atomic,
)
from complex_edit.server.edit.flow import EditOrder, perform
from complex_edit.server.edit.port import Landing, OtherEdit, Review
from complex_edit.server.edit.review import Proposals
from complex_edit.server.outcome import EditRefused, EditResult, SessionOutcome
from complex_edit.server.session.events import EventSink, SessionEvent
from complex_edit.server.session.request import EditRequest, LineRange
from complex_edit.server.session.result import FinishedSession, SessionRunner
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange, apply_changes
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk
from complex_edit.server.text.positions import Encoding


def _ignore(_: SessionEvent) -> None:
    return None


async def edit_file(
    path: Path,
    prompt: str,
    settings: Settings,
    runner: SessionRunner,
    on_event: EventSink = _ignore,
    *,
    dry_run: bool = False,
    selection: LineRange | None = None,
    label: str | None = None,
    proposals: Proposals | None = None,
) -> EditResult:
    """Run the instruction on the file at `path` (already resolved and allowed by the caller).
    A change proposed for review is kept in `proposals`, to land the kept hunks later.

    Raises EditRefused before any model call. Cancellation propagates; nothing is written
    after it.
    """
    shown = label or path.name
    document = _open(path, settings, shown, dry_run=dry_run)
    order = EditOrder(
        uri=str(path),
        prompt=prompt,
        settings=settings,
        label=shown,
        selection=selection,
        dry_run=dry_run,
    )

    def report(event: FlowEvent) -> None:
        if not isinstance(event, Sending):  # a write cannot be cancelled half-way anyway
            on_event(event)

    runner = _FitTheFile(runner, document)
    return await perform(order, DiskEditor(document, shown), runner, report, proposals)


def _open(path: Path, settings: Settings, shown: str, *, dry_run: bool) -> TextFile:
    """The file, read, when it is a text file that can be edited (and written)."""
    try:
        document = read_text_file(path, settings.max_document_bytes, shown)
        if not dry_run:
            check_writable(path, shown)
    except FileRefused as exc:
        raise EditRefused(exc.reason, exc.message) from None
    return document


@dataclass(frozen=True)
class _Written:
    """A write that happened: every hunk landed."""

    applied: bool = True
    failure_reason: str | None = None

    async def others_landed(self, limit_seconds: float) -> bool:
        return True

    async def landed(self, hunks: Sequence[Hunk], limit_seconds: float, *, settle: bool) -> Landing:
        return Landing(kept=list(range(len(hunks))), heard=True)


class DiskEditor:
    """`EditorPort` over one file as it was read: the document does not move while the
    session runs (a change on disk is found by the write, which then refuses)."""

    def __init__(self, document: TextFile, label: str) -> None:
        self._document = document
        self._label = label
        self._snapshot = Snapshot(str(document.path), 0, document.text, "")

    def is_open(self, uri: str) -> bool:
        return True

    def snapshot(self, uri: str) -> Snapshot:
        return self._snapshot

    def can_apply_edits(self) -> bool:
        return True

    def can_edit_several(self) -> bool:
        """Not yet: writing several files all or none is the CLI's to come."""
        return False

    def uri_for(self, path: str) -> str:
        return path

    def disk_text(self, uri: str) -> str | None:
        return self._document.text if uri == str(self._document.path) else None

    def can_review(self) -> bool:
        """A file has no one to ask: review answers with the hunks, writing nothing."""
        return False

    def encoding(self) -> Encoding:
        return "utf-16"

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        return []

    async def apply(
        self,
        base: Snapshot,
        changes: Sequence[TextChange],
        label: str,
        limit_seconds: float,
        review: Review | None = None,
        others: Sequence[OtherEdit] = (),
    ) -> _Written:
        """The atomic, change-checked write of the result."""
        document, shown = self._document, self._label
        data = document.encode(apply_changes(base.text, changes))
        # Let a cancellation that is already on its way land now; from here on nothing awaits.
        await asyncio.sleep(0)
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise asyncio.CancelledError
        try:
            write_atomic(document.path, data, document.raw, document.mode)
        except FileChanged:
            raise EditRefused(
                "document_changed",
                f"{shown} changed on disk after it was read; nothing was written. "
                "Run the edit again.",
                keep_diff=True,
            ) from None
        except OSError as exc:
            raise EditRefused(
                "client_rejected",
                f"{shown} could not be written ({exc.strerror or exc}); it is unchanged.",
                keep_diff=True,
            ) from None
        return _Written()


class _FitTheFile:
    """The session's result as the file will hold it: with a byte-order mark exactly when
    the file has one (what `TextFile.encode` writes). A result the file cannot hold (a lone
    surrogate) fails as a model error, before any dry run shows it."""

    def __init__(self, runner: SessionRunner, document: TextFile) -> None:
        self._runner = runner
        self._document = document

    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        finished = await self._runner.run_session(request, on_event)
        if not finished.outcome.success:
            return finished
        target = finished.target(request.text)
        fitted = self._document.conform(target)
        try:
            fitted.encode("utf-8")
        except UnicodeEncodeError:
            return FinishedSession(_unwritable(finished.outcome))
        return (
            finished if fitted == target else FinishedSession.of(request, finished.outcome, fitted)
        )


def _unwritable(outcome: SessionOutcome) -> SessionOutcome:
    """The session's outcome when its result cannot be written: a model error, with the
    session's counts."""
    return SessionOutcome(
        success=False,
        reason="model_error",
        error="The result contains invalid Unicode (a lone surrogate); nothing was written.",
        turns=outcome.turns,
        tool_calls=outcome.tool_calls,
        usage=outcome.usage,
        validation=outcome.validation,
        integrity=outcome.integrity,
    )
