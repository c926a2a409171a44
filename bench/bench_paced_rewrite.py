"""A whole-file rewrite of a 55 KB real source file by a model at a real model's pace (issue 20).

The Gemini emulator answers with ``set_document`` (the whole file, rewritten) and
``complete_task`` when a model writing ~160 output tokens/s after ~6 s to the first token would
have finished (``Reply.paced``; 4 bytes per token), scaled down by ``--scale`` (default 0.1:
ten times faster, so ~9 s instead of ~92 s). ``complex-edit edit FILE --json`` runs as a fresh
process with ``requestTimeoutSeconds`` scaled the same way (6 s at 0.1: the old per-request
limit would have abandoned this answer and asked again three times).

Reported per run: the emulator's own pace (its ``on_served`` span for the request: the scripted
wait plus writing the answer), the command's wall time from spawn to exit, the server's share
(wall − pace), split into the time to the model request (process start, imports, reading the
file, the request) and after the answer (the syntax check, the diff, the atomic write, exit),
and how many requests were made (goal: 1). Goal: the server's share stays negligible
beside the model's pace (≤ 5% at full scale, where the pace is ~92 s).

Run: ``.venv/bin/python bench/bench_paced_rewrite.py [--quick] [--scale 0.1] [--runs 3]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import BENCH_KEY, ROOT, GeminiEmulator, Reply, Table, machine_summary, median, ms

from tests.fakes.exchange import Served

SIZE = 55_000
RUNS = 3
PROMPT = "Rename the parameter `settings` to `config` everywhere in this file."


def real_source(size: int) -> str:
    """Real Python source of at most ``size`` bytes, whole lines: this project's own modules."""
    text = ""
    for path in sorted((ROOT / "server").rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            if len(text) + len(line) > size:
                return text
            text += line
    return text


def run_once(
    emulator: GeminiEmulator, scale: float, source: str, workdir: Path
) -> dict[str, float]:
    served: list[Served] = []
    emulator.on_served_hook = served.append
    rewritten = source.replace("settings", "config")
    reply = Reply.function_calls(
        [
            ("set_document", {"content": rewritten}),
            ("complete_task", {"success": True, "message": "renamed"}),
        ],
        usage=(len(source) // 4, len(rewritten) // 4),
    ).paced(scale=scale)
    emulator.reset()
    emulator.enqueue(reply)
    path = workdir / "module.py"
    path.write_text(source, encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "GEMINI_API_KEY": BENCH_KEY,
        "GOOGLE_GEMINI_BASE_URL": emulator.base_url,
        "COMPLEX_EDIT_REQUEST_TIMEOUT_SECONDS": f"{60 * scale:g}",
        "COMPLEX_EDIT_MAX_RETRIES": "3",
    }
    began = time.monotonic()  # the clock of RecordedRequest.received_at
    proc = subprocess.run(
        [sys.executable, "-m", "complex_edit", "edit", str(path), "--prompt", PROMPT, "--json"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        timeout=600,
        check=False,
    )
    wall = time.monotonic() - began
    emulator.wait_until_idle()
    result = json.loads(proc.stdout or "{}")
    ok = proc.returncode == 0 and path.read_text(encoding="utf-8") == rewritten
    pace = sum(item.seconds for item in served)
    before = served[0].request.received_at - began if served else 0.0
    return {
        "before": before,
        "after": wall - before - pace,
        "ok": float(ok and bool(result.get("success"))),
        "wall": wall,
        "pace": pace,
        "share": wall - pace,
        "requests": float(emulator.request_count),
        "delay": reply.delay,
    }


class PacedEmulator(GeminiEmulator):
    """The emulator with a swappable ``on_served`` hook."""

    def __init__(self) -> None:
        super().__init__(on_served=self._tell)
        self.on_served_hook: object = None

    def _tell(self, served: Served) -> None:
        hook = self.on_served_hook
        if callable(hook):
            hook(served)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=0.1, help="time scale (1 = real pace)")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--size", type=int, default=SIZE, help="bytes of source to rewrite")
    parser.add_argument("--quick", action="store_true", help="one run")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    source = real_source(args.size)
    print(machine_summary())
    print(f"source: {len(source.encode())} bytes of real Python; scale {args.scale:g}")
    results = []
    with PacedEmulator() as emulator, tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            results.append(run_once(emulator, args.scale, source, Path(tmp)))
    table = Table(
        f"Paced {len(source.encode()) // 1000} KB rewrite, scale {args.scale:g} (times in ms)",
        [
            "run",
            "pace (emulator)",
            "end to end",
            "server's share",
            "of which: to the request",
            "after the answer",
            "share of pace",
            "requests",
            "ok",
        ],
    )
    for index, result in enumerate(results, 1):
        table.add(
            str(index),
            ms(result["pace"]),
            ms(result["wall"]),
            ms(result["share"]),
            ms(result["before"]),
            ms(result["after"]),
            f"{100 * result['share'] / result['pace']:.1f}%",
            f"{result['requests']:.0f}",
            "yes" if result["ok"] else "NO",
        )
    table.print()
    share = median([r["share"] for r in results])
    pace = median([r["pace"] for r in results])
    full = pace / args.scale
    print(
        f"median: pace {ms(pace)}, server's share {ms(share)} "
        f"({100 * share / pace:.1f}% of the pace at scale {args.scale:g}; at full scale the "
        f"pace is ~{full:.0f} s and the same share is {100 * share / full:.1f}%)"
    )


if __name__ == "__main__":
    main()
