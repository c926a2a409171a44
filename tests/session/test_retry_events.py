"""Retries are reported: every provider, through its real SDK and its emulator, tells the
session's event stream why a model request is retried, which retry it is and how long the
wait is, before it waits; the event survives the hop from the session process."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import ModelRetrying, SessionEvent, TurnStarted, describe
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.process import SessionProcess
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.session.scripts import KEY_VARIABLE, Harness, calls, done, hang, rate_limited

DOC = "alpha\nbeta\n"


async def run(model: Harness, **overrides: Any) -> tuple[SessionOutcome, list[SessionEvent]]:
    settings = Settings.from_layers(
        {},
        {"provider": model.provider, "baseUrl": model.base_url, "requestTimeoutSeconds": 5},
        overrides,
    )
    events: list[SessionEvent] = []
    hub = ProviderHub({KEY_VARIABLE[model.provider]: TEST_KEY})
    request = EditRequest(instruction="edit it", text=DOC, settings=settings)
    outcome = await run_tool_loop(request, hub, events.append)
    return outcome, events


def retries(events: list[SessionEvent]) -> list[ModelRetrying]:
    return [event for event in events if isinstance(event, ModelRetrying)]


async def test_a_429_then_success_reports_the_retry(model: Harness) -> None:
    model.script(rate_limited(0.1), calls(done()))
    outcome, events = await run(model, maxRetries=4)
    assert outcome.success, outcome
    assert model.request_count == 2
    (retry,) = retries(events)
    assert (retry.turn, retry.why, retry.retry, retry.max_retries) == (1, "rate limited", 1, 4)
    assert retry.delay_seconds == 0.1  # the service's own delay
    assert describe(retry) == "Turn 1/8 · rate limited; retry 1/4 in 0.1 s"
    # the retry is reported within its turn, after the turn started and before the tools ran
    assert isinstance(events[events.index(retry) - 1], TurnStarted)


async def test_a_hung_request_ends_after_one_limit_and_is_not_sent_again(model: Harness) -> None:
    # Issue 20: a request the service accepted and left unanswered is not retried (it was
    # "no answer in 0.5 s; retry 1/2" before): one limit, one error naming the setting.
    model.script(hang(), calls(done()))
    outcome, events = await run(model, requestTimeoutSeconds=0.5, maxRetries=2)
    assert outcome.reason == "model_error"
    assert "requestTimeoutSeconds" in (outcome.error or "")
    assert "not sent again" in (outcome.error or "")
    assert retries(events) == []
    assert model.request_count == 1


async def test_no_retry_is_reported_when_none_is_allowed(model: Harness) -> None:
    model.script(rate_limited(0.1), calls(done()))
    outcome, events = await run(model, maxRetries=0)
    assert outcome.reason == "quota"
    assert retries(events) == []


async def test_the_wait_for_a_retry_stays_cancellable(model: Harness) -> None:
    model.script(rate_limited(30), calls(done()))
    seen = asyncio.Event()
    settings = Settings.from_layers(
        {}, {"provider": model.provider, "baseUrl": model.base_url, "maxRetries": 2}
    )
    hub = ProviderHub({KEY_VARIABLE[model.provider]: TEST_KEY})
    request = EditRequest(instruction="edit it", text=DOC, settings=settings)

    def on_event(event: SessionEvent) -> None:
        if isinstance(event, ModelRetrying):
            seen.set()

    task = asyncio.ensure_future(run_tool_loop(request, hub, on_event))
    async with asyncio.timeout(30):
        await seen.wait()
    task.cancel()
    async with asyncio.timeout(5):
        results = await asyncio.gather(task, return_exceptions=True)
    assert isinstance(results[0], asyncio.CancelledError)
    assert model.request_count == 1


async def test_the_retry_event_crosses_the_session_process(emulator: GeminiEmulator) -> None:
    env = {"GEMINI_API_KEY": TEST_KEY, "PATH": os.environ.get("PATH", "")}
    emulator.enqueue(
        Reply.rate_limited(retry_delay="0.1s"),
        Reply.function_calls([("complete_task", {"success": True, "message": "done"})]),
    )
    settings = Settings.from_layers(
        {}, {"baseUrl": emulator.base_url, "requestTimeoutSeconds": 5, "maxRetries": 3}
    )
    request = EditRequest(instruction="edit it", text=DOC, settings=settings)
    events: list[SessionEvent] = []
    sessions = SessionProcess(env)
    try:
        finished = await sessions.run_session(request, events.append)
    finally:
        await sessions.stop()
    assert finished.outcome.success
    assert [describe(event) for event in retries(events)] == [
        "Turn 1/8 · rate limited; retry 1/3 in 0.1 s"
    ]
