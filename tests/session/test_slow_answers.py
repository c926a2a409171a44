"""Slow answers land, hangs end fast (issue 20 item 2), with time scaled down by the settings:
a request gets `requestTimeoutSeconds` plus time to write an answer as long as the document, is
never sent again once it timed out, and the session says how long it has waited meanwhile."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.providers.limits import request_limit
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import (
    ModelRetrying,
    ModelWaiting,
    SessionEvent,
    ToolFinished,
    describe,
)
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.fakes.scripted import ScriptedProvider, call, done
from tests.session.scripts import Harness, hang

# ~3 KB of source: its limit is 0.5 s + 3000 / 3 / 80 ≈ 13 s at requestTimeoutSeconds 0.5.
BIG = "".join(f"def function_{i}(value):\n    return value * {i}\n\n\n" for i in range(70))


async def run(
    hub: ProviderHub, base_url: str, text: str, provider: str = "gemini", **settings: Any
) -> tuple[SessionOutcome, list[SessionEvent], float]:
    layer = {"provider": provider, "baseUrl": base_url, "requestTimeoutSeconds": 0.5, **settings}
    request = EditRequest(
        instruction="rewrite it", text=text, settings=Settings.from_layers({}, layer)
    )
    events: list[SessionEvent] = []
    began: list[float] = []

    def record(event: SessionEvent) -> None:
        if not began:  # the first turn starts: the SDK is loaded and the client built
            began.append(time.monotonic())
        events.append(event)

    outcome = await run_tool_loop(request, hub, record)
    return outcome, events, time.monotonic() - began[0]


async def test_a_slow_whole_file_answer_lands_with_one_request(
    emulator: GeminiEmulator, hubs: dict[str, ProviderHub]
) -> None:
    rewritten = BIG.replace("value", "number")
    emulator.enqueue(
        Reply.function_calls(
            [
                ("set_document", {"content": rewritten}),
                ("complete_task", {"success": True, "message": "renamed"}),
            ]
        ).delayed(1.5)  # three times the old per-request limit of 0.5 s
    )
    outcome, events, _ = await run(hubs["gemini"], emulator.base_url, BIG)
    assert outcome.success, outcome
    assert outcome.final_text == rewritten
    assert emulator.request_count == 1
    assert not [event for event in events if isinstance(event, ModelRetrying)]
    waited = [event for event in events if isinstance(event, ModelWaiting)]
    assert len(waited) >= 2
    assert [event.seconds for event in waited] == sorted(event.seconds for event in waited)
    assert describe(waited[0]).startswith("Turn 1/8 · waiting for the model · 0.")


def real_source(size: int) -> str:
    """This project's own modules, whole lines, at most `size` bytes."""
    text = ""
    for path in sorted((Path(__file__).parents[2] / "server").rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            if len(text) + len(line) > size:
                return text
            text += line
    return text


@pytest.mark.parametrize("size", [8_000, 64_000])
async def test_a_rewrite_at_a_real_model_s_pace_lands_with_one_request(
    emulator: GeminiEmulator, hubs: dict[str, ProviderHub], size: int
) -> None:
    # 160 tokens/s after 6 s, and requestTimeoutSeconds, both at 1/50 of real time: at 64 KB
    # the answer takes ~2.4 s against the old per-request limit of 1.2 s.
    scale = 0.02
    source = real_source(size)
    rewritten = source.replace("settings", "config")
    reply = Reply.function_calls(
        [("set_document", {"content": rewritten}), ("complete_task", {"success": True})]
    ).paced(scale=scale)
    emulator.enqueue(reply)
    outcome, _, _ = await run(
        hubs["gemini"], emulator.base_url, source, requestTimeoutSeconds=60 * scale
    )
    assert outcome.success, outcome
    assert outcome.final_text == rewritten
    assert emulator.request_count == 1
    if size > 50_000:
        assert reply.delay > 60 * scale


async def test_a_hang_ends_after_one_limit_with_one_error(
    model: Harness, hubs: dict[str, ProviderHub]
) -> None:
    model.script(hang().repeat(None))
    text = "alpha\nbeta\n"
    outcome, events, elapsed = await run(
        hubs[model.provider], model.base_url, text, model.provider, maxRetries=3
    )
    limit = request_limit(Settings(request_timeout_seconds=0.5), len(text))
    assert outcome.reason == "model_error"
    error = outcome.error or ""
    assert "requestTimeoutSeconds" in error
    assert "not sent again" in error
    assert model.request_count == 1
    assert not [event for event in events if isinstance(event, ModelRetrying)]
    assert limit <= elapsed < limit + 3  # one limit, not four


async def test_the_limit_grows_with_the_document() -> None:
    settings = Settings()
    assert request_limit(settings, 0) == 60
    assert 280 < request_limit(settings, 55_000) < 300
    assert request_limit(settings, 10_000_000) == 60 + 65_536 / 80  # capped at the output cap


async def test_a_refused_completion_shows_as_refused_then_the_accepted_one_as_done() -> None:
    provider = ScriptedProvider(
        [[call("replace_text", old_text="no such text", new_text="x"), done()], [done()]]
    )
    request = EditRequest(instruction="edit it", text="alpha\n", settings=Settings())
    events: list[SessionEvent] = []
    outcome = await run_tool_loop(request, provider, events.append)
    assert outcome.success, outcome
    finished = [e for e in events if isinstance(e, ToolFinished) and e.name == "complete_task"]
    assert [e.ok for e in finished] == [False, True]
    assert describe(finished[0]) == (
        "Turn 1/8 · ✗ complete_task: refused: 1 other call(s) in this turn failed (replace_text)"
    )
