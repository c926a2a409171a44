"""The tool loop against every provider: one suite, parametrized over Gemini, OpenAI-compatible
Chat Completions and Anthropic Messages, each through its real SDK and a local wire emulator.
Provider-specific behaviour (malformed JSON arguments, thinking blocks, ...) follows at the end.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from complex_edit.server.outcome import RunError, SessionOutcome, scrub
from complex_edit.server.providers.base import STALE_VIEW, ConversationRequest
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import (
    SessionEvent,
    SessionFinished,
    ToolFinished,
    ToolStarted,
    TurnStarted,
    describe,
)
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest, LineRange
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.anthropic_emulator import AnthropicEmulator
from tests.fakes.anthropic_emulator import Reply as AnthropicReply
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.gemini_emulator import Reply as GeminiReply
from tests.fakes.openai_emulator import OpenAIEmulator
from tests.fakes.openai_emulator import Reply as OpenAIReply
from tests.session.scripts import (
    DEFAULT_MODEL,
    Harness,
    auth_error,
    blocked,
    calls,
    done,
    give_up,
    hang,
    harness,
    html_page,
    model_not_found,
    overloaded,
    rate_limited,
    raw_arguments,
    replace,
    server_error,
    text_only,
    too_large,
    truncated,
    truncated_json,
)

DOC = "def foo():\n    return 1\n\nprint(foo())\n"

RunFn = Callable[..., Awaitable[tuple[SessionOutcome, list[SessionEvent]]]]
OpenAIRunFn = Callable[..., Awaitable[SessionOutcome]]


@pytest.fixture
def run(model: Harness, hubs: dict[str, ProviderHub]) -> RunFn:
    """`await run(text, instruction, *, env=None, **settings)` through a ProviderHub."""
    hub = hubs[model.provider]

    async def _run(
        text: str,
        instruction: str = "edit it",
        *,
        env: dict[str, str] | None = None,
        selection: LineRange | None = None,
        **overrides: Any,
    ) -> tuple[SessionOutcome, list[SessionEvent]]:
        layer = {
            "provider": model.provider,
            "baseUrl": model.base_url,
            "requestTimeoutSeconds": 5,
            **overrides,
        }
        settings = Settings.from_layers({}, layer)
        events: list[SessionEvent] = []
        request = EditRequest(
            instruction=instruction, text=text, settings=settings, selection=selection
        )
        outcome = await run_tool_loop(
            request, ProviderHub(env) if env is not None else hub, events.append
        )
        return outcome, events

    return _run


# ------------------------------------------------------------------------------------------
# The same scenarios for every provider
# ------------------------------------------------------------------------------------------


async def test_one_turn_edit_and_complete(run: RunFn, model: Harness) -> None:
    model.script(
        calls(
            replace("def foo", "def bar"),
            replace("print(foo())", "print(bar())"),
            done("renamed foo to bar"),
            usage=(100, 20),
        )
    )
    outcome, events = await run(DOC, "rename foo to bar")
    assert outcome.success, outcome
    assert outcome.final_text == "def bar():\n    return 1\n\nprint(bar())\n"
    assert outcome.message == "renamed foo to bar"
    assert (outcome.turns, outcome.tool_calls) == (1, 3)
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (100, 20)
    assert isinstance(events[0], TurnStarted)
    assert [type(e) for e in events[1:3]] == [ToolStarted, ToolFinished]
    assert describe(events[1]).startswith("Turn 1/8 · ")
    assert isinstance(events[-1], SessionFinished)
    assert model.problems == []


async def test_request_shape(run: RunFn, model: Harness) -> None:
    model.script(calls(done()))
    outcome, _ = await run(DOC, "do nothing", selection=LineRange(2, 2))
    assert outcome.success, outcome
    assert model.request_count == 1
    assert model.api_key(0) == TEST_KEY
    assert model.model(0) == DEFAULT_MODEL[model.provider]
    assert "editing sub-agent" in model.system_text(0)
    assert "editing sub-agent" not in model.first_message(0)
    assert model.tool_names(0) == [
        "get_document",
        "set_document",
        "replace_text",
        "undo",
        "redo",
        "complete_task",
    ]
    assert model.forces_tool_calls(0)
    first = model.first_message(0)
    assert first.index("<document>") < first.index("do nothing")
    assert "return 1" in first
    assert "lines 2-2" in first


async def test_model_setting_reaches_the_service(run: RunFn, model: Harness) -> None:
    model.script(calls(done()))
    outcome, _ = await run(DOC, model="some-model-7b")
    assert outcome.success, outcome
    assert model.model(0) == "some-model-7b"


async def test_multi_turn_sends_results_and_echoes_ids(run: RunFn, model: Harness) -> None:
    model.script(
        calls(("get_document", {"start_line": 1, "end_line": 2}), ids=["c1"], usage=(10, 1)),
        calls(replace("return 1", "return 2"), ids=["c2"], usage=(20, 2)),
        calls(done(), ids=["c3"], usage=(30, 3)),
    )
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == DOC.replace("return 1", "return 2")
    assert outcome.turns == 3
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (60, 6)
    (first,) = model.results(1)
    assert first.id == "c1"
    assert "return 1" in first.text
    assert first.is_error in (False, None)
    assert [r.id for r in model.results(2)] == ["c2"]
    # the history grows by exactly one model turn per round, sent back as received
    assert [model.model_turns(i) for i in range(3)] == [0, 1, 2]


async def test_undo_and_redo(run: RunFn, model: Harness) -> None:
    model.script(
        calls(replace("return 1", "return 2"), replace("return 2", "return 3"), ("undo", {})),
        calls(("undo", {}), ("redo", {}), done()),
    )
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == DOC.replace("return 1", "return 2")


async def test_complete_alongside_a_failed_call_continues(run: RunFn, model: Harness) -> None:
    model.script(
        calls(replace("not there", "x"), done()),
        calls(replace("return 1", "return 9"), done("fixed")),
    )
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    assert outcome.turns == 2
    assert outcome.final_text == DOC.replace("return 1", "return 9")
    failed, refused = model.results(1)
    assert failed.is_error in (True, None)
    assert "NOT complete" in refused.text
    assert refused.is_error in (True, None)


async def test_complete_task_failure(run: RunFn, model: Harness) -> None:
    model.script(calls(replace("return 1", "return 2"), give_up("cannot be done")))
    outcome, _ = await run(DOC)
    assert not outcome.success
    assert outcome.reason == "task_failed"
    assert outcome.error == "cannot be done"
    assert outcome.final_text is None


async def test_turn_cap(run: RunFn, model: Harness) -> None:
    model.script(calls(("get_document", {})).repeat(None))
    outcome, _ = await run(DOC, maxTurns=3)
    assert outcome.reason == "max_turns"
    assert outcome.turns == 3
    assert model.request_count == 3
    assert outcome.final_text is None


async def test_unknown_tool_and_bad_arguments_go_back_to_the_model(
    run: RunFn, model: Harness
) -> None:
    model.script(
        calls(
            ("delete_file", {"path": "/etc/passwd"}),
            ("replace_text", {"old_text": "return 1"}),
            ("get_document", {"start_line": "3"}),
        ),
        calls(done()),
    )
    outcome, events = await run(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == DOC
    unknown, missing, wrong_type = model.results(1)
    assert "replace_text" in unknown.text
    assert "get_document" in unknown.text
    assert "new_text" in missing.text
    assert "start_line" in wrong_type.text
    assert all(r.is_error in (True, None) for r in (unknown, missing, wrong_type))
    failed = [e for e in events if isinstance(e, ToolFinished) and not e.ok]
    assert len(failed) == 3


async def test_text_only_replies_are_never_an_edit(run: RunFn, model: Harness) -> None:
    model.script(text_only().repeat(None))
    outcome, _ = await run(DOC)
    assert outcome.reason == "model_error"
    assert outcome.final_text is None
    assert model.request_count == 2


async def test_a_text_only_reply_is_asked_again(run: RunFn, model: Harness) -> None:
    model.script(text_only(), calls(done()))
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    assert model.model_turns(1) == 0  # the reply without a call is not kept


async def test_429_then_success(run: RunFn, model: Harness) -> None:
    model.script(rate_limited(0.1), calls(done()))
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    assert model.request_count == 2


async def test_429_with_a_delay_beyond_the_budget_fails_fast(run: RunFn, model: Harness) -> None:
    model.script(rate_limited(3600))
    outcome, _ = await run(DOC, wallTimeSeconds=30)
    assert outcome.reason == "quota"
    assert "3600" in (outcome.error or "")
    assert model.request_count == 1


async def test_5xx_twice_then_success(run: RunFn, model: Harness) -> None:
    model.script(server_error(503), overloaded(), calls(done()))
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    assert model.request_count == 3


async def test_persistent_overload_is_a_model_error(run: RunFn, model: Harness) -> None:
    model.script(overloaded().repeat(None))
    outcome, _ = await run(DOC, maxRetries=2)
    assert outcome.reason == "model_error"
    assert model.request_count == 3
    assert "3 attempts" in (outcome.error or "")
    assert outcome.final_text is None


async def test_500_is_retried(run: RunFn, model: Harness) -> None:
    model.script(server_error(500), calls(done()))
    outcome, _ = await run(DOC)
    assert outcome.success, outcome


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_errors_are_auth_without_the_key(
    run: RunFn, model: Harness, status: int
) -> None:
    model.script(auth_error(status))
    outcome, _ = await run(DOC)
    assert outcome.reason == "auth"
    assert model.request_count == 1
    error = outcome.error or ""
    assert TEST_KEY not in error
    assert TEST_KEY[-4:] not in error
    assert model.key_variable in error or "GOOGLE_API_KEY" in error


async def test_too_large(run: RunFn, model: Harness) -> None:
    model.script(too_large())
    outcome, _ = await run(DOC)
    assert outcome.reason == "too_large"
    assert model.request_count == 1


async def test_blocked(run: RunFn, model: Harness) -> None:
    model.script(blocked())
    outcome, _ = await run(DOC)
    assert outcome.reason == "blocked"
    assert outcome.final_text is None


async def test_truncated_output_applies_nothing(run: RunFn, model: Harness) -> None:
    model.script(truncated(("set_document", {"content": "trunc"}), done()))
    outcome, _ = await run(DOC)
    assert not outcome.success
    assert outcome.reason == "model_error"
    assert "cut off" in (outcome.error or "")
    assert outcome.final_text is None
    # Streamed (issue 21): OpenAI and Anthropic finish the first call before the cut, and it
    # ran; Gemini's calls and its finish reason come in one chunk, so none ran.
    assert outcome.tool_calls == (0 if model.provider == "gemini" else 1)


async def test_no_key_is_config_before_any_request(run: RunFn, model: Harness) -> None:
    outcome, _ = await run(DOC, env={}, baseUrl=None)
    assert outcome.reason == "config"
    assert model.key_variable in (outcome.error or "")
    assert model.request_count == 0


async def test_unknown_model_is_config(run: RunFn, model: Harness) -> None:
    model.script(model_not_found())
    outcome, _ = await run(DOC, model="model-nope")
    assert outcome.reason == "config"
    assert "model-nope" in (outcome.error or "")


async def test_html_page_is_a_model_error(run: RunFn, model: Harness) -> None:
    model.script(html_page())
    outcome, _ = await run(DOC)
    assert outcome.reason == "model_error"
    assert outcome.final_text is None


async def test_truncated_json_is_a_model_error(run: RunFn, model: Harness) -> None:
    model.script(truncated_json())
    outcome, _ = await run(DOC)
    assert outcome.reason == "model_error"
    assert outcome.final_text is None


async def test_silent_server_times_out(run: RunFn, model: Harness) -> None:
    model.script(hang().repeat(None))
    outcome, _ = await run(DOC, requestTimeoutSeconds=0.5, maxRetries=0)
    assert outcome.reason == "model_error"
    assert "requestTimeoutSeconds" in (outcome.error or "")


async def test_cancel_aborts_the_request(run: RunFn, model: Harness) -> None:
    model.script(hang())
    task = asyncio.ensure_future(run(DOC))
    await model.wait_for_requests(1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await model.wait_for_disconnect()


# What every request re-sends before the history: besides the first message(s), these fields.
PREFIX_FIELDS = {
    "gemini": ("systemInstruction", "tools", "toolConfig", "generationConfig"),
    "openai": ("model", "tools", "tool_choice"),
    "anthropic": ("model", "system", "tools", "tool_choice"),
}
FIRST_MESSAGES = {"gemini": 1, "openai": 2, "anthropic": 1}  # OpenAI: system, then user


def request_prefix(model: Harness, index: int) -> str:
    """The prefix of request `index` as the emulator received it (key order as sent)."""
    body = model.emulator.requests[index].body  # type: ignore[attr-defined]
    history = body["contents" if model.provider == "gemini" else "messages"]
    fields = [(name, body.get(name)) for name in PREFIX_FIELDS[model.provider]]
    return json.dumps([fields, history[: FIRST_MESSAGES[model.provider]]], ensure_ascii=False)


async def test_the_request_prefix_is_the_same_every_turn(run: RunFn, model: Harness) -> None:
    model.script(
        calls(("get_document", {})),
        calls(replace("return 1", "return 2")),
        calls(("set_document", {"content": DOC.replace("foo", "bar")})),
        calls(("get_document", {})),
        calls(done()),
    )
    outcome, _ = await run(DOC)
    assert outcome.success, outcome
    prefixes = [request_prefix(model, i) for i in range(model.request_count)]
    assert model.request_count == 5
    assert "editing sub-agent" in prefixes[0]
    assert all(prefix == prefixes[0] for prefix in prefixes[1:])
    for i in range(1, model.request_count):  # each request extends the one before
        before = model.model_turn_bodies(i - 1)
        assert model.model_turn_bodies(i)[: len(before)] == before


async def test_cached_input_tokens_reach_the_usage_and_the_progress_line(
    run: RunFn, model: Harness
) -> None:
    model.script(
        calls(replace("return 1", "return 2"), usage=(1000, 20)),
        calls(replace("return 2", "return 3"), usage=(1200, 10), cached=900),
        calls(done(), usage=(1300, 10), cached=1100),
    )
    outcome, events = await run(DOC)
    assert outcome.success, outcome
    assert outcome.usage.cached_tokens == 2000
    assert outcome.usage.model_dump(by_alias=True)["cachedTokens"] == 2000
    uncounted = 2000 if model.provider == "anthropic" else 0  # Anthropic counts them apart
    assert outcome.usage.input_tokens == 3500 + uncounted
    lines = [describe(event) for event in events if isinstance(event, TurnStarted)]
    assert "cached" not in lines[0] + lines[1]
    assert f"900 of {2200 + 900 * (uncounted > 0):,} input tokens cached" in lines[2]


async def test_anthropic_marks_the_prefix_for_caching(
    anthropic_server: AnthropicEmulator, hubs: dict[str, ProviderHub]
) -> None:
    anthropic_server.reset()
    anthropic_server.enqueue(
        AnthropicReply.tool_use([("get_document", {})]), AnthropicReply.tool_use([done()])
    )
    settings = Settings.from_layers(
        {}, {"provider": "anthropic", "baseUrl": anthropic_server.base_url}
    )
    outcome = await run_tool_loop(
        EditRequest(instruction="edit", text=DOC, settings=settings), hubs["anthropic"]
    )
    assert outcome.success, outcome
    ephemeral = {"type": "ephemeral"}
    for request in anthropic_server.requests:
        (system,) = request.field("system")
        assert system["cache_control"] == ephemeral
        (first,) = request.messages[0]["content"]
        assert first["cache_control"] == ephemeral
        assert "cache_control" not in json.dumps(request.messages[1:])  # at most 4 breakpoints
    anthropic_server.reset()


REPLY_CLASS = {"gemini": GeminiReply, "openai": OpenAIReply, "anthropic": AnthropicReply}


def flat_parentheses(text: str) -> bool:
    """No empty pair and none inside another."""
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth > 1 or depth < 0:
            return False
    return depth == 0 and "()" not in text


async def test_a_model_the_api_does_not_know_is_named_plainly(run: RunFn, model: Harness) -> None:
    model.script(model_not_found())
    outcome, _ = await run(DOC, model="model-nope", maxRetries=0)
    error = outcome.error or ""
    assert outcome.reason == "config"
    assert "'model-nope' was not found" in error
    assert "'model' setting" in error
    assert flat_parentheses(error), error


@pytest.mark.parametrize(
    "shape", ["html", "plain text", "empty", "json of another server", "json with parentheses"]
)
async def test_a_404_from_something_else_names_the_base_url_plainly(
    run: RunFn, model: Harness, shape: str
) -> None:
    reply_class: Any = REPLY_CLASS[model.provider]
    reply = {
        "html": lambda: reply_class.html(status=404),
        "plain text": lambda: reply_class.raw_bytes(
            b"404 page not found\n", status=404, content_type="text/plain"
        ),
        "empty": lambda: reply_class.raw_bytes(b"", status=404),
        "json of another server": lambda: reply_class.json({"detail": "Not Found"}, status=404),
        "json with parentheses": lambda: reply_class.json(
            {"detail": "Not Found (no route (POST))"}, status=404
        ),
    }[shape]()
    model.emulator.enqueue(reply)  # type: ignore[attr-defined]
    outcome, _ = await run(DOC, maxRetries=0)
    error = outcome.error or ""
    assert outcome.reason == "config"
    assert "was not found" not in error
    assert "baseUrl" in error
    assert "()" not in error
    if shape != "json with parentheses":  # the service's own text is quoted as it came
        assert flat_parentheses(error), error
    assert "Error code" not in error  # the SDK's own wording of the status says nothing more


# ------------------------------------------------------------------------------------------
# Context: besides the first message, at most one full copy of the document
# ------------------------------------------------------------------------------------------

MARKER = "MARKER_7f3a"  # a line of CONTEXT_DOC away from the edits: only full copies show it
CONTEXT_DOC = f"def foo():\n    return 1\n\n\nx = 1\n# {MARKER}\nprint(foo())\n"


def copies(model: Harness) -> list[int]:
    """The full copies of the document in each request."""
    return [model.request_bytes(i).count(MARKER.encode()) for i in range(model.request_count)]


async def test_a_full_view_of_an_unchanged_document_is_a_note(run: RunFn, model: Harness) -> None:
    model.script(
        calls(("get_document", {})),
        calls(replace("return 1", "return 2")),
        calls(("get_document", {})),
        calls(("get_document", {})),
        calls(done()),
    )
    outcome, _ = await run(CONTEXT_DOC)
    assert outcome.success, outcome
    (first,) = model.results(1)
    assert "has not changed since the copy in the first message" in first.text
    assert MARKER not in first.text
    (fresh,) = model.results(3)
    assert MARKER in fresh.text
    assert "return 2" in fresh.text
    (again,) = model.results(4)
    assert "has not changed since your last full get_document" in again.text
    assert MARKER not in again.text
    assert copies(model) == [1, 1, 1, 2, 2]


async def test_set_document_then_get_document_holds_two_copies(run: RunFn, model: Harness) -> None:
    rewritten = CONTEXT_DOC.replace("def foo", "def bar")
    model.script(
        calls(("set_document", {"content": rewritten})),
        calls(("get_document", {})),
        calls(replace("return 1", "return 2")),
        calls(done()),
    )
    outcome, _ = await run(CONTEXT_DOC)
    assert outcome.success, outcome
    assert outcome.final_text == rewritten.replace("return 1", "return 2")
    (view,) = model.results(2)
    assert "has not changed since the content of your set_document" in view.text
    assert copies(model) == [1, 2, 2, 2]


async def test_an_older_full_view_becomes_a_stub(run: RunFn, model: Harness) -> None:
    model.script(
        calls(replace("return 1", "return 2"), ids=["e1"], thinking=("Edit.", "sig-1")),
        calls(("get_document", {}), ids=["v1"], thinking=("Look.", "sig-2")),
        calls(replace("return 2", "return 3"), ids=["e2"], thinking=("Edit.", "sig-3")),
        calls(("get_document", {}), ids=["v2"], thinking=("Look again.", "sig-4")),
        calls(done(), ids=["d"]),
    )
    outcome, _ = await run(CONTEXT_DOC)
    assert outcome.success, outcome
    before, after = model.history_results(3), model.history_results(4)
    assert [r.id for r in after] == ["e1", "v1", "e2", "v2"]
    assert "return 2" in before[1].text
    assert MARKER in before[1].text
    stub = after[1]
    assert stub.text == STALE_VIEW
    assert stub.is_error in (False, None)
    assert stub.name in ("get_document", None)
    assert "return 3" in after[3].text
    assert MARKER in after[3].text
    assert (after[0], after[2]) == (before[0], before[2])
    assert model.model_turn_bodies(4)[:3] == model.model_turn_bodies(3)
    assert copies(model) == [1, 1, 2, 2, 2]


# ------------------------------------------------------------------------------------------
# Provider-specific behaviour
# ------------------------------------------------------------------------------------------


@pytest.fixture
def openai_model(
    emulator: GeminiEmulator, openai_server: OpenAIEmulator, anthropic_server: AnthropicEmulator
) -> Iterator[Harness]:
    chosen = harness(
        "openai",
        gemini_emulator=emulator,
        openai_emulator=openai_server,
        anthropic_emulator=anthropic_server,
    )
    chosen.reset()
    yield chosen
    chosen.reset()


@pytest.fixture
def run_openai(openai_model: Harness, hubs: dict[str, ProviderHub]) -> OpenAIRunFn:
    """`await run_openai(env=None, **settings)`: one run against the OpenAI emulator."""

    async def _run(env: dict[str, str] | None = None, **layer: Any) -> SessionOutcome:
        settings = Settings.from_layers(
            {},
            {
                "provider": "openai",
                "baseUrl": openai_model.base_url,
                "requestTimeoutSeconds": 5,
                **layer,
            },
        )
        hub = hubs["openai"] if env is None else ProviderHub(env)
        request = EditRequest(instruction="edit", text=DOC, settings=settings)
        return await run_tool_loop(request, hub)

    return _run


async def test_openai_malformed_json_arguments_are_a_tool_error_then_success(
    openai_model: Harness,
    run_openai: OpenAIRunFn,
) -> None:
    model = openai_model
    model.script(
        raw_arguments("replace_text", '{"old_text": "return 1", "new_text": "return 2'),
        calls(replace("return 1", "return 2"), done()),
    )
    outcome = await run_openai()
    assert outcome.success, outcome
    assert outcome.final_text == DOC.replace("return 1", "return 2")
    (result,) = model.results(1)
    assert "not valid JSON" in result.text
    assert "Nothing was changed" in result.text


async def test_openai_arguments_that_are_not_an_object(
    openai_model: Harness, run_openai: OpenAIRunFn
) -> None:
    model = openai_model
    model.script(raw_arguments("get_document", "[1, 2]"), calls(done()))
    outcome = await run_openai()
    assert outcome.success, outcome
    (result,) = model.results(1)
    assert "must be an object" in result.text


async def test_openai_double_encoded_and_empty_arguments_are_read(
    openai_model: Harness, run_openai: OpenAIRunFn
) -> None:
    model = openai_model
    model.script(
        raw_arguments("get_document", '"{\\"start_line\\": 2, \\"end_line\\": 2}"'),
        raw_arguments("get_document", ""),
        calls(done()),
    )
    outcome = await run_openai()
    assert outcome.success, outcome
    assert "return 1" in model.results(1)[0].text
    assert model.results(2)[0].text.startswith("[lines 1-4 of 4]")


async def test_openai_local_server_without_a_key_gets_a_placeholder(
    openai_model: Harness,
    run_openai: OpenAIRunFn,
) -> None:
    model = openai_model
    model.script(calls(done()))
    outcome = await run_openai(env={}, model="llama3.2")
    assert outcome.success, outcome
    assert model.api_key(0)  # the SDK needs some key; a local server ignores it


async def test_openai_keyless_server_that_wants_a_key_names_the_variable(
    openai_model: Harness,
    run_openai: OpenAIRunFn,
) -> None:
    model = openai_model
    model.script(auth_error(401))
    outcome = await run_openai(env={})
    assert outcome.reason == "auth"
    assert "No OPENAI_API_KEY is set" in (outcome.error or "")


async def test_openai_quota_exhausted_is_not_retried(
    openai_model: Harness, run_openai: OpenAIRunFn, openai_server: OpenAIEmulator
) -> None:
    openai_server.enqueue(OpenAIReply.quota_exhausted())
    outcome = await run_openai()
    assert outcome.reason == "quota"
    assert openai_model.request_count == 1


async def test_openai_server_without_required_tool_choice_falls_back_to_auto(
    openai_model: Harness, run_openai: OpenAIRunFn, openai_server: OpenAIEmulator
) -> None:
    openai_server.enqueue(
        OpenAIReply.error(400, "tool_choice 'required' is not supported; use 'auto'"),
        OpenAIReply.tool_calls([("get_document", {})]),
        OpenAIReply.tool_calls([done()]),
    )
    outcome = await run_openai()
    assert outcome.success, outcome
    choices = [r.tool_choice for r in openai_server.requests]
    assert choices == ["required", "auto", "auto"]


async def test_openai_temperature_is_sent_only_when_set(
    openai_model: Harness, run_openai: OpenAIRunFn, openai_server: OpenAIEmulator
) -> None:
    openai_server.enqueue(OpenAIReply.tool_calls([done()]), OpenAIReply.tool_calls([done()]))
    assert (await run_openai()).success
    assert (await run_openai(temperature=0.2)).success
    first, second = openai_server.requests
    assert "temperature" not in first.body
    assert second.body["temperature"] == 0.2


async def test_anthropic_thinking_blocks_are_echoed_and_errors_flagged(
    anthropic_server: AnthropicEmulator, hubs: dict[str, ProviderHub]
) -> None:
    anthropic_server.reset()
    anthropic_server.enqueue(
        AnthropicReply.tool_use(
            [replace("nowhere", "x"), ("get_document", {})],
            ids=["toolu_a", "toolu_b"],
            thinking=("Let me look.", "c2lnbmF0dXJl"),
            text="Looking.",
        ),
        AnthropicReply.tool_use([done()], usage=(50, 5), cache_read_tokens=40),
    )
    settings = Settings.from_layers(
        {}, {"provider": "anthropic", "baseUrl": anthropic_server.base_url, "model": "claude-x"}
    )
    request = EditRequest(instruction="edit", text=DOC, settings=settings)
    outcome = await run_tool_loop(request, hubs["anthropic"])
    assert outcome.success, outcome
    assert outcome.usage.cached_tokens == 40
    assert outcome.usage.input_tokens == 10 + 50 + 40
    second = anthropic_server.requests[1]
    assert second.field("system")
    assert second.field("max_tokens") > 0
    assistant = second.messages[1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "Let me look.",
        "signature": "c2lnbmF0dXJl",
    }
    assert [b["type"] for b in assistant["content"]] == ["thinking", "text", "tool_use", "tool_use"]
    failed, ok = second.tool_results
    assert (failed["tool_use_id"], failed.get("is_error")) == ("toolu_a", True)
    assert (ok["tool_use_id"], ok.get("is_error")) == ("toolu_b", None)
    anthropic_server.reset()


async def test_anthropic_auth_token_is_sent_as_bearer(anthropic_server: AnthropicEmulator) -> None:
    anthropic_server.reset()
    anthropic_server.enqueue(AnthropicReply.tool_use([done()]))
    settings = Settings.from_layers(
        {}, {"provider": "anthropic", "baseUrl": anthropic_server.base_url}
    )
    hub = ProviderHub({"ANTHROPIC_AUTH_TOKEN": TEST_KEY})
    outcome = await run_tool_loop(EditRequest(instruction="edit", text=DOC, settings=settings), hub)
    assert outcome.success, outcome
    (request,) = anthropic_server.requests
    assert request.headers.get("authorization") == f"Bearer {TEST_KEY}"
    assert "x-api-key" not in request.headers
    anthropic_server.reset()


# ------------------------------------------------------------------------------------------
# The hub
# ------------------------------------------------------------------------------------------


def _request(provider: str) -> ConversationRequest:
    settings = Settings.from_layers({}, {"provider": provider})
    return ConversationRequest("system", [], "first", settings)


def test_hub_builds_each_provider_once() -> None:
    hub = ProviderHub({})
    assert hub.provider("openai") is hub.provider("openai")
    assert hub.provider("gemini") is not hub.provider("anthropic")


def test_hub_refuses_an_unknown_provider() -> None:
    with pytest.raises(RunError) as caught:
        ProviderHub({}).provider("mistral")
    assert caught.value.reason == "config"
    assert "openai" in caught.value.message


@pytest.mark.parametrize(("provider", "module"), [("openai", "openai"), ("anthropic", "anthropic")])
def test_a_missing_sdk_is_config_with_the_install_hint(
    monkeypatch: pytest.MonkeyPatch, provider: str, module: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    hub = ProviderHub({"OPENAI_API_KEY": TEST_KEY, "ANTHROPIC_API_KEY": TEST_KEY})
    with pytest.raises(RunError) as caught:
        hub.open(_request(provider))
    assert caught.value.reason == "config"
    assert f"pip install 'complex-edit[{provider}]'" in caught.value.message


def test_choosing_a_provider_imports_no_model_sdk() -> None:
    """`complex-edit mcp` lists its tools, and any front end starts, without loading an SDK."""
    modules = [
        "complex_edit.server.providers.select",
        "complex_edit.server.providers.base",
        "complex_edit.server.mcp",
    ]
    code = (
        f"import sys; import {', '.join(modules)}; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'anthropic') "
        "or m.startswith('google.genai')))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert found.stdout.strip() == "[]"


def test_scrub_removes_every_provider_key() -> None:
    env = {
        "GEMINI_API_KEY": "gemini-secret-1",
        "OPENAI_API_KEY": "openai-secret-2",
        "ANTHROPIC_API_KEY": "anthropic-secret-3",
        "ANTHROPIC_AUTH_TOKEN": "anthropic-token-4",
    }
    text = " ".join(env.values())
    assert scrub(text, env) == " ".join(["[redacted]"] * 4)
