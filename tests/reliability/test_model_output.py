"""Model output that must never reach the editor: every finish / stop reason of each API (with
a reply that would empty the document if it were read), blocked prompts, empty replies, and
tool calls with wrong, missing or oversized arguments."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.genai import types as genai_types

from complex_edit.server.providers.gemini_turn import (
    BLOCKED_FINISH,
    OK_FINISH,
    RETRY_IN_TURN_FINISH,
)
from tests.fakes import anthropic_emulator as anthropic
from tests.fakes import gemini_emulator as gemini
from tests.fakes import openai_emulator as openai
from tests.fakes.anthropic_emulator import AnthropicEmulator
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.openai_emulator import OpenAIEmulator
from tests.reliability.sessions import assert_failed_cleanly, run_model

DOC = "def foo():\n    return 1\n\nprint(foo())\n"
WIPE = ("set_document", {"content": ""})
DONE = ("complete_task", {"success": True, "message": "wiped"})

# A value the SDK does not know yet is part of the test: its warning about it is expected.
pytestmark = pytest.mark.filterwarnings("ignore:.* is not a valid:UserWarning")

GEMINI_FINISH = [reason.value for reason in genai_types.FinishReason] + ["SOME_FUTURE_REASON"]


def expected_gemini(finish: str) -> str | None:
    """The reason a run ends with when every reply has this finish reason (None: success)."""
    if finish in OK_FINISH:
        return None
    if finish in BLOCKED_FINISH:
        return "blocked"
    return "model_error"


@pytest.mark.parametrize("finish", GEMINI_FINISH)
async def test_every_gemini_finish_reason(finish: str, emulator: GeminiEmulator) -> None:
    """A reply that would wipe the document is applied only when it finished normally."""
    emulator.enqueue(gemini.Reply.function_calls([WIPE, DONE], finish_reason=finish).repeat(None))
    outcome = await run_model("gemini", emulator.base_url, DOC, maxRetries=0)
    expected = expected_gemini(finish)
    if expected is None:
        assert outcome.success, outcome
        assert outcome.final_text == ""
        return
    assert_failed_cleanly(outcome, expected)
    assert outcome.tool_calls == 0, "a call of a reply that did not finish normally was run"
    assert finish in (outcome.error or ""), "the message does not name the finish reason"
    # retried inside the turn budget only for the malformed-call kinds
    assert len(emulator.requests) == (2 if finish in RETRY_IN_TURN_FINISH else 1)


@pytest.mark.parametrize(
    "block_reason", [reason.value for reason in genai_types.BlockedReason] + ["NEW_REASON"]
)
async def test_every_gemini_block_reason(block_reason: str, emulator: GeminiEmulator) -> None:
    emulator.enqueue(gemini.Reply.blocked_prompt(block_reason))
    outcome = await run_model("gemini", emulator.base_url, DOC)
    assert_failed_cleanly(outcome, "blocked")
    assert block_reason in (outcome.error or "")
    assert len(emulator.requests) == 1


@pytest.mark.parametrize("variant", ["empty_parts", "no_parts", "no_content"])
async def test_gemini_stop_with_nothing_is_never_an_empty_document(
    variant: str, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(gemini.Reply.empty_stop(variant).repeat(None))  # type: ignore[arg-type]
    outcome = await run_model("gemini", emulator.base_url, DOC)
    assert_failed_cleanly(outcome, "model_error")
    assert outcome.tool_calls == 0
    assert outcome.turns == 2


async def test_gemini_no_candidates_without_a_block_reason(emulator: GeminiEmulator) -> None:
    emulator.enqueue(gemini.Reply.json({"usageMetadata": {"promptTokenCount": 5}}).repeat(None))
    outcome = await run_model("gemini", emulator.base_url, DOC)
    assert_failed_cleanly(outcome, "model_error")


async def test_gemini_empty_stop_then_a_real_turn_succeeds(emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        gemini.Reply.empty_stop(),
        gemini.Reply.function_calls([("replace_text", {"old_text": "1", "new_text": "2"}), DONE]),
    )
    outcome = await run_model("gemini", emulator.base_url, DOC)
    assert outcome.success, outcome
    assert outcome.final_text == DOC.replace("return 1", "return 2")


OPENAI_FINISH = {
    "tool_calls": None,
    "stop": None,
    None: None,
    "length": "model_error",
    "content_filter": "blocked",
}


@pytest.mark.parametrize("finish", list(OPENAI_FINISH), ids=str)
async def test_every_openai_finish_reason(
    finish: str | None, openai_server: OpenAIEmulator
) -> None:
    openai_server.reset()
    openai_server.enqueue(openai.Reply.tool_calls([WIPE, DONE], finish_reason=finish).repeat(None))
    outcome = await run_model("openai", openai_server.base_url, DOC, maxRetries=0)
    expected = OPENAI_FINISH[finish]
    if expected is None:
        assert outcome.success, outcome
        assert outcome.final_text == ""
    else:
        assert_failed_cleanly(outcome, expected)
        # Streamed (issue 21): WIPE was complete before the finish reason came, so it ran;
        # nothing was applied.
        assert outcome.tool_calls == 1
        assert str(finish) in (outcome.error or "")
    openai_server.reset()


async def test_openai_refusal_and_no_choices(openai_server: OpenAIEmulator) -> None:
    openai_server.reset()
    openai_server.enqueue(openai.Reply.refusal())
    outcome = await run_model("openai", openai_server.base_url, DOC)
    assert_failed_cleanly(outcome, "blocked")
    openai_server.enqueue(openai.Reply.no_choices().repeat(None))
    outcome = await run_model("openai", openai_server.base_url, DOC)
    assert_failed_cleanly(outcome, "model_error")
    openai_server.reset()


ANTHROPIC_STOP = {
    "tool_use": None,
    "end_turn": None,
    "max_tokens": "model_error",
    "refusal": "blocked",
    "model_context_window_exceeded": "too_large",
}


@pytest.mark.parametrize("stop", list(ANTHROPIC_STOP))
async def test_every_anthropic_stop_reason(stop: str, anthropic_server: AnthropicEmulator) -> None:
    anthropic_server.reset()
    anthropic_server.enqueue(anthropic.Reply.tool_use([WIPE, DONE], stop_reason=stop).repeat(None))
    outcome = await run_model("anthropic", anthropic_server.base_url, DOC, maxRetries=0)
    expected = ANTHROPIC_STOP[stop]
    if expected is None:
        assert outcome.success, outcome
        assert outcome.final_text == ""
    else:
        assert_failed_cleanly(outcome, expected)
        # Streamed (issue 21): WIPE was complete before the stop reason came, so it ran;
        # nothing was applied.
        assert outcome.tool_calls == 1
    anthropic_server.reset()


# -- arguments the tools must refuse, leaving the document as it was ----------------------

BAD_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "line as a string": ("get_document", {"start_line": "3"}),
    "line negative": ("get_document", {"start_line": -1}),
    "line zero": ("get_document", {"start_line": 0}),
    "line fractional": ("get_document", {"start_line": 2.5}),
    "line boolean": ("get_document", {"start_line": True}),
    "end before start": ("get_document", {"start_line": 3, "end_line": 1}),
    "missing new_text": ("replace_text", {"old_text": "return 1"}),
    "old_text a number": ("replace_text", {"old_text": 1, "new_text": "2"}),
    "replace_all a string": (
        "replace_text",
        {"old_text": "foo", "new_text": "bar", "replace_all": "yes"},
    ),
    "no match": ("replace_text", {"old_text": "return 7", "new_text": "return 8"}),
    "several matches": ("replace_text", {"old_text": "foo", "new_text": "bar"}),
    "content missing": ("set_document", {}),
    "content null": ("set_document", {"content": None}),
    "content a list": ("set_document", {"content": ["a", "b"]}),
    "content oversized": ("set_document", {"content": "x" * 5000}),
    "lone surrogate": ("set_document", {"content": "x = '\ud800'\n"}),
    "unknown tool": ("delete_file", {"path": "/etc/passwd"}),
    "extra path argument": ("set_document", {"content": "", "path": "/tmp/elsewhere"}),
    "undo with nothing to undo": ("undo", {}),
    "redo with nothing to redo": ("redo", {}),
    "complete_task success not a bool": ("complete_task", {"success": "true"}),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
async def test_bad_tool_calls_are_errors_to_the_model_and_change_nothing(
    case: str, emulator: GeminiEmulator
) -> None:
    name, args = BAD_CALLS[case]
    body = gemini.Reply.function_calls([(name, args)]).body
    # ASCII JSON: a lone surrogate travels as the escape \\ud800, as a real API would send it
    emulator.enqueue(
        gemini.Reply.raw_bytes(json.dumps(body).encode("ascii"), content_type="application/json"),
        gemini.Reply.function_calls([("complete_task", {"success": True, "message": "ok"})]),
    )
    outcome = await run_model("gemini", emulator.base_url, DOC, maxDocumentBytes=1000)
    assert outcome.success, outcome
    assert outcome.final_text == DOC, "a refused call changed the document"
    (response,) = emulator.requests[1].function_responses
    assert "error" in response["response"], response
    assert response["response"]["error"], response


async def test_complete_task_alongside_a_failed_call_does_not_apply(
    emulator: GeminiEmulator,
) -> None:
    emulator.enqueue(
        gemini.Reply.function_calls(
            [WIPE, ("replace_text", {"old_text": "nowhere", "new_text": "x"}), DONE]
        ),
        gemini.Reply.function_calls([("undo", {}), ("complete_task", {"success": False})]),
    )
    outcome = await run_model("gemini", emulator.base_url, DOC)
    assert_failed_cleanly(outcome, "task_failed")
    assert outcome.turns == 2
