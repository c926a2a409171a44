"""Records what the SDK server answers `initialize` and the list requests with, for each
protocol version a client may ask for in `initialize`, into `listing.json` (the early answers,
`early.py`). Run it after changing the tool, the instructions, the version or the SDK:

    .venv/bin/python -m complex_edit.server.mcp.listing

tests/e2e/test_mcp.py checks that the file holds what the server answers today.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
from typing import Any, BinaryIO, cast

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from complex_edit.server.edit.roots import Roots
from complex_edit.server.mcp.early import LISTING, LISTS, Opening
from complex_edit.server.mcp.server import build_server, serve_streams
from complex_edit.server.settings import Settings


class _Answers(io.RawIOBase):
    """The server's stdout, and its stdin after the replayed lines: that ends once every
    request has its answer (at the end of stdin the server drops what is still running)."""

    def __init__(self, expected: int) -> None:
        super().__init__()
        self.messages: list[dict[str, Any]] = []
        self._expected = expected
        self._done = threading.Event()
        self._pending = b""

    def write(self, data: Any) -> int:
        self._pending += bytes(data)
        *lines, self._pending = self._pending.split(b"\n")
        self.messages.extend(json.loads(line) for line in lines if line.strip())
        if len(self.messages) >= self._expected:
            self._done.set()
        return len(data)

    def readline(self, size: int | None = -1) -> bytes:
        self._done.wait(timeout=60)
        return b""


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


async def answers_for(version: str) -> dict[str, Any]:
    """The SDK server's results for `initialize` with `version`, then each list request."""
    hello = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "listing", "version": "1"},
    }
    lines = [_line({"id": 0, "method": "initialize", "params": hello})]
    lines.append(_line({"method": "notifications/initialized"}))
    lines.extend(_line({"id": n, "method": method}) for n, method in enumerate(LISTS, 1))
    server = build_server(Roots.from_dirs(["."]), Settings.from_layers({}, {}), {})
    answers = _Answers(expected=len(lines) - 1)
    stream = cast("BinaryIO", answers)
    await serve_streams(server, Opening(replay=lines), stream, stream, signals=False)
    results = {message["id"]: message["result"] for message in answers.messages}
    return {"initialize": results[0]} | {method: results[n] for n, method in enumerate(LISTS, 1)}


async def record() -> dict[str, Any]:
    versions = {version: await answers_for(version) for version in HANDSHAKE_PROTOCOL_VERSIONS}
    return {"latest": LATEST_HANDSHAKE_VERSION, "versions": versions}


def main() -> None:
    listing = asyncio.run(record())
    LISTING.write_text(json.dumps(listing, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {LISTING}")


if __name__ == "__main__":
    main()
