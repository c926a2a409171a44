"""Sessions on the worker thread's loop (`server/session_thread.py`), against the emulator
through the real SDK: the result and events reach the caller's loop in order, and cancelling the
caller aborts the model request."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from server.events import SessionEvent, SessionFinished, ToolFinished, TurnStarted
from server.providers.gemini import GeminiProvider
from server.session import EditRequest
from server.session_thread import SessionThread
from server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = "alpha\nbeta\ngamma\n"


@pytest.fixture
def sessions() -> Iterator[SessionThread]:
    worker = SessionThread()
    yield worker
    worker.close()


def _request(emulator: GeminiEmulator) -> EditRequest:
    settings = Settings.from_layers(
        {}, {"baseUrl": emulator.base_url, "requestTimeoutSeconds": 5, "maxRetries": 0}
    )
    return EditRequest(instruction="upper-case beta", text=DOC, settings=settings)


async def test_runs_off_the_callers_thread_and_delivers_events_in_order(
    emulator: GeminiEmulator, sessions: SessionThread
) -> None:
    emulator.enqueue(
        Reply.function_calls(
            [
                ("replace_text", {"old_text": "beta", "new_text": "BETA"}),
                ("complete_task", {"success": True, "message": "done"}),
            ]
        )
    )
    provider = GeminiProvider({"GEMINI_API_KEY": TEST_KEY})
    caller = threading.get_ident()
    seen: list[tuple[SessionEvent, int]] = []

    outcome = await sessions.run_session(
        _request(emulator), provider, lambda event: seen.append((event, threading.get_ident()))
    )

    assert outcome.success
    assert outcome.final_text == DOC.replace("beta", "BETA")
    events = [event for event, _ in seen]
    assert {thread for _, thread in seen} == {caller}
    assert isinstance(events[0], TurnStarted)
    assert [e.name for e in events if isinstance(e, ToolFinished)] == [
        "replace_text",
        "complete_task",
    ]
    assert isinstance(events[-1], SessionFinished)
    assert emulator.requests, "the request went through the worker loop's client"


async def test_cancelling_the_caller_aborts_the_model_request(
    emulator: GeminiEmulator, sessions: SessionThread
) -> None:
    emulator.enqueue(Reply.hang())
    provider = GeminiProvider({"GEMINI_API_KEY": TEST_KEY})
    task = asyncio.ensure_future(sessions.run_session(_request(emulator), provider, print))
    await emulator.wait_for_requests_async(1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await emulator.wait_for_disconnect_async()


async def test_submit_runs_blocking_work_on_the_worker_thread(sessions: SessionThread) -> None:
    ran_on: list[int] = []
    await asyncio.wrap_future(sessions.submit(lambda: ran_on.append(threading.get_ident())))
    assert ran_on
    assert ran_on[0] != threading.get_ident()

    def broken() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await asyncio.wrap_future(sessions.submit(broken))
