"""The scripted JSON-over-HTTP server under the OpenAI and Anthropic emulators.

A real HTTP/1.1 server on 127.0.0.1 (ephemeral port) in daemon threads, so it serves sync code,
async code on any event loop, and subprocesses alike; TCP_NODELAY on every accepted socket.
Replies come from a FIFO queue (each entry answers ``reply.times`` requests), then from a
responder function; every request is recorded. Faults: delay, hang (until the client leaves, the
emulator stops, or a release event), close or reset the connection, truncated bodies, HTML pages.
Standard library only. An API emulator subclasses :class:`HttpEmulator` (routes, error format,
request view) and :class:`Reply` (builders for its wire format).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import copy
import dataclasses
import http
import json
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
from typing import Any, ClassVar, Generic, Literal, Self, TypeAlias, TypeVar
from urllib.parse import parse_qs, urlsplit

JSON: TypeAlias = Any
Fault: TypeAlias = Literal["hang", "close", "reset", "short_body"]

_POLL = 0.01  # seconds between checks while holding a connection

_HTML_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>{status} Bad Gateway</title></head>\n"
    "<body><center><h1>{status} Bad Gateway</h1></center><hr><center>nginx</center></body>\n"
    "</html>\n"
)


# --------------------------------------------------------------------------------------------
# Recorded requests
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as the emulator received it (handed out as deep copies)."""

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
    """Parsed JSON body; None if empty or not JSON (see ``raw_body``)."""
    raw_body: bytes
    received_at: float
    """``time.monotonic()`` at arrival."""
    connection_id: int = 0
    """Which TCP connection carried it (1, 2, ... in accept order)."""

    def field(self, name: str) -> Any:
        """A top-level field of the JSON body (None when absent)."""
        return self.body.get(name) if isinstance(self.body, dict) else None

    @property
    def model(self) -> str | None:
        value = self.field("model")
        return value if isinstance(value, str) else None

    def to_json(self) -> dict[str, Any]:
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


