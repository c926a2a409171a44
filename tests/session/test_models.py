"""Today's Gemini models through the real SDK and the emulator (issue 20 item 1): the request
for the default model, the thinking level, parameters a model refuses or has deprecated, and a
404 about the model versus one about the base URL."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import DEFAULT_MODEL, Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.fakes.openai_emulator import OpenAIEmulator
from tests.fakes.openai_emulator import Reply as OpenAIReply
from tests.session.conftest import RunFn

DOC = "def foo():\n    return 1\n"
DONE = Reply.function_calls([("complete_task", {"success": True, "message": "done"})])


def config_of(emulator: GeminiEmulator) -> dict[str, Any]:
    return emulator.requests[0].generation_config or {}


def thinking_of(emulator: GeminiEmulator) -> dict[str, Any]:
    """The thinking config's level and budget with camelCase keys (the SDK sends
    `thinking_level` as is, which the API reads like `thinkingLevel`); the request for thought
    summaries (setting thoughtSummaries, issue 21) is checked on its own."""
    config = dict(config_of(emulator).get("thinkingConfig", {}))
    config.pop("include_thoughts", None)
    config.pop("includeThoughts", None)
    return {key.replace("_l", "L").replace("_b", "B"): value for key, value in config.items()}


def include_thoughts_of(emulator: GeminiEmulator) -> object:
    config = config_of(emulator).get("thinkingConfig", {})
    return config.get("include_thoughts", config.get("includeThoughts"))


async def test_the_default_model_gets_no_budget_no_level_no_temperature(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(DONE)
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    assert emulator.requests[0].model == DEFAULT_MODEL == "gemini-3.8-flash"
    config = config_of(emulator)
    assert thinking_of(emulator) == {}
    assert "temperature" not in config


@pytest.mark.parametrize(
    ("model", "summaries", "sent"),
    [
        (DEFAULT_MODEL, None, True),
        ("gemini-2.5-flash", None, True),
        (DEFAULT_MODEL, False, None),
        ("gemini-2.0-flash", None, None),
    ],
)
async def test_thought_summaries_are_asked_for_when_the_model_thinks(
    run: RunFn, emulator: GeminiEmulator, model: str, summaries: bool | None, sent: object
) -> None:
    emulator.enqueue(DONE)
    outcome, _ = await run(DOC, model=model, thoughtSummaries=summaries)
    assert outcome.success, outcome
    assert include_thoughts_of(emulator) is sent


async def test_a_thinking_level_is_sent_alone(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(DONE)
    outcome, _ = await run(DOC, thinkingLevel="LOW")
    assert outcome.success, outcome
    assert thinking_of(emulator) == {"thinkingLevel": "LOW"}


async def test_minimal_on_flash_38_is_config_before_any_request(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    outcome, _ = await run(DOC, thinkingLevel="minimal")
    assert outcome.reason == "config"
    error = outcome.error or ""
    assert "thinkingLevel" in error
    assert "gemini-3.8-flash" in error
    assert "'low'" in error
    assert emulator.request_count == 0


async def test_minimal_is_sent_to_a_model_outside_the_table(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(DONE)
    outcome, _ = await run(DOC, model="gemini-3.5-flash-lite", thinkingLevel="minimal")
    assert outcome.success, outcome
    assert thinking_of(emulator) == {"thinkingLevel": "MINIMAL"}


async def test_a_deprecated_temperature_is_not_sent_and_the_log_says_so(
    run: RunFn, emulator: GeminiEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    emulator.enqueue(DONE)
    with caplog.at_level(logging.WARNING, logger="complex_edit"):
        outcome, _ = await run(DOC, temperature=0.2)
    assert outcome.success, outcome
    assert "temperature" not in config_of(emulator)
    assert any("'temperature' (0.2) is not sent" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("model", ["gemini-3.5-flash-lite", "my-own-model"])
async def test_temperature_reaches_a_model_that_accepts_it(
    run: RunFn, emulator: GeminiEmulator, model: str
) -> None:
    emulator.enqueue(DONE)
    outcome, _ = await run(DOC, model=model, temperature=0.2)
    assert outcome.success, outcome
    assert config_of(emulator)["temperature"] == 0.2


async def test_a_model_the_api_does_not_know_names_it_and_the_default(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        Reply.error(
            404,
            "models/gemini-2.0-flash is not found for API version v1beta, or is not supported "
            "for generateContent. Call ListModels to see the list of available models.",
        )
    )
    outcome, _ = await run(DOC, model="gemini-2.0-flash")
    assert outcome.reason == "config"
    assert "'gemini-2.0-flash'" in (outcome.error or "")
    assert DEFAULT_MODEL in (outcome.error or "")
    assert emulator.request_count == 1


@pytest.mark.parametrize(
    "reply",
    [
        Reply.html(status=404),
        Reply.raw_bytes(b"404 page not found\n", status=404, content_type="text/plain"),
    ],
    ids=["html", "plain"],
)
async def test_a_404_from_something_else_names_the_base_url(
    run: RunFn, emulator: GeminiEmulator, reply: Reply
) -> None:
    emulator.enqueue(reply)
    outcome, _ = await run(DOC)
    assert outcome.reason == "config"
    error = outcome.error or ""
    assert "baseUrl / GOOGLE_GEMINI_BASE_URL" in error
    assert "was not found" not in error


async def test_both_keys_set_names_the_one_in_use_never_a_value(
    run: RunFn, emulator: GeminiEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    emulator.enqueue(DONE)
    env = {"GEMINI_API_KEY": "gemini-key-value", "GOOGLE_API_KEY": TEST_KEY}
    with caplog.at_level(logging.INFO, logger="complex_edit"):
        outcome, _ = await run(DOC, env=env)
    assert outcome.success, outcome
    text = caplog.text
    assert "using GOOGLE_API_KEY" in text
    assert "GEMINI_API_KEY is ignored" in text
    assert TEST_KEY not in text
    assert "gemini-key-value" not in text
    assert emulator.requests[0].api_key == TEST_KEY


async def test_an_editors_stored_key_wins_over_the_environments(
    run: RunFn, emulator: GeminiEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    """VS Code hands its stored key over as COMPLEX_EDIT_STORED_KEY, knowing no provider's
    variables: the server uses it before GOOGLE_API_KEY and GEMINI_API_KEY."""
    emulator.enqueue(DONE)
    env = {"GEMINI_API_KEY": "gemini-key-value", "COMPLEX_EDIT_STORED_KEY": TEST_KEY}
    with caplog.at_level(logging.INFO, logger="complex_edit"):
        outcome, _ = await run(DOC, env=env)
    assert outcome.success, outcome
    assert emulator.requests[0].api_key == TEST_KEY
    assert "using COMPLEX_EDIT_STORED_KEY (GEMINI_API_KEY is ignored)" in caplog.text
    assert TEST_KEY not in caplog.text


async def test_openai_gets_the_thinking_level_as_its_reasoning_effort(
    openai_server: OpenAIEmulator, hubs: dict[str, ProviderHub]
) -> None:
    openai_server.reset()
    openai_server.enqueue(
        OpenAIReply.tool_calls([("complete_task", {"success": True, "message": "done"})])
    )
    layer = {
        "provider": "openai",
        "baseUrl": openai_server.base_url,
        "requestTimeoutSeconds": 5,
        "thinkingLevel": "high",
    }
    request = EditRequest(instruction="edit it", text=DOC, settings=Settings.from_layers({}, layer))
    outcome = await run_tool_loop(request, hubs["openai"])
    assert outcome.success, outcome
    assert openai_server.requests[0].body["reasoning_effort"] == "high"
