"""Transport faults the provider suite (tests/session/test_providers.py) does not already
script: 408, 429 without a delay, every retried 5xx, plain 400, refused and dropped
connections, a reply that stalls halfway, a short body, HTML error pages that are retried,
and the wall-time budget. Each runs for every provider whose emulator can produce it, through
the real SDK."""

from __future__ import annotations

import socket
import time

import pytest

from tests.fakes import anthropic_emulator as anthropic
from tests.fakes import gemini_emulator as gemini
from tests.fakes import openai_emulator as openai
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.reliability.sessions import assert_failed_cleanly, run_model
from tests.session.scripts import Harness, calls, done, rate_limited, replace, server_error

DOC = "def foo():\n    return 1\n\nprint(foo())\n"


def native(
    model: Harness, gemini_reply: object, openai_reply: object, anthropic_reply: object
) -> None:
    """Enqueue a reply in the provider's own wire format."""
    reply = {"gemini": gemini_reply, "openai": openai_reply, "anthropic": anthropic_reply}
    model.emulator.enqueue(reply[model.provider])  # type: ignore[attr-defined]


async def test_408_is_retried_then_succeeds(model: Harness) -> None:
    model.script(server_error(408), calls(replace("return 1", "return 2"), done()))
    outcome = await run_model(model.provider, model.base_url, DOC)
    assert outcome.success, outcome
    assert outcome.final_text == DOC.replace("return 1", "return 2")
    assert model.request_count == 2


async def test_persistent_408_is_a_bounded_model_error(model: Harness) -> None:
    model.script(server_error(408).repeat(None))
    outcome = await run_model(model.provider, model.base_url, DOC, maxRetries=2)
    assert_failed_cleanly(outcome, "model_error")
    assert model.request_count == 3
    assert "3 attempts" in (outcome.error or "")


async def test_429_without_a_delay_is_retried_with_backoff(model: Harness) -> None:
    model.script(rate_limited(None), calls(done()))
    outcome = await run_model(model.provider, model.base_url, DOC)
    assert outcome.success, outcome
    assert model.request_count == 2


async def test_persistent_429_is_quota(model: Harness) -> None:
    model.script(rate_limited(None).repeat(None))
    outcome = await run_model(model.provider, model.base_url, DOC, maxRetries=1)
    assert_failed_cleanly(outcome, "quota")
    assert model.request_count == 2


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_every_transient_5xx_is_retried(model: Harness, status: int) -> None:
    model.script(server_error(status), calls(done()))
    outcome = await run_model(model.provider, model.base_url, DOC)
    assert outcome.success, outcome
    assert model.request_count == 2


async def test_plain_400_is_not_retried(model: Harness) -> None:
    native(
        model,
        gemini.Reply.error(400, "Invalid value at 'contents[0]' (TYPE_STRING)"),
        openai.Reply.error(400, "Invalid value for 'messages[0]'"),
        anthropic.Reply.error(400, "messages.0: invalid content"),
    )
    outcome = await run_model(model.provider, model.base_url, DOC)
    assert_failed_cleanly(outcome, "model_error")
    assert model.request_count == 1
    assert "400" in (outcome.error or "")


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def test_connection_refused_is_retried_then_a_model_error(model: Harness) -> None:
    started = time.monotonic()
    outcome = await run_model(model.provider, closed_port_url(), DOC, maxRetries=1)
    assert_failed_cleanly(outcome, "model_error")
    assert "2 attempts" in (outcome.error or "")
    assert "reach" in (outcome.error or "").lower() or "connect" in (outcome.error or "").lower()
    # Issue 38: a base URL on this machine says what to start.
    assert "Nothing is listening at 127.0.0.1:" in (outcome.error or "")
    assert "start your local server (ollama serve, llama-server" in (outcome.error or "")
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("reset", [False, True], ids=["fin", "rst"])
async def test_connection_dropped_without_an_answer_is_retried(model: Harness, reset: bool) -> None:
    native(
        model,
        gemini.Reply.close_connection(reset=reset),
        openai.Reply.close_connection(reset=reset),
        anthropic.Reply.close_connection(reset=reset),
    )
    model.script(calls(replace("return 1", "return 3"), done()))
    outcome = await run_model(model.provider, model.base_url, DOC)
    assert outcome.success, outcome
    assert outcome.final_text == DOC.replace("return 1", "return 3")
    assert model.request_count == 2


