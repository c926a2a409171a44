"""A small editor-like LSP client over raw stdio bytes: the reliability suite's client for faults
pytest-lsp cannot send, and the editor the benchmarks (``bench/``) drive the server with.

pytest-lsp only writes well-formed frames. This client owns the byte stream: a test can write
garbage (invalid JSON, wrong or huge Content-Length, binary noise) between real messages, and
then check that the server still answers. It also behaves enough like an editor for a command
to run end to end: it answers ``workspace/applyEdit`` by applying the edits to its own copy of the
document (strict positions in the negotiated encoding, LSP line rules, version check), sends the
``didChange`` echo before answering (as VS Code and Neovim do), answers
``workspace/configuration`` with empty sections and accepts progress creation (optionally after
a delay). Server requests are handled on the reader task, in arrival order.

It imports nothing from ``server``: its positions (``lsp_positions``) are the reference the
server is checked against.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self
from urllib.parse import unquote, urlparse

from tests.fakes.lsp_positions import line_starts, offset_to_position, position_to_offset

__all__ = [
    "EDITOR_CAPABILITIES",
    "ROOT",
    "SERVER_COMMAND",
    "Doc",
    "RawLspClient",
    "RpcError",
    "ambient_free_env",
    "edit_groups",
    "frame",
    "server_env",
]

ROOT = Path(__file__).resolve().parents[2]
SERVER_COMMAND = [sys.executable, "-m", "complex_edit", "lsp"]

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
# The client
# ------------------------------------------------------------------------------------------


@dataclass
class Doc:
    """The client's copy of an open document (tests may assign ``text`` and ``version``)."""

    text: str
    version: int
    _index: tuple[str, list[int]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def starts(self) -> list[int]:
        """``line_starts(text)``, computed once per text."""
        if self._index is None or self._index[0] is not self.text:
            self._index = (self.text, line_starts(self.text))
        return self._index[1]


@dataclass
class RawLspClient:
    client_name: ClassVar[str] = "reliability"
    default_capabilities: ClassVar[Mapping[str, Any]] = {}

    proc: asyncio.subprocess.Process
    encoding: str = "utf-16"
    docs: dict[str, Doc] = field(default_factory=dict)
    applies: list[dict[str, Any]] = field(default_factory=list)
    """The params of every ``workspace/applyEdit`` received."""
    log_messages: list[str] = field(default_factory=list)
    shown_messages: list[str] = field(default_factory=list)
    progress: list[Any] = field(default_factory=list)
    previews: list[dict[str, Any]] = field(default_factory=list)
    """The params of every ``complexEdit/preview`` received."""
    created_progress: list[Any] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    answered_at: dict[Any, float] = field(default_factory=dict)
    """``time.perf_counter()`` when each response arrived, by request id."""
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
    ) -> Self:
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

    async def initialize(
        self,
        capabilities: Mapping[str, Any] | None = None,
        init_options: Any = None,
        *,
        within: float = 60.0,
        folders: Sequence[Path] = (),
    ) -> dict[str, Any]:
        """``initialize`` (``default_capabilities`` unless given; ``folders``: the workspace
        folders announced), then ``initialized``."""
        params: dict[str, Any] = {
            "processId": os.getpid(),
            "rootUri": None,
            "workspaceFolders": [
                {"uri": folder.as_uri(), "name": folder.name} for folder in folders
            ]
            or None,
            "capabilities": dict(
                capabilities if capabilities is not None else self.default_capabilities
            ),
            "clientInfo": {"name": self.client_name},
        }
        if init_options is not None:
            params["initializationOptions"] = init_options
        result = await self.request("initialize", params, within=within)
        encoding = (result.get("capabilities") or {}).get("positionEncoding")
        self.encoding = str(encoding or "utf-16")
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
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 3)
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

    def send_request(
        self, method: str, params: Any, msg_id: Any = None
    ) -> tuple[Any, asyncio.Future[Any]]:
        """Send a request (``msg_id``: the next number unless given); returns its id and a
        future of the whole response message."""
        if msg_id is None:
            msg_id = next(self._ids)
        future = self.expect(msg_id)
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
        """The result of a response; RpcError for an error response."""
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
            self._dispatch(message)

    async def _stderr_loop(self) -> None:
        reader = self.proc.stderr
        assert reader is not None
        while line := await reader.readline():
            self.stderr.append(line.decode("utf-8", "replace"))

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            msg_id = message.get("id")
            self.answered_at[msg_id] = time.perf_counter()
            future = self._pending.pop(msg_id, None)
            if future is not None and not future.done():
                future.set_result(message)
            return
        params: Any = message.get("params")
        if "id" not in message:
            if method == "window/logMessage":
                self.log_messages.append(str(params["message"]))
            elif method == "window/showMessage":
                self.shown_messages.append(str(params["message"]))
            elif method == "$/progress":
                self.progress.append(params)
            elif method == "complexEdit/preview":
                self.previews.append(params)
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

    def open_message(self, uri: str, text: str, version: int = 1) -> bytes:
        """Record the document and return its encoded didOpen (send with ``write_bytes``):
        encoding first keeps the client's own JSON work out of a timing."""
        self.docs[uri] = Doc(text, version)
        self.docs[uri].starts()
        return frame(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "python",
                        "version": version,
                        "text": text,
                    }
                },
            }
        )

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.write_bytes(self.open_message(uri, text, version))

    def close_doc(self, uri: str) -> None:
        self.docs.pop(uri, None)
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def type_text(self, uri: str, start: int, end: int, new_text: str, version: int) -> None:
        """Replace text[start:end] and send it with the given (possibly odd) version."""
        doc = self.docs[uri]
        starts = doc.starts()
        change = {
            "range": {
                "start": offset_to_position(doc.text, start, self.encoding, starts),
                "end": offset_to_position(doc.text, end, self.encoding, starts),
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
        if self.apply_mode == "reject":
            return {"applied": False, "failureReason": "rejected by the test client"}
        groups = edit_groups(params["edit"])
        for uri, version, _ in groups:
            doc = self.docs.get(uri)
            if doc is None and not (version is None and uri.startswith("file:")):
                return {"applied": False, "failureReason": f"{uri} is not open"}
            if doc is not None and version is not None and version != doc.version:
                return {"applied": False, "failureReason": "version mismatch"}
        for uri, _, edits in groups:
            doc = self.docs.get(uri)
            if doc is None:  # a file not open: opened and edited, left unsaved, as VS Code does
                text = _path_of(uri).read_bytes().decode("utf-8")
                self.write_bytes(self.open_message(uri, text, 1))
                self._apply_edits(uri, self.docs[uri], edits)
            else:
                self._apply_edits(uri, doc, edits)
        return {"applied": True}

    def _apply_edits(self, uri: str, doc: Doc, edits: list[dict[str, Any]]) -> None:
        """Apply one document's edits (strict positions), then echo them as one didChange."""
        text, starts = doc.text, doc.starts()
        resolved = sorted(
            (
                position_to_offset(text, edit["range"]["start"], self.encoding, starts),
                position_to_offset(text, edit["range"]["end"], self.encoding, starts),
                order,
                edit,
            )
            for order, edit in enumerate(edits)
        )
        pieces: list[str] = []
        position = 0
        for start, end, _, edit in resolved:
            pieces += [text[position:start], edit["newText"]]
            position = end
        pieces.append(text[position:])
        doc.text = "".join(pieces)
        doc.version += 1
        # Ranges against the text before the edit, sent last-first: each one stays valid.
        changes = [
            {"range": edit["range"], "text": edit["newText"]}
            for _, _, _, edit in reversed(resolved)
        ]
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": doc.version}, "contentChanges": changes},
        )


def _path_of(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def edit_groups(edit: Mapping[str, Any]) -> list[tuple[str, int | None, list[dict[str, Any]]]]:
    """(uri, version or None, edits) for each document a WorkspaceEdit changes."""
    groups: list[tuple[str, int | None, list[dict[str, Any]]]] = []
    for change in edit.get("documentChanges") or []:
        document = change["textDocument"]
        groups.append((document["uri"], document.get("version"), change["edits"]))
    for uri, edits in (edit.get("changes") or {}).items():
        groups.append((uri, None, edits))
    return groups


# ------------------------------------------------------------------------------------------
# The server's environment
# ------------------------------------------------------------------------------------------


def ambient_free_env() -> dict[str, str]:
    """The parent environment without ambient model settings, with 127.0.0.1 off any proxy,
    and checkers off (the tests of Checks turn them on)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("COMPLEX_EDIT_", "GEMINI_", "GOOGLE_", "OPENAI_", "ANTHROPIC_"))
    }
    env.update(
        {
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
            "COMPLEX_EDIT_CHECKERS": "off",
        }
    )
    return env


def server_env(base_url: str, key: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent environment without ambient model settings, pointed at an emulator."""
    env = ambient_free_env()
    env.update(
        {
            "GEMINI_API_KEY": key,
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "COMPLEX_EDIT_REQUEST_TIMEOUT_SECONDS": "15",
            "COMPLEX_EDIT_MAX_RETRIES": "0",
            "COMPLEX_EDIT_APPLY_TIMEOUT_SECONDS": "10",
        }
    )
    env.update(extra or {})
    return env
