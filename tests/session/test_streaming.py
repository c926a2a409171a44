"""Streamed turns in every provider, through the real SDKs and the emulators (issue 21 items 1
and 2): calls run while the stream is still open, arguments split mid-string arrive whole,
usage comes from the last events, and a stream that breaks or stalls ends cleanly, never
running a call twice. Gemini's own cases (parts, signatures, thoughts) are in
`test_gemini_streaming.py`."""

from __future__ import annotations

import time

from complex_edit.server.session.events import (
    ModelRetrying,
    ModelThinking,
    SessionEvent,
    ToolFinished,
    WorkingChanged,
)
from tests.fakes.anthropic_emulator import AnthropicEmulator
from tests.reliability.sessions import run_model
from tests.session.scripts import AnthropicHarness, Harness, calls, done, replace, streamed

DOC = "alpha = 'one \"quoted\" word'\nbeta = 2\n"
TWO_EDITS = calls(
    replace("alpha = 'one \"quoted\" word'", "alpha = 'ONE \"quoted\" word'"),
    replace("beta = 2", "beta = 3"),
    done(),
    usage=(321, 45),
)
EDITED = "alpha = 'ONE \"quoted\" word'\nbeta = 3\n"


async def test_calls_run_while_the_stream_is_open(model: Harness) -> None:
    """Arguments split mid-string (quotes and escapes included) arrive whole; the first call
    has run and announced its change while the request is still being answered."""
    gap = 0.1
    model.script(streamed(TWO_EDITS, gap=gap))
    in_flight: list[int] = []
    events: list[SessionEvent] = []

    def record(event: SessionEvent) -> None:
        events.append(event)
        if isinstance(event, WorkingChanged):
            in_flight.append(model.in_flight)

    outcome = await run_model(model.provider, model.base_url, DOC, events=_Sink(record))
    assert outcome.success, outcome
    assert outcome.final_text == EDITED
    assert outcome.tool_calls == 3
    assert model.request_count == 1
    assert in_flight[0] == 1  # the stream was still open when the first call ran
    assert outcome.usage.input_tokens == 321
    assert outcome.usage.output_tokens == 45
    finished = [event.name for event in events if isinstance(event, ToolFinished)]
    assert finished == ["replace_text", "replace_text", "complete_task"]


async def test_a_stream_broken_before_any_call_ran_is_retried_cleanly(model: Harness) -> None:
    model.script(streamed(TWO_EDITS, break_after_calls=0), streamed(TWO_EDITS))
    events: list[SessionEvent] = []
    outcome = await run_model(model.provider, model.base_url, DOC, events=events)
    assert outcome.success, outcome
    assert outcome.final_text == EDITED
    assert model.request_count == 2
    assert len([event for event in events if isinstance(event, ModelRetrying)]) == 1
    assert model.request_bytes(1) == model.request_bytes(0)  # nothing of the broken one kept


async def test_a_stream_broken_after_a_call_ran_is_not_asked_again(model: Harness) -> None:
    model.script(streamed(TWO_EDITS, break_after_calls=1), streamed(TWO_EDITS))
    outcome = await run_model(model.provider, model.base_url, DOC)
    assert outcome.reason == "model_error"
    assert "1 call of it had already run" in (outcome.error or "")
    assert outcome.final_text is None
    assert outcome.tool_calls == 1
    assert model.request_count == 1


async def test_a_stalled_stream_times_out_naming_the_setting(model: Harness) -> None:
    model.script(streamed(TWO_EDITS, stall_after_calls=1))
    began = time.monotonic()
    outcome = await run_model(
        model.provider, model.base_url, DOC, requestTimeoutSeconds=0.3, maxRetries=3
    )
    assert outcome.reason == "model_error"
    error = outcome.error or ""
    assert "stalled" in error
    assert "requestTimeoutSeconds" in error
    assert model.request_count == 1
    assert time.monotonic() - began < 5


class _Sink(list[SessionEvent]):
    """An event list that also tells `watch` of each event as it comes."""

    def __init__(self, watch: object) -> None:
        super().__init__()
        self._watch = watch

    def append(self, event: SessionEvent) -> None:
        super().append(event)
        self._watch(event)  # type: ignore[operator]


async def test_anthropic_thinking_shows_and_its_block_goes_back_whole(
    anthropic_server: AnthropicEmulator,
) -> None:
    """A streamed thinking block (text and signature in deltas) shows as one progress line and
    is echoed with its signature, as the whole message would have been."""
    model = AnthropicHarness(anthropic_server)
    model.reset()
    thinking = ("**Planning the rename**\n\nThe key is sk-ant-should-not-show-up.", "sig-7")
    model.script(streamed(calls(replace("beta = 2", "beta = 3"), thinking=thinking)), calls(done()))
    events: list[SessionEvent] = []
    outcome = await run_model("anthropic", model.base_url, DOC, events=events)
    assert outcome.success, outcome
    lines = [event.summary for event in events if isinstance(event, ModelThinking)]
    assert lines == ["Planning the rename"]
    (turn,) = model.model_turn_bodies(1)
    block = turn["content"][0]
    assert block["type"] == "thinking"
    assert block["thinking"] == thinking[0]
    assert block["signature"] == "sig-7"
    model.reset()
