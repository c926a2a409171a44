"""Shared benchmark machinery: the timed Gemini emulator, a small editor-like LSP client over
stdio, document and script generators, process statistics, and table printing.

Everything runs on 127.0.0.1 and in child processes that are shut down (then killed if need
be) when a benchmark ends. Nothing here is imported by the project or its tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import platform
import re
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakes import gemini_emulator as _emu  # noqa: E402
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply  # noqa: E402

PYTHON = sys.executable
OUR_COMMAND = [PYTHON, "-m", "server", "lsp"]
FLOOR_COMMAND = [PYTHON, str(ROOT / "bench" / "floor_server.py")]
BENCH_KEY = "bench-key-not-a-secret-0123456789"
COMMAND = "performComplexEdit"


# ------------------------------------------------------------------------------------------
# Machine and statistics
# ------------------------------------------------------------------------------------------


def machine_summary() -> str:
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return (
        f"nproc={os.cpu_count()}  load(1/5/15 min)={load}  "
        f"python={platform.python_version()}  {platform.system()} {platform.release()}"
    )


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.4999)))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


class Table:
    """A Markdown table printed to stdout (readable in a terminal, pasteable into docs)."""

    def __init__(self, title: str, headers: Sequence[str]) -> None:
        self.title = title
        self.headers = list(headers)
        self.rows: list[list[str]] = []

    def add(self, *cells: object) -> None:
        self.rows.append([str(cell) for cell in cells])

    def render(self) -> str:
        widths = [len(h) for h in self.headers]
        for row in self.rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

        def line(cells: Sequence[str]) -> str:
            return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

        out = [f"### {self.title}", "", line(self.headers)]
        out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        out.extend(line(row) for row in self.rows)
        return "\n".join(out)

    def print(self) -> None:
        print(self.render(), flush=True)
        print(flush=True)


# ------------------------------------------------------------------------------------------
# Process statistics (Linux /proc)
# ------------------------------------------------------------------------------------------


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (complex-edit runs its sessions in a child process)."""
    found = [pid]
    for parent in found:
        for task in Path(f"/proc/{parent}/task").glob("*/children"):
            with contextlib.suppress(OSError, ValueError):
                found += [int(child) for child in task.read_text().split()]
    return found


