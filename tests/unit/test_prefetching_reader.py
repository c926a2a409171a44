"""`PrefetchingReader` (server/lsp/framing.py): one thread reads whole messages ahead, and pygls'
message loop gets the same header lines and bodies, in order, as from pygls' own reader."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from typing import Any

from pygls.io_ import run_async

from complex_edit.server.lsp.framing import FramedInput, PrefetchingReader


def _frame(message: dict[str, Any], extra_header: bytes = b"") -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n%s\r\n" % (len(body), extra_header) + body


class _Protocol:
    def __init__(self) -> None:
        self.handled: list[Any] = []

    def structure_message(self, data: dict[str, Any]) -> dict[str, Any]:
        return data

    def handle_message(self, message: Any) -> None:
        self.handled.append(message)


def _reader(data: bytes) -> PrefetchingReader:
    return PrefetchingReader(FramedInput(io.BufferedReader(io.BytesIO(data))))  # type: ignore[arg-type]


async def test_pygls_loop_reads_every_message_in_order() -> None:
    messages = [{"jsonrpc": "2.0", "method": f"m{n}", "params": {"n": n}} for n in range(200)]
    data = b"".join(
        _frame(m, b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" if n % 3 else b"")
        for n, m in enumerate(messages)
    )
    reader = _reader(data)
    reader.start(asyncio.get_running_loop())
    protocol = _Protocol()
    await asyncio.wait_for(
        run_async(threading.Event(), reader, protocol),  # type: ignore[arg-type]
        timeout=10,
    )
    assert protocol.handled == messages


async def test_garbage_between_frames_is_skipped_and_the_stream_ends_cleanly() -> None:
    first = {"jsonrpc": "2.0", "method": "first"}
    last = {"jsonrpc": "2.0", "method": "last"}
    reader = _reader(_frame(first) + b"\x00\xffnoise without a line break" + _frame(last))
    reader.start(asyncio.get_running_loop())
    protocol = _Protocol()
    await asyncio.wait_for(
        run_async(threading.Event(), reader, protocol),  # type: ignore[arg-type]
        timeout=10,
    )
    assert protocol.handled == [first, last]
    assert await reader.readline() == b""


async def test_a_body_cut_short_by_the_end_of_the_stream_stops_the_loop() -> None:
    reader = _reader(b'Content-Length: 50\r\n\r\n{"jsonrpc"')
    reader.start(asyncio.get_running_loop())
    protocol = _Protocol()
    await asyncio.wait_for(
        run_async(threading.Event(), reader, protocol),  # type: ignore[arg-type]
        timeout=10,
    )
    assert protocol.handled == []
