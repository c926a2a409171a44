"""A local HTTP emulator of OpenAI's Chat Completions API (``POST /v1/chat/completions``,
whole or streamed), for driving the real ``openai`` SDK (and any OpenAI-compatible client),
and of the Responses API (``POST /v1/responses``, whole or streamed), which Codex CLI speaks.

A request with ``"stream": true`` gets a scripted completion as ``chat.completion.chunk``
events (`stream_events`): the role, the content, each tool call's id and name, then its
arguments in three fragments cut mid-string, the finish reason, the usage in a last chunk
without choices, and ``[DONE]``; ``chunk_delay`` apart (``Reply.streamed``). A cut JSON body
(``Reply.truncated_json``) goes as one broken event; raw bytes (an HTML page) as they are.

Point the SDK at ``emu.base_url`` (it ends in ``/v1``) and script the replies::

    with OpenAIEmulator() as emu:
        emu.enqueue(
            Reply.tool_calls([("replace_text", {"old_text": "a", "new_text": "b"})], ids=["c1"]),
            Reply.rate_limited(retry_after=0.1),
            Reply.tool_calls([Call("complete_task", '{"success": tru')]),  # malformed JSON
        )
        ...
        assert emu.requests[1].tool_messages[0]["tool_call_id"] == "c1"

Responses: ``Reply.response_calls`` / ``Reply.response_text`` build a ``response`` object; a
streamed request gets it as named events (`response_events`): ``response.created``, per output
item ``response.output_item.added``, its text or arguments deltas, ``response.output_item.done``,
then ``response.completed`` with the whole response and its usage. ``ChatRequest.input_items``
and ``function_names`` read a Responses request as well.

Errors use OpenAI's format ``{"error": {"message", "type", "param", "code"}}``. Standalone:
``python -m tests.fakes.openai_emulator --port 0 [--script replies.json] [--record -]``.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias

from tests.fakes import emulator_core as core
from tests.fakes import exchange
from tests.fakes.emulator_core import HttpEmulator
from tests.fakes.exchange import RecordedRequest
from tests.fakes.http_server import Handler

__all__ = ["Call", "ChatRequest", "OpenAIEmulator", "Reply"]

DEFAULT_MODEL = "gpt-emulated"
_ids = itertools.count(1)

_ERRORS: dict[int, tuple[str, str | None, str]] = {
    # status: (type, code, message) close to what api.openai.com sends
    400: ("invalid_request_error", None, "Invalid request."),
    401: (
        "invalid_request_error",
        "invalid_api_key",
        "Incorrect API key provided. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
    ),
    403: (
        "invalid_request_error",
        "unsupported_country_region_territory",
        "Country, region, or territory not supported",
    ),
    404: ("invalid_request_error", "model_not_found", "The model does not exist."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached. Please try again later."),
    500: (
        "server_error",
        None,
        "The server had an error while processing your request. Sorry about that!",
    ),
    502: ("server_error", None, "Bad gateway."),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}


@dataclass(frozen=True)
class Call:
    """One tool call. ``args`` is a mapping (sent as JSON) or a string sent verbatim as the
    ``arguments`` string (malformed JSON, double-encoded JSON, ...)."""

    name: str
    args: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None


CallSpec: TypeAlias = "Call | tuple[str, Mapping[str, Any] | str]"


def _usage(usage: tuple[int, int] | None, cached_tokens: int | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    prompt, completion = usage
    body: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached_tokens is not None:
        body["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return body


def completion_body(
    message: Mapping[str, Any],
    finish_reason: str | None,
    *,
    usage: tuple[int, int] | None = (10, 5),
    cached_tokens: int | None = None,
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """A whole ``chat.completion`` object with one choice."""
    body: dict[str, Any] = {
        "id": f"chatcmpl-emu-{next(_ids)}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": dict(message),
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
    }
    usage_body = _usage(usage, cached_tokens)
    if usage_body is not None:
        body["usage"] = usage_body
    return body


@dataclass(frozen=True)
class Reply(exchange.Reply):
    """A scripted answer; builders for Chat Completions replies and OpenAI errors."""

    @classmethod
    def tool_calls(
        cls,
        calls: Sequence[CallSpec],
        *,
        ids: Sequence[str | None] | None = None,
        content: str | None = None,
        usage: tuple[int, int] | None = (10, 5),
        cached_tokens: int | None = None,
        finish_reason: str | None = "tool_calls",
        model: str = DEFAULT_MODEL,
    ) -> Reply:
        """An assistant message with ``tool_calls`` (ids ``call_emu_N`` unless given)."""
        if ids is not None and len(ids) != len(calls):
            raise ValueError("ids must have one entry per call")
        tool_calls = []
        for i, spec in enumerate(calls):
            call = spec if isinstance(spec, Call) else Call(spec[0], spec[1])
            call_id = call.id or (ids[i] if ids is not None else None) or f"call_emu_{next(_ids)}"
            arguments = (
                call.args
                if isinstance(call.args, str)
                else json.dumps(dict(call.args), ensure_ascii=False)
            )
            tool_calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments},
                }
            )
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        message["tool_calls"] = tool_calls
        return cls.finish(
            finish_reason, message, usage=usage, cached_tokens=cached_tokens, model=model
        )

    @classmethod
    def text(
        cls,
        text: str,
        *,
        finish_reason: str | None = "stop",
        usage: tuple[int, int] | None = (10, 5),
    ) -> Reply:
        """An assistant message with text only."""
        message = {"role": "assistant", "content": text, "refusal": None}
        return cls.finish(finish_reason, message, usage=usage)

    @classmethod
    def finish(
        cls,
        finish_reason: str | None,
        message: Mapping[str, Any] | None = None,
        *,
        usage: tuple[int, int] | None = (10, 5),
        cached_tokens: int | None = None,
        model: str = DEFAULT_MODEL,
    ) -> Reply:
        """Any ``finish_reason`` (``stop``, ``length``, ``tool_calls``, ``content_filter``) with
        a raw message (default: empty content)."""
        if message is None:
            message = {"role": "assistant", "content": None, "refusal": None}
        return cls(
            body=completion_body(
                message, finish_reason, usage=usage, cached_tokens=cached_tokens, model=model
            )
        )

    @classmethod
    def refusal(cls, text: str = "I'm sorry, I can't help with that.") -> Reply:
        """A refusal (``message.refusal`` set, no content, finish ``stop``)."""
        return cls.finish("stop", {"role": "assistant", "content": None, "refusal": text})

    @classmethod
    def no_choices(cls) -> Reply:
        body = completion_body({}, None)
        body["choices"] = []
        return cls(body=body)

    # ---------------------------------------------------------------- errors

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        retry_after: float | None = None,
    ) -> Reply:
        """``{"error": {message, type, param, code}}``; ``retry_after`` adds the header."""
        default_type, default_code, default_message = _ERRORS.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None, "Error")
        )
        body = {
            "error": {
                "message": message if message is not None else default_message,
                "type": type if type is not None else default_type,
                "param": param,
                "code": code if code is not None else default_code,
            }
        }
        headers = {"x-request-id": f"req_emu_{next(_ids)}"}
        if retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
        return cls(status=status, body=body, headers=headers)

    @classmethod
    def rate_limited(cls, retry_after: float | None = None) -> Reply:
        """429 ``rate_limit_exceeded`` (transient; ``retry-after`` when given)."""
        return cls.error(
            429,
            "Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. "
            "Please try again in 20s.",
            retry_after=retry_after,
        )

    @classmethod
    def quota_exhausted(cls) -> Reply:
        """429 ``insufficient_quota``: no retry helps."""
        return cls.error(
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            type="insufficient_quota",
            code="insufficient_quota",
        )

    @classmethod
    def invalid_api_key(cls, shown_key: str = "sk-emu***********1234") -> Reply:
        """401 as api.openai.com sends it, echoing a masked form of the key."""
        return cls.error(
            401,
            f"Incorrect API key provided: {shown_key}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
        )

    @classmethod
    def context_too_long(cls, tokens: int = 140_000, limit: int = 128_000) -> Reply:
        """400 ``context_length_exceeded``."""
        return cls.error(
            400,
            f"This model's maximum context length is {limit} tokens. However, your messages "
            f"resulted in {tokens} tokens. Please reduce the length of the messages.",
            code="context_length_exceeded",
            param="messages",
        )

    @classmethod
    def response_calls(
        cls,
        calls: Sequence[CallSpec],
        *,
        text: str | None = None,
        namespace: str | None = None,
        usage: tuple[int, int] = (10, 5),
    ) -> Reply:
        """A Responses API ``response`` whose output is an optional message, then one
        ``function_call`` item per call (of a tool in ``namespace``, when given: Codex puts
        each MCP server's tools in one)."""
        items: list[dict[str, Any]] = [] if text is None else [_message_item(text)]
        for spec in calls:
            call = spec if isinstance(spec, Call) else Call(spec[0], spec[1])
            number = next(_ids)
            arguments = call.args if isinstance(call.args, str) else json.dumps(call.args)
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_emu_{number}",
                    "call_id": call.id or f"call_emu_{number}",
                    "name": call.name,
                    "arguments": arguments,
                    "status": "completed",
                }
                | ({} if namespace is None else {"namespace": namespace})
            )
        return cls(body=response_body(items, usage))

    @classmethod
    def response_text(cls, text: str, *, usage: tuple[int, int] = (10, 5)) -> Reply:
        """A Responses API ``response`` with one assistant message."""
        return cls(body=response_body([_message_item(text)], usage))

    @classmethod
    def model_not_found(cls, model: str = "gpt-nope") -> Reply:
        return cls.error(
            404,
            f"The model `{model}` does not exist or you do not have access to it.",
            code="model_not_found",
        )

    @classmethod
    def truncated_json(cls) -> Reply:
        """A 200 whose JSON body stops half-way."""
        return cls.truncated(completion_body({"role": "assistant", "content": "cut"}, "stop"))


