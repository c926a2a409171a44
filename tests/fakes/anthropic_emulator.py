"""A local HTTP emulator of Anthropic's Messages API (``POST /v1/messages``, whole or
streamed), for driving the real ``anthropic`` SDK.

A request with ``"stream": true`` gets a scripted message as its events (`stream_events`):
``message_start`` (the usage's input tokens), per block ``content_block_start``, its text,
thinking or ``input_json_delta`` in three fragments cut mid-string, ``content_block_stop``;
then ``message_delta`` (stop reason, output tokens) and ``message_stop``; ``chunk_delay``
apart (``Reply.streamed``). A cut JSON body goes as one broken event; raw bytes as they are.

Point the SDK at ``emu.base_url`` (no ``/v1``: the SDK adds it) and script the replies::

    with AnthropicEmulator() as emu:
        emu.enqueue(
            Reply.tool_use([("get_document", {})], ids=["toolu_1"], thinking=("hmm", "sig")),
            Reply.overloaded(),
            Reply.tool_use([("complete_task", {"success": True})]),
        )
        ...
        assert emu.requests[1].tool_results[0]["tool_use_id"] == "toolu_1"

Errors use Anthropic's format ``{"type": "error", "error": {"type", "message"}, "request_id"}``.
Standalone: ``python -m tests.fakes.anthropic_emulator --port 0 [--script f.json] [--record -]``.
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

__all__ = ["AnthropicEmulator", "Call", "MessagesRequest", "Reply"]

DEFAULT_MODEL = "claude-emulated"
_ids = itertools.count(1)

_ERRORS: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "Invalid request."),
    401: ("authentication_error", "invalid x-api-key"),
    403: (
        "permission_error",
        "Your API key does not have permission to use the specified resource.",
    ),
    404: ("not_found_error", "Not found."),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: (
        "rate_limit_error",
        "This request would exceed the rate limit for your organization of 50 requests per "
        "minute. Please try again later.",
    ),
    500: ("api_error", "Internal server error"),
    503: ("api_error", "Service unavailable"),
    529: ("overloaded_error", "Overloaded"),
}


@dataclass(frozen=True)
class Call:
    """One ``tool_use`` block (id ``toolu_emu_N`` unless given)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


CallSpec: TypeAlias = "Call | tuple[str, Mapping[str, Any]]"


def message_body(
    content: Sequence[Mapping[str, Any]],
    stop_reason: str | None,
    *,
    usage: tuple[int, int] | None = (10, 5),
    cache_read_tokens: int | None = None,
    cache_creation_tokens: int | None = None,
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """A whole ``message`` object."""
    prompt, output = usage if usage is not None else (0, 0)
    return {
        "id": f"msg_emu_{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [dict(block) for block in content],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": prompt,
            "output_tokens": output,
            "cache_creation_input_tokens": cache_creation_tokens or 0,
            "cache_read_input_tokens": cache_read_tokens or 0,
        },
    }


@dataclass(frozen=True)
class Reply(exchange.Reply):
    """A scripted answer; builders for Messages API replies and Anthropic errors."""

    @classmethod
    def tool_use(
        cls,
        calls: Sequence[CallSpec],
        *,
        ids: Sequence[str | None] | None = None,
        text: str | None = None,
        thinking: tuple[str, str] | None = None,
        usage: tuple[int, int] | None = (10, 5),
        cache_read_tokens: int | None = None,
        stop_reason: str | None = "tool_use",
        model: str = DEFAULT_MODEL,
    ) -> Reply:
        """``tool_use`` blocks, after an optional ``thinking`` block (``(text, signature)``)
        and an optional ``text`` block."""
        if ids is not None and len(ids) != len(calls):
            raise ValueError("ids must have one entry per call")
        content: list[dict[str, Any]] = []
        if thinking is not None:
            content.append({"type": "thinking", "thinking": thinking[0], "signature": thinking[1]})
        if text is not None:
            content.append({"type": "text", "text": text})
        for i, spec in enumerate(calls):
            call = spec if isinstance(spec, Call) else Call(spec[0], spec[1])
            call_id = call.id or (ids[i] if ids is not None else None) or f"toolu_emu_{next(_ids)}"
            content.append(
                {"type": "tool_use", "id": call_id, "name": call.name, "input": dict(call.args)}
            )
        return cls.stop(
            stop_reason, content, usage=usage, cache_read_tokens=cache_read_tokens, model=model
        )

    @classmethod
    def text(
        cls, text: str, *, stop_reason: str | None = "end_turn", usage: tuple[int, int] = (10, 5)
    ) -> Reply:
        return cls.stop(stop_reason, [{"type": "text", "text": text}], usage=usage)

    @classmethod
    def stop(
        cls,
        stop_reason: str | None,
        content: Sequence[Mapping[str, Any]] = (),
        *,
        usage: tuple[int, int] | None = (10, 5),
        cache_read_tokens: int | None = None,
        model: str = DEFAULT_MODEL,
    ) -> Reply:
        """Any ``stop_reason`` (``end_turn``, ``tool_use``, ``max_tokens``, ``refusal``,
        ``pause_turn``, ``model_context_window_exceeded``) with raw content blocks."""
        return cls(
            body=message_body(
                content, stop_reason, usage=usage, cache_read_tokens=cache_read_tokens, model=model
            )
        )

    @classmethod
    def refusal(cls) -> Reply:
        return cls.stop("refusal", [])

    # ---------------------------------------------------------------- errors

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        type: str | None = None,
        retry_after: float | None = None,
    ) -> Reply:
        """``{"type": "error", "error": {type, message}, "request_id"}``."""
        default_type, default_message = _ERRORS.get(
            status, ("api_error" if status >= 500 else "invalid_request_error", "Error")
        )
        request_id = f"req_emu_{next(_ids)}"
        body = {
            "type": "error",
            "error": {
                "type": type if type is not None else default_type,
                "message": message if message is not None else default_message,
            },
            "request_id": request_id,
        }
        headers = {"request-id": request_id}
        if retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
        return cls(status=status, body=body, headers=headers)

    @classmethod
    def rate_limited(cls, retry_after: float | None = None) -> Reply:
        return cls.error(429, retry_after=retry_after)

    @classmethod
    def overloaded(cls) -> Reply:
        """529 ``overloaded_error``."""
        return cls.error(529)

    @classmethod
    def prompt_too_long(cls, tokens: int = 215_000, limit: int = 200_000) -> Reply:
        return cls.error(400, f"prompt is too long: {tokens} tokens > {limit} maximum")

    @classmethod
    def not_found(cls, model: str = "claude-nope") -> Reply:
        return cls.error(404, f"model: {model}")

    @classmethod
    def truncated_json(cls) -> Reply:
        return cls.truncated(message_body([{"type": "text", "text": "cut"}], "end_turn"))


