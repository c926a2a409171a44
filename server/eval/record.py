"""One task's result as written to the results JSONL (one record a line) and read back by the
report. Records never hold the API key: the writer scrubs every line."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from server.eval.sandbox import CheckResult, CheckStatus
from server.outcome import scrub

Exclusion = Literal["broken_reference", "missing_dependency"]


class CallRecord(BaseModel):
    """One tool call as the model sent it and how it went (`summary`: one line)."""

    name: str
    args: dict[str, Any]
    ok: bool | None = None
    summary: str = ""


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
