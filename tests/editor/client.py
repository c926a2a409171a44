"""The test editor's parts: positions in the negotiated encoding (read through the suite's
reference, ``tests/fakes/lsp_positions.py``), the records of ``workspace/applyEdit``, and the
pytest-lsp client that keeps the server's stderr."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.fakes import lsp_positions

COMMAND = "performComplexEdit"
# Generous bounds for waiting on the server; tests wait on conditions, never fixed sleeps.
RESPONSE_TIMEOUT = 20.0

ClientKind = Literal[
    "vscode", "neovim", "utf-32", "bare", "no-config", "vscode-preview", "no-document-changes"
]


class ProtocolViolation(AssertionError):
    """The server sent something a strict editor refuses (bad position, overlapping edits)."""


def position_to_offset(text: str, position: types.Position, encoding: str) -> int:
    """Strict: the position must name a character boundary inside an existing line."""
    try:
        return lsp_positions.position_to_offset(text, position, encoding)
    except ValueError as exc:
        raise ProtocolViolation(
            f"position {position.line}:{position.character} ({encoding}): {exc}"
        ) from None


def offset_to_position(text: str, offset: int, encoding: str) -> types.Position:
    return types.Position(**lsp_positions.offset_to_position(text, offset, encoding))


def to_range(text: str, start: int, end: int, encoding: str) -> types.Range:
    return types.Range(
        start=offset_to_position(text, start, encoding),
        end=offset_to_position(text, end, encoding),
    )


@dataclass
class Document:
    uri: str
    text: str
    version: int


@dataclass
class AppliedEdit:
    """One TextEdit as the test editor applied it (offsets into the text before the edit)."""

    start: int
    end: int
    new_text: str


@dataclass
class ApplyRecord:
    params: types.ApplyWorkspaceEditParams
    received_at: float
    answer: str = "pending"  # applied | skipped | rejected | error | hang | violation
    edits: dict[str, list[AppliedEdit]] = field(default_factory=dict)
    before: dict[str, str] = field(default_factory=dict)


@dataclass
class ApplyBehaviour:
    """How the test editor answers ``workspace/applyEdit``.

    mode: ``apply`` (normal), ``reject`` (``applied: false`` + ``failure_reason``), ``error``
    (a JSON-RPC error), ``hang`` (never answers), ``drop`` (answers ``applied: true`` but
    changes nothing, as Neovim does for an edit it skipped), ``garble`` (applies the edit with
    an extra character, echoes that, and answers ``applied: true``).
    versions: ``strict`` refuses a versioned edit whose version is not the document's;
    ``lax`` behaves like Neovim 0.11: no check for version 0, and a stale edit is silently
    skipped while still answering ``applied: true``.
    delay: seconds to wait before answering (after applying). echo: send ``didChange``.
    """

    mode: Literal["apply", "reject", "error", "hang", "drop", "garble"] = "apply"
    versions: Literal["strict", "lax"] = "strict"
    failure_reason: str | None = "The user declined the edit."
    delay: float = 0.0
    echo: bool = True
    before_apply: Callable[[], None] | None = None
    """Runs when the request arrives, before anything else (e.g. the user types)."""
    unopened: Literal["open", "silent", "open-edited", "refuse"] = "open"
    """A `version: null` edit of a file the editor has not open: ``open`` loads it from disk,
    reports ``didOpen`` of that text, then the edit as ``didChange`` (VS Code; Neovim with
    ``vim.lsp.enable``); ``silent`` loads and edits it without a word to the server (Neovim
    with a client attached to one buffer: ``vim.lsp.start``); ``open-edited`` reports
    ``didOpen`` of the text already edited; ``refuse`` rejects the edit."""


class EditorClient(LanguageClient):
    """pytest-lsp's client, keeping the server's stderr instead of only forwarding it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stderr_lines: list[str] = []

    async def start_io(self, cmd: str, *args: Any, **kwargs: Any) -> None:
        await super().start_io(cmd, *args, **kwargs)
        if self._stderr_forwarder is not None:
            self._stderr_forwarder.cancel()
        if self._server is not None and self._server.stderr is not None:
            self._stderr_forwarder = asyncio.create_task(self._keep_stderr(self._server))

    async def _keep_stderr(self, server: asyncio.subprocess.Process) -> None:
        assert server.stderr is not None
        while (line := await server.stderr.readline()) != b"":
            decoded = line.decode("utf-8", "replace")
            self.stderr_lines.append(decoded)
            sys.stderr.write(decoded)


def retrieve_exception(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class CommandError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


async def wait_until(
    predicate: Callable[[], bool], within: float = 5.0, what: str = "condition"
) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:g} s waiting for {what}")
        await asyncio.sleep(0.01)


class Refused(Exception):
    """A legitimate refusal by the editor (stale version, unknown document)."""
