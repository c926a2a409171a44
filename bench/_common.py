"""Shared benchmark machinery: the timed Gemini emulator, a small editor-like LSP client over
stdio, document and script generators, process statistics, and table printing.

Everything runs on 127.0.0.1 and in child processes that are shut down (then killed if need
be) when a benchmark ends. Nothing here is imported by the project or its tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import platform
import re
import statistics
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fakes.exchange import Served  # noqa: E402
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply  # noqa: E402
from tests.fakes.rawlsp import RawLspClient, ambient_free_env, edit_groups  # noqa: E402
from tests.fakes.rawlsp import RpcError as RpcError  # noqa: E402  (re-exported for the scripts)

PYTHON = sys.executable
OUR_COMMAND = [PYTHON, "-m", "complex_edit", "lsp"]
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
    """The project's Gemini emulator, measuring its own time per request (``on_served``).

    ``busy`` counts from the moment the request body has been read to the moment the reply has
    been written (JSON parsing, recording, scripting, serialising, writing), minus any scripted
    delay. Request bodies are not kept beyond ``clear()`` (10 MB documents add up).
    """

    def __init__(self, *, keep_records: bool = True) -> None:
        super().__init__(on_served=self._account)
        self.served: list[ServedRequest] = []
        self._served_lock = threading.Lock()
        self.keep_records = keep_records  # False: forget each request once served

    def clear(self) -> None:
        self.clear_requests()
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

    def _account(self, served: Served[RecordedRequest, Reply]) -> None:
        request = served.request
        busy = max(0.0, served.seconds - served.reply.delay)
        entry = ServedRequest(
            request.index, len(request.raw_body), busy, request.received_at, document_label(request)
        )
        with self._served_lock:
            self.served.append(entry)
        if not self.keep_records:
            self.clear_requests()


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
# An editor-like LSP client over stdio
# ------------------------------------------------------------------------------------------


def _vscode_caps() -> dict[str, Any]:
    from lsprotocol.converters import get_converter
    from pytest_lsp import client_capabilities

    caps: dict[str, Any] = get_converter().unstructure(client_capabilities("visual-studio-code"))
    return caps


VSCODE_CAPS: dict[str, Any] = _vscode_caps()


class LspClient(RawLspClient):
    """The shared editor-like client (``tests/fakes/rawlsp.py``) with VS Code's capabilities
    and the command: it applies the server's edits to its own copy of each document, sends
    the ``didChange`` echo before answering, and records when each response arrived."""

    client_name: ClassVar[str] = "bench"
    default_capabilities: ClassVar[Mapping[str, Any]] = VSCODE_CAPS

    def start_command(
        self, arguments: Mapping[str, Any], msg_id: Any = None
    ) -> tuple[Any, asyncio.Future[Any]]:
        return self.send_request(
            "workspace/executeCommand",
            {"command": COMMAND, "arguments": [dict(arguments)]},
            msg_id,
        )

    async def run_command(self, arguments: Mapping[str, Any], *, within: float = 120.0) -> Any:
        _, future = self.start_command(arguments)
        await self.drain()
        return await self.answer(future, within)

    def last_edits(self) -> list[dict[str, Any]]:
        """The TextEdits of the last ``workspace/applyEdit``."""
        return [edit for _, _, group in edit_groups(self.applies[-1]["edit"]) for edit in group]


async def wait_until(condition: Callable[[], bool], limit: float, what: str) -> None:
    """Poll ``condition`` every millisecond for at most ``limit`` seconds."""
    for _ in range(int(limit * 1000)):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise TimeoutError(f"timed out waiting for {what}")


def server_command() -> list[str]:
    """``complex-edit lsp``, or with ``--server-root DIR`` the server of another checkout with
    its own venv (e.g. ``git worktree add /tmp/before <commit>`` and ``pip install -e .`` there),
    for before/after figures: the package and its session child are the installed
    ``complex_edit``, so each side runs from its own venv."""
    args = sys.argv[1:]
    if "--server-root" in args:
        root = Path(args[args.index("--server-root") + 1])
        return [str(root / ".venv" / "bin" / "complex-edit"), "lsp"]
    return list(OUR_COMMAND)


def bench_env(base_url: str, **extra: str) -> dict[str, str]:
    """The server's environment: ours, minus ambient model settings, plus the emulator."""
    env = ambient_free_env()
    env.update(
        {
            "GEMINI_API_KEY": BENCH_KEY,
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "COMPLEX_EDIT_MAX_RETRIES": "0",
            "COMPLEX_EDIT_MAX_DOCUMENT_BYTES": "16000000",
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
