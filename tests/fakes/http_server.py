"""The HTTP/1.1 plumbing under the API emulators: a server on 127.0.0.1 with one named daemon
thread per connection and TCP_NODELAY, reading request bodies (chunked too), writing a head
together with its body (one send, no Nagle wait), chunks, holding a connection while watching
for the client going away, and aborting one with a TCP reset. It knows nothing of scripts or
APIs: the owner passes what to do with each connection and request.
"""

from __future__ import annotations

import http
import selectors
import socket
import socketserver
import struct
import sys
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Handler",
    "Hold",
    "ThreadedServer",
    "head_bytes",
    "hold",
    "read_body",
    "reset_connection",
    "write_chunk",
]

_POLL = 0.01  # seconds between checks while holding a connection


class ThreadedServer(ThreadingHTTPServer):
    """Serves ``address``; ``opened(sock)`` numbers each new connection, ``closed(sock)`` is
    told when it ends, ``serve(handler)`` answers each request. Threads are named
    ``{name}:{port}:connection``; the owner joins them (``block_on_close`` is off)."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 256

    def __init__(
        self,
        address: tuple[str, int],
        *,
        name: str,
        opened: Callable[[socket.socket], int],
        closed: Callable[[socket.socket], None],
        serve: Callable[[Handler], None],
    ) -> None:
        self.name = name
        self.opened = opened
        self.closed = closed
        self.serve = serve
        super().__init__(address, Handler)

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
            name=f"{self.name}:{self.server_port}:connection",
            daemon=True,
        )
        thread.start()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return  # client-side aborts (reset, broken pipe) are normal in fault tests
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    """One connection. An answer is written to ``wfile``; ``close_connection`` ends it."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # TCP_NODELAY on every accepted socket
    sys_version = ""
    server: ThreadedServer
    connection_id: int = 0

    def setup(self) -> None:
        super().setup()
        self.server_version = self.server.name
        self.connection_id = self.server.opened(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.closed(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _dispatch(self) -> None:
        self.server.serve(self)

    do_POST = _dispatch
    do_GET = _dispatch
    do_PUT = _dispatch
    do_PATCH = _dispatch
    do_DELETE = _dispatch


class Hold:
    """How holding a connection ended."""

    STOPPED = "stopped"
    RELEASED = "released"
    ELAPSED = "elapsed"
    DISCONNECTED = "disconnected"


def hold(
    h: Handler,
    *,
    stopping: threading.Event,
    seconds: float | None,
    release: threading.Event | None,
    on_disconnect: Callable[[], None],
) -> str:
    """Wait (``seconds``, or until ``release``/``stopping`` is set) while watching the socket
    for the client going away (then ``on_disconnect()``). A selector, not select(): no
    FD_SETSIZE limit in big test runs."""
    deadline = None if seconds is None else time.monotonic() + seconds
    sock = h.connection
    with selectors.DefaultSelector() as selector:
        try:
            selector.register(sock, selectors.EVENT_READ)
        except (OSError, ValueError):
            return Hold.DISCONNECTED if not stopping.is_set() else Hold.STOPPED
        while True:
            if stopping.is_set():
                return Hold.STOPPED
            if release is not None and release.is_set():
                return Hold.RELEASED
            step = _POLL
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return Hold.ELAPSED
                step = min(step, remaining)
            if not selector.select(step):
                continue
            if stopping.is_set():
                return Hold.STOPPED
            try:
                peek = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except OSError:
                peek = b""
            if not peek:
                on_disconnect()
                return Hold.DISCONNECTED
            time.sleep(step)  # pipelined bytes of a next request: leave them


def read_body(h: Handler) -> bytes:
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


def head_bytes(
    h: Handler,
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


def write_chunk(h: Handler, data: bytes) -> None:
    """One chunk of a ``Transfer-Encoding: chunked`` body."""
    h.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")


def reset_connection(h: Handler) -> None:
    """Abort with a TCP RST: SO_LINGER 0, then really close the fd now."""
    h.close_connection = True
    sock = h.connection
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        h.rfile.close()  # drop the makefile() reference so close() closes the fd
        sock.close()
    except OSError:
        pass