class MessagesRequest(RecordedRequest):
    """A recorded request with Messages API accessors."""

    @property
    def api_key(self) -> str | None:
        key = self.headers.get("x-api-key")
        if key:
            return key
        auth = self.headers.get("authorization", "")
        return auth[len("Bearer ") :] if auth.startswith("Bearer ") else None

    @property
    def system_text(self) -> str:
        system = self.field("system")
        if isinstance(system, list):
            return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
        return str(system or "")

    @property
    def messages(self) -> list[dict[str, Any]]:
        value = self.field("messages")
        return list(value) if isinstance(value, list) else []

    @property
    def tools(self) -> list[dict[str, Any]]:
        value = self.field("tools")
        return list(value) if isinstance(value, list) else []

    @property
    def function_names(self) -> list[str]:
        return [str(t.get("name")) for t in self.tools]

    @property
    def tool_choice(self) -> Any:
        return self.field("tool_choice")

    @property
    def tool_results(self) -> list[dict[str, Any]]:
        """The ``tool_result`` blocks of the last message (the turn answered)."""
        if not self.messages:
            return []
        content = self.messages[-1].get("content")
        if not isinstance(content, list):
            return []
        return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def stream_events(body: Mapping[str, Any]) -> list[str]:
    """A whole ``message`` as the events of its stream (see the module docstring)."""
    usage = dict(body.get("usage") or {})
    start = {key: value for key, value in body.items() if key != "content"}
    start |= {"content": [], "stop_reason": None, "usage": usage | {"output_tokens": 1}}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(body.get("content") or []):
        kind = block.get("type")
        opening = dict(block)
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            opening["text"] = ""
            deltas = [
                {"type": "text_delta", "text": piece} for piece in exchange.thirds(block["text"])
            ]
        elif kind == "tool_use":
            opening["input"] = {}
            raw = json.dumps(block.get("input", {}), ensure_ascii=False)
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in exchange.thirds(raw)]
        elif kind == "thinking":
            opening |= {"thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": p}
                for p in exchange.thirds(block["thinking"])
            ]
            deltas.append({"type": "signature_delta", "signature": block.get("signature", "")})
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        events.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stop = {"stop_reason": body.get("stop_reason"), "stop_sequence": None}
    output = {"output_tokens": usage.get("output_tokens", 0)}
    events.append(("message_delta", {"type": "message_delta", "delta": stop, "usage": output}))
    events.append(("message_stop", {"type": "message_stop"}))
    return [f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}" for name, data in events]


class AnthropicEmulator(HttpEmulator[MessagesRequest, Reply]):
    """A scripted ``/v1/messages`` endpoint; ``base_url`` is the bare origin."""

    name: ClassVar[str] = "anthropic-emulator"
    record_class: ClassVar[type[RecordedRequest]] = MessagesRequest
    reply_class: ClassVar[type[exchange.Reply]] = Reply
    routes: ClassVar[Mapping[tuple[str, str], str]] = {("POST", "/v1/messages"): "messages"}

    def _write_reply(self, h: Handler, rec: MessagesRequest, reply: exchange.Reply) -> None:
        if rec.field("stream") is True and reply.status == 200 and reply.fault != "short_body":
            if reply.raw is None and isinstance(reply.body, dict) and "content" in reply.body:
                self.send_events(h, rec, reply, stream_events(reply.body))
                return
            if reply.raw is not None and reply.content_type.startswith("application/json"):
                text = reply.raw.decode("utf-8", "replace")
                self.send_events(h, rec, reply, [f"event: message_start\ndata: {text}"])
                return
        super()._write_reply(h, rec, reply)

    def error_reply(self, status: int, message: str) -> Reply:
        return Reply.error(status, message)


if __name__ == "__main__":
    sys.exit(core.main(AnthropicEmulator, prog="python -m tests.fakes.anthropic_emulator"))
