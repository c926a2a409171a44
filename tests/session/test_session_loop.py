"""The tool loop against the Gemini emulator, through the real google-genai SDK."""

from __future__ import annotations

import base64

from server.events import SessionFinished, ToolFinished, ToolStarted, TurnStarted, describe
from server.session import LineRange
from tests.fakes.gemini_emulator import Call, GeminiEmulator, Reply
from tests.session.conftest import RunFn

DOC = "def foo():\n    return 1\n\nprint(foo())\n"


def done(message: str = "done") -> tuple[str, dict[str, object]]:
    return ("complete_task", {"success": True, "message": message})


async def test_one_turn_edit_and_complete(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        Reply.function_calls(
            [
                ("replace_text", {"old_text": "def foo", "new_text": "def bar"}),
                ("replace_text", {"old_text": "print(foo())", "new_text": "print(bar())"}),
                done("renamed foo to bar"),
            ],
            usage=(100, 20),
        )
    )
    outcome, events = await run(DOC, "rename foo to bar")
    assert outcome.success
    assert outcome.final_text == "def bar():\n    return 1\n\nprint(bar())\n"
    assert outcome.message == "renamed foo to bar"
    assert (outcome.turns, outcome.tool_calls) == (1, 3)
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (100, 20)
    assert isinstance(events[0], TurnStarted)
    assert [type(e) for e in events[1:3]] == [ToolStarted, ToolFinished]
    assert isinstance(events[-1], SessionFinished)
    assert describe(events[1]).startswith("Turn 1/8 · ")


async def test_request_shape(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.function_calls([done()]))
    outcome, _ = await run(DOC, "do nothing", selection=LineRange(2, 2))
    assert outcome.success
    (request,) = emulator.requests
    assert request.api_key is not None
    assert "editing sub-agent" in request.system_text
    names = [decl["name"] for decl in request.function_declarations]
    assert names == [
        "get_document",
        "set_document",
        "replace_text",
        "undo",
        "redo",
        "complete_task",
    ]
    mode = (request.tool_config or {})["functionCallingConfig"]
    assert mode["mode"] == "ANY"
    assert sorted(mode["allowedFunctionNames"]) == sorted(names)
    first = request.contents[0]["parts"][0]["text"]
    assert first.index("<document>") < first.index("do nothing")
    assert "return 1" in first
    assert "lines 2-2" in first


async def test_multi_turn_sends_results_and_echoes_ids(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        Reply.function_calls([("get_document", {"start_line": 1, "end_line": 2})], ids=["c1"]),
        Reply.function_calls(
            [("replace_text", {"old_text": "return 1", "new_text": "return 2"})], ids=["c2"]
        ),
        Reply.function_calls([done()], ids=["c3"]),
    )
    outcome, _ = await run(DOC)
    assert outcome.success
    assert outcome.final_text == DOC.replace("return 1", "return 2")
    assert outcome.turns == 3
    second, third = emulator.requests[1], emulator.requests[2]
    (response,) = second.function_responses
    assert response["id"] == "c1"
    assert response["name"] == "get_document"
    assert "return 1" in response["response"]["result"]
    assert third.function_responses[0]["id"] == "c2"
    # the history grows by exactly one model turn and one user turn per round
    assert len(third.contents) == 5


