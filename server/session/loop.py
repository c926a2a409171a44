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

from complex_edit.edit_tools.lines import line_count, line_endings
from complex_edit.edit_tools.registry import (
    Toolbox,
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
)
from complex_edit.server.providers.streaming import aclose
from complex_edit.server.session.changed import DocumentResult
from complex_edit.server.session.checking import ASK, Checking
from complex_edit.server.session.dispatch import ToolDispatch
from complex_edit.server.session.events import (
    EventSink,
    ModelRetrying,
    ModelThinking,
    ModelWaiting,
    SessionEvent,
    SessionFinished,
    TurnStarted,
)
from complex_edit.server.session.request import EditRequest
from complex_edit.server.session.termination import (
    refuse_completion,
    settle_completion,
)
from complex_edit.server.session.validation import ResultValidator
from complex_edit.server.text.diff import compute_edits
from complex_edit.server.text.hunks import changed_lines
from complex_edit.server.workspace.kept import Kept

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


async def run_tool_loop(
    request: EditRequest, provider: Provider, on_event: EventSink = _ignore
) -> SessionOutcome:
    """Run the loop to its end. Cancellation propagates as `asyncio.CancelledError`."""
    outcome = await _Loop(request, on_event).finish(provider)
    on_event(SessionFinished(outcome))
    return outcome


async def run_session(
    request: EditRequest,
    provider: Provider,
    on_event: EventSink = _ignore,
    checks: CheckerPool | None = None,
    kept: Kept | None = None,
) -> tuple[SessionOutcome, tuple[DocumentResult, ...]]:
    """`run_tool_loop` for the edit flow: the outcome without its `final_text`, and the
    documents a success changed, which carry it: the command's own first (even unchanged),
    then the other files in the order they joined the edit (none for a failure). A
    multi-megabyte result so travels once, as the documents' changes. With `checks`, the
    checkers' rounds (`checking.py`); with `kept`, the workspace's listing kept between commands."""
    loop = _Loop(request, on_event, checks, kept)
    outcome = await loop.finish(provider)
    edited = loop.edited() if outcome.success else ()
    outcome = outcome.model_copy(update={"final_text": None})
    on_event(SessionFinished(outcome))
    return outcome, edited


class _Loop:
    def __init__(
        self,
        request: EditRequest,
        on_event: EventSink,
        checks: CheckerPool | None = None,
        kept: Kept | None = None,
    ) -> None:
        self.request = request
        self.checking = Checking(request, checks)
        self.on_event = on_event
        self.max_turns = request.settings.max_turns
        self.calls = ToolDispatch(request, on_event, kept)
        self.toolbox = self.calls.toolbox
        self.documents = self.calls.documents
        self.validator = ResultValidator(
            request.text, request.language, request.settings.validate_result
        )
        self.integrity = self.calls.integrity
        self.validation: Validation | None = None
        self.thought = ""
        self.last_calls: tuple[str, ...] = ()
        self.turns = 0
        self.usage = Usage()

    def failure(self, reason: Reason, error: str) -> SessionOutcome:
        return SessionOutcome(
            success=False,
            error=error,
            reason=reason,
            turns=self.turns,
            tool_calls=self.calls.tool_calls,
            usage=self.usage,
            validation=self.validation or _unchecked(self.request),
            integrity=dict(self.integrity),
            masked=self.documents.masked(),
        )

    async def finish(self, provider: Provider) -> SessionOutcome:
        """The session's outcome: the loop run within the wall time, a failure the model
        cannot fix ended with its reason."""
        try:
            async with asyncio.timeout(self.request.settings.wall_time_seconds):
                return await self.run(provider)
        except RunError as exc:
            return self.failure(exc.reason, exc.message)
        except TimeoutError:
            return self.failure(
                "model_error",
                f"The edit did not finish within {self.request.settings.wall_time_seconds:g} s "
                "(setting wallTimeSeconds).",
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

    def edited(self) -> tuple[DocumentResult, ...]:
        """The command's document, then the other files whose text differs from their
        snapshot now, each with its diff and its changes."""
        request = self.request
        label = request.diff_label or request.path_label or ""
        own = DocumentResult.to(request.text, self.toolbox.text, label, request.document_path)
        return own, *(
            DocumentResult.to(
                other.opened.text,
                other.toolbox.text,
                other.label,
                other.opened.path,
                other.opened.version,
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
            self.calls.turn = self.turns
            self.checking.warm(self.documents.joined)
            started = self._turn_started()
            self.on_event(started)
            turn = await self._ask(conversation, started)
            self.usage = self.usage + turn.usage
            self.last_calls = tuple(call.name for call, _ in self.calls.outcomes)
            if not self.calls.outcomes:
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
            results, completion = settle_completion(self.calls.outcomes)
            if completion is not None:
                if not completion.success:
                    self.calls.report_completions(results)
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
                    await self.checking.judge(self.toolbox.text, self.documents.joined)
                    if syntax_ok
                    else None
                )
                if syntax_ok and to_fix is None:
                    self.calls.report_completions(results)
                    note = self.checking.note()
                    return SessionOutcome(
                        success=True,
                        message=(completion.message or "Edit complete.") + note,
                        check_note=note,
                        final_text=self.toolbox.text,
                        turns=self.turns,
                        tool_calls=self.calls.tool_calls,
                        usage=self.usage,
                        validation=validation,
                        integrity=dict(self.integrity),
                        masked=self.documents.masked(),
                        diagnostics=self.checking.report(),
                    )
                if to_fix is not None:
                    self.integrity["check_refused"] += 1
                    results = refuse_completion(results, to_fix, ASK)
                else:
                    self.integrity["syntax_refused"] += 1
                    refused_for_syntax = in_others or render_problems(validation)
                    results = refuse_completion(results, refused_for_syntax)
            self.calls.report_completions(results)
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
        self.calls.outcomes = []
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
                    await self.calls.execute(item)
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