def stream_events(body: Mapping[str, Any]) -> list[str]:
    """A whole ``chat.completion`` as the events of its stream (see the module docstring)."""
    base = {
        "id": body.get("id", "chatcmpl-emu"),
        "object": "chat.completion.chunk",
        "created": body.get("created", 1_700_000_000),
        "model": body.get("model", DEFAULT_MODEL),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**base, "choices": [choice]}

    events: list[dict[str, Any]] = []
    for choice in body.get("choices") or []:
        message = choice.get("message") or {}
        events.append(chunk({"role": "assistant", "content": None}))
        for key in ("content", "refusal"):
            text = message.get(key)
            if text:
                events.extend(chunk({key: piece}) for piece in exchange.thirds(text))
        for index, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") or {}
            head = {"index": index, "id": call.get("id"), "type": call.get("type", "function")}
            head["function"] = {"name": function.get("name"), "arguments": ""}
            events.append(chunk({"tool_calls": [head]}))
            for piece in exchange.thirds(function.get("arguments") or ""):
                fragment = {"index": index, "function": {"arguments": piece}}
                events.append(chunk({"tool_calls": [fragment]}))
        events.append(chunk({}, choice.get("finish_reason")))
    if body.get("usage") is not None:
        events.append({**base, "choices": [], "usage": body["usage"]})
    return [f"data: {json.dumps(event, ensure_ascii=False)}" for event in events] + ["data: [DONE]"]