async def test_thought_signatures_echoed_byte_identical(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    signature = bytes(range(256)) * 3
    emulator.enqueue(
        Reply.function_calls(
            [Call("get_document", {}, thought_signature=signature)], text="thinking"
        ),
        Reply.function_calls([done()]),
    )
    outcome, _ = await run(DOC)
    assert outcome.success
    model_turn = emulator.requests[1].contents[1]
    assert model_turn["role"] == "model"
    assert model_turn["parts"][0] == {"text": "thinking"}
    sent = model_turn["parts"][1]["thoughtSignature"]
    assert base64.urlsafe_b64decode(sent) == signature


async def test_undo_and_redo(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        Reply.function_calls(
            [
                ("replace_text", {"old_text": "return 1", "new_text": "return 2"}),
                ("replace_text", {"old_text": "return 2", "new_text": "return 3"}),
                ("undo", {}),
            ]
        ),
        Reply.function_calls([("undo", {}), ("redo", {}), done()]),
    )
    outcome, _ = await run(DOC)
    assert outcome.success
    assert outcome.final_text == DOC.replace("return 1", "return 2")


async def test_complete_alongside_failed_call_continues(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        Reply.function_calls(
            [("replace_text", {"old_text": "not there", "new_text": "x"}), done()]
        ),
        Reply.function_calls(
            [("replace_text", {"old_text": "return 1", "new_text": "return 9"}), done("fixed")]
        ),
    )
    outcome, _ = await run(DOC)
    assert outcome.success
    assert outcome.turns == 2
    assert outcome.final_text == DOC.replace("return 1", "return 9")
    responses = emulator.requests[1].function_responses
    assert "error" in responses[0]["response"]
    assert "NOT complete" in responses[1]["response"]["error"]


async def test_complete_task_failure(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        Reply.function_calls(
            [
                ("replace_text", {"old_text": "return 1", "new_text": "return 2"}),
                ("complete_task", {"success": False, "error": "cannot be done"}),
            ]
        )
    )
    outcome, _ = await run(DOC)
    assert not outcome.success
    assert outcome.reason == "task_failed"
    assert outcome.error == "cannot be done"
    assert outcome.final_text is None


async def test_turn_cap(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.function_calls([("get_document", {})]).repeat(None))
    outcome, _ = await run(DOC, maxTurns=3)
    assert not outcome.success
    assert outcome.reason == "max_turns"
    assert outcome.turns == 3
    assert len(emulator.requests) == 3
    assert outcome.final_text is None


async def test_unknown_tool_and_bad_arguments_go_back_to_the_model(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        Reply.function_calls(
            [
                ("delete_file", {"path": "/etc/passwd"}),
                ("replace_text", {"old_text": "return 1"}),
                ("get_document", {"start_line": "3"}),
            ]
        ),
        Reply.function_calls([done()]),
    )
    outcome, _ = await run(DOC)
    assert outcome.success
    assert outcome.final_text == DOC
    errors = [r["response"]["error"] for r in emulator.requests[1].function_responses]
    assert "replace_text" in errors[0]
    assert "get_document" in errors[0]
    assert "new_text" in errors[1]
    assert "start_line" in errors[2]


async def test_float_integers_are_accepted(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        Reply.function_calls([("get_document", {"start_line": 2.0, "end_line": 2.0})]),
        Reply.function_calls([done()]),
    )
    outcome, _ = await run(DOC)
    assert outcome.success
    result = emulator.requests[1].function_responses[0]["response"]
    assert "return 1" in result["result"]


async def test_429_then_success(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.rate_limited("0.1s"), Reply.function_calls([done()]))
    outcome, _ = await run(DOC)
    assert outcome.success
    assert len(emulator.requests) == 2


async def test_429_with_delay_beyond_budget_fails_fast(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(Reply.rate_limited("3600s"))
    outcome, _ = await run(DOC, wallTimeSeconds=30)
    assert outcome.reason == "quota"
    assert "3600" in (outcome.error or "")
    assert len(emulator.requests) == 1


async def test_503_twice_then_success(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.error(503).repeat(2), Reply.function_calls([done()]))
    outcome, _ = await run(DOC)
    assert outcome.success
    assert len(emulator.requests) == 3


async def test_persistent_503(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.error(503).repeat(None))
    outcome, _ = await run(DOC, maxRetries=2)
    assert outcome.reason == "model_error"
    assert len(emulator.requests) == 3
    assert outcome.final_text is None


async def test_401_is_auth_without_the_key(run: RunFn, emulator: GeminiEmulator) -> None:
    from tests.conftest import TEST_KEY

    emulator.enqueue(Reply.error(401))
    outcome, _ = await run(DOC)
    assert outcome.reason == "auth"
    assert len(emulator.requests) == 1
    assert TEST_KEY not in (outcome.error or "")


async def test_403_is_auth(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.api_key_invalid())
    outcome, _ = await run(DOC)
    assert outcome.reason == "auth"


async def test_input_too_large(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.input_too_large())
    outcome, _ = await run(DOC)
    assert outcome.reason == "too_large"
    assert len(emulator.requests) == 1


async def test_safety_is_blocked(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.finish("SAFETY", []))
    outcome, _ = await run(DOC)
    assert outcome.reason == "blocked"
    assert outcome.final_text is None


async def test_blocked_prompt(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.blocked_prompt())
    outcome, _ = await run(DOC)
    assert outcome.reason == "blocked"


async def test_max_tokens_applies_nothing(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        Reply.function_calls(
            [("set_document", {"content": "trunc"}), done()], finish_reason="MAX_TOKENS"
        )
    )
    outcome, _ = await run(DOC)
    assert not outcome.success
    assert outcome.reason == "model_error"
    assert "MAX_TOKENS" in (outcome.error or "")


async def test_malformed_function_call_is_retried_then_succeeds(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(Reply.finish("MALFORMED_FUNCTION_CALL", []), Reply.function_calls([done()]))
    outcome, _ = await run(DOC)
    assert outcome.success
    assert outcome.turns == 2
    # the malformed turn is not added to the history
    assert len(emulator.requests[1].contents) == 1


async def test_malformed_function_call_repeated_fails(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.finish("MALFORMED_FUNCTION_CALL", []).repeat(None))
    outcome, _ = await run(DOC)
    assert outcome.reason == "model_error"
    assert outcome.turns == 2


async def test_empty_stop_is_never_an_empty_document(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.empty_stop().repeat(None))
    outcome, _ = await run(DOC)
    assert not outcome.success
    assert outcome.final_text is None


async def test_no_api_key_fails_before_any_request(run: RunFn, emulator: GeminiEmulator) -> None:
    outcome, _ = await run(DOC, env={})
    assert outcome.reason == "config"
    assert "GEMINI_API_KEY" in (outcome.error or "")
    assert emulator.requests == []


async def test_html_page_is_a_model_error(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.html(status=200))
    outcome, _ = await run(DOC)
    assert outcome.reason == "model_error"


async def test_truncated_json_is_a_model_error(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.truncated_json())
    outcome, _ = await run(DOC)
    assert outcome.reason == "model_error"
    assert outcome.final_text is None


async def test_silent_server_times_out(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.hang().repeat(None))
    outcome, _ = await run(DOC, requestTimeoutSeconds=0.5, maxRetries=0)
    assert outcome.reason == "model_error"
    assert outcome.final_text is None


async def test_unknown_model_is_config(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.error(404))
    outcome, _ = await run(DOC, model="gemini-nope")
    assert outcome.reason == "config"
    assert "gemini-nope" in (outcome.error or "")
