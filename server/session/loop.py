"""The provider-agnostic tool loop: one instruction, one document, a capped number of turns.

Each model turn is streamed: a call runs as soon as it has arrived, in order, while the model is
still writing the rest of its turn. Termination is judged on the whole turn, as the contract
says: `complete_task(success=true)` ends the run only when no other call in the same turn
failed; `complete_task(success=false)` fails it; the turn cap fails it with `max_turns`. Only a
success carries a final text.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from complex_edit.edit_tools.lines import line_count, line_endings
from complex_edit.edit_tools.registry import (
    FIND_IN_FILES,
    Toolbox,
    ToolOutcome,
    render_document,
)
from complex_edit.edit_tools.syntax import Validation, render_problems
from complex_edit.prompts.loader import load
from complex_edit.server.check.pool import CheckerPool
from complex_edit.server.outcome import Reason, RunError, SessionOutcome, Usage
from complex_edit.server.providers._retry import RetryNotice
from complex_edit.server.providers.base import (
    Conversation,
    ConversationRequest,
    ModelTurn,
    Provider,
    Thought,
    ToolCall,
    ToolReply,
)
from complex_edit.server.providers.streaming import aclose
from complex_edit.server.session.checking import ASK, Checking
from complex_edit.server.session.documents import Documents, OtherFile, Touched
from complex_edit.server.session.events import (
    EventSink,
    ModelRetrying,
    ModelThinking,
    ModelWaiting,
    OtherChanged,
    SessionEvent,
    SessionFinished,
    ToolFinished,
    ToolStarted,
    TurnStarted,
    WorkingChanged,
)
from complex_edit.server.session.request import EditRequest
from complex_edit.server.session.termination import (
    refusal_line,
    refuse_completion,
    settle_completion,
)
from complex_edit.server.session.validation import ResultValidator
from complex_edit.server.text.diff import TextChange, compute_edits
from complex_edit.server.text.hunks import changed_lines
from complex_edit.server.text.rebase import compose_changes

MAX_EMPTY_TURNS_IN_A_ROW = 2
# While a model request is outstanding, a `ModelWaiting` every requestTimeoutSeconds / 8,
# within these bounds (5 s with the default 60 s).
WAITING_EVENT_SECONDS = (0.25, 5.0)


def _ignore(_: SessionEvent) -> None:
    return None


def system_instruction(request: EditRequest) -> str:
    """The system prompt; with other files readable (or editable), what to do with them."""
    if request.other_files == "off":
        return load("system")
    return f"{load('system')}\n\n{load('other_files_' + request.other_files)}"


def build_first_message(request: EditRequest) -> str:
    text = request.text
    selection_note = ""
    if request.selection is not None:
        selection_note = load("selection_note").format(
            start_line=request.selection.start_line, end_line=request.selection.end_line
        )
    if request.other_files != "off":
        selection_note += _workspace_note(request)
    return load("initial_message").format(
        path_note=f" `{request.path_label}`" if request.path_label else "",
        line_count=line_count(text),
        line_ending=_line_ending_name(text),
        document=render_document(text),
        selection_note=selection_note,
        instruction=request.instruction,
    )


def _workspace_note(request: EditRequest) -> str:
    if not request.roots:
        return (
            "\nNo workspace folder is open: other files cannot be read; work on this document "
            "alone.\n"
        )
    if len(request.roots) == 1:
        return "\nThe workspace: one folder; name other files relative to it.\n"
    names = ", ".join(f"`{root.name}`" for root in request.roots)
    return (
        f"\nThe workspace folders: {names}; name other files starting with their folder's name.\n"
    )


@dataclass(frozen=True)
class EditedFile:
    """Another file a successful session changed: `original` is the text it started from
    (`version` the editor buffer's then, None from disk), `text` the result."""

    label: str
    path: str
    original: str
    version: int | None
    text: str


async def run_tool_loop(
    request: EditRequest, provider: Provider, on_event: EventSink = _ignore
) -> SessionOutcome:
    """Run the loop to its end. Cancellation propagates as `asyncio.CancelledError`."""
    outcome, _ = await run_session(request, provider, on_event)
    return outcome


async def run_session(
    request: EditRequest,
    provider: Provider,
    on_event: EventSink = _ignore,
    checks: CheckerPool | None = None,
) -> tuple[SessionOutcome, tuple[EditedFile, ...]]:
    """`run_tool_loop`, with the other files a success changed, in the order they joined
    the edit (none for a failure); with `checks`, the checkers' rounds (`checking.py`)."""
    loop = _Loop(request, on_event, checks)
    try:
        async with asyncio.timeout(request.settings.wall_time_seconds):
            outcome = await loop.run(provider)
    except RunError as exc:
        outcome = loop.failure(exc.reason, exc.message)
    except TimeoutError:
        outcome = loop.failure(
            "model_error",
            f"The edit did not finish within {request.settings.wall_time_seconds:g} s "
            "(setting wallTimeSeconds).",
        )
    on_event(SessionFinished(outcome))
    return outcome, loop.edited() if outcome.success else ()


class _Loop:
    def __init__(
        self, request: EditRequest, on_event: EventSink, checks: CheckerPool | None = None
    ) -> None:
        self.request = request
        self.checking = Checking(request, checks)
        self.on_event = on_event
        self.max_turns = request.settings.max_turns
        limit = request.settings.max_document_bytes
        self.toolbox = Toolbox(
            request.text,
            max_argument_bytes=limit,
            max_text_chars=limit,
            elide_repeated_views=True,
        )
        self.documents = Documents(request, self.toolbox)
        self.validator = ResultValidator(
            request.text, request.language, request.settings.validate_result
        )
        self.integrity: Counter[str] = Counter()
        self.validation: Validation | None = None
        self.completions: list[tuple[ToolCall, ToolOutcome]] = []
        self.outcomes: list[tuple[ToolCall, ToolOutcome]] = []
        self.so_far = ChangesSoFar()
        self.others_so_far: dict[str, ChangesSoFar] = {}
        self.thought = ""
        self.last_calls: tuple[str, ...] = ()
        self.turns = 0
        self.tool_calls = 0
        self.usage = Usage()

    def failure(self, reason: Reason, error: str) -> SessionOutcome:
        return SessionOutcome(
            success=False,
            error=error,
            reason=reason,
            turns=self.turns,
            tool_calls=self.tool_calls,
            usage=self.usage,
            validation=self.validation or _unchecked(self.request),
            integrity=dict(self.integrity),
        )

    async def run(self, provider: Provider) -> SessionOutcome:
        # The snapshot is parsed while the model works on its first turn.
        self.validator.start()
        self.checking.start()
        try:
            return await self._run(provider)
        finally:
            self.validator.close()
            self.documents.close()
            self.checking.close()

    def edited(self) -> tuple[EditedFile, ...]:
        """The other files whose text differs from their snapshot now."""
        return tuple(
            EditedFile(
                other.label,
                other.opened.path,
                other.opened.text,
                other.opened.version,
                other.toolbox.text,
            )
            for other in self.documents.joined
            if other.toolbox.text != other.opened.text
        )

    async def _run(self, provider: Provider) -> SessionOutcome:
        conversation = provider.open(
            ConversationRequest(
                system_instruction=system_instruction(self.request),
                tools=Toolbox.declarations(self.request.other_files),
                first_message=build_first_message(self.request),
                settings=self.request.settings,
                on_retry=self._retrying,
                answer_bytes=len(self.request.text.encode("utf-8", "surrogatepass")),
            )
        )
        empty_in_a_row = 0
        refused_for_syntax = ""
        while self.turns < self.max_turns:
            self.turns += 1
            started = self._turn_started()
            self.on_event(started)
            turn = await self._ask(conversation, started)
            self.usage = self.usage + turn.usage
            self.last_calls = tuple(call.name for call, _ in self.outcomes)
            if not self.outcomes:
                empty_in_a_row += 1
                if empty_in_a_row >= MAX_EMPTY_TURNS_IN_A_ROW:
                    raise RunError(
                        "model_error",
                        f"The model gave no usable tool call {empty_in_a_row} times in a row "
                        f"({turn.problem or 'empty reply'}).",
                    )
                continue
            empty_in_a_row = 0
            refused_for_syntax = ""
            results, completion = settle_completion(self.outcomes)
            if completion is not None:
                if not completion.success:
                    self._report_completions(results)
                    return self.failure(
                        "task_failed",
                        completion.error or completion.message or "The model gave up on the task.",
                    )
                validation = await self.validator.check(self.toolbox.text)
                self.validation = validation
                in_others = (
                    await self._problems_in_others() if validation.syntax != "errors" else None
                )
                syntax_ok = validation.syntax != "errors" and in_others is None
                to_fix = (
                    await self.checking.judge(self.toolbox.text, self.edited())
                    if syntax_ok
                    else None
                )
                if syntax_ok and to_fix is None:
                    self._report_completions(results)
                    return SessionOutcome(
                        success=True,
                        message=(completion.message or "Edit complete.") + self.checking.note(),
                        final_text=self.toolbox.text,
                        turns=self.turns,
                        tool_calls=self.tool_calls,
                        usage=self.usage,
                        validation=validation,
                        integrity=dict(self.integrity),
                        diagnostics=self.checking.report(),
                    )
                if to_fix is not None:
                    self.integrity["check_refused"] += 1
                    results = refuse_completion(results, to_fix, ASK)
                else:
                    self.integrity["syntax_refused"] += 1
                    refused_for_syntax = in_others or render_problems(validation)
                    results = refuse_completion(results, refused_for_syntax)
            self._report_completions(results)
            conversation.add_tool_results(results)
        refused = (
            " Its last result had syntax errors the original did not have, so its "
            f"complete_task was refused. {refused_for_syntax}"
            if refused_for_syntax
            else ""
        )
        return self.failure(
            "max_turns",
            f"The model did not finish within {self.max_turns} turns (setting maxTurns); "
            f"nothing was applied.{refused}",
        )

    async def _problems_in_others(self) -> str | None:
        """The new syntax errors of the first other file changed that has some, or None."""
        for other in self.documents.joined:
            text = other.toolbox.text
            if other.validator is None or text == other.opened.text:
                continue
            validation = await other.validator.check(text)
            if validation.syntax == "errors":
                return f"In {other.label}: {render_problems(validation)}"
        return None

    def _turn_started(self) -> TurnStarted:
        """The next turn, with the change so far and the previous turn's calls."""
        added = removed = 0
        if self.toolbox.changed:
            text = self.request.text
            added, removed = changed_lines(text, compute_edits(text, self.toolbox.text))
        return TurnStarted(
            self.turns,
            self.max_turns,
            added,
            removed,
            self.last_calls,
            self.usage.input_tokens,
            self.usage.cached_tokens,
        )

    async def _ask(self, conversation: Conversation, started: TurnStarted) -> ModelTurn:
        """Stream the model's next turn, running each call as it arrives; while nothing has
        arrived yet, a `ModelWaiting` every few seconds."""
        self.outcomes = []
        ticker = asyncio.ensure_future(self._tick(started))
        stream = conversation.stream_turn()
        try:
            async for item in stream:
                if isinstance(item, ModelTurn):
                    return item
                ticker.cancel()
                if isinstance(item, Thought):
                    self._thinking(item.summary)
                else:
                    await self._execute(item)
        finally:
            ticker.cancel()
            await aclose(stream)
        raise RunError("model_error", "The model's answer ended without a turn.")

    def _thinking(self, summary: str) -> None:
        if summary and summary != self.thought:
            self.thought = summary
            self.on_event(ModelThinking(self.turns, self.max_turns, summary))

    async def _tick(self, started: TurnStarted) -> None:
        low, high = WAITING_EVENT_SECONDS
        interval = min(high, max(low, self.request.settings.request_timeout_seconds / 8))
        began = time.monotonic()
        while True:
            await asyncio.sleep(interval)
            self.on_event(ModelWaiting(started, time.monotonic() - began))

    def _report_completions(self, results: Sequence[ToolReply]) -> None:
        """The `ToolFinished` of this turn's complete_task calls, held back until the turn is
        settled: a completion refused (a failed call beside it, new syntax errors) shows as
        refused, with why."""
        for call, outcome in self.completions:
            result = next((r for r in results if r.call is call), None)
            ok = result.ok if result is not None else outcome.ok
            summary = outcome.summary if ok or result is None else refusal_line(result)
            self.on_event(
                ToolFinished(
                    self.turns, self.max_turns, call.name, ok, summary, outcome.adjustments
                )
            )
        self.completions = []

    def _retrying(self, notice: RetryNotice) -> None:
        self.on_event(
            ModelRetrying(
                self.turns,
                self.max_turns,
                notice.why,
                notice.retry,
                notice.max_retries,
                notice.delay,
            )
        )

    async def _execute(self, call: ToolCall) -> None:
        """Run one call as it arrives; its outcome counts when the turn is settled. A search
        of the workspace runs in a thread: other sessions of the process go on meanwhile."""
        self.tool_calls += 1
        self.on_event(
            ToolStarted(
                self.turns, self.max_turns, call.name, Toolbox.summarize_call(call.name, call.args)
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
                self.turns,
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
        self.on_event(WorkingChanged(self.turns, self.max_turns, tuple(changes), added, removed))

    def _other_changed(self, other: OtherFile, before: str) -> None:
        """`_working_changed` for another file of the workspace."""
        snapshot = other.opened.text
        self.checking.joined(other.opened.path, other.label, snapshot)
        so_far = self.others_so_far.setdefault(other.opened.path, ChangesSoFar())
        changes = so_far.add(snapshot, before, other.toolbox.text)
        added, removed = changed_lines(snapshot, changes)
        self.on_event(
            OtherChanged(
                self.turns,
                self.max_turns,
                other.opened.path,
                other.label,
                tuple(changes),
                added,
                removed,
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


def _unchecked(request: EditRequest) -> Validation:
    """The `validation` of a run that ended before any result was checked."""
    return Validation(
        language=request.language,
        syntax="skipped",
        detail="no result was checked: the run ended before the model completed the task",
    )


_ENDING_NAMES = {"\r\n": "CRLF", "\n": "LF", "\r": "CR"}


def _line_ending_name(text: str) -> str:
    kinds = [_ENDING_NAMES[ending] for ending in line_endings(text)]
    if not kinds:
        return "no"
    return "mixed " + "/".join(kinds) if len(kinds) > 1 else kinds[0]
