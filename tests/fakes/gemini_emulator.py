"""A local HTTP emulator of the Gemini REST API (``generateContent`` / ``streamGenerateContent``).

Tests point the real ``google-genai`` SDK at it (``HttpOptions(base_url=emu.base_url)`` or the
``GOOGLE_GEMINI_BASE_URL`` environment variable) and script the replies. It is a real HTTP/1.1
server on 127.0.0.1 running in daemon threads, so it serves sync code, async code on any event
loop, and subprocesses alike. Standard library only.

Quick use::

    with GeminiEmulator() as emu:
        emu.enqueue(Reply.function_calls([("complete_task", {"success": True})]))
        ...  # run the system under test against emu.base_url
        assert emu.requests[0].api_key == "test-key"

Standalone (prints the base URL on the first stdout line, serves until SIGINT/SIGTERM)::

    python -m tests.fakes.gemini_emulator --port 0 --script replies.json [--record log.jsonl]

See ``tests/fakes/README.md`` for the full reference.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Self, TypeAlias

from tests.fakes import emulator_core as core
from tests.fakes import exchange
from tests.fakes.exchange import JSON
from tests.fakes.http_server import Handler

__all__ = [
    "FINISH_REASONS",
    "Call",
    "GeminiEmulator",
    "RecordedRequest",
    "Reply",
    "blocked_prompt",
    "empty_stop",
    "error",
    "finish",
    "function_calls",
    "load_script",
    "text",
]

EmptyVariant: TypeAlias = Literal["empty_parts", "no_parts", "no_content"]

FINISH_REASONS: tuple[str, ...] = (
    "STOP",
    "MAX_TOKENS",
    "SAFETY",
    "RECITATION",
    "LANGUAGE",
    "OTHER",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
    "IMAGE_SAFETY",
    "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",
)

# Canonical google.rpc status names by HTTP code, as the Gemini API sends them.
_STATUS_BY_CODE: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

# Messages close to the ones the real service sends.
_MESSAGE_BY_CODE: dict[int, str] = {
    400: "Request contains an invalid argument.",
    401: "Request had invalid authentication credentials.",
    403: "The caller does not have permission",
    404: "Requested entity was not found.",
    408: "Request timed out.",
    429: (
        "You exceeded your current quota, please check your plan and billing details. "
        "For more information on this error, head to: "
        "https://ai.google.dev/gemini-api/docs/rate-limits."
    ),
    500: "An internal error has occurred. Please retry or report in "
    "https://developers.generativeai.google/guide/troubleshooting",
    502: "Bad Gateway",
    503: "The model is overloaded. Please try again later.",
    504: "The request timed out. Please try again.",
}

_HTML_PAGE = (
    "<!DOCTYPE html>\n<html lang=en>\n<meta charset=utf-8>\n"
    "<title>Error {status} (Server Error)!!1</title>\n"
    "<p><b>{status}.</b> <ins>That\u2019s an error.</ins>\n"
    "<p>The server encountered a temporary error and could not complete your request."
    "<p>Please try again in 30 seconds. <ins>That\u2019s all we know.</ins>\n"
)

_PATH_RE = re.compile(
    r"^/(?P<version>v1|v1beta|v1alpha)/models/(?P<model>[^/:]+)"
    r":(?P<action>generateContent|streamGenerateContent)$"
)


# --------------------------------------------------------------------------------------------
# Recorded requests
# --------------------------------------------------------------------------------------------


class RecordedRequest(exchange.RecordedRequest):
    """One request as the emulator received it, with ``generateContent`` accessors.

    ``path`` is e.g. ``/v1beta/models/gemini-2.5-pro:generateContent``; ``route`` is the action.
    Accessors of the emulator hand out deep copies.
    """

    @property
    def _match(self) -> re.Match[str] | None:
        return _PATH_RE.match(self.path) if self.method == "POST" else None

    @property
    def api_version(self) -> str | None:
        """``v1``, ``v1beta`` or ``v1alpha``; None for a path the emulator does not serve."""
        match = self._match
        return match["version"] if match else None

    @property
    def model(self) -> str | None:
        match = self._match
        return match["model"] if match else None

    @property
    def action(self) -> str | None:
        """``generateContent`` or ``streamGenerateContent``; None for an unknown path."""
        return self.route

    @property
    def stream(self) -> bool:
        return self.action == "streamGenerateContent"

    @property
    def api_key(self) -> str | None:
        return self.headers.get("x-goog-api-key")

    @property
    def contents(self) -> list[dict[str, Any]]:
        contents = self.body.get("contents") if isinstance(self.body, dict) else None
        return list(contents) if isinstance(contents, list) else []

    @property
    def system_instruction(self) -> dict[str, Any] | None:
        value = self.body.get("systemInstruction") if isinstance(self.body, dict) else None
        return value if isinstance(value, dict) else None

    @property
    def system_text(self) -> str:
        """All text parts of ``systemInstruction`` joined with newlines."""
        si = self.system_instruction or {}
        return "\n".join(p["text"] for p in si.get("parts", []) if "text" in p)

    @property
    def tools(self) -> list[dict[str, Any]]:
        tools = self.body.get("tools") if isinstance(self.body, dict) else None
        return list(tools) if isinstance(tools, list) else []

    @property
    def function_declarations(self) -> list[dict[str, Any]]:
        return [fd for tool in self.tools for fd in tool.get("functionDeclarations", [])]

    @property
    def tool_config(self) -> dict[str, Any] | None:
        value = self.body.get("toolConfig") if isinstance(self.body, dict) else None
        return value if isinstance(value, dict) else None

    @property
    def generation_config(self) -> dict[str, Any] | None:
        value = self.body.get("generationConfig") if isinstance(self.body, dict) else None
        return value if isinstance(value, dict) else None

    @property
    def function_responses(self) -> list[dict[str, Any]]:
        """The ``functionResponse`` objects of the last content (the turn being answered)."""
        if not self.contents:
            return []
        parts = self.contents[-1].get("parts", [])
        return [p["functionResponse"] for p in parts if "functionResponse" in p]

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable summary (used by ``--record``)."""
        out = super().to_json()
        del out["route"]
        return {**out, "api_version": self.api_version, "model": self.model, "action": self.action}


