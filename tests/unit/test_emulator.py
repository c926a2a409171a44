"""The Gemini emulator, proven against the real google-genai SDK (no mocks)."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from google import genai
from google.genai import errors, types

from tests.fakes.exchange import Served
from tests.fakes.gemini_emulator import (
    FINISH_REASONS,
    Call,
    GeminiEmulator,
    RecordedRequest,
    Reply,
    function_calls,
)

MODEL = "gemini-2.5-flash"
REPO_ROOT = Path(__file__).resolve().parents[2]


def _exception_types(*names: str) -> tuple[type[BaseException], ...]:
    """Transport exception classes of whichever HTTP stacks are installed."""
    found: list[type[BaseException]] = []
    for dotted in names:
        module_name, _, attr = dotted.rpartition(".")
        try:
            module = __import__(module_name)
        except ImportError:
            continue
        found.append(getattr(module, attr))
    return tuple(found)


# The async SDK uses aiohttp when it is installed, httpx2/httpx otherwise; the sync SDK uses httpx2.
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (ConnectionError, *_exception_types(
    "aiohttp.ClientError", "httpx2.TransportError", "httpx.TransportError"
))  # fmt: skip
TIMEOUT_ERRORS: tuple[type[BaseException], ...] = (TimeoutError, *_exception_types(
    "httpx2.TimeoutException", "httpx.TimeoutException"
))  # fmt: skip

NO_RETRY = types.HttpRetryOptions(attempts=1)


@pytest.fixture(scope="module")
def emu() -> Iterator[GeminiEmulator]:
    with GeminiEmulator() as emulator:
        yield emulator


@pytest.fixture(autouse=True)
def _clean(emu: GeminiEmulator) -> Iterator[None]:
    emu.reset()
    yield
    emu.reset()


def make_client(emu: GeminiEmulator, **options: Any) -> genai.Client:
    options.setdefault("retry_options", NO_RETRY)  # no silent 1–10 s retry on dropped connections
    return genai.Client(
        api_key="test-key",
        http_options=types.HttpOptions(base_url=emu.base_url, **options),
    )


@pytest.fixture(scope="module")
def client(emu: GeminiEmulator) -> genai.Client:
    return make_client(emu)


TOOL_CONFIG = types.GenerateContentConfig(
    system_instruction="You edit one document.",
    tools=[
        types.Tool(
            function_declarations=[
                types.FunctionDeclaration(
                    name="replace_text",
                    description="Replace one exact occurrence.",
                    parameters_json_schema={
                        "type": "object",
                        "properties": {
                            "old_text": {"type": "string"},
                            "new_text": {"type": "string"},
                        },
                        "required": ["old_text", "new_text"],
                    },
                )
            ]
        )
    ],
    tool_config=types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode=types.FunctionCallingConfigMode.ANY,
            allowed_function_names=["replace_text"],
        )
    ),
    automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
)


async def generate(
    client: genai.Client, contents: Any = "hello", config: Any = None
) -> types.GenerateContentResponse:
    return await client.aio.models.generate_content(model=MODEL, contents=contents, config=config)


async def stream(client: genai.Client, contents: Any = "hello") -> AsyncIterator[Any]:
    return await client.aio.models.generate_content_stream(model=MODEL, contents=contents)


async def call(client: genai.Client, streamed: bool) -> list[types.GenerateContentResponse]:
    """One unary call, or one streamed call read to the end."""
    if streamed:
        return [chunk async for chunk in await stream(client)]
    return [await generate(client)]


# ------------------------------------------------------------------------------ model output


async def test_function_calls_with_ids_signatures_and_usage(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    emu.enqueue(
        function_calls(
            [
                ("replace_text", {"old_text": "a", "new_text": "b"}),
                Call("complete_task", {"success": True, "message": "done"}, id="call-2",
                     thought_signature=b"\x00second"),
            ],
            thought_signature=b"\xfb\xff\xfe-first",
            ids=["call-1", None],
            usage=(120, 30),
            cached_tokens=100,
            thoughts_tokens=7,
        )
    )  # fmt: skip
    response = await generate(client, config=TOOL_CONFIG)

    assert response.function_calls is not None
    assert [(fc.id, fc.name, fc.args) for fc in response.function_calls] == [
        ("call-1", "replace_text", {"old_text": "a", "new_text": "b"}),
        ("call-2", "complete_task", {"success": True, "message": "done"}),
    ]
    candidate = response.candidates[0]  # type: ignore[index]
    assert candidate.finish_reason == types.FinishReason.STOP
    assert candidate.content is not None
    assert candidate.content.role == "model"
    parts = candidate.content.parts or []
    assert [p.thought_signature for p in parts] == [b"\xfb\xff\xfe-first", b"\x00second"]
    usage = response.usage_metadata
    assert usage is not None
    assert (usage.prompt_token_count, usage.candidates_token_count) == (120, 30)
    assert usage.cached_content_token_count == 100
    assert usage.thoughts_token_count == 7
    assert usage.total_token_count == 157

    # What the SDK sent: path, key header, and the request body in wire format.
    (req,) = emu.requests
    assert req.method == "POST"
    assert req.path == f"/v1/models/{MODEL}:generateContent"
    assert (req.api_version, req.model, req.action, req.stream) == (
        "v1", MODEL, "generateContent", False
    )  # fmt: skip
    assert req.api_key == "test-key"
    assert req.headers["x-goog-api-key"] == "test-key"
    assert req.contents == [{"role": "user", "parts": [{"text": "hello"}]}]
    assert req.system_text == "You edit one document."
    assert [fd["name"] for fd in req.function_declarations] == ["replace_text"]
    # Surprise worth knowing: the JSON-schema form goes out under a snake_case key.
    assert req.function_declarations[0]["parameters_json_schema"]["required"] == [
        "old_text",
        "new_text",
    ]
    assert req.tool_config == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["replace_text"]}
    }


async def test_thought_signatures_and_call_ids_go_back_unchanged(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    signature = bytes(range(256))  # every byte value; standard base64 has '+' and '/'
    emu.enqueue(
        function_calls([("replace_text", {"old_text": "x", "new_text": "y"})],
                       thought_signature=signature, ids=["fc-7"]),
        Reply.text("ok"),
    )  # fmt: skip
    first = await generate(client, "edit it", TOOL_CONFIG)
    assert first.candidates
    assert first.candidates[0].content
    assert first.function_calls
    fc = first.function_calls[0]
    history = [
        types.Content(role="user", parts=[types.Part(text="edit it")]),
        first.candidates[0].content,  # the model's turn, as received
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id=fc.id, name=fc.name, response={"ok": True}
                    )
                )
            ],
        ),
    ]
    second = await generate(client, history, TOOL_CONFIG)
    assert second.text == "ok"

    req = emu.requests[1]
    model_turn = req.contents[1]
    assert model_turn["role"] == "model"
    sent = model_turn["parts"][0]["thoughtSignature"]
    # Same bytes; the SDK re-encodes with the URL-safe alphabet, so the string may differ.
    assert base64.urlsafe_b64decode(sent) == signature
    assert req.function_responses == [
        {"id": "fc-7", "name": "replace_text", "response": {"ok": True}}
    ]


NON_STOP = [
    "MAX_TOKENS",
    "SAFETY",
    "RECITATION",
    "PROHIBITED_CONTENT",
    "BLOCKLIST",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
    "UNEXPECTED_TOOL_CALL",
    "OTHER",
]


@pytest.mark.parametrize("reason", NON_STOP)
async def test_finish_reasons_with_and_without_parts(
    emu: GeminiEmulator, client: genai.Client, reason: str
) -> None:
    emu.enqueue(
        Reply.finish(reason, [{"functionCall": {"name": "f", "args": {"old_text": "a"}}}]),
        Reply.finish(reason, finish_message=f"stopped: {reason}"),
    )
    with_parts = await generate(client)
    without = await generate(client)

    assert with_parts.candidates
    assert without.candidates
    assert with_parts.candidates[0].finish_reason == types.FinishReason(reason)
    assert with_parts.function_calls
    assert with_parts.function_calls[0].args == {"old_text": "a"}
    assert without.candidates[0].finish_reason == types.FinishReason(reason)
    # Surprise: the SDK's Gemini-API converter drops `finishMessage`; never rely on it.
    assert without.candidates[0].finish_message is None
    assert emu.requests[1].index == 1
    assert without.candidates[0].content is None
    assert without.function_calls is None


async def test_blocked_prompt_has_no_candidates(emu: GeminiEmulator, client: genai.Client) -> None:
    emu.enqueue(Reply.blocked_prompt("PROHIBITED_CONTENT", usage=(12, 0)))
    response = await generate(client)
    assert not response.candidates
    assert response.prompt_feedback is not None
    assert response.prompt_feedback.block_reason == types.BlockedReason.PROHIBITED_CONTENT
    assert response.function_calls is None
    assert response.text is None
    assert response.usage_metadata
    assert response.usage_metadata.prompt_token_count == 12


@pytest.mark.parametrize(
    ("variant", "has_content", "parts"),
    [("empty_parts", True, []), ("no_parts", True, None), ("no_content", False, None)],
)
async def test_stop_with_nothing_in_it(
    emu: GeminiEmulator, client: genai.Client, variant: Any, has_content: bool, parts: Any
) -> None:
    emu.enqueue(Reply.empty_stop(variant))
    response = await generate(client)
    assert response.candidates
    candidate = response.candidates[0]
    assert candidate.finish_reason == types.FinishReason.STOP
    assert (candidate.content is not None) is has_content
    if candidate.content is not None:
        assert candidate.content.parts == parts
    assert response.function_calls is None
    assert response.text is None


def test_builder_wire_format_is_exact() -> None:
    reply = function_calls(
        [("complete_task", {"success": True})],
        thought_signature=b"sig",
        ids=["c1"],
        usage=(10, 2),
        cached_tokens=4,
    )
    assert reply.status == 200
    assert reply.body == {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "name": "complete_task",
                                "args": {"success": True},
                                "id": "c1",
                            },
                            "thoughtSignature": "c2ln",
                        }
                    ],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 10,
            "candidatesTokenCount": 2,
            "cachedContentTokenCount": 4,
            "totalTokenCount": 12,
        },
    }
    assert Reply.error(429, retry_delay=2).body["error"]["details"] == [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}
    ]
    # Serialisable for the --script file, and back.
    assert Reply.from_json(json.loads(json.dumps(reply.to_json()))) == reply
    faulty = Reply.hang(then=Reply.error(503)).delayed(0.5).repeat(2)
    assert Reply.from_json(json.loads(json.dumps(faulty.to_json()))) == faulty
    # A bare wire body is accepted too; a bare error body keeps its HTTP code.
    assert Reply.from_json(Reply.error(429).body) == Reply.error(429)
    assert Reply.from_json({"candidates": []}).status == 200
    # Every finish reason the emulator knows is one the SDK knows.
    assert [types.FinishReason(r).value for r in FINISH_REASONS] == list(FINISH_REASONS)


# ------------------------------------------------------------------------------ HTTP errors


RETRY_INFO = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}

ERROR_CASES = [
    (Reply.input_too_large(), errors.ClientError, 400, "INVALID_ARGUMENT", "exceeds the maximum"),
    (Reply.api_key_invalid(), errors.ClientError, 400, "INVALID_ARGUMENT", "API key not valid"),
    (Reply.api_key_missing(), errors.ClientError, 403, "PERMISSION_DENIED", "unregistered"),
    (Reply.error(401), errors.ClientError, 401, "UNAUTHENTICATED", "authentication"),
    (Reply.error(403), errors.ClientError, 403, "PERMISSION_DENIED", "permission"),
    (Reply.error(404, "models/x is not found"), errors.ClientError, 404, "NOT_FOUND", "not found"),
    (Reply.error(408), errors.ClientError, 408, "DEADLINE_EXCEEDED", "timed out"),
    (Reply.error(429), errors.ClientError, 429, "RESOURCE_EXHAUSTED", "quota"),
    (Reply.rate_limited(retry_delay="2s"), errors.ClientError, 429, "RESOURCE_EXHAUSTED", "quota"),
    (Reply.error(500), errors.ServerError, 500, "INTERNAL", "internal error"),
    (Reply.error(503), errors.ServerError, 503, "UNAVAILABLE", "overloaded"),
]


@pytest.mark.parametrize(("reply", "exc_type", "code", "status", "text"), ERROR_CASES)
@pytest.mark.parametrize("streamed", [False, True], ids=["unary", "stream"])
async def test_http_errors_surface_as_api_errors(
    emu: GeminiEmulator,
    client: genai.Client,
    reply: Reply,
    exc_type: type[errors.APIError],
    code: int,
    status: str,
    text: str,
    streamed: bool,
) -> None:
    emu.enqueue(reply)
    with pytest.raises(exc_type) as info:
        await call(client, streamed)
    err = info.value
    assert (err.code, err.status) == (code, status)
    assert text.lower() in (err.message or "").lower()
    # `.details` is the whole parsed body, not the google.rpc details list.
    assert err.details["error"]["code"] == code
    if reply.body["error"].get("details"):
        assert err.details["error"]["details"] == reply.body["error"]["details"]


async def test_rate_limit_details_carry_retry_info(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    emu.enqueue(Reply.rate_limited(retry_delay=2), Reply.error(429))
    with pytest.raises(errors.ClientError) as with_delay:
        await generate(client)
    with pytest.raises(errors.ClientError) as without_delay:
        await generate(client)
    details = with_delay.value.details["error"]["details"]
    assert RETRY_INFO in details
    assert any(d["@type"].endswith("google.rpc.QuotaFailure") for d in details)
    assert "details" not in without_delay.value.details["error"]


async def test_503_twice_then_200_with_sdk_retries(emu: GeminiEmulator) -> None:
    retrying = make_client(
        emu,
        retry_options=types.HttpRetryOptions(
            attempts=3, initial_delay=0.01, max_delay=0.02, jitter=0.0
        ),
    )
    emu.enqueue(Reply.error(503).repeat(2), Reply.text("third time lucky"))
    response = await generate(retrying)
    assert response.text == "third time lucky"
    assert len(emu.requests) == 3
    assert emu.pending == 0


async def test_persistent_503_is_never_used_up(emu: GeminiEmulator) -> None:
    retrying = make_client(
        emu,
        retry_options=types.HttpRetryOptions(
            attempts=3, initial_delay=0.01, max_delay=0.02, jitter=0.0
        ),
    )
    emu.enqueue(Reply.error(503).repeat(None))
    with pytest.raises(errors.ServerError) as info:
        await generate(retrying)
    assert info.value.code == 503
    assert len(emu.requests) == 3
    assert emu.pending == 1  # still scripted


async def test_unscripted_request_gets_a_clear_500(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    with pytest.raises(errors.ServerError) as info:
        await generate(client)
    assert info.value.code == 500
    assert "emulator: no scripted reply" in (info.value.message or "")
    assert len(emu.problems) == 1


def test_unknown_path_is_a_google_style_404(emu: GeminiEmulator) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", int(emu.base_url.rsplit(":", 1)[1]), timeout=5)
    conn.request("GET", "/v1beta/tunedModels")  # /v1beta/models is the models list (issue 38)
    response = conn.getresponse()
    body = json.loads(response.read())
    conn.close()
    assert response.status == 404
    assert body["error"]["status"] == "NOT_FOUND"
    assert body["error"]["code"] == 404
    assert emu.requests[0].action is None
    assert emu.pending == 0


# ------------------------------------------------------------------------------ transport faults


async def test_timeout_fires_against_a_request_that_is_never_answered(
    emu: GeminiEmulator,
) -> None:
    impatient = make_client(emu, timeout=300)  # milliseconds
    emu.enqueue(Reply.hang())
    started = time.monotonic()
    with pytest.raises(TIMEOUT_ERRORS):
        await generate(impatient)
    elapsed = time.monotonic() - started
    assert 0.25 <= elapsed < 2.0
    # The client gave up and closed the connection; the emulator noticed.
    assert await emu.wait_for_disconnect_async(2.0)
    assert emu.disconnected_requests == [0]


async def test_cancelling_the_call_aborts_the_http_request(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    emu.enqueue(Reply.hang())
    task = asyncio.create_task(generate(client))
    await emu.wait_for_requests_async(1)
    assert emu.in_flight == 1
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await emu.wait_for_disconnect_async(2.0)
    assert time.monotonic() - cancelled_at < 1.0
    assert emu.wait_until_idle(2.0)


async def test_held_request_answers_when_released(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    release = threading.Event()
    emu.enqueue(Reply.hang(release=release, then=Reply.text("late but fine")))
    task = asyncio.create_task(generate(client))
    await emu.wait_for_requests_async(1)
    await asyncio.sleep(0.05)
    assert not task.done()
    release.set()
    response = await asyncio.wait_for(task, 2.0)
    assert response.text == "late but fine"
    assert emu.disconnected_requests == []


async def test_delay_before_answering(emu: GeminiEmulator, client: genai.Client) -> None:
    emu.enqueue(Reply.text("slow").delayed(0.3))
    started = time.monotonic()
    response = await generate(client)
    assert response.text == "slow"
    assert time.monotonic() - started >= 0.3


@pytest.mark.parametrize("reset", [False, True], ids=["fin", "rst"])
@pytest.mark.parametrize("streamed", [False, True], ids=["unary", "stream"])
async def test_connection_closed_without_answer(
    emu: GeminiEmulator, client: genai.Client, reset: bool, streamed: bool
) -> None:
    emu.enqueue(Reply.close_connection(reset=reset))
    with pytest.raises(TRANSPORT_ERRORS):
        await call(client, streamed)
    assert len(emu.requests) == 1  # retry_options(attempts=1): no hidden second try
    # The emulator keeps serving on new connections.
    emu.enqueue(Reply.text("recovered"))
    assert (await generate(client)).text == "recovered"


@pytest.mark.parametrize("streamed", [False, True], ids=["unary", "stream"])
@pytest.mark.parametrize(
    "reply",
    [Reply.truncated_json(), Reply.html(200)],
    ids=["truncated-json", "html-200"],
)
async def test_unparseable_200_is_a_value_error(
    emu: GeminiEmulator, client: genai.Client, reply: Reply, streamed: bool
) -> None:
    emu.enqueue(reply)
    # Unary: json.JSONDecodeError; streamed: errors.UnknownApiResponseError. Both ValueError,
    # neither an APIError: code that only catches APIError lets these escape.
    with pytest.raises(ValueError, match=r"Expecting|Unterminated|parse|Raw response") as info:
        await call(client, streamed)
    assert not isinstance(info.value, errors.APIError)
    expected = errors.UnknownApiResponseError if streamed else json.JSONDecodeError
    assert isinstance(info.value, expected)


async def test_html_502_is_a_server_error(emu: GeminiEmulator, client: genai.Client) -> None:
    emu.enqueue(Reply.html(502))
    with pytest.raises(errors.ServerError) as info:
        await generate(client)
    assert info.value.code == 502
    assert "<html" in (info.value.message or "")


async def test_body_shorter_than_content_length(emu: GeminiEmulator, client: genai.Client) -> None:
    emu.enqueue(Reply.truncated_json(short_body=True))
    with pytest.raises(TRANSPORT_ERRORS):
        await generate(client)


# ------------------------------------------------------------------------------ streaming


async def test_stream_of_split_function_calls(emu: GeminiEmulator, client: genai.Client) -> None:
    emu.enqueue(
        function_calls(
            [("replace_text", {"old_text": "é", "new_text": "\u2028"}), ("complete_task", {})],
            thought_signature=b"sig-1",
            usage=(50, 9),
        ).in_chunks()
    )
    chunks = [c async for c in await stream(client)]

    assert len(chunks) == 2
    assert [fc.name for c in chunks for fc in c.function_calls or []] == [
        "replace_text",
        "complete_task",
    ]
    assert chunks[0].function_calls
    assert chunks[0].function_calls[0].args == {
        "old_text": "é",
        "new_text": "\u2028",  # raw UTF-8 on the wire; must not split the SSE line
    }
    first, last = chunks[0].candidates, chunks[1].candidates
    assert first
    assert last
    assert first[0].content
    assert first[0].content.parts
    assert first[0].content.parts[0].thought_signature == b"sig-1"
    assert first[0].finish_reason is None
    assert last[0].finish_reason == types.FinishReason.STOP
    assert chunks[1].usage_metadata
    assert chunks[1].usage_metadata.total_token_count == 59

    (req,) = emu.requests
    assert req.path == f"/v1/models/{MODEL}:streamGenerateContent"
    assert req.query == {"alt": "sse"}
    assert req.stream


async def test_same_reply_serves_unary_and_streamed(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    reply = Reply.text("both ways", usage=(3, 2))
    emu.enqueue(reply.repeat(2))
    unary = await generate(client)
    streamed = [c async for c in await stream(client)]
    assert unary.text == "both ways"
    assert [c.text for c in streamed] == ["both ways"]


async def test_stream_that_stalls_after_one_event(emu: GeminiEmulator) -> None:
    impatient = make_client(emu, timeout=400)
    two_events = Reply.text("x").in_chunks(
        [Reply.text("one", finish_reason=None).body, Reply.text("two").body]
    )
    emu.enqueue(Reply.stalled_stream(two_events, events_before_stall=1))
    received: list[str | None] = []

    async def read_all() -> None:
        async for chunk in await stream(impatient):
            received.append(chunk.text)

    with pytest.raises(TIMEOUT_ERRORS):
        await read_all()
    assert received == ["one"]
    assert await emu.wait_for_disconnect_async(2.0)


async def test_error_event_in_the_middle_of_a_stream(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    emu.enqueue(
        Reply.text("x").in_chunks(
            [Reply.text("par", finish_reason=None).body, Reply.error(503).body]
        )
    )
    received: list[str | None] = []

    async def read_all() -> None:
        async for chunk in await stream(client):
            received.append(chunk.text)

    with pytest.raises(errors.ServerError) as info:
        await read_all()
    assert received == ["par"]
    assert info.value.code == 503


def test_sse_wire_format_and_pipelining(emu: GeminiEmulator) -> None:
    """Two pipelined requests on one socket: a unary JSON reply, then an SSE stream."""
    emu.enqueue(Reply.text("a"), Reply.function_calls([("f", {}), ("g", {})]).in_chunks())
    body = b'{"contents": []}'

    def request(path: str) -> bytes:
        return (
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"x-goog-api-key: raw\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode() + body

    host, port = emu.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(
            request(f"/v1beta/models/{MODEL}:generateContent")
            + request(f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse")
        )
        reader = sock.makefile("rb")

        def head() -> tuple[str, dict[str, str]]:
            status = reader.readline().decode()
            headers: dict[str, str] = {}
            while (line := reader.readline()) not in (b"\r\n", b""):
                key, _, value = line.decode().partition(":")
                headers[key.lower()] = value.strip()
            return status, headers

        status1, headers1 = head()
        unary = json.loads(reader.read(int(headers1["content-length"])))
        status2, headers2 = head()
        assert headers2["transfer-encoding"] == "chunked"
        events = b""
        while (size := int(reader.readline(), 16)) > 0:
            events += reader.read(size)
            reader.readline()
        reader.readline()

    assert status1.startswith("HTTP/1.1 200")
    assert unary["candidates"][0]["content"]["parts"] == [{"text": "a"}]
    assert status2.startswith("HTTP/1.1 200")
    assert headers2["content-type"] == "text/event-stream"
    raw_events = events.split(b"\r\n\r\n")
    assert raw_events[-1] == b""
    assert len(raw_events) == 3
    assert all(e.startswith(b"data: {") for e in raw_events[:2])
    names = [json.loads(e[6:])["candidates"][0]["content"]["parts"][0] for e in raw_events[:2]]
    assert names == [
        {"functionCall": {"name": "f", "args": {}}},
        {"functionCall": {"name": "g", "args": {}}},
    ]
    reqs = emu.requests
    assert [r.api_version for r in reqs] == ["v1beta", "v1beta"]
    assert reqs[0].connection_id == reqs[1].connection_id
    assert reqs[1].query == {"alt": "sse"}


# ------------------------------------------------------------------------ concurrency, keep-alive


async def test_responder_serves_concurrent_sessions(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    def echo(req: RecordedRequest) -> Reply:
        prompt = req.contents[-1]["parts"][0]["text"]
        return Reply.text(f"echo {prompt}").delayed(0.2)

    emu.set_responder(echo)
    started = time.monotonic()
    responses = await asyncio.gather(*(generate(client, f"s{i}") for i in range(20)))
    elapsed = time.monotonic() - started
    assert [r.text for r in responses] == [f"echo s{i}" for i in range(20)]
    assert elapsed < 1.5  # served in parallel, not 20 × 0.2 s
    assert len(emu.requests) == 20


async def test_queue_is_consulted_before_responder(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    emu.set_responder(lambda req: Reply.text("from responder"))
    emu.enqueue(Reply.text("from queue"))
    assert (await generate(client)).text == "from queue"
    assert (await generate(client)).text == "from responder"
    emu.set_responder(lambda req: 1 / 0)  # type: ignore[arg-type,return-value]
    with pytest.raises(errors.ServerError, match="responder raised"):
        await generate(client)
    assert any("ZeroDivisionError" in p for p in emu.problems)


async def test_keep_alive_and_nodelay_latency(emu: GeminiEmulator) -> None:
    fresh = make_client(emu)
    emu.set_responder(lambda req: function_calls([("a", {}), ("b", {}), ("c", {})]).in_chunks())
    [c async for c in await stream(fresh)]  # warm up: open the connection
    started = time.monotonic()
    for _ in range(10):
        chunks = [c async for c in await stream(fresh)]
        assert len(chunks) == 3
    per_call = (time.monotonic() - started) / 10
    # Without TCP_NODELAY each multi-event stream pays ~40 ms of Nagle + delayed ACK.
    assert per_call < 0.03, f"{per_call * 1000:.1f} ms per streamed call"
    assert len({r.connection_id for r in emu.requests}) == 1  # one kept-alive connection


def test_sync_client_uses_the_emulator_too(emu: GeminiEmulator) -> None:
    sync_client = make_client(emu)
    emu.enqueue(Reply.text("sync"), Reply.text("sync stream").in_chunks())
    response = sync_client.models.generate_content(model=MODEL, contents="hi")
    chunks = list(sync_client.models.generate_content_stream(model=MODEL, contents="hi"))
    assert response.text == "sync"
    assert [c.text for c in chunks] == ["sync stream"]
    assert [r.action for r in emu.requests] == ["generateContent", "streamGenerateContent"]


async def test_base_url_from_environment(
    emu: GeminiEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", emu.base_url)
    env_client = genai.Client(
        api_key="env-key", http_options=types.HttpOptions(retry_options=NO_RETRY)
    )
    emu.enqueue(Reply.text("via env"))
    response = await env_client.aio.models.generate_content(model=MODEL, contents="x")
    assert response.text == "via env"
    assert emu.requests[0].api_key == "env-key"


# ------------------------------------------------------------------------------ emulator API


async def test_records_are_copies_and_reset_clears_everything(
    emu: GeminiEmulator, client: genai.Client
) -> None:
    emu.set_responder(lambda req: Reply.text("r"))
    await generate(client, "original")
    snapshot = emu.requests
    snapshot[0].body["contents"].clear()
    assert emu.requests[0].contents[0]["parts"][0]["text"] == "original"
    emu.enqueue(Reply.text("left over"))
    emu.reset()
    assert emu.requests == []
    assert emu.pending == 0
    with pytest.raises(errors.ServerError, match="no scripted reply"):
        await generate(client)
    with pytest.raises(TimeoutError):
        emu.wait_for_requests(5, timeout=0.05)


def test_start_stop_are_idempotent_and_release_held_connections() -> None:
    emulator = GeminiEmulator()
    assert emulator.start() is emulator.start()
    url = emulator.base_url
    port = int(url.rsplit(":", 1)[1])
    emulator.enqueue(Reply.hang())

    outcome: list[BaseException | int] = []

    def call() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("POST", f"/v1/models/{MODEL}:generateContent", body=b"{}")
            outcome.append(conn.getresponse().status)
        except (OSError, http.client.HTTPException) as exc:
            outcome.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    emulator.wait_for_requests(1)
    assert emulator.open_connections == 1
    started = time.monotonic()
    emulator.stop()
    emulator.stop()
    assert time.monotonic() - started < 2.0
    caller.join(5)
    assert len(outcome) == 1
    assert isinstance(outcome[0], BaseException)
    assert not emulator.running
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    assert not [t for t in threading.enumerate() if t.name.startswith(f"gemini-emulator:{port}")]


async def test_on_served_sees_each_answered_request_before_it_counts_as_idle() -> None:
    served: list[Served[RecordedRequest, Reply]] = []

    def account(entry: Served[RecordedRequest, Reply]) -> None:
        served.append(entry)
        emulator.clear_requests()  # what a benchmark does to drop 10 MB bodies

    emulator = GeminiEmulator(on_served=account)
    with emulator:
        emulator.enqueue(Reply.text("one"), Reply.error(503).delayed(0.05))
        own = make_client(emulator)
        assert (await generate(own, "first")).text == "one"
        with pytest.raises(errors.ServerError):
            await generate(own, "second")
        assert emulator.wait_until_idle()
        assert [(s.request.index, s.reply.status) for s in served] == [(0, 200), (0, 503)]
        assert served[1].request.contents[0]["parts"] == [{"text": "second"}]
        assert emulator.requests == []
        assert emulator.problems == []


def test_standalone_cli_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"status": 200, "body": Reply.text("from file").body},
                Reply.error(503).to_json(),
            ]
        )
    )
    record = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.gemini_emulator", "--port", "0",
         "--script", str(script), "--record", str(record)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        cli_client = genai.Client(
            api_key="cli-key",
            http_options=types.HttpOptions(base_url=base_url, retry_options=NO_RETRY),
        )
        assert cli_client.models.generate_content(model=MODEL, contents="x").text == "from file"
        with pytest.raises(errors.ServerError) as info:
            cli_client.models.generate_content(model=MODEL, contents="y")
        assert info.value.code == 503
    finally:
        proc.terminate()
        assert proc.wait(5) == 0
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [line["headers"]["x-goog-api-key"] for line in lines] == ["cli-key", "cli-key"]
    assert lines[1]["body"]["contents"][0]["parts"] == [{"text": "y"}]
