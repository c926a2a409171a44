"""The eval report: aggregation maths on synthetic records, the table, the JSONL round trip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.eval.record import (
    CallRecord,
    RecordWriter,
    TaskRecord,
    TurnRecord,
    integrity_fields,
    read_records,
)
from complex_edit.server.eval.report import percentile, render, summarize

KEY = "test-key-not-a-secret-0123456789"


def record(task_id: str, **fields: Any) -> TaskRecord:
    values: dict[str, Any] = {
        "suite": "demo",
        "task_id": task_id,
        "provider": "gemini",
        "model": "m",
        "passed": True,
        "scored": True,
    }
    values.update(fields)
    return TaskRecord(**values)


RECORDS = [
    record("t1", turns=2, tool_calls=3, input_tokens=100, output_tokens=10, latency_seconds=1.0),
    record(
        "t2",
        passed=False,
        reason="test_failed",
        turns=3,
        tool_calls=5,
        tool_errors=2,
        input_tokens=300,
        output_tokens=30,
        latency_seconds=2.0,
    ),
    record(
        "t3",
        passed=False,
        reason="max_turns",
        turns=8,
        tool_calls=8,
        tool_errors=4,
        input_tokens=800,
        output_tokens=80,
        latency_seconds=10.0,
    ),
    record(
        "t4",
        passed=False,
        reason="test_failed",
        turns=1,
        tool_calls=1,
        input_tokens=50,
        output_tokens=5,
        latency_seconds=4.0,
    ),
    record(
        "t5",
        passed=False,
        scored=False,
        excluded="broken_reference",
        reason="test_failed",
        turns=2,
        tool_calls=3,
        input_tokens=150,
        output_tokens=15,
        latency_seconds=3.0,
    ),
    record(
        "t6",
        scored=False,
        excluded="missing_dependency",
        turns=2,
        tool_calls=2,
        input_tokens=100,
        output_tokens=10,
        latency_seconds=5.0,
    ),
]


def test_the_pass_rate_counts_scored_tasks_only() -> None:
    summary = summarize(RECORDS)
    assert summary.tasks == 6
    assert summary.scored == 4
    assert summary.passed == 1
    assert summary.pass_rate == pytest.approx(0.25)
    assert summary.excluded == {"broken_reference": ["t5"], "missing_dependency": ["t6"]}


def test_failures_are_grouped_by_reason_largest_group_first() -> None:
    summary = summarize(RECORDS)
    assert summary.failures == {"test_failed": ["t2", "t4"], "max_turns": ["t3"]}
    assert list(summary.failures) == ["test_failed", "max_turns"]


def test_well_formed_rate_is_calls_without_errors_over_all_calls() -> None:
    summary = summarize(RECORDS)
    assert summary.tool_calls == 22
    assert summary.tool_errors == 6
    assert summary.well_formed_rate == pytest.approx(16 / 22)


def test_means_and_tokens_cover_every_task() -> None:
    summary = summarize(RECORDS)
    assert summary.mean_turns == pytest.approx(18 / 6)
    assert summary.mean_tool_calls == pytest.approx(22 / 6)
    assert summary.input_tokens == 1500
    assert summary.output_tokens == 150


def test_latency_percentiles_interpolate_between_ranks() -> None:
    summary = summarize(RECORDS)
    # sorted: 1, 2, 3, 4, 5, 10
    assert summary.latency_p50 == pytest.approx(3.5)
    assert summary.latency_p95 == pytest.approx(5 + 0.75 * 5)


@pytest.mark.parametrize(
    ("values", "fraction", "expected"),
    [
        ([], 0.5, 0.0),
        ([7.0], 0.95, 7.0),
        ([1.0, 2.0], 0.5, 1.5),
        ([3.0, 1.0, 2.0], 0.5, 2.0),
        ([float(n) for n in range(1, 101)], 0.95, 95.05),
        ([1.0, 2.0, 3.0], 1.0, 3.0),
        ([1.0, 2.0, 3.0], 0.0, 1.0),
    ],
)
def test_percentile(values: list[float], fraction: float, expected: float) -> None:
    assert percentile(values, fraction) == pytest.approx(expected)


def test_an_empty_run_has_no_rates() -> None:
    summary = summarize([])
    assert summary.pass_rate is None
    assert summary.well_formed_rate is None
    assert summary.mean_turns == 0.0
    assert summary.latency_p95 == 0.0
    assert "n/a" in render(summary, suite="demo", provider="gemini", model="m")


def test_a_run_without_failures_says_so() -> None:
    summary = summarize([RECORDS[0]])
    assert summary.pass_rate == 1.0
    assert summary.failures == {}
    table = render(summary, suite="demo", provider="gemini", model="m")
    assert "failures by reason (0)\n    none" in table
    assert "not scored" not in table


def test_the_table_shows_every_measure() -> None:
    table = render(
        summarize(RECORDS),
        suite="demo",
        provider="gemini",
        model="m",
        seconds=12.34,
        results="out/results.jsonl",
    )
    lines = table.splitlines()
    assert lines[0] == (
        "complex-edit eval · suite demo · provider gemini · model m · 6 tasks in 12.3 s"
    )
    for expected in (
        "pass rate           25.0%  1/4",
        "well-formed rate    72.7%  16/22",
        "mean turns         3.00",
        "mean tool calls    3.67",
        "tokens in / out    1,500 / 150",
        "mean 250 / 25 per task",
        "latency p50 / p95  3.50 s / 8.75 s",
        "not scored (2)",
        "broken_reference          1   t5",
        "missing_dependency        1   t6",
        "failures by reason (3)",
        "test_failed               2   t2, t4",
        "max_turns                 1   t3",
        "results: out/results.jsonl",
    ):
        assert expected in table, expected


def test_long_lists_of_task_ids_are_cut() -> None:
    failing = [record(f"t{n}", passed=False, reason="test_failed") for n in range(20)]
    table = render(summarize(failing), suite="demo", provider="gemini", model="m")
    assert "t0, t1, t2, t3, t4, t5, t6, t7, … 12 more" in table


def test_records_round_trip_through_jsonl_without_the_api_key(tmp_path: Path) -> None:
    env = {"GEMINI_API_KEY": KEY}
    leaky = record(
        "t1", error=f"the service said: bad key {KEY}", final_text=f"API_KEY = '{KEY}'\n"
    )
    path = tmp_path / "sub" / "results.jsonl"
    with RecordWriter(path, env) as writer:
        for row in [leaky, *RECORDS[1:]]:
            writer.write(row)
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    assert "[redacted]" in text
    assert len(text.splitlines()) == 6
    assert all(json.loads(line)["suite"] == "demo" for line in text.splitlines())
    again = list(read_records(path))
    assert summarize(again) == summarize([leaky, *RECORDS[1:]])


def test_integrity_counts_are_summed_over_tasks_and_shown() -> None:
    rows = [
        record("t1", slips_tolerated=3, elisions_expanded=1, turns_saved=3),
        record("t2", elisions_refused=2, syntax_refusals=1, turns_saved=1),
        record("t3"),
    ]
    summary = summarize(rows)
    assert (summary.slips_tolerated, summary.elisions_expanded, summary.elisions_refused) == (
        3,
        1,
        2,
    )
    assert (summary.syntax_refusals, summary.turns_saved) == (1, 4)
    table = render(summary, suite="demo", provider="gemini", model="m")
    for expected in (
        "slips tolerated    3 ",
        "elisions expanded  1 ",
        "elisions refused   2 ",
        "syntax refusals    1 ",
        "turns saved        4 ",
    ):
        assert expected in table, expected


def test_integrity_fields_count_kinds_and_calls_saved() -> None:
    counts = {
        "indentation": 2,
        "tabs": 1,
        "line_endings": 1,
        "elision_expanded": 1,
        "elision_refused": 1,
        "syntax_refused": 2,
    }
    turns = [
        TurnRecord(
            turn=1,
            calls=[
                CallRecord(name="replace_text", args={}, ok=True, adjustments=["indentation"]),
                CallRecord(
                    name="replace_text", args={}, ok=True, adjustments=["indentation", "tabs"]
                ),
                CallRecord(name="set_document", args={}, ok=False),
            ],
        ),
        TurnRecord(
            turn=2,
            calls=[
                CallRecord(name="replace_text", args={}, ok=True),
                CallRecord(name="set_document", args={}, ok=True, adjustments=["elision_expanded"]),
                CallRecord(name="replace_text", args={}, ok=True, adjustments=["line_endings"]),
            ],
        ),
    ]
    row = record("t1", **integrity_fields(counts, turns))
    assert row.integrity == counts
    assert row.slips_tolerated == 4
    assert (row.elisions_expanded, row.elisions_refused, row.syntax_refusals) == (1, 1, 2)
    assert row.turns_saved == 4  # one a call that succeeded adjusted, however many kinds


def test_a_record_written_before_the_integrity_fields_still_loads(tmp_path: Path) -> None:
    old = record("t1").model_dump(mode="json")
    for field in (
        "integrity",
        "slips_tolerated",
        "elisions_expanded",
        "elisions_refused",
        "syntax_refusals",
        "turns_saved",
    ):
        del old[field]
    old["transcript"] = [{"turn": 1, "calls": [{"name": "get_document", "args": {}, "ok": True}]}]
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(old) + "\n", encoding="utf-8")
    (again,) = read_records(path)
    assert again.integrity == {}
    assert again.turns_saved == again.slips_tolerated == 0
    assert again.transcript[0].calls[0].adjustments == []
    assert summarize([again]).turns_saved == 0


def test_the_transcript_matches_a_completion_reported_after_the_turn() -> None:
    from complex_edit.server.eval.transcript import Transcript
    from complex_edit.server.providers.base import ModelTurn, ToolCall
    from complex_edit.server.session.events import ToolFinished

    transcript = Transcript()
    transcript.model_turn(
        ModelTurn(calls=[ToolCall("complete_task", {"success": True}), ToolCall("undo", {})])
    )
    transcript.on_event(ToolFinished(1, 8, "undo", False, "undo: nothing to undo"))
    transcript.on_event(ToolFinished(1, 8, "complete_task", False, "complete_task: refused: x"))
    completion, undo = transcript.turns[0].calls
    assert (completion.ok, completion.summary) == (False, "complete_task: refused: x")
    assert (undo.ok, undo.summary) == (False, "undo: nothing to undo")
    assert transcript.tool_errors == 2