@dataclass(frozen=True)
class Reply:
    """One scripted answer. API emulators subclass it with builders for their wire format.

    ``delay`` seconds pass before anything is sent; ``times`` is how many requests this queue
    entry answers (None: all of them). ``fault`` breaks the exchange (see the builders).
    """

    status: int = 200
    body: JSON = None
    raw: bytes | None = None
    """Exact body bytes; overrides ``body``."""
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    times: int | None = 1
    fault: Fault | None = None
    keep_bytes: int | None = None
    """``fault="short_body"``: body bytes sent before closing (default: half)."""
    release: threading.Event | None = field(default=None, compare=False)
    """``hang``: stop holding once set, then serve ``then`` (or close)."""
    then: Reply | None = None

    # ---------------------------------------------------------------- generic builders

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
        raw = data.encode("utf-8") if isinstance(data, str) else data
        return cls(status=status, raw=raw, content_type=content_type, headers=dict(headers or {}))

    @classmethod
    def hang(cls, *, release: threading.Event | None = None, then: Reply | None = None) -> Self:
        """Read the request, never answer: hold the connection until the client goes away,
        the emulator stops, or ``release`` is set (then serve ``then``, or close)."""
        return cls(fault="hang", release=release, then=then)

    @classmethod
    def close_connection(cls, *, reset: bool = False) -> Self:
        """Read the request and close without answering (FIN; RST if ``reset``)."""
        return cls(fault="reset" if reset else "close")

    @classmethod
    def truncated(cls, body: JSON, *, keep: int | None = None, short_body: bool = False) -> Self:
        """``body`` as JSON cut after ``keep`` characters (default: half), with a matching
        Content-Length; ``short_body=True``: the full length announced, the connection closed
        early."""
        full = json.dumps(body, ensure_ascii=False)
        cut = full[: keep if keep is not None else len(full) // 2]
        if short_body:
            return cls(raw=full.encode(), fault="short_body", keep_bytes=len(cut.encode()))
        return cls(raw=cut.encode())

    @classmethod
    def html(cls, status: int = 502, page: str | None = None) -> Self:
        """An HTML page (a proxy's error page, or a web server on the wrong port)."""
        text = page if page is not None else _HTML_PAGE.format(status=status)
        return cls(status=status, raw=text.encode(), content_type="text/html; charset=utf-8")

    # ---------------------------------------------------------------- modifiers

    def delayed(self, seconds: float) -> Self:
        return dataclasses.replace(self, delay=seconds)

    def repeat(self, times: int | None) -> Self:
        """The same reply for ``times`` consecutive requests (None: forever)."""
        if times is not None and times < 1:
            raise ValueError("times must be >= 1 or None")
        return dataclasses.replace(self, times=times)

    def with_headers(self, **headers: str) -> Self:
        merged = dict(self.headers)
        merged.update({k.replace("_", "-"): v for k, v in headers.items()})
        return dataclasses.replace(self, headers=merged)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """``{"status": 200, "body": {...}, "headers": {...}, "delay": 0, "times": 1}``."""
        known = {f.name for f in dataclasses.fields(cls)} - {"release", "then", "raw"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply keys: {sorted(unknown)}")
        return cls(**copy.deepcopy(dict(data)))


Responder: TypeAlias = Callable[[Any], Reply]


# --------------------------------------------------------------------------------------------
# HTTP server
# --------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], emulator: HttpEmulator[Any, Any]) -> None:
        self.emulator = emulator
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a reverse DNS lookup that can stall.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"{self.emulator.name}:{self.server_port}:connection",
            daemon=True,
        )
        thread.start()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return  # client-side aborts are normal in fault tests
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY on every accepted socket
    sys_version = ""
    server: _Server
    connection_id: int = 0

    def setup(self) -> None:
        super().setup()
        self.server_version = self.server.emulator.name
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
    do_DELETE = _dispatch


class _Hold:
    STOPPED = "stopped"
    RELEASED = "released"
    ELAPSED = "elapsed"
    DISCONNECTED = "disconnected"


Rec = TypeVar("Rec", bound=RecordedRequest)
Rep = TypeVar("Rep", bound=Reply)


class HttpEmulator(Generic[Rec, Rep]):
    """A scripted JSON API on ``base_url``. Thread-safe; start/stop are idempotent.

    Subclasses set ``name``, ``record_class``, ``reply_class``, ``routes`` (path → route name)
    and implement ``error_reply`` (the API's error format).
    """

    name: ClassVar[str] = "http-emulator"
    record_class: ClassVar[type[RecordedRequest]] = RecordedRequest
    reply_class: ClassVar[type[Reply]] = Reply
    routes: ClassVar[Mapping[tuple[str, str], str]] = {}
    """(method, path) → route name. Paths are matched exactly."""
    url_suffix: ClassVar[str] = ""
    """Appended to ``http://host:port`` in ``base_url`` (e.g. ``/v1``)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        on_request: Callable[[Rec], None] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self._on_request = on_request
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._queue: collections.deque[list[Any]] = collections.deque()  # [Reply, remaining]
        self._responder: Callable[[Rec], Rep] | None = None
        self._records: list[Rec] = []
        self._problems: list[str] = []
        self._disconnects: list[int] = []
        self._connections: set[socket.socket] = set()
        self._threads: set[threading.Thread] = set()
        self._in_flight = 0
        self._total_connections = 0
        self._server: _Server | None = None
        self._serve_thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._origin: str | None = None

    # ---------------------------------------------------------------- API-specific

    def error_reply(self, status: int, message: str) -> Rep:
        """An error in the API's own format (used for 404s and emulator problems)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> Self:
        with self._lock:
            if self._server is not None:
                return self
            self._stopping = threading.Event()
            server = _Server((self.host, self.port), self)
            self._server = server
            port = server.server_port
            self._origin = f"http://{server.server_name}:{port}"
        thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{self.name}:{port}",
            daemon=True,
        )
        self._serve_thread = thread
        thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving, drop every connection (held ones included), join the threads."""
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
            if t is not threading.current_thread():
                t.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> Self:
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
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self._origin is None:
            raise RuntimeError(f"{type(self).__name__} not started")
        return self._origin

    @property
    def base_url(self) -> str:
        """What the SDK's ``base_url`` should be set to."""
        return self.origin + self.url_suffix

    # ---------------------------------------------------------------- scripting

    def enqueue(self, *replies: Rep) -> None:
        """Append replies to the FIFO script (each answers ``reply.times`` requests)."""
        for reply in replies:
            if not isinstance(reply, Reply):
                raise TypeError(f"expected Reply, got {type(reply).__name__}")
        with self._lock:
            for reply in replies:
                self._queue.append([reply, reply.times])

    def set_responder(self, fn: Callable[[Rec], Rep] | None) -> None:
        """Answer with ``fn(request)`` whenever the queue is empty. Runs on the connection's
        thread, possibly concurrently: keep it thread-safe."""
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
    def requests(self) -> list[Rec]:
        with self._lock:
            return copy.deepcopy(self._records)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[Rec]:
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._records) >= n, timeout):
                raise TimeoutError(f"expected {n} requests, got {len(self._records)}")
            return copy.deepcopy(self._records)

    async def wait_for_requests_async(
        self,
        n: int,
        timeout: float = 5.0,  # noqa: ASYNC109 (mirrors the sync API)
    ) -> list[Rec]:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if len(self._records) >= n:
                    return copy.deepcopy(self._records)
                got = len(self._records)
            if time.monotonic() >= deadline:
                raise TimeoutError(f"expected {n} requests, got {got}")
            await asyncio.sleep(0.005)

    def wait_for_disconnect(self, timeout: float = 5.0, count: int = 1) -> bool:
        """True once ``count`` clients went away while their request was held."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self._disconnects) >= count, timeout)

    async def wait_for_disconnect_async(
        self,
        timeout: float = 5.0,  # noqa: ASYNC109 (mirrors the sync API)
        count: int = 1,
    ) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if len(self._disconnects) >= count:
                    return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.005)

    @property
    def disconnected_requests(self) -> list[int]:
        with self._lock:
            return list(self._disconnects)

    @property
    def open_connections(self) -> int:
        with self._lock:
            return len(self._connections)

    @property
    def total_connections(self) -> int:
        with self._lock:
            return self._total_connections

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._in_flight

    def wait_until_idle(self, timeout: float = 5.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._in_flight == 0, timeout)

    @property
    def problems(self) -> list[str]:
        """Requests answered with an emulator-made error (no script, responder crash, 404)."""
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

    def _record(self, h: _Handler, raw_body: bytes) -> Rec:
        split = urlsplit(h.path)
        try:
            body: JSON = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        with self._lock:
            rec: Any = self.record_class(
                index=len(self._records),
                method=h.command,
                path=split.path,
                route=self.routes.get((h.command, split.path)),
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
        return rec  # type: ignore[no-any-return]

    def _next_reply(self, rec: Rec) -> Reply:
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
            with self._lock:
                self._problems.append(f"request #{rec.index} {rec.path}: queue empty, no responder")
            return self.error_reply(500, "emulator: no scripted reply (queue empty, no responder)")
        try:
            reply = responder(copy.deepcopy(rec))
            if not isinstance(reply, Reply):
                raise TypeError(f"responder returned {type(reply).__name__}, not Reply")
            return reply
        except Exception as exc:
            with self._lock:
                self._problems.append(f"request #{rec.index}: responder raised {exc!r}")
            return self.error_reply(500, f"emulator: responder raised {exc!r}")

    def _serve(self, h: _Handler) -> None:
        try:
            raw_body = _read_body(h)
        except (OSError, ValueError):
            h.close_connection = True
            return
        rec = self._record(h, raw_body)
        try:
            if rec.route is None:
                with self._lock:
                    self._problems.append(f"request #{rec.index}: {rec.method} {rec.path} -> 404")
                routes = ", ".join(f"{m} {p}" for m, p in self.routes)
                reply = self.error_reply(
                    404, f"emulator: no route for {rec.method} {rec.path}; expected {routes}"
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
        self, h: _Handler, rec: Rec, *, seconds: float | None, release: threading.Event | None
    ) -> str:
        """Wait (``seconds``, or until released/stopped) while watching the socket for the
        client going away."""
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

    def _execute(self, h: _Handler, rec: Rec, reply: Reply) -> None:
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
        body = (
            reply.raw
            if reply.raw is not None
            else json.dumps(reply.body, ensure_ascii=False).encode("utf-8")
        )
        headers = [("Content-Type", reply.content_type), ("Content-Length", str(len(body)))]
        if reply.fault == "short_body":
            keep = reply.keep_bytes if reply.keep_bytes is not None else len(body) // 2
            h.wfile.write(
                _head_bytes(h, reply.status, headers, reply.headers, close=True) + body[:keep]
            )
            h.close_connection = True
            return
        h.wfile.write(_head_bytes(h, reply.status, headers, reply.headers) + body)


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
    """Status line and headers, written together with the body: one send, no Nagle wait."""
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


def _reset_connection(h: _Handler) -> None:
    """Abort with a TCP RST: SO_LINGER 0, then really close the fd now."""
    h.close_connection = True
    sock = h.connection
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.rfile.close()
        sock.close()
    except OSError:
        pass


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def main(emulator_class: type[HttpEmulator[Any, Any]], argv: Sequence[str] | None = None) -> int:
    """Serve ``emulator_class`` until SIGINT/SIGTERM; print the base URL on the first line."""
    parser = argparse.ArgumentParser(description=f"Serve a scripted {emulator_class.name}.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON file: a list of replies, served in order")
    parser.add_argument("--record", help="append each request as a JSON line ('-': stderr)")
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

    emulator = emulator_class(args.host, args.port, on_request=on_request)
    if args.script:
        with open(args.script, encoding="utf-8") as f:
            items = json.load(f)
        emulator.enqueue(*(emulator_class.reply_class.from_json(item) for item in items))
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
