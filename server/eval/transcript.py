"""The transcript of one session: every model turn's tool calls (full arguments) and how each
went, taken from the conversation (calls as the model sent them) and the session's events
(each call's success and summary), without touching the session code. `opened_at` is when the
provider had the conversation ready (its client built), where a task's latency starts."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence

from complex_edit.server.eval.record import CallRecord, TurnRecord
from complex_edit.server.providers.base import (
    Conversation,
    ConversationRequest,
    ModelTurn,
    Provider,
    ToolCall,
    ToolReply,
    TurnItem,
)
from complex_edit.server.session.events import SessionEvent, ToolFinished


class Transcript:
    def __init__(self) -> None:
        self.turns: list[TurnRecord] = []
        self.tool_errors = 0
        self.opened_at: float | None = None
        self._open: TurnRecord | None = None

    def call(self, call: ToolCall) -> None:
        """A call of the turn being streamed, as it arrives (before it runs)."""
        if self._open is None:
            self._open = TurnRecord(turn=len(self.turns) + 1, calls=[])
            self.turns.append(self._open)
        self._open.calls.append(CallRecord(name=call.name, args=dict(call.args)))

    def model_turn(self, turn: ModelTurn) -> None:
        """The whole turn: completes the record its streamed calls opened, or adds one."""
        record = self._open
        self._open = None
        if record is None:
            record = TurnRecord(
                turn=len(self.turns) + 1,
                calls=[CallRecord(name=call.name, args=dict(call.args)) for call in turn.calls],
            )
            self.turns.append(record)
        record.problem = turn.problem
        record.input_tokens = turn.usage.input_tokens
        record.output_tokens = turn.usage.output_tokens

    def on_event(self, event: SessionEvent) -> None:
        """A call's result: the first call of the turn by that name still without one (a
        turn's complete_task is reported after the turn is settled, so after later calls)."""
        if not isinstance(event, ToolFinished):
            return
        if not event.ok:
            self.tool_errors += 1
        calls = self.turns[-1].calls if self.turns else []
        call = next((c for c in calls if c.ok is None and c.name == event.name), None)
        if call is not None:
            call.ok = event.ok
            call.summary = event.summary
            call.adjustments = list(event.adjustments)


class RecordingProvider:
    """Wraps a provider so each conversation reports its model turns to a transcript."""

    def __init__(self, inner: Provider, transcript: Transcript) -> None:
        self._inner = inner
        self._transcript = transcript

    def open(self, request: ConversationRequest) -> Conversation:
        conversation = self._inner.open(request)
        self._transcript.opened_at = time.monotonic()
        return _RecordingConversation(conversation, self._transcript)


class _RecordingConversation:
    def __init__(self, inner: Conversation, transcript: Transcript) -> None:
        self._inner = inner
        self._transcript = transcript

    async def stream_turn(self) -> AsyncIterator[TurnItem]:
        async for item in self._inner.stream_turn():
            if isinstance(item, ModelTurn):
                self._transcript.model_turn(item)
            elif isinstance(item, ToolCall):
                self._transcript.call(item)
            yield item

    def add_tool_results(self, results: Sequence[ToolReply]) -> None:
        self._inner.add_tool_results(results)
