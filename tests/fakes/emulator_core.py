"""The scripted JSON-over-HTTP server under every model API emulator (Gemini, OpenAI, Anthropic).

A real HTTP/1.1 server on 127.0.0.1 (ephemeral port) in daemon threads, so it serves sync code,
async code on any event loop, and subprocesses alike; TCP_NODELAY on every accepted socket.
Replies come from a FIFO queue (each entry answers ``reply.times`` requests), then from a
responder function; every request is recorded. Faults: delay, hang (until the client leaves, the
emulator stops, or a release event), close or reset the connection, a body shorter than its
Content-Length, a stalled body, truncated JSON, HTML pages. Two hooks observe the traffic:
``on_request`` (a request arrived) and ``on_served`` (its reply was written, with the time that
took). Standard library only.

An API emulator subclasses :class:`HttpEmulator` (routes, error format, streamed replies),
``exchange.RecordedRequest`` (accessors for its request format) and ``exchange.Reply``
(builders for its wire format); ``http_server`` is the plumbing underneath.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import copy
import json
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import Any, ClassVar, Generic, Self
from urllib.parse import parse_qs, urlsplit

from tests.fakes.exchange import Rec, RecordedRequest, Rep, Reply, Served, load_script
from tests.fakes.http_server import (
    Handler,
    Hold,
    ThreadedServer,
    head_bytes,
    hold,
    read_body,
    reset_connection,
    write_chunk,
)

__all__ = ["HttpEmulator", "main"]


class HttpEmulator(Generic[Rec, Rep]):
    """A scripted JSON API on ``base_url``. Thread-safe; start/stop are idempotent.

    Subclasses set ``name``, ``record_class``, ``reply_class``, ``routes`` (or override
    ``route_of``) and implement ``error_reply`` (the API's error format).
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
        on_served: Callable[[Served[Rec, Rep]], None] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self._on_request = on_request
        self._on_served = on_served
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
        self._server: ThreadedServer | None = None
        self._serve_thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._origin: str | None = None

    # ---------------------------------------------------------------- API-specific

    def route_of(self, method: str, path: str) -> str | None:
        """The route name of a request, None when the API has no such endpoint."""
        return self.routes.get((method, path))

    def describe_routes(self) -> str:
        """What a 404 says the emulator serves."""
        return ", ".join(f"{method} {path}" for method, path in self.routes)

    def error_reply(self, status: int, message: str) -> Rep:
        """An error in the API's own format (used for 404s and emulator problems)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> Self:
        with self._lock:
            if self._server is not None:
                return self
            self._stopping = threading.Event()
            server = ThreadedServer(
                (self.host, self.port),
                name=self.name,
                opened=self._connection_opened,
                closed=self._connection_closed,
                serve=self._serve,
            )
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
            if t is not threading.current_thread():  # stop() called from a responder
                t.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
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
            if not isinstance(reply, self.reply_class):
                raise TypeError(f"expected {_named(self.reply_class)}, got {_named(type(reply))}")
        with self._lock:
            for reply in replies:
                self._queue.append([reply, reply.times])

    def set_responder(self, fn: Callable[[Rec], Rep] | None) -> None:
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

    def clear_requests(self) -> None:
        """Forget the recorded requests (their bodies can be large); the script stays."""
        with self._lock:
            self._records.clear()

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

    @property
    def request_count(self) -> int:
        """How many requests arrived (cheaper than `requests`, which copies them)."""
        with self._lock:
            return len(self._records)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[Rec]:
        """Block until at least ``n`` requests arrived; raise TimeoutError otherwise."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._records) >= n, timeout):
                raise TimeoutError(f"expected {n} requests, got {len(self._records)}")
            return copy.deepcopy(self._records)

    async def wait_for_requests_async(
        self,
        n: int,
        timeout: float = 5.0,  # noqa: ASYNC109 (mirrors the sync API)
    ) -> list[Rec]:
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

    def wait_for_disconnect(self, timeout: float = 5.0, count: int = 1) -> bool:
        """True once ``count`` clients went away while their request was held (``hang``,
        ``stall``, or during ``delay``) since the last ``reset()``."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self._disconnects) >= count, timeout)

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
    def disconnected_requests(self) -> list[int]:
        """Indices of requests whose client disconnected while the emulator held them."""
        with self._lock:
            return list(self._disconnects)

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
        """True once no request is in flight (``on_served`` included)."""
        with self._changed:
            return self._changed.wait_for(lambda: self._in_flight == 0, timeout)

    @property
    def problems(self) -> list[str]:
        """Requests answered with an emulator-made error (no script, responder crash, 404)."""
        with self._lock:
            return list(self._problems)

    # ---------------------------------------------------------------- internals

    def _problem(self, text: str) -> None:
        with self._lock:
            self._problems.append(text)

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

    def _record(self, h: Handler, raw_body: bytes) -> Rec:
        split = urlsplit(h.path)
        try:
            body: Any = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        with self._lock:
            rec: Any = self.record_class(
                index=len(self._records),
                method=h.command,
                path=split.path,
                route=self.route_of(h.command, split.path),
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
                self._problem(f"request #{rec.index}: on_request raised {exc!r}")
        return rec  # type: ignore[no-any-return]

    def _reply_for(self, rec: Rec) -> Rep:
        if rec.route is None:
            self._problem(f"request #{rec.index}: {rec.method} {rec.path} -> 404")
            return self.error_reply(
                404,
                f"emulator: no route for {rec.method} {rec.path}; "
                f"expected {self.describe_routes()}",
            )
        with self._lock:
            if self._queue:
                entry = self._queue[0]
                reply: Rep = entry[0]
                if entry[1] is not None:
                    entry[1] -= 1
                    if entry[1] <= 0:
                        self._queue.popleft()
                return reply
            responder = self._responder
        if responder is None:
            self._problem(f"request #{rec.index} {rec.path}: queue empty and no responder set")
            return self.error_reply(
                500, "emulator: no scripted reply (queue empty and no responder set)"
            )
        try:
            reply = responder(copy.deepcopy(rec))
            if not isinstance(reply, self.reply_class):
                raise TypeError(f"responder returned {_named(type(reply))}, not a Reply")
            return reply
        except Exception as exc:
            self._problem(f"request #{rec.index}: responder raised {exc!r}")
            return self.error_reply(500, f"emulator: responder raised {exc!r}")

    def _serve(self, h: Handler) -> None:
        try:
            raw_body = read_body(h)
        except (OSError, ValueError):
            h.close_connection = True
            return
        started = time.perf_counter()
        rec = self._record(h, raw_body)
        reply: Rep | None = None
        try:
            reply = self._reply_for(rec)
            self._execute(h, rec, reply)
        except OSError:
            h.close_connection = True
        finally:
            if reply is not None:
                self._served(rec, reply, time.perf_counter() - started)
            with self._lock:
                self._in_flight -= 1
                self._changed.notify_all()

    def _served(self, rec: Rec, reply: Rep, seconds: float) -> None:
        if self._on_served is None:
            return
        try:
            self._on_served(Served(copy.deepcopy(rec), reply, seconds))
        except Exception as exc:
            self._problem(f"request #{rec.index}: on_served raised {exc!r}")

    def _hold(
        self,
        h: Handler,
        rec: RecordedRequest,
        *,
        seconds: float | None,
        release: threading.Event | None,
    ) -> str:
        """Hold the connection (see ``http_server.hold``), noting a client that goes away."""

        def disconnected() -> None:
            with self._lock:
                self._disconnects.append(rec.index)
                self._changed.notify_all()

        return hold(
            h,
            stopping=self._stopping,
            seconds=seconds,
            release=release,
            on_disconnect=disconnected,
        )

    def _hold_released(self, h: Handler, rec: RecordedRequest, reply: Reply) -> bool:
        """Hold until ``reply.release`` is set (True) or the exchange ends (False, and the
        connection is to be closed)."""
        if self._hold(h, rec, seconds=None, release=reply.release) == Hold.RELEASED:
            return True
        h.close_connection = True
        return False

    def _waited(self, h: Handler, rec: RecordedRequest, seconds: float) -> bool:
        """Wait ``seconds`` (True), unless the exchange ends first (False, and the connection
        is to be closed)."""
        if self._hold(h, rec, seconds=seconds, release=None) == Hold.ELAPSED:
            return True
        h.close_connection = True
        return False

    def send_events(
        self, h: Handler, rec: RecordedRequest, reply: Reply, events: Sequence[str]
    ) -> None:
        """Answer a streamed request: each of `events` (the lines of one server-sent event,
        ``data: ...`` or ``event: ...\ndata: ...``), ``chunk_delay`` apart, then the end of
        the chunked body; ``fault`` ``stall`` holds the stream after
        ``stall_after`` events (until ``release``), ``break`` drops it there."""
        headers = [
            ("Content-Type", "text/event-stream"),
            ("Transfer-Encoding", "chunked"),
            ("Cache-Control", "no-cache"),
        ]
        h.wfile.write(head_bytes(h, 200, headers, reply.headers))
        for i, event in enumerate(events):
            if reply.fault == "stall" and i == reply.stall_after:
                if not self._hold_released(h, rec, reply):
                    return
            elif i > 0 and reply.chunk_delay > 0 and not self._waited(h, rec, reply.chunk_delay):
                return
            if reply.fault == "break" and i == reply.stall_after:
                h.close_connection = True  # a chunk_delay after the last event sent
                return
            write_chunk(h, f"{event}\r\n\r\n".encode())
        if (
            reply.fault == "stall"
            and len(events) <= reply.stall_after
            and not self._hold_released(h, rec, reply)
        ):
            return
        h.wfile.write(b"0\r\n\r\n")

    def _execute(self, h: Handler, rec: Rec, reply: Reply) -> None:
        if reply.delay > 0 and not self._waited(h, rec, reply.delay):
            return
        if reply.fault == "hang":
            if self._hold_released(h, rec, reply):
                if reply.then is not None:
                    self._execute(h, rec, reply.then)
                else:
                    h.close_connection = True
            return
        if reply.fault == "close":
            h.close_connection = True
            return
        if reply.fault == "reset":
            reset_connection(h)
            return
        self._write_reply(h, rec, reply)

    def _write_reply(self, h: Handler, rec: Rec, reply: Reply) -> None:
        """Send a whole body (API emulators override this for streamed replies)."""
        body = reply.encoded_body()
        headers = [("Content-Type", reply.content_type), ("Content-Length", str(len(body)))]
        if reply.fault == "short_body":
            keep = reply.keep_bytes if reply.keep_bytes is not None else len(body) // 2
            h.wfile.write(
                head_bytes(h, reply.status, headers, reply.headers, close=True) + body[:keep]
            )
            h.close_connection = True
            return
        if reply.fault == "break":  # a streamed reply breaks mid-stream; unary: no answer
            h.close_connection = True
            return
        if reply.fault == "stall":
            half = len(body) // 2
            h.wfile.write(head_bytes(h, reply.status, headers, reply.headers) + body[:half])
            if self._hold_released(h, rec, reply):
                h.wfile.write(body[half:])
            return
        h.wfile.write(head_bytes(h, reply.status, headers, reply.headers) + body)


def _named(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def main(
    emulator_class: type[HttpEmulator[Any, Any]],
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
) -> int:
    """Serve ``emulator_class`` until SIGINT/SIGTERM; print the base URL on the first line."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=f"Serve a scripted {emulator_class.name}. Prints the base URL on the first "
        "line.",
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

    emulator = emulator_class(args.host, args.port, on_request=on_request)
    if args.script:
        emulator.enqueue(*load_script(args.script, emulator_class.reply_class))
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
