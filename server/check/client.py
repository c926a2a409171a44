"""A small stdio LSP client for one checker process: JSON-RPC framing (`Content-Length`),
`initialize` announcing `publishDiagnostics.versionSupport` (and pull diagnostics), documents
fed with `didOpen`/`didChange` (full text) and closed with `didClose`, the diagnostics of one
version of a document, `shutdown`/`exit`, and a crash noticed as the pipe's end.

"The diagnostics of version N" is pull (`textDocument/diagnostic`, exact) where the checker
offers it, else the last `publishDiagnostics` for N once the checker has been quiet for
`QUIET_SECONDS` (a server may publish an empty list first and the real one later). A publish
without a version counts for the latest version sent once the checker has been quiet for
`UNVERSIONED_QUIET_SECONDS`.

Requests from the checker are answered: `workspace/configuration` with nulls (its defaults),
anything else with null.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("complex_edit.check")
QUIET_SECONDS = 0.05
# A publish without a version may be of an earlier text: typescript-language-server publishes
# an empty list at once and the real one ~0.4 s later, neither with a version.
UNVERSIONED_QUIET_SECONDS = 0.6
STOP_SECONDS = 2.0
EXIT_CODE_SECONDS = 0.5


class CheckerGone(RuntimeError):
    """The checker's process exited (or its pipes broke)."""


@dataclass
class _Published:
    version: int | None
    items: list[dict[str, Any]]
    event: asyncio.Event


