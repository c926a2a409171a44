"""`complex-edit try`: from typing the command to its exit, on this machine (goal: under 5 s
right after install, issue 29).

Each run is a fresh process of the installed console script (the venv's `complex-edit`, as a
user would type it), with no key variable, no COMPLEX_EDIT_* setting and its temporary folder
inside a scratch directory that is removed afterwards. The first run is reported apart: it is
the closest to "right after install" (later runs find the interpreter's files in the page
cache); with `--cold` the checkout's own `__pycache__` folders are removed first, as in a fresh
clone after `pip install -e .` (pip compiles the dependencies it installs, not an editable
project), so the first run also compiles the project's modules. The load average is printed
with the machine summary: the machine is shared.

Run: ``.venv/bin/python bench/bench_try.py [--quick] [--runs N] [--cold]``
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Table, ambient_free_env, machine_summary, median, percentile

GOAL_SECONDS = 5.0
SCRIPT = Path(sys.executable).parent / "complex-edit"
ROOT = Path(__file__).resolve().parent.parent
PROJECT_FOLDERS = ("complex_edit", "server", "edit_tools", "prompts")


def one_run(scratch: Path) -> float:
    env = ambient_free_env()
    env["TMPDIR"] = str(scratch)
    started = time.perf_counter()
    proc = subprocess.run(
        [str(SCRIPT), "try"], cwd=scratch, env=env, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or "replayed" not in proc.stdout:
        raise SystemExit(f"complex-edit try failed ({proc.returncode}):\n{proc.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--cold", action="store_true", help="remove the checkout's __pycache__ folders first"
    )
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    print(machine_summary(), flush=True)
    if args.cold:
        for folder in PROJECT_FOLDERS:
            for cache in (ROOT / folder).rglob("__pycache__"):
                shutil.rmtree(cache)
    with tempfile.TemporaryDirectory(prefix="bench-try-") as scratch:
        times = [one_run(Path(scratch)) for _ in range(runs)]
    first, rest = times[0], times[1:] or times
    title = "complex-edit try: command → exit (s)" + (", first run cold" if args.cold else "")
    table = Table(title, ["runs", "first", "median", "p90", "goal", "verdict"])
    worst = max(first, percentile(rest, 90))
    table.add(
        runs,
        f"{first:.2f}",
        f"{median(rest):.2f}",
        f"{percentile(rest, 90):.2f}",
        f"< {GOAL_SECONDS:g}",
        "PASS" if worst < GOAL_SECONDS else "MISS",
    )
    table.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
