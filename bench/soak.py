"""Soak: 1,000 sequential commands through one `complex-edit lsp` process (issue 6).

The Gemini emulator answers at once; the commands mix edits, dry runs, fresh documents opened
and closed, failed tasks, model errors and cancellations (see tests/reliability/soak.py). The
server reports its own resident memory (VmRSS) and live asyncio tasks, pending requests,
change waiters and progress tokens through the diagnostic request `complexEdit/_stats`.

Goal: flat after the warm-up: no task, request, waiter or token left behind, and RSS growth
after the first 100 commands at most 10 MB (the server's idle RSS is ~80 MB).

Run: ``.venv/bin/python bench/soak.py [--commands 1000] [--sample-every 100] [--json out.json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.reliability.soak import Sample, SoakResult, run_soak  # noqa: E402

MAX_GROWTH_MB = 10.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=1000)
    parser.add_argument("--sample-every", type=int, default=100)
    parser.add_argument("--warm-up", type=int, default=100, help="commands before the baseline")
    parser.add_argument("--json", metavar="PATH", help="also write the samples as JSON")
    args = parser.parse_args()

    def show(sample: Sample) -> None:
        print(
            f"| {sample.command} | {sample.seconds:.1f} | {sample.rss_bytes / 2**20:.1f} | "
            f"{sample.asyncio_tasks} | {sample.pending_requests} | {sample.change_waiters} | "
            f"{sample.progress_tokens} | {sample.running_commands} |",
            flush=True,
        )

    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"nproc={os.cpu_count()}  load={load}  python={platform.python_version()}\n")
    print(
        "| command | s | RSS MiB | asyncio tasks | pending requests | change waiters "
        "| progress tokens | running |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    result = asyncio.run(run_soak(args.commands, sample_every=args.sample_every, on_sample=show))
    ok = report(result, args.warm_up)
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_json(), indent=2) + "\n")
    return 0 if ok else 1


def report(result: SoakResult, warm_up: int) -> bool:
    baseline = min(result.samples, key=lambda s: abs(s.command - warm_up))
    last = result.samples[-1]
    after = [s for s in result.samples if s.command >= baseline.command]
    growth_mb = (last.rss_bytes - baseline.rss_bytes) / 2**20
    span = max(last.command - baseline.command, 1)
    slope = _slope([(s.command, s.rss_bytes / 2**20) for s in after]) * 100
    leftovers = {
        "asyncio tasks": max(s.asyncio_tasks for s in after) - baseline.asyncio_tasks,
        "pending requests": max(s.pending_requests for s in after),
        "change waiters": max(s.change_waiters for s in after),
        "progress tokens": max(s.progress_tokens for s in after),
        "running commands": max(s.running_commands for s in after),
    }
    flat = all(value == 0 for value in leftovers.values())
    ok = (
        not result.failures
        and flat
        and growth_mb <= MAX_GROWTH_MB
        and result.edits_after_cancel == 0
    )
    rate = result.commands / max(result.seconds, 1e-9)
    before, after_mib = baseline.rss_bytes / 2**20, last.rss_bytes / 2**20
    print()
    print(f"commands: {result.commands} in {result.seconds:.1f} s ({rate:.0f}/s)")
    print(f"outcomes: {result.outcomes}")
    print(
        f"RSS: {before:.1f} MiB after {baseline.command} commands, {after_mib:.1f} MiB after "
        f"{last.command}: {growth_mb:+.2f} MiB over {span} commands "
        f"(fit: {slope:+.3f} MiB per 100)"
    )
    answers, quiet = result.cancel_answer_seconds, result.cancel_quiet_seconds
    if answers:
        print(
            f"cancel ({len(answers)}): -32800 after p50 {_ms(answers, 50)} / p95 "
            f"{_ms(answers, 95)} ms; model request abandoned after p50 {_ms(quiet, 50)} / "
            f"p95 {_ms(quiet, 95)} ms; edits after a cancel: {result.edits_after_cancel}"
        )
    print(f"successes checked against the editor's text: {result.successes_confirmed}")
    listed = ", ".join(f"{name} {value}" for name, value in leftovers.items())
    print(f"left behind after the warm-up (max over samples): {listed}")
    if result.failures:
        print("failures:", *result.failures[:20], sep="\n  ")
    verdict = "PASS" if ok else "MISS"
    print(f"verdict: {verdict} (goal: nothing left behind, RSS growth <= {MAX_GROWTH_MB:g} MiB)")
    return ok


def _ms(values: list[float], p: float) -> str:
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.4999)))
    return f"{ordered[rank - 1] * 1000:.0f}"


def _slope(points: list[tuple[float, float]]) -> float:
    if len(points) < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    den = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / den if den else 0.0


if __name__ == "__main__":
    sys.exit(main())
