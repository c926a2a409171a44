"""The first command after start: how long until the model is asked, cold and warm.

Every figure ends when the Gemini emulator receives the first model request of the command
(its ``on_request`` hook; ``RecordedRequest.received_at`` is ``time.monotonic()``, comparable
across local processes), and the emulator answers at once with ``complete_task``. A 2 KB
document. Each run starts fresh processes.

* LSP, cold: a fresh ``complex-edit lsp``; ``initialize``, then ``initialized``, ``didOpen`` and
  ``performComplexEdit`` written at once; from writing the command to the model request.
  Goal ≤ 300 ms. Also from spawning the process (information).
* LSP, warm: further commands on the same server, each sent once the previous has been
  answered. Goal ≤ 20 ms.
* CLI: from spawning ``complex-edit edit FILE --prompt ...`` to the model request, and to the
  process's exit (information).
* MCP: a fresh ``complex-edit mcp --root DIR``; ``initialize`` written at once, then
  ``notifications/initialized`` and a ``tools/call`` of ``perform_complex_edit``: from spawning
  and from writing the call to the model request; then further calls on the same server (warm).

It measures whatever the server does at start (today the LSP server starts its session process
after ``initialized``), so it can be re-run before and after a change, or pointed at another
checkout with ``--server-root DIR``. The front ends run as ``python -m server`` (what the
``complex-edit`` script runs).

Run: ``.venv/bin/python bench/bench_first_request.py [--quick] [--runs N] [--server-root DIR]``
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from _common import (
    GeminiEmulator,
    LspClient,
    RecordedRequest,
    Table,
    bench_env,
    command_args,
    done_call,
    make_document,
    median,
    ms,
    new_uri,
    percentile,
    run,
    server_command,
    turn,
    verdict,
)

GOAL_COLD = 0.300
GOAL_WARM = 0.020
RUNS = 8
QUICK_RUNS = 2
WARM_COMMANDS = 3
DOCUMENT = make_document(2_000)
PROMPT = "benchmark edit"
TOOL = "perform_complex_edit"
MCP_PROTOCOL = "2025-06-18"
WITHIN = 120.0


class ArrivalEmulator(GeminiEmulator):
    """The Gemini emulator answering every request at once with ``complete_task``, keeping
    when each request arrived (``on_request``)."""

    def __init__(self) -> None:
        super().__init__(on_request=self._arrived)
        self._arrivals: list[float] = []
        self._arrived_cond = threading.Condition()
        reply = turn(done_call())
        self.set_responder(lambda _request: reply)

    def _arrived(self, request: RecordedRequest) -> None:
        with self._arrived_cond:
            self._arrivals.append(request.received_at)
            self._arrived_cond.notify_all()

    def mark(self) -> int:
        with self._arrived_cond:
            return len(self._arrivals)

    def _wait(self, mark: int, within: float) -> float:
        with self._arrived_cond:
            if not self._arrived_cond.wait_for(lambda: len(self._arrivals) > mark, within):
                raise TimeoutError("no model request arrived")
            return self._arrivals[mark]

    async def arrival(self, mark: int, within: float = WITHIN) -> float:
        """``time.monotonic()`` when the first request after ``mark`` arrived."""
        return await asyncio.to_thread(self._wait, mark, within)


def front_end(*args: str) -> list[str]:
    """``complex-edit ARGS`` the way ``server_command()`` runs ``complex-edit lsp`` (this tree,
    or ``--server-root DIR``)."""
    lsp = server_command()
    return [*lsp[:-1], *args]


# ------------------------------------------------------------------------------------------
# LSP
# ------------------------------------------------------------------------------------------


async def lsp_command(client: LspClient, emu: ArrivalEmulator) -> float:
    """One command on an initialized server: seconds from writing it to the model request."""
    uri = new_uri("first")
    client.write_bytes(client.open_message(uri, DOCUMENT))
    mark = emu.mark()
    sent = time.monotonic()
    _, future = client.start_command(command_args(uri, PROMPT))
    await client.drain()
    arrived = await emu.arrival(mark)
    result = await client.answer(future, WITHIN)
    if not (isinstance(result, dict) and result.get("success")):
        raise RuntimeError(f"the LSP command failed: {result}")
    client.close_doc(uri)
    return arrived - sent


async def lsp_run(env: Mapping[str, str], emu: ArrivalEmulator) -> dict[str, list[float]]:
    spawned = time.monotonic()
    client = await LspClient.spawn(env, server_command())
    try:
        await client.initialize(within=WITHIN)
        mark = emu.mark()
        cold = await lsp_command(client, emu)
        from_start = await emu.arrival(mark) - spawned
        warm = [await lsp_command(client, emu) for _ in range(WARM_COMMANDS)]
    finally:
        await client.close()
    return {"lsp cold": [cold], "lsp start": [from_start], "lsp warm": warm}


# ------------------------------------------------------------------------------------------
# CLI
# ------------------------------------------------------------------------------------------


async def cli_run(
    env: Mapping[str, str], emu: ArrivalEmulator, folder: Path
) -> dict[str, list[float]]:
    path = folder / f"cli-{time.monotonic_ns()}.py"
    path.write_text(DOCUMENT)
    mark = emu.mark()
    spawned = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *front_end("edit", str(path), "--prompt", PROMPT, "--quiet"),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        cwd=str(folder),
    )
    try:
        arrived = await emu.arrival(mark)
        _, err = await asyncio.wait_for(proc.communicate(), WITHIN)
        exited = time.monotonic()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    if proc.returncode != 0:
        raise RuntimeError(f"complex-edit edit exited {proc.returncode}: {err.decode()[-500:]}")
    return {"cli start": [arrived - spawned], "cli exit": [exited - spawned]}


# ------------------------------------------------------------------------------------------
# MCP (newline-delimited JSON-RPC over stdio)
# ------------------------------------------------------------------------------------------


class McpLines:
    """The smallest MCP client: requests by id, notifications ignored, server requests refused."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read())

    def _write(self, message: Mapping[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        self._write({"method": method, **({"params": dict(params)} if params else {})})

    def send(self, method: str, params: Mapping[str, Any]) -> asyncio.Future[dict[str, Any]]:
        msg_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        self._write({"id": msg_id, "method": method, "params": dict(params)})
        return future

    async def drain(self) -> None:
        assert self.proc.stdin is not None
        await self.proc.stdin.drain()

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            message = json.loads(line)
            if "method" in message and "id" in message:
                error = {"code": -32601, "message": "not supported by the benchmark"}
                self._write({"id": message["id"], "error": error})
            elif "method" not in message:
                future = self._pending.pop(message.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(message)

    async def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


async def mcp_call(client: McpLines, emu: ArrivalEmulator, name: str) -> tuple[float, float]:
    """One tool call: (when it was written, when its model request arrived)."""
    mark = emu.mark()
    sent = time.monotonic()
    future = client.send(
        "tools/call", {"name": TOOL, "arguments": {"path": name, "prompt": PROMPT}}
    )
    await client.drain()
    arrived = await emu.arrival(mark)
    answer = await asyncio.wait_for(future, WITHIN)
    result = answer.get("result") or {}
    if "error" in answer or result.get("isError"):
        raise RuntimeError(f"the MCP tool call failed: {answer}")
    return sent, arrived


async def mcp_run(
    env: Mapping[str, str], emu: ArrivalEmulator, folder: Path
) -> dict[str, list[float]]:
    names = [f"mcp-{time.monotonic_ns()}-{n}.py" for n in range(1 + WARM_COMMANDS)]
    for name in names:
        (folder / name).write_text(DOCUMENT)
    spawned = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        *front_end("mcp", "--root", str(folder)),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=dict(env),
        cwd=str(folder),
        limit=1 << 24,
    )
    client = McpLines(proc)
    try:
        hello = {
            "protocolVersion": MCP_PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        }
        answer = await asyncio.wait_for(client.send("initialize", hello), WITHIN)
        if "result" not in answer:
            raise RuntimeError(f"MCP initialize failed: {answer}")
        client.notify("notifications/initialized")
        sent, arrived = await mcp_call(client, emu, names[0])
        warm = [end - start for start, end in [await mcp_call(client, emu, n) for n in names[1:]]]
    finally:
        await client.close()
    return {"mcp start": [arrived - spawned], "mcp cold": [arrived - sent], "mcp warm": warm}


# ------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------

ROWS: tuple[tuple[str, str, str, float | None], ...] = (
    ("lsp cold", "LSP", "command right after `initialized` → model request (cold)", GOAL_COLD),
    ("lsp warm", "LSP", "a later command → model request (warm)", GOAL_WARM),
    ("lsp start", "LSP", "process start → model request of that first command", None),
    ("cli start", "CLI", "`complex-edit edit` process start → model request", None),
    ("cli exit", "CLI", "`complex-edit edit` process start → exit", None),
    (
        "mcp start",
        "MCP",
        "`complex-edit mcp` process start → model request of the first call",
        None,
    ),
    ("mcp cold", "MCP", "tool call right after `initialized` → model request (cold)", None),
    ("mcp warm", "MCP", "a later tool call → model request (warm)", None),
)


def report(samples: Mapping[str, Sequence[float]]) -> Table:
    table = Table(
        "The first command after start — until the model is asked (2 KB document)",
        ["front end", "interval", "samples", "p50 ms", "p90 ms", "max ms", "goal", "verdict"],
    )
    for key, front, interval, goal in ROWS:
        values = samples.get(key, [])
        if not values:
            continue
        p50 = median(values)
        table.add(
            front,
            interval,
            len(values),
            ms(p50),
            ms(percentile(values, 90)),
            ms(max(values)),
            f"≤ {goal * 1000:g} ms (p50)" if goal is not None else "—",
            verdict(p50 <= goal) if goal is not None else "—",
        )
    return table


def runs_wanted(quick: bool) -> int:
    args = sys.argv[1:]
    if "--runs" in args:
        return int(args[args.index("--runs") + 1])
    return QUICK_RUNS if quick else RUNS


async def main(quick: bool) -> None:
    emu = ArrivalEmulator().start()
    samples: dict[str, list[float]] = {}
    steps: Sequence[Callable[[dict[str, str], ArrivalEmulator, Path], Any]] = (
        lambda env, emu, _folder: lsp_run(env, emu),
        cli_run,
        mcp_run,
    )
    try:
        env = bench_env(emu.base_url)
        with tempfile.TemporaryDirectory(prefix="bench-first-") as folder:
            for index in range(runs_wanted(quick)):
                for step in steps:
                    for key, values in (await step(env, emu, Path(folder))).items():
                        samples.setdefault(key, []).extend(values)
                print(f"  done: run {index + 1}", flush=True)
        if emu.problems:
            raise RuntimeError(f"emulator problems: {emu.problems}")
        report(samples).print()
    finally:
        emu.stop()


if __name__ == "__main__":
    run(main)
