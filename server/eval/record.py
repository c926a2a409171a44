"""One task's result as written to the results JSONL (one record a line) and read back by the
report. Records never hold the API key: the writer scrubs every line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from complex_edit.server.eval.sandbox import CheckResult, CheckStatus
from complex_edit.server.outcome import scrub

Exclusion = Literal["broken_reference", "missing_dependency"]
# The tools' adjustments to a model's slip (`ToolOutcome.adjustments`, elision expansion aside).
SLIPS = (
    "indentation",
    "tabs",
    "trailing_whitespace",
    "final_newline",
    "line_endings",
    "line_numbers",
    "blank_lines",
    "escapes",
)


class CallRecord(BaseModel):
    """One tool call as the model sent it and how it went (`summary`: one line)."""

    name: str
    args: dict[str, Any]
    ok: bool | None = None
    summary: str = ""
    adjustments: list[str] = []
    """What the tool adapted to carry the call out (a tolerated slip, an expanded elision)."""


class TurnRecord(BaseModel):
    """One model reply: its calls, or the `problem` that made it unusable."""

    turn: int
    calls: list[CallRecord] = []
    problem: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0


class CheckRecord(BaseModel):
    status: CheckStatus
    seconds: float
    exit_code: int | None
    stderr_tail: str
    attempts: int = 1

    @classmethod
    def of(cls, result: CheckResult) -> CheckRecord:
        return cls(
            status=result.status,
            seconds=round(result.seconds, 3),
            exit_code=result.exit_code,
            stderr_tail=result.stderr_tail,
            attempts=result.attempts,
        )


class TaskRecord(BaseModel):
    """`passed`: the model's result passed the task's test. `scored`: the task counts in the
    pass rate (its reference passes its own test here); otherwise `excluded` says why.
    `reason`: why a failed task failed, a session `reason` code or `test_<status>`."""

    model_config = ConfigDict(extra="ignore")

    suite: str
    task_id: str
    provider: str
    model: str
    thinking_level: str | None = None
    """The `thinkingLevel` setting of the run (None: not sent, the model's own default)."""
    passed: bool
    scored: bool
    excluded: Exclusion | None = None
    excluded_detail: str | None = None
    reason: str | None = None
    error: str | None = None
    message: str | None = None
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    latency_seconds: float = 0.0
    final_text: str | None = None
    transcript: list[TurnRecord] = []
    check: CheckRecord | None = None
    reference_check: CheckRecord | None = None
    integrity: dict[str, int] = {}
    """The session's counts by kind (`SessionOutcome.integrity`); the five below sum them up:
    `slips_tolerated` (the `SLIPS` kinds), elisions expanded and refused, completions refused
    for new syntax errors, and `turns_saved`: calls that succeeded only thanks to a tolerated
    slip or an expanded elision, each a turn the model would otherwise have spent."""
    slips_tolerated: int = 0
    elisions_expanded: int = 0
    elisions_refused: int = 0
    syntax_refusals: int = 0
    turns_saved: int = 0


def integrity_fields(counts: Mapping[str, int], turns: Iterable[TurnRecord]) -> dict[str, Any]:
    """The record's integrity fields from the outcome's counts by kind and the transcript
    (its calls that succeeded with an adjustment are the turns saved)."""
    return {
        "integrity": dict(counts),
        "slips_tolerated": sum(counts.get(kind, 0) for kind in SLIPS),
        "elisions_expanded": counts.get("elision_expanded", 0),
        "elisions_refused": counts.get("elision_refused", 0),
        "syntax_refusals": counts.get("syntax_refused", 0),
        "turns_saved": sum(
            1 for turn in turns for call in turn.calls if call.ok and call.adjustments
        ),
    }


class RecordWriter:
    """Appends records to a JSONL file, one flushed line each, with API keys scrubbed."""

    def __init__(self, path: Path, env: Mapping[str, str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed in close())
        self._env = env

    def write(self, record: TaskRecord) -> None:
        self._file.write(scrub(record.model_dump_json(), self._env) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def read_records(path: Path) -> Iterator[TaskRecord]:
    with open(path, encoding="utf-8") as file:
        for line in file:
            if line.strip():
                yield TaskRecord.model_validate(json.loads(line))