def _message_item(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"msg_emu_{next(_ids)}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def response_body(
    output: Sequence[Mapping[str, Any]], usage: tuple[int, int], model: str = DEFAULT_MODEL
) -> dict[str, Any]:
    """A whole Responses API ``response`` object, completed."""
    prompt, completion = usage
    return {
        "id": f"resp_emu_{next(_ids)}",
        "object": "response",
        "created_at": 1_700_000_000,
        "status": "completed",
        "model": model,
        "output": [dict(item) for item in output],
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        },
    }


def _text_events(item: Mapping[str, Any], index: int) -> list[dict[str, Any]]:
    """A message item's parts: added, their text in three deltas, done."""
    events: list[dict[str, Any]] = []
    where = {"item_id": item.get("id"), "output_index": index}
    for number, part in enumerate(item.get("content") or []):
        text = str(part.get("text", ""))
        at = {**where, "content_index": number}
        events.append({"type": "response.content_part.added", **at, "part": {**part, "text": ""}})
        events.extend(
            {"type": "response.output_text.delta", **at, "delta": piece}
            for piece in exchange.thirds(text)
        )
        events.append({"type": "response.output_text.done", **at, "text": text})
        events.append({"type": "response.content_part.done", **at, "part": dict(part)})
    return events


def response_events(body: Mapping[str, Any]) -> list[str]:
    """A whole ``response`` as the events of its stream (see the module docstring)."""
    events: list[dict[str, Any]] = []
    started = {**body, "status": "in_progress", "output": [], "usage": None}
    events.append({"type": "response.created", "response": started})
    for index, item in enumerate(body.get("output") or []):
        empty = {**item, "status": "in_progress"}
        if item.get("type") == "function_call":
            empty["arguments"] = ""
        if item.get("type") == "message":
            empty["content"] = []
        events.append({"type": "response.output_item.added", "output_index": index, "item": empty})
        if item.get("type") == "function_call":
            for piece in exchange.thirds(item.get("arguments") or ""):
                events.append(
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": item.get("id"),
                        "output_index": index,
                        "delta": piece,
                    }
                )
        if item.get("type") == "message":
            events.extend(_text_events(item, index))
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": dict(body)})
    return [
        f"event: {event['type']}\ndata: {json.dumps({'sequence_number': n, **event})}"
        for n, event in enumerate(events)
    ]


