"""Just enough of the Gemini REST API for `--replay`: `POST /{version}/models/{m}:generateContent`
and `:streamGenerateContent` (the whole answer as one server-sent event).

A standard-library HTTP/1.1 server on 127.0.0.1 (an ephemeral port) answering from a function
of the request body; the real google-genai SDK talks to it through the `baseUrl` setting. It
keeps connections alive like the real service and closes them all on `stop()`.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Responder = Callable[[Any], tuple[int, dict[str, Any]]]

_PATH = re.compile(
    r"^/v1[a-z0-9]*/models/[^/:]+:(?P<action>generateContent|streamGenerateContent)$"
)
MAX_BODY_BYTES = 64 * 1024 * 1024
POLL_SECONDS = 0.05  # how long `stop()` may wait for the serving thread to notice


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, responder: Responder) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.responder = responder
        self.connections: set[socket.socket] = set()
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.lock:
            self.server.connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self._send(413, {"error": {"code": 413, "message": "request too large"}})
            self.close_connection = True
            return
        raw = self.rfile.read(length)
        match = _PATH.match(path)
        if match is None:
            self._send(404, _error(404, f"replay: only generateContent is served, not {path}"))
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send(400, _error(400, "replay: the request body is not JSON"))
            return
        try:
            status, answer = self.server.responder(body)
        except Exception as exc:  # a bug in the replay must show, not hang the client
            status, answer = 500, _error(500, f"replay: {type(exc).__name__}: {exc}")
        self._send(status, answer, streamed=match["action"] == "streamGenerateContent")

    def do_GET(self) -> None:
        self._send(404, _error(404, "replay: only generateContent is served"))

    def _send(self, status: int, body: dict[str, Any], *, streamed: bool = False) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        kind = "application/json; charset=UTF-8"
        if streamed and status == 200:
            data, kind = b"data: " + data + b"\r\n\r\n", "text/event-stream"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        return None


def _error(code: int, message: str) -> dict[str, Any]:
    status = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND"}.get(code, "INTERNAL")
    return {"error": {"code": code, "message": message, "status": status}}


class ReplayServer:
    """`with ReplayServer(model.reply) as server:` … `server.base_url` …"""

    def __init__(self, responder: Responder) -> None:
        self._server = _Server(responder)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": POLL_SECONDS},
            name="complex-edit-replay",
            daemon=True,
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ReplayServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        with self._server.lock:
            connections = list(self._server.connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._server.server_close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