def process_cpu_seconds(pid: int) -> float:
    """CPU time of every thread of ``pid`` and its descendants so far (ns resolution, from
    schedstat)."""
    total = 0
    for member in process_tree(pid):
        for task in Path(f"/proc/{member}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) in KiB, summed over ``pid`` and its descendants (the sum of
    the peaks: an upper bound of the peak of the sum)."""
    out: dict[str, int] = {"VmRSS": 0, "VmHWM": 0}
    for member in process_tree(pid):
        with contextlib.suppress(OSError):
            for row in Path(f"/proc/{member}/status").read_text().splitlines():
                key, _, value = row.partition(":")
                if key in out:
                    out[key] += int(value.split()[0])
    return out


def reset_peak_rss(pid: int) -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0) of ``pid`` and its descendants; False
    when not permitted."""
    try:
        for member in process_tree(pid):
            Path(f"/proc/{member}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


# ------------------------------------------------------------------------------------------
# Documents and scripted tool calls
# ------------------------------------------------------------------------------------------


def make_document(size: int, *, seed: int = 0) -> str:
    """Python-like ASCII source of exactly ``size`` bytes; every line is unique."""
    pieces: list[str] = []
    total = 0
    for i in itertools.count():
        line = (
            f"    total_{seed}_{i:07d} = accumulate(values[{i % 97}], factor={i % 13})"
            f"  # step {i}\n"
        )
        if i % 20 == 0:
            line = f"\ndef block_{seed}_{i:07d}(values, factor):\n" + line
        if total + len(line) > size:
            break
        pieces.append(line)
        total += len(line)
    text = "".join(pieces)
    return text + "#" * (size - len(text) - 1) + "\n" if size - len(text) > 1 else text


def scattered_edits(text: str, count: int, *, seed: int = 0) -> list[tuple[str, str]]:
    """``count`` (old_text, new_text) pairs for replace_text, spread evenly over ``text``;
    each old_text is unique and changes a few characters inside one line."""
    names = re.findall(rf"total_{seed}_\d{{7}} = accumulate\(", text)
    if len(names) < count:
        raise ValueError("document too small for that many edits")
    step = len(names) / count
    chosen = [names[int(step * k + step / 2)] for k in range(count)]
    return [(old, old.replace("accumulate(", "accumulate_fast(")) for old in chosen]


def apply_pairs(text: str, pairs: Iterable[tuple[str, str]]) -> str:
    for old, new in pairs:
        text = text.replace(old, new, 1)
    return text


def replace_call(old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("replace_text", {"old_text": old, "new_text": new})


def done_call(message: str = "Done.") -> tuple[str, dict[str, Any]]:
    return ("complete_task", {"success": True, "message": message})


def turn(*calls: tuple[str, dict[str, Any]], usage: tuple[int, int] = (1000, 50)) -> Reply:
    return Reply.function_calls(list(calls), usage=usage, thought_signature=b"bench-signature")


_LABEL = re.compile(r"The document `([^`]+)`")


def document_label(request: RecordedRequest) -> str | None:
    """The path label our first message names (``The document `name` ...``)."""
    contents = request.contents
    if not contents:
        return None
    for part in contents[0].get("parts", []):
        match = _LABEL.search(part.get("text", "")[:500])
        if match:
            return match.group(1)
    return None


def turn_index(request: RecordedRequest) -> int:
    """0-based model turn this request asks for: [user, model, user, model, ..., user]."""
    return (len(request.contents) - 1) // 2


# ------------------------------------------------------------------------------------------
# The emulator, timed
# ------------------------------------------------------------------------------------------


@dataclass
class ServedRequest:
    index: int
    bytes: int
    busy: float  # seconds the emulator spent on it, scripted delays excluded
    received_at: float
    label: str | None = None


class BenchEmulator(GeminiEmulator):
    """The project's Gemini emulator, measuring its own time per request.

    ``busy`` counts from the moment the request body has been read to the moment the reply has
    been written (JSON parsing, recording, scripting, serialising, writing), minus any scripted
    delay. Request bodies are not kept beyond ``clear()`` (10 MB documents add up).
    """

    def __init__(self, *, keep_records: bool = True) -> None:
        super().__init__()
        self.served: list[ServedRequest] = []
        self._served_lock = threading.Lock()
        self.keep_records = keep_records  # False: forget each request once served

    def clear(self) -> None:
        with self._lock:
            self._records.clear()
        with self._served_lock:
            self.served.clear()

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until every request has been fully served and accounted for (the client may
        read a reply before the emulator's thread has finished its bookkeeping)."""
        if not self.wait_until_idle(timeout):
            raise TimeoutError("the emulator still has requests in flight")

    def busy_since(self, mark: int) -> float:
        self.settle()
        with self._served_lock:
            return sum(s.busy for s in self.served[mark:])

    def mark(self) -> int:
        with self._served_lock:
            return len(self.served)

    def served_since(self, mark: int) -> list[ServedRequest]:
        self.settle()
        with self._served_lock:
            return list(self.served[mark:])

    def _serve(self, h: Any) -> None:  # a timed copy of GeminiEmulator._serve
        try:
            raw_body = _emu._read_body(h)
        except (OSError, ValueError):
            h.close_connection = True
            return
        started = time.perf_counter()
        received = time.monotonic()
        rec = self._record(h, raw_body)
        delay = 0.0
        try:
            if rec.action is None:
                with self._lock:
                    self._problems.append(f"request #{rec.index}: {rec.method} {rec.path} -> 404")
                reply = Reply.error(404, f"no route for {rec.path}", status="NOT_FOUND")
            else:
                reply = self._next_reply(rec)
            delay = reply.delay
            self._execute(h, rec, reply)
        except OSError:
            h.close_connection = True
        finally:
            busy = max(0.0, time.perf_counter() - started - delay)
            with self._served_lock:
                self.served.append(
                    ServedRequest(rec.index, len(raw_body), busy, received, document_label(rec))
                )
            with self._lock:
                if not self.keep_records:
                    self._records.clear()
                self._in_flight -= 1
                self._changed.notify_all()


class LabelScript:
    """A responder: the reply for each request chosen by its document label and turn, after
    ``latency`` seconds. ``scripts`` maps a label to one reply (``Reply.to_json()``) per turn."""

    def __init__(self, scripts: Mapping[str, Sequence[Mapping[str, Any]]], latency: float) -> None:
        self.scripts = {
            label: [Reply.from_json(reply) for reply in replies]
            for label, replies in scripts.items()
        }
        self.latency = latency

    def __call__(self, request: RecordedRequest) -> Reply:
        label = document_label(request)
        if label is None:
            raise ValueError("request without a document label")
        reply = self.scripts[label][turn_index(request)]
        return reply.delayed(self.latency) if self.latency else reply


def _emulator_process(conn: Any, scripts: Any, latency: float) -> None:
    emu = BenchEmulator(keep_records=False)
    emu.set_responder(LabelScript(scripts, latency))
    emu.start()
    conn.send(emu.base_url)
    try:
        conn.recv()  # any message (or the parent going away) stops it
    except EOFError:
        pass
    finally:
        conn.send(emu.problems)
        emu.stop()


class EmulatorProcess:
    """The emulator in a process of its own, so that its JSON work does not compete for the
    benchmark client's GIL (concurrency runs). Scripts are fixed when it starts."""

    def __init__(self, scripts: Mapping[str, Sequence[Mapping[str, Any]]], latency: float) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_emulator_process, args=(child, dict(scripts), latency), daemon=True
        )
        self._process.start()
        if not self._conn.poll(60):
            self._process.kill()
            raise RuntimeError("the emulator process did not start")
        self.base_url: str = self._conn.recv()

    def stop(self) -> list[str]:
        problems: list[str] = []
        with contextlib.suppress(OSError, EOFError):
            self._conn.send("stop")
            if self._conn.poll(15):
                problems = self._conn.recv()
        self._process.join(15)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(5)
        return problems


# ------------------------------------------------------------------------------------------
# Positions on the client side (LSP line rules), independent of the server's code
# ------------------------------------------------------------------------------------------


def line_starts(text: str) -> list[int]:
    if "\r" not in text:
        starts = [0]
        position = text.find("\n")
        # str.find in a loop is C-speed per call; fine for a bench client.
        while position >= 0:
            starts.append(position + 1)
            position = text.find("\n", position + 1)
        return starts
    return [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]


def _offset(text: str, starts: list[int], position: Mapping[str, int], encoding: str) -> int:
    line, character = position["line"], position["character"]
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    content = text[start:end].rstrip("\r\n")
    if encoding == "utf-32" or content.isascii():
        return start + min(character, len(content))
    units = 0
    for index, char in enumerate(content):
        if units >= character:
            return start + index
        if encoding == "utf-16":
            units += 2 if ord(char) > 0xFFFF else 1
        else:
            units += len(char.encode("utf-8", "surrogatepass"))
    return start + len(content)


# ------------------------------------------------------------------------------------------
# An editor-like LSP client over stdio
# ------------------------------------------------------------------------------------------


@dataclass
class EditorDoc:
    uri: str
    text: str
    version: int
    starts: list[int] | None = None

    def index(self) -> list[int]:
        if self.starts is None:
            self.starts = line_starts(self.text)
        return self.starts


@dataclass
class ApplyRecord:
    uri: str
    edits: list[dict[str, Any]]
    version: int | None
    received_at: float


class RpcError(Exception):
    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = int(error.get("code", 0))
        self.message = str(error.get("message", ""))


@dataclass
class LspClient:
    """A minimal JSON-RPC/LSP client that behaves like an editor.

    It answers ``workspace/applyEdit`` by applying the edits to its own copy of the document
    (strict version check), sends the ``didChange`` echo *before* answering (as VS Code and
    Neovim do), answers ``workspace/configuration`` with empty sections and accepts progress.
    Server requests are handled synchronously on the reader task, in arrival order.
    """

    proc: asyncio.subprocess.Process
    encoding: str = "utf-16"
    docs: dict[str, EditorDoc] = field(default_factory=dict)
    applies: list[ApplyRecord] = field(default_factory=list)
    progress: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    progress_tokens: list[Any] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    answered_at: dict[Any, float] = field(default_factory=dict)
    _pending: dict[Any, asyncio.Future[Any]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    on_apply: Callable[[ApplyRecord], None] | None = None

    # -- lifecycle --------------------------------------------------------------------------

    @classmethod
    async def spawn(cls, argv: Sequence[str], env: Mapping[str, str]) -> LspClient:
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

    async def initialize(
        self,
        capabilities: Mapping[str, Any] | None = None,
        init_options: Any = None,
        *,
        limit: float = 60.0,
    ) -> dict[str, Any]:
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": None,
                "capabilities": dict(capabilities if capabilities is not None else VSCODE_CAPS),
                "initializationOptions": init_options,
                "clientInfo": {"name": "bench"},
            },
            limit=limit,
        )
        encoding = (result.get("capabilities") or {}).get("positionEncoding") or "utf-16"
        self.encoding = str(encoding)
        self.notify("initialized", {})
        return result

    async def close(self, limit: float = 10.0) -> None:
        """shutdown + exit, then terminate/kill if the process lingers. Idempotent."""
        proc = self.proc
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                await self.request("shutdown", None, limit=limit)
                self.notify("exit", None)
            try:
                await asyncio.wait_for(proc.wait(), limit)
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

    # -- wire -------------------------------------------------------------------------------

    def _write(self, message: Mapping[str, Any]) -> None:
        self.write_bytes(encode(message))

    def write_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    async def drain(self) -> None:
        assert self.proc.stdin is not None
        await self.proc.stdin.drain()

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    def send_request(self, method: str, params: Any, msg_id: Any = None) -> tuple[Any, Any]:
        """Send a request; returns (id, future of the whole response message)."""
        if msg_id is None:
            msg_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id, future

    async def request(self, method: str, params: Any, *, limit: float = 60.0) -> Any:
        _, future = self.send_request(method, params)
        await self.drain()
        message = await asyncio.wait_for(future, limit)
        if "error" in message:
            raise RpcError(message["error"])
        return message.get("result")

    async def _read_loop(self) -> None:
        reader = self.proc.stdout
        assert reader is not None
        while True:
            length = 0
            while True:
                header = await reader.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            body = await reader.readexactly(length)
            self._dispatch(json.loads(body))

    async def _stderr_loop(self) -> None:
        reader = self.proc.stderr
        assert reader is not None
        while line := await reader.readline():
            if len(self.stderr) < 10_000:
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
        params = message.get("params")
        if "id" not in message:
            if method == "$/progress" and isinstance(params, dict):
                self.progress.setdefault(str(params.get("token")), []).append(params["value"])
            return
        msg_id = message["id"]
        try:
            result = self._serve_request(method, params)
        except RpcError as exc:
            self._write(
                {
                    "jsonrpc": "2.0",
                    "id": msg_id,
                    "error": {"code": exc.code, "message": exc.message},
                }
            )
            return
        self._write({"jsonrpc": "2.0", "id": msg_id, "result": result})

    def _serve_request(self, method: str, params: Any) -> Any:
        if method == "workspace/applyEdit":
            return self._apply_edit(params)
        if method == "workspace/configuration":
            return [{} for _ in params.get("items", [])]
        if method == "window/workDoneProgress/create":
            self.progress_tokens.append(params["token"])
            return None
        if method == "client/registerCapability":
            return None
        raise RpcError({"code": -32601, "message": f"bench client: no {method}"})

    # -- documents --------------------------------------------------------------------------

    def open_message(self, uri: str, text: str, version: int = 1) -> bytes:
        """Record the document and return its encoded didOpen (send with ``write_bytes``).

        Encoding first lets a benchmark keep the client's own JSON work out of a timing."""
        self.docs[uri] = EditorDoc(uri, text, version)
        self.docs[uri].index()
        return encode(
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

    def _apply_edit(self, params: Mapping[str, Any]) -> dict[str, Any]:
        edit = params["edit"]
        groups: list[tuple[str, int | None, list[dict[str, Any]]]] = []
        if edit.get("documentChanges") is not None:
            for change in edit["documentChanges"]:
                document = change["textDocument"]
                groups.append((document["uri"], document.get("version"), change["edits"]))
        else:
            for uri, edits in (edit.get("changes") or {}).items():
                groups.append((uri, None, edits))
        for uri, version, _ in groups:
            doc = self.docs.get(uri)
            if doc is None:
                return {"applied": False, "failureReason": f"{uri} is not open"}
            if version is not None and version != doc.version:
                return {"applied": False, "failureReason": "version mismatch"}
        for uri, version, edits in groups:
            record = ApplyRecord(uri, edits, version, time.perf_counter())
            self.applies.append(record)
            if self.on_apply is not None:
                self.on_apply(record)
            self._apply(self.docs[uri], edits)
        return {"applied": True}

    def _apply(self, doc: EditorDoc, edits: list[dict[str, Any]]) -> None:
        text, starts = doc.text, doc.index()
        resolved = sorted(
            (
                _offset(text, starts, e["range"]["start"], self.encoding),
                _offset(text, starts, e["range"]["end"], self.encoding),
                order,
                e,
            )
            for order, e in enumerate(edits)
        )
        pieces: list[str] = []
        position = 0
        for start, end, _, e in resolved:
            pieces.append(text[position:start])
            pieces.append(e["newText"])
            position = end
        pieces.append(text[position:])
        doc.text = "".join(pieces)
        doc.starts = None
        doc.version += 1
        # Ranges against the text before the edit, sent last-first: each stays valid.
        changes = [{"range": e["range"], "text": e["newText"]} for _, _, _, e in reversed(resolved)]
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": doc.uri, "version": doc.version},
                "contentChanges": changes,
            },
        )

    # -- the command ------------------------------------------------------------------------

    def start_command(self, arguments: Mapping[str, Any], msg_id: Any = None) -> tuple[Any, Any]:
        return self.send_request(
            "workspace/executeCommand",
            {"command": COMMAND, "arguments": [dict(arguments)]},
            msg_id,
        )

    async def run_command(self, arguments: Mapping[str, Any], *, limit: float = 120.0) -> Any:
        _, future = self.start_command(arguments)
        await self.drain()
        message = await asyncio.wait_for(future, limit)
        if "error" in message:
            raise RpcError(message["error"])
        return message["result"]