# --------------------------------------------------------------------------------------------
# Replies
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One function call for :meth:`Reply.function_calls`."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    thought_signature: bytes | None = None


CallSpec: TypeAlias = "Call | tuple[str, Mapping[str, Any]]"
Responder: TypeAlias = Callable[[RecordedRequest], "Reply"]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _usage(
    usage: tuple[int, int] | None,
    cached_tokens: int | None,
    thoughts_tokens: int | None,
) -> dict[str, int] | None:
    if usage is None and cached_tokens is None and thoughts_tokens is None:
        return None
    prompt, candidates = usage if usage is not None else (0, 0)
    meta = {"promptTokenCount": prompt, "candidatesTokenCount": candidates}
    if cached_tokens is not None:
        meta["cachedContentTokenCount"] = cached_tokens
    if thoughts_tokens is not None:
        meta["thoughtsTokenCount"] = thoughts_tokens
    meta["totalTokenCount"] = prompt + candidates + (thoughts_tokens or 0)
    return meta


def _response(
    candidate: dict[str, Any] | None,
    usage: dict[str, int] | None,
    prompt_feedback: dict[str, Any] | None = None,
    model_version: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if candidate is not None:
        body["candidates"] = [candidate]
    if prompt_feedback is not None:
        body["promptFeedback"] = prompt_feedback
    if usage is not None:
        body["usageMetadata"] = usage
    if model_version is not None:
        body["modelVersion"] = model_version
    return body


def _duration(value: float | str) -> str:
    """A google.protobuf.Duration in JSON form: ``2s``, ``0.5s``."""
    if isinstance(value, str):
        return value
    return f"{value:g}s"


def _one_line(value: JSON) -> str:
    # The real API sends UTF-8 (non-ASCII characters unescaped); SSE events are single-line,
    # whole bodies pretty-printed (``Reply.json_indent``).
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Reply(exchange.Reply):
    """One scripted answer. Build with the classmethods; modify with the ``with``-style methods.

    Serving rules:

    * A ``streamGenerateContent`` request with ``status == 200`` and no ``raw`` bytes gets
      server-sent events, one per element of ``chunks`` (default: ``[body]``), each sent as
      ``data: <json>\\r\\n\\r\\n``. A ``str`` element is sent verbatim after ``data: ``.
      Other statuses are answered as plain JSON (as the real API does for errors).
    * A ``generateContent`` request gets ``body`` (or ``raw``) with a correct Content-Length.
    * ``delay`` seconds pass before anything is sent.
    * ``times`` is how many requests this queue entry answers (None: all of them, forever).
    """

    html_page: ClassVar[str] = _HTML_PAGE
    html_type: ClassVar[str] = "text/html; charset=UTF-8"
    json_indent: ClassVar[int | None] = 2  # the real API pretty-prints whole bodies

    content_type: str = "application/json; charset=UTF-8"
    chunks: tuple[JSON, ...] | None = None
    """SSE events for streamed requests (whole GenerateContentResponse objects, or str)."""

    # ---------------------------------------------------------------- model output

    @classmethod
    def function_calls(
        cls,
        calls: Sequence[CallSpec],
        *,
        thought_signature: bytes | None = None,
        ids: Sequence[str | None] | None = None,
        text: str | None = None,
        usage: tuple[int, int] | None = None,
        cached_tokens: int | None = None,
        thoughts_tokens: int | None = None,
        finish_reason: str | None = "STOP",
        model_version: str | None = None,
    ) -> Reply:
        """One candidate (role ``model``) whose parts are ``functionCall`` parts.

        ``thought_signature`` goes on the first function-call part (as Gemini does for parallel
        calls); use :class:`Call` for a signature or id on any part. ``ids[i]`` sets the id of
        call ``i``. ``text`` adds a leading text part. ``usage`` is
        ``(promptTokenCount, candidatesTokenCount)``.
        """
        if ids is not None and len(ids) != len(calls):
            raise ValueError("ids must have one entry per call")
        parts: list[dict[str, Any]] = []
        if text is not None:
            parts.append({"text": text})
        for i, spec in enumerate(calls):
            call = spec if isinstance(spec, Call) else Call(spec[0], spec[1])
            fc: dict[str, Any] = {"name": call.name, "args": copy.deepcopy(dict(call.args))}
            call_id = call.id if call.id is not None else (ids[i] if ids is not None else None)
            if call_id is not None:
                fc["id"] = call_id
            part: dict[str, Any] = {"functionCall": fc}
            signature = call.thought_signature
            if signature is None and i == 0:
                signature = thought_signature
            if signature is not None:
                part["thoughtSignature"] = _b64(signature)
            parts.append(part)
        return cls.finish(
            finish_reason,
            parts,
            usage=usage,
            cached_tokens=cached_tokens,
            thoughts_tokens=thoughts_tokens,
            model_version=model_version,
        )

    @classmethod
    def text(
        cls,
        text: str,
        *,
        finish_reason: str | None = "STOP",
        thought_signature: bytes | None = None,
        usage: tuple[int, int] | None = None,
        cached_tokens: int | None = None,
        thoughts_tokens: int | None = None,
        model_version: str | None = None,
    ) -> Reply:
        """One candidate with a single text part."""
        part: dict[str, Any] = {"text": text}
        if thought_signature is not None:
            part["thoughtSignature"] = _b64(thought_signature)
        return cls.finish(
            finish_reason,
            [part],
            usage=usage,
            cached_tokens=cached_tokens,
            thoughts_tokens=thoughts_tokens,
            model_version=model_version,
        )

    @classmethod
    def finish(
        cls,
        finish_reason: str | None,
        parts: Sequence[Mapping[str, Any]] | None = None,
        *,
        finish_message: str | None = None,
        safety_ratings: Sequence[Mapping[str, Any]] | None = None,
        usage: tuple[int, int] | None = None,
        cached_tokens: int | None = None,
        thoughts_tokens: int | None = None,
        model_version: str | None = None,
    ) -> Reply:
        """One candidate with any ``finishReason`` (None: omitted) and raw wire-format parts.

        ``parts=None`` omits ``content`` entirely (what the API does for e.g. ``SAFETY``);
        ``parts=[]`` sends ``content: {"role": "model", "parts": []}``.
        """
        candidate: dict[str, Any] = {}
        if parts is not None:
            candidate["content"] = {
                "role": "model",
                "parts": [copy.deepcopy(dict(p)) for p in parts],
            }
        if finish_reason is not None:
            candidate["finishReason"] = finish_reason
        if finish_message is not None:
            candidate["finishMessage"] = finish_message
        if safety_ratings is not None:
            candidate["safetyRatings"] = [dict(r) for r in safety_ratings]
        candidate["index"] = 0
        return cls(
            body=_response(
                candidate, _usage(usage, cached_tokens, thoughts_tokens), None, model_version
            )
        )

    @classmethod
    def empty_stop(cls, variant: EmptyVariant = "empty_parts") -> Reply:
        """``finishReason: STOP`` with nothing in it.

        ``empty_parts``: ``content.parts == []``; ``no_parts``: ``content == {"role": "model"}``;
        ``no_content``: no ``content`` key at all.
        """
        if variant == "empty_parts":
            return cls.finish("STOP", [])
        if variant == "no_parts":
            return cls(
                body={"candidates": [{"content": {"role": "model"}, "finishReason": "STOP"}]}
            )
        return cls.finish("STOP", None)

    @classmethod
    def blocked_prompt(
        cls,
        block_reason: str = "SAFETY",
        *,
        block_reason_message: str | None = None,
        usage: tuple[int, int] | None = None,
    ) -> Reply:
        """No candidates; ``promptFeedback.blockReason`` set (``SAFETY``, ``OTHER``,
        ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``IMAGE_SAFETY``)."""
        feedback: dict[str, Any] = {"blockReason": block_reason}
        if block_reason_message is not None:
            feedback["blockReasonMessage"] = block_reason_message
        return cls(body=_response(None, _usage(usage, None, None), feedback))

    # ---------------------------------------------------------------- HTTP errors

    @classmethod
    def error(
        cls,
        code: int,
        message: str | None = None,
        *,
        status: str | None = None,
        details: Sequence[Mapping[str, Any]] | None = None,
        retry_delay: float | str | None = None,
    ) -> Reply:
        """An HTTP error in Google's format ``{"error": {code, message, status, details?}}``.

        ``retry_delay`` (seconds, or a Duration string such as ``"2s"``) appends a
        ``google.rpc.RetryInfo`` detail.
        """
        err: dict[str, Any] = {
            "code": code,
            "message": message if message is not None else _MESSAGE_BY_CODE.get(code, "Error"),
            "status": status if status is not None else _STATUS_BY_CODE.get(code, "UNKNOWN"),
        }
        all_details = [copy.deepcopy(dict(d)) for d in details or ()]
        if retry_delay is not None:
            all_details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": _duration(retry_delay),
                }
            )
        if all_details:
            err["details"] = all_details
        return cls(status=code, body={"error": err})

    @classmethod
    def rate_limited(cls, retry_delay: float | str | None = None) -> Reply:
        """429 RESOURCE_EXHAUSTED with a QuotaFailure detail, plus RetryInfo if a delay is given."""
        quota = {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [
                {
                    "quotaMetric": (
                        "generativelanguage.googleapis.com/generate_content_free_tier_requests"
                    ),
                    "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                    "quotaValue": "10",
                }
            ],
        }
        return cls.error(429, details=[quota], retry_delay=retry_delay)

    @classmethod
    def input_too_large(cls, tokens: int = 1_200_000, limit: int = 1_048_576) -> Reply:
        """400 INVALID_ARGUMENT as sent for an over-long prompt."""
        return cls.error(
            400,
            f"The input token count ({tokens}) exceeds the maximum number of tokens allowed "
            f"({limit}).",
        )

    @classmethod
    def api_key_invalid(cls) -> Reply:
        """What the Gemini API really sends for a bad key: **400** INVALID_ARGUMENT with an
        ErrorInfo ``reason: API_KEY_INVALID`` (not 401)."""
        return cls.error(
            400,
            "API key not valid. Please pass a valid API key.",
            details=[
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                },
                {
                    "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                    "locale": "en-US",
                    "message": "API key not valid. Please pass a valid API key.",
                },
            ],
        )

    @classmethod
    def api_key_missing(cls) -> Reply:
        """What the Gemini API sends when no key arrives: 403 PERMISSION_DENIED."""
        return cls.error(
            403,
            "Method doesn't allow unregistered callers (callers without established identity). "
            "Please use API Key or other form of API consumer identity to call this API.",
        )

    # ---------------------------------------------------------------- transport faults

    @classmethod
    def truncated_json(
        cls,
        body: JSON = None,
        *,
        keep: int | None = None,
        status: int = 200,
        short_body: bool = False,
    ) -> Reply:
        """A JSON body cut after ``keep`` characters (default: half).

        By default Content-Length matches the truncated text (an HTTP-valid reply whose JSON is
        broken; streamed requests get one SSE event holding the broken JSON). With
        ``short_body=True`` the full length is announced and the connection closes early.
        """
        if body is None:
            body = cls.text("This reply is cut off somewhere in the middle.").body
        reply = cls.truncated(body, keep=keep, short_body=short_body, status=status)
        if short_body or reply.raw is None:
            return reply
        return dataclasses.replace(reply, chunks=(reply.raw.decode("utf-8"),))

    @classmethod
    def stalled_stream(
        cls,
        first: Reply | None = None,
        *,
        events_before_stall: int = 1,
        release: threading.Event | None = None,
    ) -> Reply:
        """Send ``events_before_stall`` SSE events of ``first`` (default: a text chunk without
        finishReason) and stall. When ``release`` is set the rest is sent; on stop the connection
        is closed. A non-streamed request gets headers and half the body, then the stall."""
        if first is None:
            first = cls(
                body={
                    "candidates": [
                        {"content": {"role": "model", "parts": [{"text": "Par"}]}, "index": 0}
                    ]
                }
            )
        return dataclasses.replace(
            first, fault="stall", stall_after=events_before_stall, release=release
        )

    # ---------------------------------------------------------------- modifiers

    def in_chunks(
        self, chunks: Sequence[JSON] | None = None, *, chunk_delay: float | None = None
    ) -> Reply:
        """Serve streamed requests as several SSE events.

        Without ``chunks``, the body's parts are split one per event (each a whole
        GenerateContentResponse); ``finishReason`` and ``usageMetadata`` ride on the last one.
        """
        new_chunks = tuple(chunks) if chunks is not None else tuple(_split_parts(self.body))
        return dataclasses.replace(
            self,
            chunks=new_chunks,
            chunk_delay=self.chunk_delay if chunk_delay is None else chunk_delay,
        )

    # ---------------------------------------------------------------- (de)serialisation

    @classmethod
    def one_line(cls, body: JSON) -> str:
        return _one_line(body)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Inverse of :meth:`to_json`. ``{"status": 200, "body": {...}}`` is the minimal form;
        a bare GenerateContentResponse (no ``status``/``body``/``raw`` key) is accepted too."""
        if not any(k in data for k in ("status", "body", "raw", "fault")):
            bare = copy.deepcopy(dict(data))
            error = bare.get("error")
            status = error.get("code", 500) if isinstance(error, dict) else 200
            return cls(status=status, body=bare)
        reply = super().from_json(data)
        if reply.chunks is None:
            return reply
        return dataclasses.replace(reply, chunks=tuple(reply.chunks))


def _split_parts(body: JSON) -> list[JSON]:
    try:
        candidate = body["candidates"][0]
        parts = candidate["content"]["parts"]
    except (KeyError, IndexError, TypeError):
        return [body]
    if len(parts) <= 1:
        return [body]
    head = {k: v for k, v in body.items() if k not in ("candidates", "usageMetadata")}
    chunks: list[JSON] = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        cand: dict[str, Any] = {
            "content": {"role": candidate["content"].get("role", "model"), "parts": [part]},
        }
        if last:
            cand.update({k: v for k, v in candidate.items() if k != "content"})
        else:
            cand["index"] = candidate.get("index", 0)
        chunk = dict(head)
        chunk["candidates"] = [cand]
        if last and "usageMetadata" in body:
            chunk["usageMetadata"] = body["usageMetadata"]
        chunks.append(copy.deepcopy(chunk))
    return chunks


# Module-level aliases of the most used builders.
function_calls = Reply.function_calls
text = Reply.text
finish = Reply.finish
empty_stop = Reply.empty_stop
blocked_prompt = Reply.blocked_prompt
error = Reply.error


# --------------------------------------------------------------------------------------------
# The emulator
# --------------------------------------------------------------------------------------------


class GeminiEmulator(core.HttpEmulator[RecordedRequest, Reply]):
    """A scripted Gemini REST endpoint on ``base_url``. Thread-safe; start/stop are idempotent."""

    name: ClassVar[str] = "gemini-emulator"
    record_class: ClassVar[type[exchange.RecordedRequest]] = RecordedRequest
    reply_class: ClassVar[type[exchange.Reply]] = Reply

    def route_of(self, method: str, path: str) -> str | None:
        if method == "GET" and path in ("/v1/models", "/v1beta/models"):
            return "models.list"  # what `complex-edit doctor --probe` asks for
        match = _PATH_RE.match(path) if method == "POST" else None
        return match["action"] if match else None

    def describe_routes(self) -> str:
        return "POST /{v1,v1beta}/models/{model}:generateContent or :streamGenerateContent"

    def error_reply(self, status: int, message: str) -> Reply:
        return Reply.error(status, message)

    def _write_reply(self, h: Handler, rec: RecordedRequest, reply: exchange.Reply) -> None:
        # Streamed 200s become SSE, unless only raw bytes were given (HTML page, short body).
        # truncated_json has both: raw for unary, one broken SSE event for streamed requests.
        if (
            isinstance(reply, Reply)
            and rec.stream
            and reply.status == 200
            and reply.fault != "short_body"
            and (reply.raw is None or reply.chunks is not None)
        ):
            self._send_sse(h, rec, reply)
        else:
            super()._write_reply(h, rec, reply)

    def _send_sse(self, h: Handler, rec: RecordedRequest, reply: Reply) -> None:
        chunks = reply.chunks if reply.chunks is not None else (reply.body,)
        events = [
            f"data: {chunk if isinstance(chunk, str) else _one_line(chunk)}" for chunk in chunks
        ]
        self.send_events(h, rec, reply, events)


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def load_script(path: str) -> list[Reply]:
    """Read a JSON list of replies (see :meth:`Reply.from_json`)."""
    return exchange.load_script(path, Reply)


def main(argv: Sequence[str] | None = None) -> int:
    return core.main(GeminiEmulator, argv, prog="python -m tests.fakes.gemini_emulator")


if __name__ == "__main__":
    sys.exit(main())