class ChatRequest(RecordedRequest):
    """A recorded request with Chat Completions accessors."""

    @property
    def api_key(self) -> str | None:
        auth = self.headers.get("authorization", "")
        return auth[len("Bearer ") :] if auth.startswith("Bearer ") else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        value = self.field("messages")
        return list(value) if isinstance(value, list) else []

    @property
    def system_text(self) -> str:
        return "\n".join(
            str(m.get("content") or "")
            for m in self.messages
            if m.get("role") in ("system", "developer")
        )

    @property
    def tools(self) -> list[dict[str, Any]]:
        value = self.field("tools")
        return list(value) if isinstance(value, list) else []

    @property
    def function_names(self) -> list[str]:
        """The function tools' names (nested in Chat Completions, flat in Responses)."""
        return [
            str(t["function"]["name"] if "function" in t else t.get("name"))
            for t in self.tools
            if t.get("type") == "function"
        ]

    @property
    def namespaces(self) -> dict[str, list[str]]:
        """A Responses request's tool namespaces and the names of their functions."""
        return {
            str(t.get("name")): [str(u.get("name")) for u in t.get("tools") or []]
            for t in self.tools
            if t.get("type") == "namespace"
        }

    @property
    def input_items(self) -> list[dict[str, Any]]:
        """A Responses request's ``input`` items."""
        value = self.field("input")
        return list(value) if isinstance(value, list) else []

    @property
    def tool_choice(self) -> Any:
        return self.field("tool_choice")

    @property
    def tool_messages(self) -> list[dict[str, Any]]:
        """The ``role: tool`` messages after the last assistant message (the turn answered)."""
        out: list[dict[str, Any]] = []
        for message in reversed(self.messages):
            if message.get("role") != "tool":
                break
            out.append(message)
        return out[::-1]


class OpenAIEmulator(HttpEmulator[ChatRequest, Reply]):
    """A scripted ``/v1/chat/completions`` endpoint; ``base_url`` ends in ``/v1``."""

    name: ClassVar[str] = "openai-emulator"
    record_class: ClassVar[type[RecordedRequest]] = ChatRequest
    reply_class: ClassVar[type[exchange.Reply]] = Reply
    routes: ClassVar[Mapping[tuple[str, str], str]] = {
        ("POST", "/v1/chat/completions"): "chat.completions",
        ("POST", "/v1/responses"): "responses",
    }
    url_suffix: ClassVar[str] = "/v1"

    def _write_reply(self, h: Handler, rec: ChatRequest, reply: exchange.Reply) -> None:
        if rec.field("stream") is True and reply.status == 200 and reply.fault != "short_body":
            if reply.raw is None and isinstance(reply.body, dict) and "choices" in reply.body:
                self.send_events(h, rec, reply, stream_events(reply.body))
                return
            if reply.raw is None and isinstance(reply.body, dict) and "output" in reply.body:
                self.send_events(h, rec, reply, response_events(reply.body))
                return
            if reply.raw is not None and reply.content_type.startswith("application/json"):
                self.send_events(h, rec, reply, ["data: " + reply.raw.decode("utf-8", "replace")])
                return
        super()._write_reply(h, rec, reply)

    def error_reply(self, status: int, message: str) -> Reply:
        kind = "server_error" if status >= 500 else "invalid_request_error"
        body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
        return Reply(status=status, body=body)


if __name__ == "__main__":
    sys.exit(core.main(OpenAIEmulator, prog="python -m tests.fakes.openai_emulator"))
