"""Streamed Gemini turns through the real google-genai SDK and the emulator (issue 21 items
1-3): calls run as their chunk arrives, the turn goes back whole as one model `Content`,
thoughts show in progress only, and a stream that breaks or stalls ends cleanly."""

from __future__ import annotations

import base64
import logging
import time
from typing import Any

import pytest

from complex_edit.server.outcome import Usage
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.events import (
    ModelRetrying,
    ModelThinking,
    SessionEvent,
    ToolFinished,
    WorkingChanged,
    describe,
)
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.session.conftest import RunFn

DOC = "alpha\nbeta\ngamma\n"
GAP = 0.15  # seconds between the emulator's SSE events


def call(name: str, signature: bytes | None = None, **args: Any) -> dict[str, Any]:
    part: dict[str, Any] = {"functionCall": {"name": name, "args": args}}
    if signature is not None:
        part["thoughtSignature"] = base64.b64encode(signature).decode()
    return part


def thought(text: str) -> dict[str, Any]:
    return {"text": text, "thought": True}


def replace(old: str, new: str, signature: bytes | None = None) -> dict[str, Any]:
    return call("replace_text", signature, old_text=old, new_text=new)


def done(success: bool = True) -> dict[str, Any]:
    return call("complete_task", success=success, message="done")


def streamed(*chunks: list[dict[str, Any]], usage: tuple[int, int] = (100, 20)) -> Reply:
    """One SSE event per list of parts, `GAP` apart; finishReason and usage on the last."""
    events: list[dict[str, Any]] = []
    for i, parts in enumerate(chunks):
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        event: dict[str, Any] = {"candidates": [candidate]}
        if i == len(chunks) - 1:
            candidate["finishReason"] = "STOP"
            event["usageMetadata"] = {
                "promptTokenCount": usage[0],
                "candidatesTokenCount": usage[1],
                "totalTokenCount": sum(usage),
            }
        events.append(event)
    whole = [part for parts in chunks for part in parts]
    return Reply.finish("STOP", whole, usage=usage).in_chunks(events, chunk_delay=GAP)


