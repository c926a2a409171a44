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

import argparse
import asyncio
import base64
import collections
import contextlib
import copy
import dataclasses
import http
import json
import re
import selectors
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType, TracebackType
from typing import Any, Literal, TypeAlias
from urllib.parse import parse_qs, urlsplit

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

JSON: TypeAlias = Any
"""A JSON-serialisable value (dict, list, str, int, float, bool or None)."""

Fault: TypeAlias = Literal["hang", "close", "reset", "stall", "short_body"]
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
_POLL = 0.01  # seconds between checks while holding a connection


# --------------------------------------------------------------------------------------------
# Recorded requests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as the emulator received it. Accessors hand out deep copies."""

    index: int
    """0-based arrival order since the last ``reset()``."""
    method: str
    path: str
    """URL path without the query string, e.g. ``/v1beta/models/gemini-2.5-pro:generateContent``."""
    api_version: str | None
    """``v1``, ``v1beta`` or ``v1alpha``; None for a path the emulator does not serve."""
    model: str | None
    action: str | None
    """``generateContent`` or ``streamGenerateContent``; None for an unknown path."""
    query: dict[str, str]
    headers: dict[str, str]
    """Lower-cased header names."""
    body: JSON
    """Parsed JSON body; None if the body was empty or not JSON (see ``raw_body``)."""
    raw_body: bytes
    received_at: float
    """``time.monotonic()`` at arrival (CLOCK_MONOTONIC: comparable across local processes)."""
    connection_id: int = 0
    """Which TCP connection carried it (1, 2, ... in accept order): equal ids prove keep-alive."""

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
        return {
            "index": self.index,
            "method": self.method,
            "path": self.path,
            "api_version": self.api_version,
            "model": self.model,
            "action": self.action,
            "query": self.query,
            "headers": self.headers,
            "body": self.body,
            "received_at": self.received_at,
            "connection_id": self.connection_id,
        }


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


