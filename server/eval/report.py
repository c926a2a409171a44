"""What a run measured, from its records: the numbers and the summary table.

* pass rate: scored tasks whose result passed their test / scored tasks. A task is scored when
  its reference passes its own test here; the others are listed as not scored, whatever the
  model did.
* well-formed rate: tool calls that did not fail / all tool calls (all tasks).
* mean turns and tool calls, tokens in/out, session latency p50/p95: over all tasks.
* failures by reason: the scored tasks that failed, grouped by `reason`.
* integrity, over all tasks: slips tolerated, elisions expanded and refused, syntax refusals,
  and turns saved (calls that succeeded only thanks to a tolerated slip or an expanded elision).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from complex_edit.server.eval.record import TaskRecord

SHOWN_IDS = 8


@dataclass(frozen=True)
class Summary:
    tasks: int
    scored: int
    passed: int
    excluded: dict[str, list[str]]
    failures: dict[str, list[str]]
    tool_calls: int
    tool_errors: int
    mean_turns: float
    mean_tool_calls: float
    input_tokens: int
    output_tokens: int
    latency_p50: float
    latency_p95: float
    slips_tolerated: int = 0
    elisions_expanded: int = 0
    elisions_refused: int = 0
    syntax_refusals: int = 0
    turns_saved: int = 0

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.scored if self.scored else None

    @property
    def well_formed_rate(self) -> float | None:
        if not self.tool_calls:
            return None
        return (self.tool_calls - self.tool_errors) / self.tool_calls


def percentile(values: Sequence[float], fraction: float) -> float:
    """Linear interpolation between the closest ranks (numpy's default); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(records: Iterable[TaskRecord]) -> Summary:
    rows = list(records)
    scored = [row for row in rows if row.scored]
    excluded: dict[str, list[str]] = {}
    for row in rows:
        if not row.scored:
            excluded.setdefault(row.excluded or "excluded", []).append(row.task_id)
    failures: dict[str, list[str]] = {}
    for row in scored:
        if not row.passed:
            failures.setdefault(row.reason or "unknown", []).append(row.task_id)
    count = len(rows)
    latencies = [row.latency_seconds for row in rows]
    return Summary(
        tasks=count,
        scored=len(scored),
        passed=sum(row.passed for row in scored),
        excluded=excluded,
        failures=dict(sorted(failures.items(), key=lambda item: (-len(item[1]), item[0]))),
        tool_calls=sum(row.tool_calls for row in rows),
        tool_errors=sum(row.tool_errors for row in rows),
        mean_turns=sum(row.turns for row in rows) / count if count else 0.0,
        mean_tool_calls=sum(row.tool_calls for row in rows) / count if count else 0.0,
        input_tokens=sum(row.input_tokens for row in rows),
        output_tokens=sum(row.output_tokens for row in rows),
        latency_p50=percentile(latencies, 0.5),
        latency_p95=percentile(latencies, 0.95),
        slips_tolerated=sum(row.slips_tolerated for row in rows),
        elisions_expanded=sum(row.elisions_expanded for row in rows),
        elisions_refused=sum(row.elisions_refused for row in rows),
        syntax_refusals=sum(row.syntax_refusals for row in rows),
        turns_saved=sum(row.turns_saved for row in rows),
    )


def _rate(part: int, whole: int) -> str:
    if not whole:
        return f"   n/a  {part}/{whole}"
    return f"{100 * part / whole:5.1f}%  {part}/{whole}"


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:SHOWN_IDS])
    return shown + (f", … {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


def render(
    summary: Summary,
    *,
    suite: str,
    provider: str,
    model: str,
    seconds: float | None = None,
    results: str | None = None,
    thinking: str | None = None,
    cost: tuple[float, str] | None = None,
) -> str:
    """The summary table printed at the end of a run. `thinking`: the thinking level, shown
    beside the model; `cost`: dollars per task and how they were priced."""
    took = f" in {seconds:.1f} s" if seconds is not None else ""
    count = summary.tasks
    mean_in = summary.input_tokens / count if count else 0.0
    mean_out = summary.output_tokens / count if count else 0.0
    rows = [
        ("pass rate", _rate(summary.passed, summary.scored), "result passes the task's test"),
        (
            "well-formed rate",
            _rate(summary.tool_calls - summary.tool_errors, summary.tool_calls),
            "tool calls without errors / all tool calls",
        ),
        ("mean turns", f"{summary.mean_turns:.2f}", "model requests per task"),
        ("mean tool calls", f"{summary.mean_tool_calls:.2f}", "per task"),
        (
            "tokens in / out",
            f"{summary.input_tokens:,} / {summary.output_tokens:,}",
            f"mean {mean_in:,.0f} / {mean_out:,.0f} per task",
        ),
        (
            "latency p50 / p95",
            f"{summary.latency_p50:.2f} s / {summary.latency_p95:.2f} s",
            "one session; tests not included",
        ),
        *([("cost per task", f"${cost[0]:.4f}", cost[1])] if cost is not None else []),
        ("slips tolerated", str(summary.slips_tolerated), "whitespace, indentation, line ends"),
        ("elisions expanded", str(summary.elisions_expanded), "placeholders filled in"),
        ("elisions refused", str(summary.elisions_refused), "placeholders that would delete"),
        ("syntax refusals", str(summary.syntax_refusals), "completions with new syntax errors"),
        ("turns saved", str(summary.turns_saved), "calls that succeeded only thanks to those"),
    ]
    width = max(len(value) for _, value, _ in rows)
    lines = [
        f"complex-edit eval · suite {suite} · provider {provider} · model {model} · "
        f"{f'thinking {thinking} · ' if thinking else ''}"
        f"{count} task{'s' if count != 1 else ''}{took}",
        "",
        *(f"  {name:<18} {value:<{width}}   ({note})" for name, value, note in rows),
    ]
    if summary.excluded:
        total = sum(len(ids) for ids in summary.excluded.values())
        lines += ["", f"  not scored ({total}): the task's reference fails its own test here"]
        lines += [
            f"    {kind:<22} {len(ids):>4}   {_ids(ids)}" for kind, ids in summary.excluded.items()
        ]
    failed = summary.scored - summary.passed
    lines += ["", f"  failures by reason ({failed})"]
    if summary.failures:
        lines += [
            f"    {reason:<22} {len(ids):>4}   {_ids(ids)}"
            for reason, ids in summary.failures.items()
        ]
    else:
        lines.append("    none")
    if results:
        lines += ["", f"  results: {results}"]
    return "\n".join(lines) + "\n"
