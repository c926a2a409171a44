"""The tool dispatch of a session's turn: each call of the model run as it arrives (a search
of the workspace in a thread), its outcome kept until the turn is settled, its events reported
(`ToolStarted`, `ToolFinished`; complete_task's held back until the turn is settled), and the
change so far after each call that changed a text (`WorkingChanged`, `OtherChanged`, kept up to
date by `ChangesSoFar`). The turn itself (asking the model, settling a completion, the turn cap)
is `loop.py`'s."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

from complex_edit.edit_tools.registry import FIND_IN_FILES, Toolbox, ToolOutcome
from complex_edit.server.providers.base import ToolCall, ToolReply
from complex_edit.server.session.documents import Documents, OtherFile, Touched
from complex_edit.server.session.events import (
    EventSink,
    OtherChanged,
    ToolFinished,
    ToolStarted,
    WorkingChanged,
)
from complex_edit.server.session.request import EditRequest
from complex_edit.server.session.termination import refusal_line
from complex_edit.server.text.diff import TextChange, compute_edits
from complex_edit.server.text.hunks import changed_lines
from complex_edit.server.text.rebase import compose_changes
from complex_edit.server.workspace.kept import Kept


class ToolDispatch:
    """Runs the calls of one session over its `toolbox` (the command's document) and
    `documents` (every file it reads or changes). `turn` is the turn running now (the loop
    sets it); `outcomes` this turn's calls and their outcomes, `completions` its complete_task
    calls; `integrity` and `tool_calls` count over the whole session."""

    def __init__(self, request: EditRequest, on_event: EventSink, kept: Kept | None = None) -> None:
        self.request = request
        self.on_event = on_event
        self.max_turns = request.settings.max_turns
        limit = request.settings.max_document_bytes
        self.toolbox = Toolbox(
            request.text,
            max_argument_bytes=limit,
            max_text_chars=limit,
            elide_repeated_views=True,
        )
        self.documents = Documents(request, self.toolbox, kept)
        self.integrity: Counter[str] = Counter()
        self.completions: list[tuple[ToolCall, ToolOutcome]] = []
        self.outcomes: list[tuple[ToolCall, ToolOutcome]] = []
        self.so_far = ChangesSoFar()
        self.others_so_far: dict[str, ChangesSoFar] = {}
        self.turn = 0
        self.tool_calls = 0

    async def execute(self, call: ToolCall) -> None:
        """Run one call as it arrives; its outcome counts when the turn is settled. A search
        of the workspace runs in a thread: other sessions of the process go on meanwhile."""
        self.tool_calls += 1
        self.on_event(
            ToolStarted(
                self.turn, self.max_turns, call.name, Toolbox.summarize_call(call.name, call.args)
            )
        )
        if call.name == FIND_IN_FILES:
            touched = await asyncio.to_thread(self._run_call, call)
        else:
            touched = self._run_call(call)
        outcome = touched.outcome
        self.integrity.update(outcome.adjustments)
        if outcome.refusal is not None:
            self.integrity[outcome.refusal] += 1
        self.outcomes.append((call, outcome))
        if outcome.completion is not None:
            self.completions.append((call, outcome))
            return
        self.on_event(
            ToolFinished(
                self.turn,
                self.max_turns,
                call.name,
                outcome.ok,
                outcome.summary,
                outcome.adjustments,
            )
        )
        if touched.other is not None:
            if touched.other.toolbox.text != touched.before:
                self._other_changed(touched.other, touched.before)
        elif self.toolbox.text != touched.before:
            self._working_changed(touched.before)

    def _working_changed(self, before: str) -> None:
        """The change so far, after a call that changed the working text (live preview)."""
        snapshot = self.request.text
        changes = self.so_far.add(snapshot, before, self.toolbox.text)
        added, removed = changed_lines(snapshot, changes)
        self.on_event(WorkingChanged(self.turn, self.max_turns, tuple(changes), added, removed))

    def _other_changed(self, other: OtherFile, before: str) -> None:
        """`_working_changed` for another file of the workspace."""
        snapshot = other.opened.text
        first = other.opened.path not in self.others_so_far
        so_far = self.others_so_far.setdefault(other.opened.path, ChangesSoFar())
        changes = so_far.add(snapshot, before, other.toolbox.text)
        added, removed = changed_lines(snapshot, changes)
        self.on_event(
            OtherChanged(
                self.turn,
                self.max_turns,
                other.opened.path,
                other.label,
                tuple(changes),
                added,
                removed,
                snapshot if first and not other.opened.from_editor else None,
            )
        )

    def _run_call(self, call: ToolCall) -> Touched:
        if call.args_error is not None:
            failed = ToolOutcome(
                name=call.name,
                ok=False,
                response={"error": call.args_error},
                summary=f"{call.name}: error: unreadable arguments",
            )
            return Touched(failed, None, self.toolbox.text)
        return self.documents.execute(call.name, call.args)

    def report_completions(self, results: Sequence[ToolReply]) -> None:
        """The `ToolFinished` of this turn's complete_task calls, held back until the turn is
        settled: a completion refused (a failed call beside it, new syntax errors) shows as
        refused, with why."""
        for call, outcome in self.completions:
            result = next((r for r in results if r.call is call), None)
            ok = result.ok if result is not None else outcome.ok
            summary = outcome.summary if ok or result is None else refusal_line(result)
            self.on_event(
                ToolFinished(self.turn, self.max_turns, call.name, ok, summary, outcome.adjustments)
            )
        self.completions = []


class ChangesSoFar:
    """The working text's change against the snapshot, kept up to date call by call: each
    call's own change (cheap: one place) is composed with the earlier ones, and each composed
    region is refined to its minimal changes. Equal to `compute_edits(snapshot, working)` in
    what it applies, at a cost that does not grow with the number of changes so far."""

    def __init__(self) -> None:
        self._steps: list[TextChange] = []  # applied one after another, from the snapshot
        self._refined: dict[TextChange, list[TextChange]] = {}  # by region, last call's

    def add(self, snapshot: str, before: str, after: str) -> list[TextChange]:
        # Simultaneous changes, applied last first, are sequential ones with the same offsets.
        self._steps.extend(reversed(compute_edits(before, after)))
        refined = {
            region: self._refined.get(region) or _refine(snapshot, region)
            for region in compose_changes(self._steps)
        }
        self._refined = refined
        return [change for changes in refined.values() for change in changes]


def _refine(snapshot: str, region: TextChange) -> list[TextChange]:
    """`region`'s minimal changes, as offsets into `snapshot`."""
    start = region.start
    return [
        TextChange(start + change.start, start + change.end, change.new_text)
        for change in compute_edits(snapshot[start : region.end], region.new_text)
    ]
