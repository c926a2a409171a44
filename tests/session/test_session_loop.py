"""Gemini-only behaviour of the tool loop (thought signatures, float arguments,
MALFORMED_FUNCTION_CALL, promptFeedback, API_KEY_INVALID), through the real google-genai SDK.

The scenarios every provider shares live in `test_providers.py`, parametrized over providers.
"""

from __future__ import annotations

import base64

from tests.fakes.gemini_emulator import Call, GeminiEmulator, Reply
from tests.session.conftest import RunFn

DOC = "def foo():\n    return 1\n\nprint(foo())\n"


def done(message: str = "done") -> tuple[str, dict[str, object]]:
    return ("complete_task", {"success": True, "message": message})


async def test_request_shape(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.function_calls([done()]))
    outcome, _ = await run(DOC, "do nothing")
    assert outcome.success
    (request,) = emulator.requests
    names = [decl["name"] for decl in request.function_declarations]
    assert all("parameters_json_schema" in decl for decl in request.function_declarations)
    mode = (request.tool_config or {})["functionCallingConfig"]
    assert mode["mode"] == "ANY"
    assert sorted(mode["allowedFunctionNames"]) == sorted(names)
    assert request.contents[0]["role"] == "user"


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


async def test_float_integers_are_accepted(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        Reply.function_calls([("get_document", {"start_line": 2.0, "end_line": 2.0})]),
        Reply.function_calls([done()]),
    )
    outcome, _ = await run(DOC)
    assert outcome.success
    result = emulator.requests[1].function_responses[0]["response"]
    assert "return 1" in result["result"]


async def test_403_is_auth(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.api_key_invalid())
    outcome, _ = await run(DOC)
    assert outcome.reason == "auth"


async def test_blocked_prompt(run: RunFn, emulator: GeminiEmulator) -> None:
    emulator.enqueue(Reply.blocked_prompt())
    outcome, _ = await run(DOC)
    assert outcome.reason == "blocked"


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