async def test_accepted_connection_that_never_answers_times_out(model: Harness) -> None:
    native(model, gemini.Reply.hang(), openai.Reply.hang(), anthropic.Reply.hang())
    started = time.monotonic()
    outcome = await run_model(
        model.provider, model.base_url, DOC, requestTimeoutSeconds=0.5, maxRetries=0
    )
    assert_failed_cleanly(outcome, "model_error")
    assert "requestTimeoutSeconds" in (outcome.error or "")
    assert time.monotonic() - started < 8
    assert await model.wait_for_disconnect(), "the held request was not abandoned"


async def test_reply_that_stalls_halfway_times_out(emulator: GeminiEmulator) -> None:
    """The whole turn in the stream's first event, then nothing: the stream never ends, so the
    turn is never accepted (Gemini's emulator)."""
    emulator.enqueue(gemini.Reply.stalled_stream(gemini.Reply.function_calls([done()])))
    outcome = await run_model(
        "gemini", emulator.base_url, DOC, requestTimeoutSeconds=0.5, maxRetries=0
    )
    assert_failed_cleanly(outcome, "model_error")
    assert "requestTimeoutSeconds" in (outcome.error or "")
    assert emulator.wait_for_disconnect(timeout=5)


async def test_body_shorter_than_announced_is_retried(model: Harness) -> None:
    native(
        model,
        gemini.Reply.truncated_json(gemini.Reply.function_calls([done()]).body, short_body=True),
        openai.Reply.truncated(openai.Reply.tool_calls([done()]).body, short_body=True),
        anthropic.Reply.truncated(anthropic.Reply.tool_use([done()]).body, short_body=True),
    )
    model.script(calls(replace("return 1", "return 4"), done()))
    outcome = await run_model(model.provider, model.base_url, DOC)
    if outcome.success:
        assert outcome.final_text == DOC.replace("return 1", "return 4")
        assert model.request_count == 2
    else:
        assert_failed_cleanly(outcome, "model_error")


@pytest.mark.parametrize("status", [502, 503])
async def test_html_error_page_from_a_proxy_is_retried(model: Harness, status: int) -> None:
    native(
        model,
        gemini.Reply.html(status=status),
        openai.Reply.html(status=status),
        anthropic.Reply.html(status=status),
    )
    model.script(calls(done()))
    outcome = await run_model(model.provider, model.base_url, DOC)
    assert outcome.success, outcome
    assert model.request_count == 2


async def test_persistent_html_error_page_is_a_model_error(model: Harness) -> None:
    native(
        model,
        gemini.Reply.html(status=502).repeat(None),
        openai.Reply.html(status=502).repeat(None),
        anthropic.Reply.html(status=502).repeat(None),
    )
    outcome = await run_model(model.provider, model.base_url, DOC, maxRetries=1)
    assert_failed_cleanly(outcome, "model_error")
    assert "<html" not in (outcome.error or "").lower(), "the whole page was put in the message"


async def test_wall_time_budget_ends_a_slow_run(emulator: GeminiEmulator) -> None:
    emulator.enqueue(gemini.Reply.function_calls([("get_document", {})]).delayed(0.4).repeat(None))
    started = time.monotonic()
    outcome = await run_model("gemini", emulator.base_url, DOC, wallTimeSeconds=1, maxTurns=20)
    assert_failed_cleanly(outcome, "model_error")
    assert "wallTimeSeconds" in (outcome.error or "")
    assert time.monotonic() - started < 3


async def test_retry_delay_longer_than_the_budget_fails_fast_with_the_delay(
    emulator: GeminiEmulator,
) -> None:
    emulator.enqueue(gemini.Reply.rate_limited(retry_delay="45s"))
    started = time.monotonic()
    outcome = await run_model("gemini", emulator.base_url, DOC, wallTimeSeconds=10)
    assert_failed_cleanly(outcome, "quota")
    assert "45" in (outcome.error or "")
    assert time.monotonic() - started < 3
    assert len(emulator.requests) == 1


async def test_retry_delay_within_the_budget_is_honoured(emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        gemini.Reply.rate_limited(retry_delay="1s"), gemini.Reply.function_calls([done()])
    )
    outcome = await run_model("gemini", emulator.base_url, DOC)
    assert outcome.success, outcome
    first, second = emulator.requests
    assert second.received_at - first.received_at >= 0.9
