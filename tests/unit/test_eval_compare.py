"""Choosing a model with evidence (issue 20 item 5): the thinking level beside the model, the cost
per task from the usage at the user's prices, and runs compared side by side."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.eval.compare import (
    Price,
    PriceError,
    Run,
    parse_prices,
    render_comparison,
)
from complex_edit.server.eval.record import RecordWriter, TaskRecord
from complex_edit.server.eval.report import render, summarize


def record(task_id: str, model: str, level: str | None, **fields: Any) -> TaskRecord:
    values: dict[str, Any] = {
        "suite": "demo",
        "task_id": task_id,
        "provider": "gemini",
        "model": model,
        "thinking_level": level,
        "passed": True,
        "scored": True,
        "turns": 2,
        "tool_calls": 3,
        "input_tokens": 4_000,
        "output_tokens": 500,
        "latency_seconds": 3.0,
    }
    values.update(fields)
    return TaskRecord(**values)


FAST = [record("t1", "gemini-3.7-flash", "low"), record("t2", "gemini-3.7-flash", "low")]
SLOW = [
    record("t1", "gemini-3.8-flash", None, latency_seconds=9.0),
    record("t2", "gemini-3.8-flash", None, passed=False, reason="test_failed"),
]


def test_prices_for_every_model_or_one() -> None:
    prices = parse_prices(["0.5/3", "gemini-3.7-flash=0.25/1.5"])
    assert prices == {None: Price(0.5, 3.0), "gemini-3.7-flash": Price(0.25, 1.5)}
    assert Price(0.5, 3.0).of(4_000, 500) == pytest.approx(0.0035)
    with pytest.raises(PriceError, match="MODEL=IN/OUT"):
        parse_prices(["cheap"])


def test_the_report_shows_the_thinking_level_and_the_cost() -> None:
    table = render(
        summarize(FAST),
        suite="demo",
        provider="gemini",
        model="gemini-3.7-flash",
        thinking="low",
        cost=(0.0035, "at $0.5 / $3 per 1M tokens in / out (--price)"),
    )
    assert table.startswith(
        "complex-edit eval · suite demo · provider gemini · model gemini-3.7-flash · "
        "thinking low · 2 tasks"
    )
    assert "cost per task      $0.0035" in table


def test_runs_compared_best_pass_rate_first() -> None:
    runs = [Run.of("slow.jsonl", SLOW), Run.of("fast.jsonl", FAST)]
    table = render_comparison(runs, parse_prices(["gemini-3.7-flash=0.25/1.5"]))
    lines = table.splitlines()
    assert lines[0] == "complex-edit eval · comparison of 2 runs"
    assert lines[2].split() == [
        "model", "thinking", "pass", "rate", "well-formed", "turns", "tokens", "in/out", "per",
        "task", "latency", "p50/p95", "cost", "per", "task", "tasks",
    ]  # fmt: skip
    assert lines[3].split()[:4] == ["gemini-3.7-flash", "low", "100.0%", "(2/2)"]
    assert "$0.0018" in lines[3]
    assert lines[4].split()[:4] == ["gemini-3.8-flash", "default", "50.0%", "(1/2)"]
    assert "n/a" in lines[4]
    assert "give --price MODEL=IN/OUT" in table


def test_the_cli_compares_results_files(tmp_path: Path) -> None:
    paths = []
    for name, records in (("fast", FAST), ("slow", SLOW)):
        path = tmp_path / f"{name}.jsonl"
        with RecordWriter(path, {}) as writer:
            for item in records:
                writer.write(item)
        paths.append(str(path))
    command = [sys.executable, "-m", "complex_edit", "eval"]
    compared = subprocess.run(
        [*command, "--compare", *paths, "--price", "0.5/3"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GEMINI_API_KEY": ""},
    )
    assert compared.returncode == 0, compared.stderr
    assert "gemini-3.7-flash  low" in compared.stdout
    reported = subprocess.run(
        [*command, "--report", paths[0], "--price", "0.5/3"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert reported.returncode == 0, reported.stderr
    assert "model gemini-3.7-flash · thinking low · 2 tasks" in reported.stdout
    assert "cost per task" in reported.stdout
    bad = subprocess.run([*command, "--compare", paths[0], "--price", "x"], capture_output=True)
    assert bad.returncode == 2
