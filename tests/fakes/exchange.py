"""What an API emulator is scripted with and what it records: `Reply` (one scripted answer, with
the generic builders and transport faults), `RecordedRequest` (one request as received) and
`Served` (what the ``on_served`` hook receives). API emulators subclass `Reply` with builders
for their wire format and `RecordedRequest` with accessors for their request format.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, Self, TypeAlias, TypeVar

__all__ = ["JSON", "Fault", "RecordedRequest", "Reply", "Served", "load_script"]

JSON: TypeAlias = Any
"""A JSON-serialisable value (dict, list, str, int, float, bool or None)."""

Fault: TypeAlias = Literal["hang", "close", "reset", "stall", "short_body", "break"]


def thirds(text: str) -> list[str]:
    """`text` in three pieces, as a stream sends it (cut mid-string, even mid-escape), empty
    pieces left out."""
    third = max(len(text) // 3, 1)
    return [piece for piece in (text[:third], text[third : 2 * third], text[2 * third :]) if piece]


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
    """URL path without the query string."""
    route: str | None
    """The emulator's name for the endpoint (e.g. ``chat.completions``); None when unknown."""
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

    def field(self, name: str) -> Any:
        """A top-level field of the JSON body (None when absent)."""
        return self.body.get(name) if isinstance(self.body, dict) else None

    @property
    def model(self) -> str | None:
        value = self.field("model")
        return value if isinstance(value, str) else None

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable summary (used by ``--record``)."""
        return {
            "index": self.index,
            "method": self.method,
            "path": self.path,
            "route": self.route,
            "query": self.query,
            "headers": self.headers,
            "body": self.body,
            "received_at": self.received_at,
            "connection_id": self.connection_id,
        }


# --------------------------------------------------------------------------------------------
# Replies
# --------------------------------------------------------------------------------------------


# A model's pace, for `Reply.paced`: ~160 output tokens/s after ~6 s to the first token
# (Gemini 3.x Flash, published third-party figures), ~4 bytes of source per token.
PACE_TOKENS_PER_SECOND = 160.0
PACE_FIRST_TOKEN_SECONDS = 6.0
BYTES_PER_TOKEN = 4.0


@dataclass(frozen=True)
class Reply:
    """One scripted answer. API emulators subclass it with builders for their wire format.

    ``delay`` seconds pass before anything is sent; ``times`` is how many requests this queue
    entry answers (None: all of them, forever). ``fault`` breaks the exchange (see the builders).
    """

    html_page: ClassVar[str] = (
        "<!DOCTYPE html>\n<html><head><title>{status} Bad Gateway</title></head>\n"
        "<body><center><h1>{status} Bad Gateway</h1></center><hr><center>nginx</center></body>\n"
        "</html>\n"
    )
    html_type: ClassVar[str] = "text/html; charset=utf-8"
    json_indent: ClassVar[int | None] = None
    """How whole JSON bodies are laid out (None: one line)."""

    status: int = 200
    body: JSON = None
    raw: bytes | None = None
    """Exact body bytes; overrides ``body``."""
    content_type: str = "application/json"
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    delay: float = 0.0
    times: int | None = 1
    fault: Fault | None = None
    keep_bytes: int | None = None
    """``fault="short_body"``: body bytes sent before closing (default: half)."""
    release: threading.Event | None = dataclasses.field(default=None, compare=False)
    """``hang``/``stall``: stop holding once set. ``hang`` then serves ``then`` or closes."""
    then: Reply | None = None
    chunk_delay: float = 0.0
    """Streamed requests: seconds between server-sent events."""
    stall_after: int = 1
    """``fault="stall"``: server-sent events sent before stalling (non-streamed: body bytes /
    2); ``fault="break"``: events sent before the connection drops mid-stream."""

    # ---------------------------------------------------------------- generic builders

    def streamed(self, *, chunk_delay: float) -> Self:
        """Streamed requests get this reply's events ``chunk_delay`` seconds apart."""
        return dataclasses.replace(self, chunk_delay=chunk_delay)

    def broken_stream(self, *, events_before_break: int = 1) -> Self:
        """Send the first ``events_before_break`` server-sent events of this reply, wait its
        ``chunk_delay``, then drop the connection without ending the chunked body (a stream
        that breaks in the middle). A non-streamed request gets no answer."""
        return dataclasses.replace(self, fault="break", stall_after=events_before_break)

    @classmethod
    def json(
        cls, body: JSON, status: int = 200, *, headers: Mapping[str, str] | None = None
    ) -> Self:
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
    ) -> Self:
        """Exact body bytes (sent as-is to streamed requests too)."""
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return cls(status=status, raw=raw, content_type=content_type, headers=dict(headers or {}))

    # ---------------------------------------------------------------- transport faults

    @classmethod
    def hang(cls, *, release: threading.Event | None = None, then: Reply | None = None) -> Self:
        """Read the request, then never answer: hold the connection until the client goes away,
        the emulator stops, or ``release`` is set (then serve ``then``, or close)."""
        return cls(fault="hang", release=release, then=then)

    @classmethod
    def close_connection(cls, *, reset: bool = False) -> Self:
        """Read the request and close the connection without answering (FIN; RST if ``reset``)."""
        return cls(fault="reset" if reset else "close")

    @classmethod
    def truncated(
        cls, body: JSON, *, keep: int | None = None, short_body: bool = False, status: int = 200
    ) -> Self:
        """``body`` as JSON cut after ``keep`` characters (default: half), with a matching
        Content-Length; ``short_body=True``: the full length announced, the connection closed
        early."""
        full = cls.one_line(body)
        cut = full[: keep if keep is not None else len(full) // 2]
        if short_body:
            return cls(
                status=status,
                raw=full.encode("utf-8"),
                fault="short_body",
                keep_bytes=len(cut.encode("utf-8")),
            )
        return cls(status=status, raw=cut.encode("utf-8"))

    @classmethod
    def html(cls, status: int = 502, page: str | None = None) -> Self:
        """An HTML page (a proxy's error page, or a web server on the wrong port)."""
        text = page if page is not None else cls.html_page.format(status=status)
        return cls(status=status, raw=text.encode("utf-8"), content_type=cls.html_type)

    # ---------------------------------------------------------------- modifiers

    def delayed(self, seconds: float) -> Self:
        """The same reply, sent after ``seconds``."""
        return dataclasses.replace(self, delay=seconds)

    def paced(
        self,
        tokens_per_second: float = PACE_TOKENS_PER_SECOND,
        first_token_seconds: float = PACE_FIRST_TOKEN_SECONDS,
        *,
        scale: float = 1.0,
    ) -> Self:
        """The same reply, sent when a model writing at ``tokens_per_second`` after
        ``first_token_seconds`` would have finished it (a unary answer arrives whole at the
        end): the delay counts ``BYTES_PER_TOKEN`` bytes of the body per token. ``scale``
        shrinks both (0.1: ten times faster) so tests and benchmarks need no long waits.
        Defaults: the published pace of Gemini 3.x Flash (see TECH_NOTES)."""
        tokens = len(self.encoded_body()) / BYTES_PER_TOKEN
        return self.delayed(scale * (first_token_seconds + tokens / tokens_per_second))

    def repeat(self, times: int | None) -> Self:
        """The same reply for ``times`` consecutive requests (None: forever)."""
        if times is not None and times < 1:
            raise ValueError("times must be >= 1 or None")
        return dataclasses.replace(self, times=times)

    def with_headers(self, **headers: str) -> Self:
        merged = dict(self.headers)
        merged.update({k.replace("_", "-"): v for k, v in headers.items()})
        return dataclasses.replace(self, headers=merged)

    # ---------------------------------------------------------------- wire text

    @classmethod
    def one_line(cls, body: JSON) -> str:
        """``body`` as the one-line JSON of this API (UTF-8 characters unescaped)."""
        return json.dumps(body, ensure_ascii=False)

    def encoded_body(self) -> bytes:
        """The bytes of a whole (non-streamed) body."""
        if self.raw is not None:
            return self.raw
        return json.dumps(self.body, ensure_ascii=False, indent=self.json_indent).encode("utf-8")

    # ---------------------------------------------------------------- (de)serialisation

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable description (``release`` events are dropped)."""
        out: dict[str, Any] = {"status": self.status}
        if self.raw is not None:
            out["raw"] = self.raw.decode("utf-8", errors="surrogateescape")
        else:
            out["body"] = self.body
        defaults = type(self)()
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name in ("status", "body", "raw", "release"):
                continue
            if value == getattr(defaults, item.name):
                continue
            if isinstance(value, Reply):
                value = value.to_json()
            elif isinstance(value, Mapping):
                value = dict(value)
            elif isinstance(value, tuple):
                value = list(value)
            out[item.name] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Inverse of :meth:`to_json`; ``{"status": 200, "body": {...}}`` is the minimal form."""
        known = {item.name for item in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply keys: {sorted(unknown)}")
        kwargs: dict[str, Any] = {k: copy.deepcopy(v) for k, v in data.items() if k != "release"}
        if isinstance(kwargs.get("raw"), str):
            kwargs["raw"] = kwargs["raw"].encode("utf-8", errors="surrogateescape")
        if kwargs.get("then") is not None:
            kwargs["then"] = cls.from_json(kwargs["then"])
        return cls(**kwargs)


Rec = TypeVar("Rec", bound=RecordedRequest)
Rep = TypeVar("Rep", bound=Reply)


@dataclass(frozen=True)
class Served(Generic[Rec, Rep]):
    """What ``on_served`` receives once a request has been answered (or its client left)."""

    request: Rec
    """A copy of the recorded request."""
    reply: Rep
    seconds: float
    """``time.perf_counter()`` span from the request body read to the last byte written,
    scripted delays and holds included."""


def load_script(path: str, reply_class: type[Rep]) -> list[Rep]:
    """Read a JSON list of replies (see :meth:`Reply.from_json`)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, list):
        raise ValueError("script must be a JSON list of replies")
    return [reply_class.from_json(item) for item in data]