async def test_each_call_in_its_own_chunk_runs_and_announces_the_change(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(streamed([replace("alpha", "ALPHA")], [replace("beta", "BETA")], [done()]))
    outcome, events = await run(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == "ALPHA\nBETA\ngamma\n"
    assert outcome.turns == 1
    assert outcome.tool_calls == 3
    assert emulator.request_count == 1
    changed = [event for event in events if isinstance(event, WorkingChanged)]
    assert [(event.added, event.removed) for event in changed] == [(1, 1), (2, 2)]
    assert describe(changed[1]) == "Turn 1/8 · +2 −2 lines so far"


async def test_calls_run_while_the_stream_is_open(run: RunFn, emulator: GeminiEmulator) -> None:
    in_flight: list[int] = []
    finished_at: list[float] = []

    emulator.enqueue(
        streamed([replace("alpha", "ALPHA")], [thought("**Checking the rest**")], [done()])
    )

    def record(event: SessionEvent) -> None:
        if isinstance(event, WorkingChanged):
            in_flight.append(emulator.in_flight)
            finished_at.append(time.monotonic())

    settings = Settings.from_layers({}, {"baseUrl": emulator.base_url})
    request = EditRequest(instruction="edit it", text=DOC, settings=settings)
    outcome = await run_tool_loop(request, GeminiProvider({"GEMINI_API_KEY": TEST_KEY}), record)
    ended = time.monotonic()
    assert outcome.success, outcome
    assert in_flight == [1]  # the request was still being answered when the call ran
    assert ended - finished_at[0] >= 2 * GAP * 0.8


async def test_the_turn_goes_back_whole_with_its_signature(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    """Two calls in one chunk do not collapse; the signature rides on the first call only;
    the next request echoes every part of every chunk, in order, as ONE model content."""
    signature = bytes(range(256))
    emulator.enqueue(
        streamed(
            [thought("**Planning**\n\nI will rename two words.")],
            [replace("alpha", "A", signature), replace("beta", "B")],
            [call("get_document")],
        ),
        Reply.function_calls([("complete_task", {"success": True, "message": "ok"})]),
    )
    outcome, _events = await run(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == "A\nB\ngamma\n"
    contents = emulator.requests[1].contents
    assert [content["role"] for content in contents] == ["user", "model", "user"]
    parts = contents[1]["parts"]
    assert [next(key for key in part if key in ("text", "functionCall")) for part in parts] == [
        "text",
        "functionCall",
        "functionCall",
        "functionCall",
    ]
    assert parts[0]["thought"] is True
    assert base64.urlsafe_b64decode(parts[1]["thoughtSignature"]) == signature
    assert all("thoughtSignature" not in part for part in parts[2:])
    assert len(contents[2]["parts"]) == 3  # one response per call
    assert outcome.usage.input_tokens >= 100


async def test_usage_comes_from_the_last_chunk(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(streamed([replace("alpha", "A")], [done()], usage=(321, 45)))
    outcome, _ = await run(DOC)
    assert outcome.usage == Usage(input_tokens=321, output_tokens=45)


async def test_thoughts_show_in_progress_only(
    run: RunFn, emulator: GeminiEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "The user's key is hunter2-and-more-words-to-be-long-enough."
    long_heading = "Weighing " + "very " * 30 + "carefully"
    emulator.enqueue(
        streamed(
            [thought(f"**Finding the loop.** {secret}")],
            [thought(long_heading)],
            [replace("alpha", "A"), done()],
        )
    )
    outcome, events = await run(DOC)
    assert outcome.success, outcome
    thinking = [event for event in events if isinstance(event, ModelThinking)]
    assert next(event.summary for event in thinking) == "Finding the loop."
    assert len(thinking[1].summary) == 80
    assert thinking[1].summary.endswith("…")
    assert describe(thinking[0]) == "Turn 1/8 · thinking: Finding the loop."
    assert "hunter2" not in repr(outcome)
    assert not [r for r in caplog.records if r.levelno > logging.DEBUG and "hunter2" in r.message]
    assert "hunter2" not in (outcome.final_text or "")


async def test_a_success_then_a_failing_call_in_later_chunks_does_not_end_the_task(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        streamed([done()], [replace("no such text", "x")]),
        Reply.function_calls([("complete_task", {"success": True, "message": "ok"})]),
    )
    outcome, events = await run(DOC)
    assert outcome.success
    assert outcome.turns == 2
    refused = [e for e in events if isinstance(e, ToolFinished) and e.name == "complete_task"]
    assert not refused[0].ok


async def test_a_stream_broken_before_any_call_is_retried_cleanly(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        streamed([thought("**Reading**")], [replace("alpha", "A")], [done()]).broken_stream(
            events_before_break=1
        ),
        streamed([replace("alpha", "A")], [done()]),
    )
    outcome, events = await run(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == "A\nbeta\ngamma\n"
    assert emulator.request_count == 2
    assert [e.why for e in events if isinstance(e, ModelRetrying)] == [
        "could not reach the model service"
    ]
    # the retried request is the first one again: nothing of the broken stream was kept
    assert emulator.requests[1].contents == emulator.requests[0].contents


async def test_a_stream_broken_after_a_call_ran_is_not_asked_again(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        streamed([replace("alpha", "A")], [replace("beta", "B")], [done()]).broken_stream(
            events_before_break=1
        ),
        streamed([done()]),
    )
    outcome, _ = await run(DOC)
    assert outcome.reason == "model_error"
    assert "1 call of it had already run" in (outcome.error or "")
    assert outcome.final_text is None
    assert emulator.request_count == 1


async def test_a_stalled_stream_times_out_naming_the_setting(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(Reply.stalled_stream(streamed([thought("**Hmm**")], [done()])))
    began = time.monotonic()
    outcome, _ = await run(DOC, requestTimeoutSeconds=0.3)
    assert outcome.reason == "model_error"
    error = outcome.error or ""
    assert "stalled" in error
    assert "requestTimeoutSeconds" in error
    assert "not sent again" in error
    assert emulator.request_count == 1
    assert time.monotonic() - began < 5


async def test_malformed_after_a_call_ran_keeps_what_ran(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    """The calls that arrived before the refused last chunk ran: they stay in the history with
    their results, the malformed rest is dropped, and the model is asked again."""
    first = streamed([replace("alpha", "A")], [call("complete_task")]).in_chunks(
        [
            {"candidates": [{"content": {"role": "model", "parts": [replace("alpha", "A")]}}]},
            {"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}]},
        ],
        chunk_delay=GAP,
    )
    emulator.enqueue(
        first, Reply.function_calls([("complete_task", {"success": True, "message": "ok"})])
    )
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == "A\nbeta\ngamma\n"
    contents = emulator.requests[1].contents
    assert [len(content["parts"]) for content in contents[1:]] == [1, 1]


async def test_an_error_event_mid_stream_is_classified_and_retried(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    """The API reports a fault inside the stream (`{"error": …}` as an event): a 503 there is
    retried like a 503 status, from scratch, since no call had run."""
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    broken = streamed([thought("**Reading**")], [replace("alpha", "A")])
    first_event = broken.chunks[0] if broken.chunks else {}
    emulator.enqueue(
        broken.in_chunks([first_event, error], chunk_delay=GAP),
        streamed([replace("alpha", "A")], [done()]),
    )
    outcome, events = await run(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == "A\nbeta\ngamma\n"
    assert emulator.request_count == 2
    assert [e.why for e in events if isinstance(e, ModelRetrying)] == ["the service answered 503"]
