"""The SDK server's stdin and stdout after the early answers (`early.py`): the lines read
early, then the rest of stdin; and stdout without the SDK's own answer to the `initialize`
that was answered early."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import BinaryIO

import anyio.to_thread

from complex_edit.server.mcp.early import Opening


class ReplayedStdin:
    """Iterated by the SDK's stdio transport, as its text stdin would be."""

    def __init__(self, opening: Opening, stdin: BinaryIO) -> None:
        self._replay = list(opening.replay)
        self._stdin = stdin

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        for line in self._replay:
            yield line.decode("utf-8", errors="replace")
        while line := await anyio.to_thread.run_sync(self._stdin.readline):
            yield line.decode("utf-8", errors="replace")


class FilteredStdout:
    """Written by the SDK's stdio transport, as its text stdout would be."""

    def __init__(self, opening: Opening, stdout: BinaryIO) -> None:
        self._drop = opening.initialize_id
        self._stdout = stdout

    async def write(self, text: str) -> None:
        if self._drop is not None and _answers(text, self._drop):
            self._drop = None
            return
        await anyio.to_thread.run_sync(self._stdout.write, text.encode("utf-8"))

    async def flush(self) -> None:
        await anyio.to_thread.run_sync(self._stdout.flush)


def _answers(text: str, request_id: str | int) -> bool:
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("id") == request_id and "method" not in message