async def wait_until(condition: Callable[[], bool], limit: float, what: str) -> None:
    """Poll ``condition`` every millisecond for at most ``limit`` seconds."""
    for _ in range(int(limit * 1000)):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise TimeoutError(f"timed out waiting for {what}")


def encode(message: Mapping[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _vscode_caps() -> dict[str, Any]:
    from lsprotocol.converters import get_converter
    from pytest_lsp import client_capabilities

    caps: dict[str, Any] = get_converter().unstructure(client_capabilities("visual-studio-code"))
    return caps


VSCODE_CAPS: dict[str, Any] = _vscode_caps()


def server_command() -> list[str]:
    """``complex-edit lsp``, or with ``--server-root DIR`` the server of another checkout
    (e.g. ``git worktree add /tmp/before <commit>``), for before/after figures."""
    args = sys.argv[1:]
    if "--server-root" in args:
        root = args[args.index("--server-root") + 1]
        start = (
            f"import sys, runpy; sys.path.insert(0, {root!r}); "
            "runpy.run_module('server', run_name='__main__')"
        )
        return [PYTHON, "-c", start, "lsp"]
    return list(OUR_COMMAND)


def bench_env(base_url: str, **extra: str) -> dict[str, str]:
    """The server's environment: ours, minus ambient model settings, plus the emulator."""
    drop = {
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_GEMINI_BASE_URL",
    }
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in drop and not key.startswith("COMPLEX_EDIT_")
    }
    env.update(
        {
            "GEMINI_API_KEY": BENCH_KEY,
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "COMPLEX_EDIT_MAX_RETRIES": "0",
            "COMPLEX_EDIT_MAX_DOCUMENT_BYTES": "16000000",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def command_args(uri: str, prompt: str = "benchmark edit", **extra: Any) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "prompt": prompt, **extra}


_uri_numbers = itertools.count(1)


def new_uri(tag: str = "doc") -> str:
    return f"file:///bench/{tag}{next(_uri_numbers)}-{os.getpid()}.py"


def label_of(uri: str) -> str:
    return uri.rsplit("/", 1)[-1]


def size_label(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1_000_000:g} MB"
    return f"{size / 1000:g} KB"


DEADLINE = float(os.environ.get("BENCH_DEADLINE", "900"))


async def _guarded(work: Any) -> None:
    """Run ``work``, but never past DEADLINE seconds: then print where every task waits (to
    find what hangs) and give up."""
    main = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({main}, timeout=DEADLINE)
    if main in done:
        main.result()
        return
    print(f"benchmark still running after {DEADLINE:g} s; tasks:", file=sys.stderr)
    for task in asyncio.all_tasks():
        task.print_stack(limit=8, file=sys.stderr)
    main.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(main, 60)
    raise TimeoutError(f"the benchmark did not finish within {DEADLINE:g} s (BENCH_DEADLINE)")


def run(main: Callable[[bool], Any]) -> None:
    """Entry point shared by the scripts: ``--quick`` for a fast smoke run."""
    quick = "--quick" in sys.argv[1:]
    print(f"machine: {machine_summary()}", flush=True)
    result = main(quick)
    if asyncio.iscoroutine(result):
        asyncio.run(_guarded(result))
    print(f"machine after: {machine_summary()}", flush=True)
