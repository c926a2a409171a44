"""Runs side by side, to pick a model and a thinking level with evidence: one row per results
file (its model and thinking level), and the cost per task from the usage at the prices given.

Prices are the user's (`--price [MODEL=]IN/OUT`, US dollars per million input / output tokens):
they change too often to be built in. Cached input tokens are counted at the input price, so a
cost is an upper bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from complex_edit.server.eval.record import TaskRecord
from complex_edit.server.eval.report import Summary, summarize


class PriceError(ValueError):
    """A `--price` value that cannot be read; the message says how to write one."""


@dataclass(frozen=True)
class Price:
    """US dollars per million input tokens and per million output tokens."""

    input: float
    output: float

    def of(self, input_tokens: float, output_tokens: float) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


_PRICE = re.compile(r"(?:(?P<model>[^=\s]+)=)?(?P<input>[0-9.]+)/(?P<output>[0-9.]+)")


def parse_prices(values: Iterable[str]) -> dict[str | None, Price]:
    """`0.5/3` (every model) or `gemini-3.8-flash=0.5/3`, by model (None: every model)."""
    prices: dict[str | None, Price] = {}
    for value in values:
        match = _PRICE.fullmatch(value.strip())
        if match is None:
            raise PriceError(
                f"--price {value!r}: write IN/OUT or MODEL=IN/OUT, US dollars per million "
                "input and output tokens (e.g. gemini-3.8-flash=0.5/3)."
            )
        try:
            price = Price(float(match["input"]), float(match["output"]))
        except ValueError:
            raise PriceError(f"--price {value!r}: the prices must be numbers.") from None
        prices[match["model"]] = price
    return prices


def price_for(prices: Mapping[str | None, Price], model: str) -> Price | None:
    return prices.get(model, prices.get(None))


def cost_per_task(summary: Summary, price: Price | None) -> float | None:
    if price is None or not summary.tasks:
        return None
    return price.of(summary.input_tokens, summary.output_tokens) / summary.tasks


@dataclass(frozen=True)
class Run:
    """One results file: its label and what it measured."""

    source: str
    model: str
    thinking: str
    summary: Summary

    @classmethod
    def of(cls, source: str, records: Sequence[TaskRecord]) -> Run:
        first = records[0]
        thinking = first.thinking_level or "default"
        return cls(source, first.model, thinking, summarize(records))


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def render_comparison(runs: Sequence[Run], prices: Mapping[str | None, Price]) -> str:
    """One line per run, best pass rate first."""
    header = (
        "model",
        "thinking",
        "pass rate",
        "well-formed",
        "turns",
        "tokens in/out per task",
        "latency p50/p95",
        "cost per task",
        "tasks",
    )
    rows = []
    for run in sorted(runs, key=lambda r: -(r.summary.pass_rate or 0.0)):
        s = run.summary
        per_in = s.input_tokens / s.tasks if s.tasks else 0.0
        per_out = s.output_tokens / s.tasks if s.tasks else 0.0
        cost = cost_per_task(s, price_for(prices, run.model))
        rows.append(
            (
                run.model,
                run.thinking,
                f"{_percent(s.passed, s.scored)} ({s.passed}/{s.scored})",
                _percent(s.tool_calls - s.tool_errors, s.tool_calls),
                f"{s.mean_turns:.2f}",
                f"{per_in:,.0f} / {per_out:,.0f}",
                f"{s.latency_p50:.1f} s / {s.latency_p95:.1f} s",
                f"${cost:.4f}" if cost is not None else "n/a",
                str(s.tasks),
            )
        )
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    count = f"{len(runs)} run{'' if len(runs) == 1 else 's'}"
    lines = [f"complex-edit eval · comparison of {count}", ""]
    for row in (header, *rows):
        lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    if any(price_for(prices, run.model) is None for run in runs):
        lines += ["", "  cost per task: give --price MODEL=IN/OUT (US dollars per 1M tokens)"]
    return "\n".join(lines).rstrip() + "\n"