class CheckerProcess:
    """One started checker (`start`), its open documents by URI, and its published
    diagnostics."""

    def __init__(self, argv: Sequence[str], root: str, options: Any = None) -> None:
        self.argv = list(argv)
        self.root = root
        self.options = options
        self.version: str | None = None
        self.pull = False
        self._process: asyncio.subprocess.Process | None = None
        self._ids = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._published: dict[str, _Published] = {}
        self._sent: dict[str, int] = {}  # open documents: the last version sent
        self._versions: dict[str, int] = {}
        self._reader: asyncio.Task[None] | None = None
        self._gone = asyncio.Event()

    @property
    def alive(self) -> bool:
        return self._process is not None and not self._gone.is_set()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    async def start(self) -> None:
        """Start the process and initialize it; raises OSError when it cannot start and
        CheckerGone when it exits first."""
        self._process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=self.root,
            start_new_session=True,
        )
        self._reader = asyncio.create_task(self._read(self._process.stdout))
        uri = file_uri(self.root)
        answer = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "complex-edit"},
                "rootUri": uri,
                "rootPath": self.root,
                "workspaceFolders": [{"uri": uri, "name": os.path.basename(self.root) or uri}],
                "initializationOptions": self.options,
                "capabilities": {
                    "textDocument": {
                        "synchronization": {"didSave": False},
                        "publishDiagnostics": {"versionSupport": True},
                        "diagnostic": {"dynamicRegistration": False},
                    },
                    "workspace": {"configuration": True, "workspaceFolders": True},
                    "general": {"positionEncodings": ["utf-16"]},
                },
            },
        )
        capabilities = answer.get("capabilities", {}) if isinstance(answer, Mapping) else {}
        self.pull = bool(capabilities.get("diagnosticProvider"))
        info = answer.get("serverInfo") if isinstance(answer, Mapping) else None
        if isinstance(info, Mapping) and isinstance(info.get("version"), str):
            self.version = info["version"]
        await self.notify("initialized", {})

    async def show(self, uri: str, language: str, text: str) -> int:
        """Give the checker `text` as the document `uri` (open, or a new version of it);
        returns the version sent."""
        version = self._versions.get(uri, 0) + 1  # never reused, even after a close
        self._versions[uri] = version
        opening = uri not in self._sent
        self._sent[uri] = version
        if opening:
            document = {"uri": uri, "languageId": language, "version": version, "text": text}
            await self.notify("textDocument/didOpen", {"textDocument": document})
        else:
            await self.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
        return version

    async def close_document(self, uri: str) -> None:
        if self._sent.pop(uri, None) is not None and self.alive:
            self._published.pop(uri, None)
            await self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    async def diagnostics(self, uri: str, version: int) -> list[dict[str, Any]]:
        """The diagnostics of `version` of `uri` (the caller bounds the wait)."""
        if self.pull:
            answer = await self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
            items = answer.get("items", []) if isinstance(answer, Mapping) else []
            return [item for item in items if isinstance(item, dict)]
        while True:
            published = self._published.get(uri)
            if published is not None and published.version in (version, None):
                published.event.clear()
                quiet = (
                    QUIET_SECONDS if published.version is not None else UNVERSIONED_QUIET_SECONDS
                )
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(quiet):
                        await self._either(published.event.wait())
                        continue  # published again: wait for quiet once more
                if self._sent.get(uri) == version and self._published.get(uri) is published:
                    return published.items
            await self._either(self._next_publish(uri))

    async def request(self, method: str, params: Any) -> Any:
        self._ids += 1
        key = self._ids
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": key, "method": method, "params": params})
            return await self._either(future)
        finally:
            self._pending.pop(key, None)

    async def notify(self, method: str, params: Any) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def stop(self) -> None:
        """`shutdown` and `exit`, then wait for it; killed when it does not end in time."""
        process = self._process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(CheckerGone, TimeoutError, OSError):
            async with asyncio.timeout(STOP_SECONDS / 2):
                await self.request("shutdown", None)
                await self.notify("exit", None)
        if process.stdin is not None:
            process.stdin.close()
        try:
            async with asyncio.timeout(STOP_SECONDS / 2):
                await process.wait()
        except TimeoutError:
            self.kill()
            await process.wait()
        if self._reader is not None:
            self._reader.cancel()

    def kill(self) -> None:
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()

    async def _either(self, waited: Any) -> Any:
        """`waited`, or CheckerGone as soon as the process is gone."""
        task = asyncio.ensure_future(waited)
        gone = asyncio.ensure_future(self._gone.wait())
        try:
            await asyncio.wait((task, gone), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # cancelled (a timeout): nothing left waiting
            task.cancel()
            raise
        finally:
            gone.cancel()
        if not task.done():
            task.cancel()
            raise CheckerGone(self._exit_text())
        return task.result()

    async def _next_publish(self, uri: str) -> None:
        published = self._published.get(uri)
        if published is None:
            published = self._published[uri] = _Published(-1, [], asyncio.Event())
        published.event.clear()
        await published.event.wait()

    def _exit_text(self) -> str:
        code = None if self._process is None else self._process.returncode
        return "it exited" if code is None else f"it exited with code {code}"

    async def _send(self, message: Mapping[str, Any]) -> None:
        stdin = self._write(message)
        try:
            await stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise CheckerGone(self._exit_text()) from exc

    def _write(self, message: Mapping[str, Any]) -> asyncio.StreamWriter:
        """Queue one framed message (whole: nothing comes in between)."""
        process = self._process
        if process is None or process.stdin is None or self._gone.is_set():
            raise CheckerGone(self._exit_text())
        body = json.dumps(message, ensure_ascii=False).encode("utf-8")
        try:
            process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        except (ConnectionError, RuntimeError) as exc:
            raise CheckerGone(self._exit_text()) from exc
        return process.stdin

    async def _read(self, stdout: asyncio.StreamReader | None) -> None:
        try:
            while stdout is not None and (message := await read_message(stdout)) is not None:
                self._dispatch(message)
        except (ValueError, asyncio.IncompleteReadError, ConnectionError) as exc:
            log.warning("%s: unreadable output: %s", self.argv[0], exc)
        finally:
            if self._process is not None:  # its exit code, for the answer, when it has one
                with contextlib.suppress(ProcessLookupError, TimeoutError):
                    async with asyncio.timeout(EXIT_CODE_SECONDS):
                        await self._process.wait()
            self._gone.set()
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(CheckerGone(self._exit_text()))

    def _dispatch(self, message: Mapping[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            future = self._pending.get(message.get("id", -1))
            if future is not None and not future.done():
                error = message.get("error")
                if error is not None:
                    future.set_exception(RuntimeError(str(error.get("message", error))))
                else:
                    future.set_result(message.get("result"))
            return
        if "id" in message:
            self._answer(message)
        if method == "textDocument/publishDiagnostics":
            self._publish(message.get("params") or {})

    def _publish(self, params: Mapping[str, Any]) -> None:
        uri = params.get("uri")
        if not isinstance(uri, str):
            return
        published = self._published.get(uri)
        if published is None:
            published = self._published[uri] = _Published(None, [], asyncio.Event())
        version = params.get("version")
        published.version = version if isinstance(version, int) else None
        items = params.get("diagnostics") or []
        published.items = [item for item in items if isinstance(item, dict)]
        published.event.set()

    def _answer(self, message: Mapping[str, Any]) -> None:
        result: Any = None
        if message.get("method") == "workspace/configuration":
            items = (message.get("params") or {}).get("items") or []
            result = [None] * len(items)
        with contextlib.suppress(CheckerGone):
            self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})


async def read_message(stream: asyncio.StreamReader) -> dict[str, Any] | None:
    """One framed JSON-RPC message, None at the end of the stream."""
    length = None
    while True:
        line = await stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            if length is not None:
                break
            continue
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    message = json.loads(await stream.readexactly(length))
    return message if isinstance(message, dict) else {}


def file_uri(path: str) -> str:
    return Path(path).resolve().as_uri()
