"""Issue 31 item 2: `complex-edit mcp` answers `tools/list` soon after it starts.

From spawning the process to the `tools/list` answer, with `initialize`,
`notifications/initialized` and `tools/list` written at once (the pipe holds them until the
server reads them), as an agent's client does: `complex-edit mcp --root DIR` (the venv's
console script, as the docs register it) against `bench/_bare_mcp_server.py`, a bare server on
the same MCP SDK with one tool, run by the same Python. Alternating, fresh processes each time.
Goal: ours ≤ 250 ms on an idle machine; the ratio to the bare server shows what is ours
(the SDK's own import is in both). The time to `initialize`'s answer is shown as well.

``--server-root DIR`` runs another checkout's ``complex-edit`` (from its own ``.venv``) instead,
for before/after figures.

Run: ``.venv/bin/python bench/bench_mcp_startup.py [--quick] [--runs N] [--server-root DIR]``
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, Table, machine_summary, median, ms, percentile, verdict

GOAL_SECONDS = 0.250
BARE = [PYTHON, "-P", str(ROOT / "bench" / "_bare_mcp_server.py")]

_HANDSHAKE = b"".join(
    json.dumps(message).encode() + b"\n"
    for message in (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    )
)


def time_listing(argv: list[str]) -> tuple[float, float]:
    """Seconds from spawn to the `initialize` answer and to the `tools/list` answer."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(_HANDSHAKE)
    process.stdin.flush()
    initialized = listed = 0.0
    try:
        while line := process.stdout.readline():
            answer = json.loads(line)
            if answer.get("id") == 1:
                initialized = time.perf_counter() - started
            if answer.get("id") == 2:
                listed = time.perf_counter() - started
                assert answer["result"]["tools"], answer
                break
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()
    if not listed:
        raise RuntimeError(f"{argv[0]} gave no tools/list answer")
    return initialized, listed


def main() -> None:
    args = sys.argv[1:]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 20
    if "--quick" in args:
        runs = 3
    print(f"machine: {machine_summary()}", flush=True)
    executable = Path(PYTHON).parent / "complex-edit"
    if "--server-root" in args:
        executable = Path(args[args.index("--server-root") + 1]) / ".venv" / "bin" / "complex-edit"
    with tempfile.TemporaryDirectory() as root:
        ours_argv = [str(executable), "mcp", "--root", root]
        time_listing(ours_argv)  # warm the file cache and the bytecode
        time_listing(BARE)
        ours: list[tuple[float, float]] = []
        bare: list[tuple[float, float]] = []
        for _ in range(runs):
            bare.append(time_listing(BARE))
            ours.append(time_listing(ours_argv))
    table = Table(
        f"MCP start-up: spawn → answer, {runs} runs each, p50 (p90) ms",
        ["answer", "complex-edit mcp", "bare MCP server", "ratio (p50)", "goal", "verdict"],
    )
    for index, name in ((0, "initialize"), (1, "tools/list")):
        mine = [sample[index] for sample in ours]
        floor = [sample[index] for sample in bare]
        ratio = median(mine) / median(floor)
        goal, ok = ("≤ 250 ms", median(mine) <= GOAL_SECONDS) if index else ("—", None)
        table.add(
            name,
            f"{ms(median(mine))} ({ms(percentile(mine, 90))})",
            f"{ms(median(floor))} ({ms(percentile(floor, 90))})",
            f"{ratio:.2f}×",
            goal,
            "—" if ok is None else verdict(ok),
        )
    table.print()
    print(f"machine after: {machine_summary()}", flush=True)


if __name__ == "__main__":
    main()
