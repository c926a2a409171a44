"""Run every benchmark, one after the other, each in its own process, and print a summary.

Run: ``.venv/bin/python bench/run_all.py [--quick] [--out FILE]``; ``--quick`` is passed on
to every script, ``--out`` also writes everything printed to FILE (Markdown).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = (
    "bench_diff.py",
    "bench_overhead.py",
    "bench_loop.py",
    "bench_context.py",
    "bench_memory.py",
    "bench_concurrency.py",
    "bench_startup_cancel.py",
    "bench_first_request.py",
    "bench_try.py",
    "bench_mcp_startup.py",
)
TIMEOUT = 1200


def main() -> int:
    args = sys.argv[1:]
    out_path: Path | None = None
    if "--out" in args:
        at = args.index("--out")
        out_path = Path(args[at + 1])
        del args[at : at + 2]
    lines: list[str] = []
    failed: list[str] = []
    for script in SCRIPTS:
        header = f"## {script} {' '.join(args)}".rstrip()
        print(header, flush=True)
        lines.append(header)
        started = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, str(HERE / script), *args],
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            failed.append(f"{script}: timed out after {TIMEOUT} s")
            continue
        output = done.stdout.rstrip()
        print(output, flush=True)
        lines.append(output)
        took = f"({script} took {time.monotonic() - started:.0f} s)"
        print(took + "\n", flush=True)
        lines.append(took + "\n")
        if done.returncode != 0:
            failed.append(f"{script}: exit status {done.returncode}\n{done.stderr[-2000:]}")
    summary = ["## Summary", ""]
    for line in "\n".join(lines).splitlines():
        if line.startswith("###"):
            summary.append(line.removeprefix("### "))
        elif line.startswith("|") and ("PASS" in line or "MISS" in line):
            summary.append("    " + " ".join(line.split()))
    summary.extend(f"FAILED: {item}" for item in failed)
    print("\n".join(summary), flush=True)
    if out_path is not None:
        out_path.write_text("\n".join([*lines, *summary]) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
