"""A small editor-like LSP client over raw stdio bytes, for faults pytest-lsp cannot send.

pytest-lsp only writes well-formed frames. This client owns the byte stream: a test can write
garbage (invalid JSON, wrong or huge Content-Length, binary noise) between real messages, and
then check that the server still answers. It also behaves enough like an editor for a command
to run end to end: it answers ``workspace/applyEdit`` by applying the edits to its own copy of
the document (positions in the negotiated encoding, LSP line rules), sends the ``didChange``
echo before answering, answers ``workspace/configuration`` with empty sections and accepts
progress creation (optionally after a delay).

Used by ``tests/reliability`` and by ``bench/soak.py``; it imports nothing from ``server``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVER_COMMAND = [sys.executable, "-m", "server", "lsp"]
_LINE_BREAK = re.compile(r"\r\n|\r|\n")

# What VS Code would advertise for the parts the server looks at (utf-16 positions).
EDITOR_CAPABILITIES: dict[str, Any] = {
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {"documentChanges": True},
        "configuration": True,
    },
    "window": {"workDoneProgress": True},
}


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def frame(message: Any) -> bytes:
    body = json.dumps(message, ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


# ------------------------------------------------------------------------------------------
# Positions (LSP line rules, three encodings), independent of the server's code
# ------------------------------------------------------------------------------------------


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    return 1


def _line_starts(text: str) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def position_to_offset(text: str, position: Mapping[str, int], encoding: str) -> int:
    spans = _line_starts(text)
    line = position["line"]
    if not 0 <= line < len(spans):
        raise ValueError(f"line {line} does not exist")
    start, end = spans[line]
    column, offset = 0, start
    while column < position["character"]:
        if offset >= end:
            raise ValueError(f"character {position['character']} is past the line end")
        column += _units(text[offset], encoding)
        offset += 1
    if column != position["character"]:
        raise ValueError("position inside a character")
    return offset


def offset_to_position(text: str, offset: int, encoding: str) -> dict[str, int]:
    for number, (start, end) in enumerate(_line_starts(text)):
        if start <= offset <= end:
            return {
                "line": number,
                "character": sum(_units(c, encoding) for c in text[start:offset]),
            }
    raise ValueError(f"offset {offset} is inside a line break")


# ------------------------------------------------------------------------------------------
# The client
# ------------------------------------------------------------------------------------------


@dataclass
class Doc:
    text: str
    version: int


@dataclass
class RawLspClient:
    proc: asyncio.subprocess.Process
    encoding: str = "utf-16"
    docs: dict[str, Doc] = field(default_factory=dict)
    applies: list[dict[str, Any]] = field(default_factory=list)
    log_messages: list[str] = field(default_factory=list)
    shown_messages: list[str] = field(default_factory=list)
    progress: list[Any] = field(default_factory=list)
    created_progress: list[Any] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    progress_create_delay: float = 0.0
    """Seconds to wait before answering window/workDoneProgress/create."""
    apply_mode: str = "apply"
    """apply | reject"""
    _pending: dict[Any, asyncio.Future[Any]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @classmethod
    async def spawn(
        cls, env: Mapping[str, str], argv: Sequence[str] = tuple(SERVER_COMMAND)
    ) -> RawLspClient:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(env),
            cwd=str(ROOT),
            limit=1 << 26,
        )
        client = cls(proc)
        client._tasks.append(asyncio.create_task(client._read_loop()))
        client._tasks.append(asyncio.create_task(client._stderr_loop()))
        return client

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None

    async def initialize(self, capabilities: Mapping[str, Any] | None = None) -> dict[str, Any]:
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": None,
                "capabilities": dict(capabilities if capabilities is not None else {}),
                "clientInfo": {"name": "reliability"},
            },
            within=60,
        )
        self.encoding = str(result["capabilities"].get("positionEncoding") or "utf-16")
        self.notify("initialized", {})
        return dict(result)

    async def close(self, within: float = 10.0) -> int:
        """shutdown + exit, then terminate/kill if the process lingers. Returns its exit code."""
        proc = self.proc
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                await self.request("shutdown", None, within=within)
                self.notify("exit", None)
                await self.drain()
            try:
                await asyncio.wait_for(proc.wait(), within)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for future in self._pending.values():
            if not future.done():
                future.cancel()
        assert proc.returncode is not None
        return proc.returncode

    # -- wire ---------------------------------------------------------------------------------

    def write_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    async def drain(self) -> None:
        assert self.proc.stdin is not None
        await self.proc.stdin.drain()

    def notify(self, method: str, params: Any) -> None:
        self.write_bytes(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def send_request(self, method: str, params: Any) -> tuple[int, asyncio.Future[Any]]:
        msg_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        self.write_bytes(
            frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        )
        return msg_id, future

    def expect(self, msg_id: Any) -> asyncio.Future[Any]:
        """A future for the answer to a request the test wrote itself (raw bytes)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        return future

    async def answer(self, future: asyncio.Future[Any], within: float = 20.0) -> Any:
        message = await asyncio.wait_for(future, within)
        if "error" in message:
            raise RpcError(int(message["error"]["code"]), str(message["error"]["message"]))
        return message.get("result")

    async def request(self, method: str, params: Any, *, within: float = 20.0) -> Any:
        _, future = self.send_request(method, params)
        await self.drain()
        return await self.answer(future, within)

    async def stats(self) -> dict[str, Any]:
        result = await self.request("complexEdit/_stats", None)
        assert isinstance(result, dict)
        return result

    async def _read_loop(self) -> None:
        reader = self.proc.stdout
        assert reader is not None
        while True:
            length = None
            while True:
                line = await reader.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            message = json.loads(await reader.readexactly(length))
            await self._dispatch(message)

    async def _stderr_loop(self) -> None:
        reader = self.proc.stderr
        assert reader is not None
        while line := await reader.readline():
            self.stderr.append(line.decode("utf-8", "replace"))

    async def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            future = self._pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)
            return
        params = message.get("params")
        if "id" not in message:
            if method == "window/logMessage":
                self.log_messages.append(str(params["message"]))
            elif method == "window/showMessage":
                self.shown_messages.append(str(params["message"]))
            elif method == "$/progress":
                self.progress.append(params)
            return
        result: Any = None
        if method == "workspace/applyEdit":
            result = self._apply(params)
        elif method == "workspace/configuration":
            result = [{} for _ in params["items"]]
        elif method == "window/workDoneProgress/create":
            self.created_progress.append(params["token"])
            if self.progress_create_delay:
                asyncio.get_running_loop().call_later(
                    self.progress_create_delay, self._reply, message["id"], None
                )
                return
        self._reply(message["id"], result)

    def _reply(self, msg_id: Any, result: Any) -> None:
        if self.alive:
            self.write_bytes(frame({"jsonrpc": "2.0", "id": msg_id, "result": result}))

    # -- documents ----------------------------------------------------------------------------

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.docs[uri] = Doc(text, version)
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "python",
                    "version": version,
                    "text": text,
                }
            },
        )

    def close_doc(self, uri: str) -> None:
        self.docs.pop(uri, None)
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def type_text(self, uri: str, start: int, end: int, new_text: str, version: int) -> None:
        """Replace text[start:end] and send it with the given (possibly odd) version."""
        doc = self.docs[uri]
        change = {
            "range": {
                "start": offset_to_position(doc.text, start, self.encoding),
                "end": offset_to_position(doc.text, end, self.encoding),
            },
            "text": new_text,
        }
        doc.text = doc.text[:start] + new_text + doc.text[end:]
        doc.version = version
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )

    def _apply(self, params: dict[str, Any]) -> dict[str, Any]:
        self.applies.append(params)
        edit = params["edit"]
        if self.apply_mode == "reject":
            return {"applied": False, "failureReason": "rejected by the test client"}
        groups: list[tuple[str, int | None, list[dict[str, Any]]]] = []
        for change in edit.get("documentChanges") or []:
            document = change["textDocument"]
            groups.append((document["uri"], document.get("version"), change["edits"]))
        for uri, edits in (edit.get("changes") or {}).items():
            groups.append((uri, None, edits))
        for uri, version, edits in groups:
            doc = self.docs.get(uri)
            if doc is None:
                return {"applied": False, "failureReason": f"{uri} is not open"}
            if version is not None and version != doc.version:
                return {"applied": False, "failureReason": "version mismatch"}
            spans = sorted(
                (
                    position_to_offset(doc.text, e["range"]["start"], self.encoding),
                    position_to_offset(doc.text, e["range"]["end"], self.encoding),
                    e["newText"],
                )
                for e in edits
            )
            text = doc.text
            changes = []
            for start, end, new_text in reversed(spans):
                changes.append(
                    {
                        "range": {
                            "start": offset_to_position(text, start, self.encoding),
                            "end": offset_to_position(text, end, self.encoding),
                        },
                        "text": new_text,
                    }
                )
                text = text[:start] + new_text + text[end:]
            doc.text = text
            doc.version += 1
            self.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": doc.version},
                    "contentChanges": changes,
                },
            )
        return {"applied": True}


def server_env(base_url: str, key: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent environment without ambient model settings, pointed at an emulator."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("COMPLEX_EDIT_", "GEMINI_", "GOOGLE_", "OPENAI_", "ANTHROPIC_"))
    }
    env.update(
        {
            "GEMINI_API_KEY": key,
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "COMPLEX_EDIT_REQUEST_TIMEOUT_SECONDS": "15",
            "COMPLEX_EDIT_MAX_RETRIES": "0",
            "COMPLEX_EDIT_APPLY_TIMEOUT_SECONDS": "10",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra or {})
    return env