def _dump(value: JSON, *, pretty: bool) -> str:
    # The real API sends UTF-8 (non-ASCII characters unescaped); non-streamed bodies are
    # pretty-printed, SSE events are single-line.
    if pretty:
        return json.dumps(value, ensure_ascii=False, indent=2)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Reply:
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

    status: int = 200
    body: JSON = None
    raw: bytes | None = None
    """Exact body bytes; overrides ``body``."""
    content_type: str = "application/json; charset=UTF-8"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    times: int | None = 1
    fault: Fault | None = None
    chunks: tuple[JSON, ...] | None = None
    """SSE events for streamed requests (whole GenerateContentResponse objects, or str)."""
    chunk_delay: float = 0.0
    """Seconds between SSE events."""
    stall_after: int = 1
    """``fault="stall"``: SSE events sent before stalling (non-streamed: body bytes / 2)."""
    keep_bytes: int | None = None
    """``fault="short_body"``: body bytes sent before closing (default: half)."""
    release: threading.Event | None = field(default=None, compare=False)
    """``hang``/``stall``: stop holding once set. ``hang`` then serves ``then`` or closes."""
    then: Reply | None = None

    # ---------------------------------------------------------------- generic builders

    @classmethod
    def json(
        cls,
        body: JSON,
        status: int = 200,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """Any JSON body with any status."""
        return cls(status=status, body=body, headers=dict(headers or {}))

    @classmethod
    def raw_bytes(
        cls,
        data: bytes | str,
        status: int = 200,
        *,
        content_type: str = "application/octet-stream",
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """Exact body bytes (sent as-is to streamed requests too)."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return cls(status=status, raw=raw, content_type=content_type, headers=dict(headers or {}))

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
    def hang(cls, *, release: threading.Event | None = None, then: Reply | None = None) -> Reply:
        """Read the request, then never answer: hold the connection until the client goes away,
        the emulator stops, or ``release`` is set (then serve ``then``, or close)."""
        return cls(fault="hang", release=release, then=then)

    @classmethod
    def close_connection(cls, *, reset: bool = False) -> Reply:
        """Read the request and close the connection without answering (FIN; RST if ``reset``)."""
        return cls(fault="reset" if reset else "close")

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
        full = _dump(body, pretty=False)
        cut = full[: keep if keep is not None else len(full) // 2]
        if short_body:
            return cls(
                status=status,
                raw=full.encode("utf-8"),
                fault="short_body",
                keep_bytes=len(cut.encode("utf-8")),
            )
        return cls(status=status, raw=cut.encode("utf-8"), chunks=(cut,))

    @classmethod
    def html(cls, status: int = 502, page: str | None = None) -> Reply:
        """An HTML error page (as a proxy or Google's front end sends), status 200 or 5xx."""
        if page is None:
            page = _HTML_PAGE.format(status=status)
        return cls(status=status, raw=page.encode("utf-8"), content_type="text/html; charset=UTF-8")

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

    def delayed(self, seconds: float) -> Reply:
        """The same reply, sent after ``seconds``."""
        return dataclasses.replace(self, delay=seconds)

    def repeat(self, times: int | None) -> Reply:
        """The same reply for ``times`` consecutive requests (None: forever)."""
        if times is not None and times < 1:
            raise ValueError("times must be >= 1 or None")
        return dataclasses.replace(self, times=times)

    def with_headers(self, **headers: str) -> Reply:
        merged = dict(self.headers)
        merged.update({k.replace("_", "-"): v for k, v in headers.items()})
        return dataclasses.replace(self, headers=merged)

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

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable description (``release`` events are dropped)."""
        out: dict[str, Any] = {"status": self.status}
        if self.raw is not None:
            out["raw"] = self.raw.decode("utf-8", errors="surrogateescape")
        else:
            out["body"] = self.body
        defaults = Reply()
        for name in ("content_type", "delay", "times", "fault", "chunk_delay", "stall_after"):
            value = getattr(self, name)
            if value != getattr(defaults, name):
                out[name] = value
        if self.headers:
            out["headers"] = dict(self.headers)
        if self.chunks is not None:
            out["chunks"] = list(self.chunks)
        if self.keep_bytes is not None:
            out["keep_bytes"] = self.keep_bytes
        if self.then is not None:
            out["then"] = self.then.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reply:
        """Inverse of :meth:`to_json`. ``{"status": 200, "body": {...}}`` is the minimal form;
        a bare GenerateContentResponse (no ``status``/``body``/``raw`` key) is accepted too."""
        if not any(k in data for k in ("status", "body", "raw", "fault")):
            bare = copy.deepcopy(dict(data))
            error = bare.get("error")
            status = error.get("code", 500) if isinstance(error, dict) else 200
            return cls(status=status, body=bare)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply keys: {sorted(unknown)}")
        kwargs: dict[str, Any] = {k: copy.deepcopy(v) for k, v in data.items() if k != "release"}
        if isinstance(kwargs.get("raw"), str):
            kwargs["raw"] = kwargs["raw"].encode("utf-8", errors="surrogateescape")
        if kwargs.get("chunks") is not None:
            kwargs["chunks"] = tuple(kwargs["chunks"])
        if kwargs.get("then") is not None:
            kwargs["then"] = cls.from_json(kwargs["then"])
        return cls(**kwargs)


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


def _no_script_reply(detail: str) -> Reply:
    return Reply.error(500, f"emulator: no scripted reply ({detail})", status="INTERNAL")


# --------------------------------------------------------------------------------------------
# HTTP server
# --------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # the emulator tracks and joins its own connection threads
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], emulator: GeminiEmulator) -> None:
        self.emulator = emulator
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup that can stall.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        # One daemon thread per connection, named so leaks are easy to spot.
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"gemini-emulator:{self.server_port}:connection",
            daemon=True,
        )
        thread.start()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Client-side aborts (reset, broken pipe) are normal in fault tests: stay quiet.
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY on every accepted socket
    server_version = "gemini-emulator"
    sys_version = ""
    server: _Server
    connection_id: int = 0

    def setup(self) -> None:
        super().setup()
        self.connection_id = self.server.emulator._connection_opened(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.emulator._connection_closed(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _dispatch(self) -> None:
        self.server.emulator._serve(self)

    do_POST = _dispatch
    do_GET = _dispatch
    do_PUT = _dispatch
    do_PATCH = _dispatch
    do_DELETE = _dispatch


class _Hold:
    STOPPED = "stopped"
    RELEASED = "released"
    ELAPSED = "elapsed"
    DISCONNECTED = "disconnected"


class GeminiEmulator:
    """A scripted Gemini REST endpoint on ``base_url``. Thread-safe; start/stop are idempotent."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        on_request: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self._on_request = on_request
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._queue: collections.deque[list[Any]] = collections.deque()  # [Reply, remaining]
        self._responder: Responder | None = None
        self._records: list[RecordedRequest] = []
        self._problems: list[str] = []
        self._disconnects: list[int] = []
        self._connections: set[socket.socket] = set()
        self._threads: set[threading.Thread] = set()
        self._in_flight = 0
        self._total_connections = 0
        self._server: _Server | None = None
        self._serve_thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._base_url: str | None = None

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> GeminiEmulator:
        with self._lock:
            if self._server is not None:
                return self
            self._stopping = threading.Event()
            server = _Server((self.host, self.port), self)
            self._server = server
            port = server.server_port
            self._base_url = f"http://{server.server_name}:{port}"
        thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"gemini-emulator:{port}",
            daemon=True,
        )
        self._serve_thread = thread
        thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, drop every connection (held ones included) and join the threads."""
        with self._lock:
            server, self._server = self._server, None
            serve_thread, self._serve_thread = self._serve_thread, None
            if server is None:
                return
            self._stopping.set()
            self._changed.notify_all()
        server.shutdown()
        server.server_close()
        with self._lock:
            connections = list(self._connections)
            threads = list(self._threads)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + timeout
        for t in [*threads, *([serve_thread] if serve_thread else [])]:
            if t is not threading.current_thread():  # stop() called from a responder
                t.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> GeminiEmulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def base_url(self) -> str:
        if self._base_url is None:
            raise RuntimeError("GeminiEmulator not started")
        return self._base_url

    # ---------------------------------------------------------------- scripting

    def enqueue(self, *replies: Reply) -> None:
        """Append replies to the FIFO script (each answers ``reply.times`` requests)."""
        for reply in replies:
            if not isinstance(reply, Reply):
                raise TypeError(f"expected Reply, got {type(reply).__name__}")
        with self._lock:
            for reply in replies:
                self._queue.append([reply, reply.times])

    def set_responder(self, fn: Responder | None) -> None:
        """Answer with ``fn(request)`` whenever the queue is empty (the queue is consulted first).
        ``fn`` runs on the connection's thread, possibly concurrently: keep it thread-safe."""
        with self._lock:
            self._responder = fn

    def reset(self) -> None:
        """Clear the script, the responder, the records, problems and disconnect flags."""
        with self._lock:
            self._queue.clear()
            self._responder = None
            self._records.clear()
            self._problems.clear()
            self._disconnects.clear()

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed (None-times entries count once)."""
        with self._lock:
            return sum(1 if n is None else n for _, n in self._queue)

    # ---------------------------------------------------------------- observation

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return copy.deepcopy(self._records)

    @property
    def request_count(self) -> int:
        """How many requests arrived (cheaper than `requests`, which copies them)."""
        with self._lock:
            return len(self._records)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least ``n`` requests arrived; raise TimeoutError otherwise."""
        with self._changed:
            ok = self._changed.wait_for(lambda: len(self._records) >= n, timeout)
            if not ok:
                raise TimeoutError(f"expected {n} requests, got {len(self._records)}")
            return copy.deepcopy(self._records)

    def wait_for_disconnect(self, timeout: float = 5.0, count: int = 1) -> bool:
        """True once ``count`` clients went away while their request was held (``hang``,
        ``stall``, or during ``delay``) since the last ``reset()``."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self._disconnects) >= count, timeout)

    @property
    def disconnected_requests(self) -> list[int]:
        """Indices of requests whose client disconnected while the emulator held them."""
        with self._lock:
            return list(self._disconnects)

    async def wait_for_requests_async(
        self,
        n: int,
        timeout: float = 5.0,  # noqa: ASYNC109 (mirrors the sync API)
    ) -> list[RecordedRequest]:
        """``wait_for_requests`` for async tests: polls, so the event loop keeps running."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if len(self._records) >= n:
                    return copy.deepcopy(self._records)
                got = len(self._records)
            if time.monotonic() >= deadline:
                raise TimeoutError(f"expected {n} requests, got {got}")
            await asyncio.sleep(0.005)

    async def wait_for_disconnect_async(
        self,
        timeout: float = 5.0,  # noqa: ASYNC109 (mirrors the sync API)
        count: int = 1,
    ) -> bool:
        """``wait_for_disconnect`` for async tests."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if len(self._disconnects) >= count:
                    return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.005)

    @property
    def open_connections(self) -> int:
        """TCP connections currently open (idle keep-alive ones included)."""
        with self._lock:
            return len(self._connections)

    @property
    def total_connections(self) -> int:
        """TCP connections accepted since start (not cleared by ``reset()``)."""
        with self._lock:
            return self._total_connections

    @property
    def in_flight(self) -> int:
        """Requests received and not yet fully answered (held ones included)."""
        with self._lock:
            return self._in_flight

    def wait_until_idle(self, timeout: float = 5.0) -> bool:
        """True once no request is in flight."""
        with self._changed:
            return self._changed.wait_for(lambda: self._in_flight == 0, timeout)

    @property
    def problems(self) -> list[str]:
        """Requests answered with an emulator-made 500 (no script, responder crash) or 404."""
        with self._lock:
            return list(self._problems)

    # ---------------------------------------------------------------- internals

    def _connection_opened(self, conn: socket.socket) -> int:
        with self._lock:
            self._connections.add(conn)
            self._threads.add(threading.current_thread())
            self._total_connections += 1
            self._changed.notify_all()
            return self._total_connections

    def _connection_closed(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)
            self._threads.discard(threading.current_thread())
            self._changed.notify_all()

    def _record(self, h: _Handler, raw_body: bytes) -> RecordedRequest:
        split = urlsplit(h.path)
        m = _PATH_RE.match(split.path) if h.command == "POST" else None
        try:
            body: JSON = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        with self._lock:
            rec = RecordedRequest(
                index=len(self._records),
                method=h.command,
                path=split.path,
                api_version=m["version"] if m else None,
                model=m["model"] if m else None,
                action=m["action"] if m else None,
                query=query,
                headers={k.lower(): v for k, v in h.headers.items()},
                body=body,
                raw_body=raw_body,
                received_at=time.monotonic(),
                connection_id=h.connection_id,
            )
            self._records.append(rec)
            self._in_flight += 1
            self._changed.notify_all()
        if self._on_request is not None:
            try:
                self._on_request(copy.deepcopy(rec))
            except Exception as exc:
                with self._lock:
                    self._problems.append(f"request #{rec.index}: on_request raised {exc!r}")
        return rec

    def _next_reply(self, rec: RecordedRequest) -> Reply:
        with self._lock:
            if self._queue:
                entry = self._queue[0]
                reply: Reply = entry[0]
                if entry[1] is not None:
                    entry[1] -= 1
                    if entry[1] <= 0:
                        self._queue.popleft()
                return reply
            responder = self._responder
        if responder is None:
            problem = f"request #{rec.index} {rec.path}: queue empty and no responder set"
            with self._lock:
                self._problems.append(problem)
            return _no_script_reply("queue empty and no responder set")
        try:
            reply = responder(copy.deepcopy(rec))
            if not isinstance(reply, Reply):
                raise TypeError(f"responder returned {type(reply).__name__}, not Reply")
            return reply
        except Exception as exc:
            with self._lock:
                self._problems.append(f"request #{rec.index}: responder raised {exc!r}")
            return Reply.error(500, f"emulator: responder raised {exc!r}", status="INTERNAL")

    def _serve(self, h: _Handler) -> None:
        try:
            raw_body = _read_body(h)
        except (OSError, ValueError):
            h.close_connection = True
            return
        rec = self._record(h, raw_body)
        try:
            if rec.action is None:
                with self._lock:
                    self._problems.append(f"request #{rec.index}: {rec.method} {rec.path} -> 404")
                reply = Reply.error(
                    404,
                    f"emulator: no route for {rec.method} {rec.path}; expected POST "
                    "/{v1,v1beta}/models/{model}:generateContent or :streamGenerateContent",
                    status="NOT_FOUND",
                )
            else:
                reply = self._next_reply(rec)
            self._execute(h, rec, reply)
        except OSError:
            h.close_connection = True
        finally:
            with self._lock:
                self._in_flight -= 1
                self._changed.notify_all()

    def _hold(
        self,
        h: _Handler,
        rec: RecordedRequest,
        *,
        seconds: float | None,
        release: threading.Event | None,
    ) -> str:
        """Wait (``seconds``, or until released/stopped) while watching the socket for the
        client going away. A selector, not select(): no FD_SETSIZE limit in big test runs."""
        deadline = None if seconds is None else time.monotonic() + seconds
        sock = h.connection
        with selectors.DefaultSelector() as selector:
            try:
                selector.register(sock, selectors.EVENT_READ)
            except (OSError, ValueError):
                return _Hold.DISCONNECTED if not self._stopping.is_set() else _Hold.STOPPED
            while True:
                if self._stopping.is_set():
                    return _Hold.STOPPED
                if release is not None and release.is_set():
                    return _Hold.RELEASED
                step = _POLL
                if deadline is not None:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return _Hold.ELAPSED
                    step = min(step, remaining)
                if not selector.select(step):
                    continue
                if self._stopping.is_set():
                    return _Hold.STOPPED
                try:
                    peek = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue
                except OSError:
                    peek = b""
                if not peek:
                    with self._lock:
                        self._disconnects.append(rec.index)
                        self._changed.notify_all()
                    return _Hold.DISCONNECTED
                time.sleep(step)  # pipelined bytes of a next request: leave them

    def _execute(self, h: _Handler, rec: RecordedRequest, reply: Reply) -> None:
        if reply.delay > 0:
            outcome = self._hold(h, rec, seconds=reply.delay, release=None)
            if outcome in (_Hold.STOPPED, _Hold.DISCONNECTED):
                h.close_connection = True
                return
        if reply.fault == "hang":
            outcome = self._hold(h, rec, seconds=None, release=reply.release)
            if outcome == _Hold.RELEASED and reply.then is not None:
                self._execute(h, rec, reply.then)
            else:
                h.close_connection = True
            return
        if reply.fault == "close":
            h.close_connection = True
            return
        if reply.fault == "reset":
            _reset_connection(h)
            return
        # Streamed 200s become SSE, unless only raw bytes were given (HTML page, short body).
        # truncated_json has both: raw for unary, one broken SSE event for streamed requests.
        if (
            rec.stream
            and reply.status == 200
            and reply.fault != "short_body"
            and (reply.raw is None or reply.chunks is not None)
        ):
            self._send_sse(h, rec, reply)
            return
        body = (
            reply.raw if reply.raw is not None else _dump(reply.body, pretty=True).encode("utf-8")
        )
        headers = [("Content-Type", reply.content_type), ("Content-Length", str(len(body)))]
        if reply.fault == "short_body":
            keep = reply.keep_bytes if reply.keep_bytes is not None else len(body) // 2
            head = _head_bytes(h, reply.status, headers, reply.headers, close=True)
            h.wfile.write(head + body[:keep])
            h.close_connection = True
            return
        if reply.fault == "stall":
            half = len(body) // 2
            head = _head_bytes(h, reply.status, headers, reply.headers)
            h.wfile.write(head + body[:half])
            if self._hold(h, rec, seconds=None, release=reply.release) == _Hold.RELEASED:
                h.wfile.write(body[half:])
            else:
                h.close_connection = True
            return
        h.wfile.write(_head_bytes(h, reply.status, headers, reply.headers) + body)

    def _send_sse(self, h: _Handler, rec: RecordedRequest, reply: Reply) -> None:
        chunks = reply.chunks if reply.chunks is not None else (reply.body,)
        headers = [
            ("Content-Type", "text/event-stream"),
            ("Transfer-Encoding", "chunked"),
            ("Cache-Control", "no-cache"),
        ]
        h.wfile.write(_head_bytes(h, 200, headers, reply.headers))
        for i, chunk in enumerate(chunks):
            if reply.fault == "stall" and i == reply.stall_after:
                if self._hold(h, rec, seconds=None, release=reply.release) != _Hold.RELEASED:
                    h.close_connection = True
                    return
            elif i > 0 and reply.chunk_delay > 0:
                outcome = self._hold(h, rec, seconds=reply.chunk_delay, release=None)
                if outcome != _Hold.ELAPSED:
                    h.close_connection = True
                    return
            data = chunk if isinstance(chunk, str) else _dump(chunk, pretty=False)
            _write_chunk(h, f"data: {data}\r\n\r\n".encode())
        if (
            reply.fault == "stall"
            and len(chunks) <= reply.stall_after
            and self._hold(h, rec, seconds=None, release=reply.release) != _Hold.RELEASED
        ):
            h.close_connection = True
            return
        h.wfile.write(b"0\r\n\r\n")


def _read_body(h: _Handler) -> bytes:
    if "chunked" in h.headers.get("Transfer-Encoding", "").lower():
        out = bytearray()
        while True:
            size_line = h.rfile.readline(65537)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while h.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return bytes(out)
            out += h.rfile.read(size)
            h.rfile.readline(65537)
    length = int(h.headers.get("Content-Length") or 0)
    return h.rfile.read(length) if length > 0 else b""


def _head_bytes(
    h: _Handler,
    status: int,
    headers: list[tuple[str, str]],
    extra: Mapping[str, str],
    *,
    close: bool = False,
) -> bytes:
    """The status line and headers (written together with the body: one send, no Nagle wait)."""
    try:
        reason = http.HTTPStatus(status).phrase
    except ValueError:
        reason = "Unknown"
    lines = [f"HTTP/1.1 {status} {reason}", f"Date: {h.date_time_string()}"]
    lines += [f"{k}: {v}" for k, v in headers]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    if close or h.close_connection:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _write_chunk(h: _Handler, data: bytes) -> None:
    h.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")


def _reset_connection(h: _Handler) -> None:
    """Abort with a TCP RST: SO_LINGER 0, then really close the fd now."""
    h.close_connection = True
    sock = h.connection
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.rfile.close()  # drop the makefile() reference so close() closes the fd
        sock.close()
    except OSError:
        pass


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def load_script(path: str) -> list[Reply]:
    """Read a JSON list of replies (see :meth:`Reply.from_json`)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, list):
        raise ValueError("script must be a JSON list of replies")
    return [Reply.from_json(item) for item in data]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fakes.gemini_emulator",
        description="Serve a scripted Gemini REST API. Prints the base URL on the first line.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file: a list of replies, served in order")
    parser.add_argument(
        "--record", help="append each request as a JSON line to this file ('-' for stderr)"
    )
    args = parser.parse_args(argv)

    record_file = None
    if args.record == "-":
        record_file = sys.stderr
    elif args.record:
        record_file = open(args.record, "a", encoding="utf-8")  # noqa: SIM115
    record_lock = threading.Lock()

    def on_request(rec: RecordedRequest) -> None:
        if record_file is not None:
            with record_lock:
                record_file.write(json.dumps(rec.to_json(), ensure_ascii=False) + "\n")
                record_file.flush()

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    emulator = GeminiEmulator(args.host, args.port, on_request=on_request)
    if args.script:
        emulator.enqueue(*load_script(args.script))
    emulator.start()
    print(emulator.base_url, flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        emulator.stop()
        if record_file is not None and record_file is not sys.stderr:
            record_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
