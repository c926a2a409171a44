"""Runs a suite: each task through `run_tool_loop` (the server's own session code, no editor),
then its test on the result, and its test on the reference (to tell a broken task from a
failed edit), with bounded concurrency for both."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from complex_edit.server.eval.record import CheckRecord, Exclusion, TaskRecord, integrity_fields
from complex_edit.server.eval.sandbox import CheckResult, CheckStatus, Limits, run_check
from complex_edit.server.eval.suite import Task
from complex_edit.server.eval.transcript import RecordingProvider, Transcript
from complex_edit.server.outcome import Reason, SessionOutcome
from complex_edit.server.providers.base import Provider
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings

# Session failures that no other task can escape: the run stops at the first one.
ABORT_REASONS: frozenset[Reason] = frozenset({"config", "auth"})
TICK_SECONDS = 0.5
# Check outcomes worth a second run (alone): a busy machine can flip timing assertions.
RETRIED: frozenset[CheckStatus] = frozenset({"failed", "timeout"})


class EvalAborted(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class Listener(Protocol):
    live: bool

    def started(self, task_id: str) -> None: ...

    def session_ended(self, task_id: str) -> None: ...

    def finished(self, record: TaskRecord) -> None: ...

    def tick(self) -> None: ...


@dataclass(frozen=True)
class EvalOptions:
    concurrency: int = 4
    check_concurrency: int = field(default_factory=lambda: max(1, os.cpu_count() or 1))
    limits: Limits = field(default_factory=Limits)
    python: str | None = None


def edit_request(task: Task, settings: Settings) -> EditRequest:
    return EditRequest(
        instruction=task.instruction, text=task.input, settings=settings, language=task.language
    )


class Checker:
    """Runs check programs in the sandbox, a bounded number at a time.

    A program already run (the reference, when the model produced exactly it) is not run
    again. A run that fails or times out is run once more with no other test running, and the
    better of the two counts: tests that time their code are noisy on a busy machine.
    """

    def __init__(self, options: EvalOptions) -> None:
        self._options = options
        self._slots = asyncio.Semaphore(options.check_concurrency)
        self._alone = asyncio.Lock()
        self._runs: dict[str, asyncio.Task[CheckResult]] = {}

    async def check(self, program: str) -> CheckResult:
        run = self._runs.get(program)
        if run is None:
            run = asyncio.ensure_future(self._run(program))
            self._runs[program] = run
        return await asyncio.shield(run)

    async def _run(self, program: str) -> CheckResult:
        options = self._options
        async with self._slots:
            first = await run_check(program, options.limits, options.python)
        if first.status not in RETRIED or first.missing_module:
            return first
        async with self._alone:
            held = 0
            try:
                for _ in range(options.check_concurrency):
                    await self._slots.acquire()
                    held += 1
                second = await run_check(program, options.limits, options.python)
            finally:
                for _ in range(held):
                    self._slots.release()
        return dataclasses.replace(second if second.passed else first, attempts=2)

    async def close(self) -> None:
        for run in self._runs.values():
            run.cancel()
        for run in self._runs.values():
            with contextlib.suppress(BaseException):
                await run


async def run_eval(
    suite_name: str,
    tasks: Sequence[Task],
    settings: Settings,
    provider: Provider,
    options: EvalOptions,
    on_record: Callable[[TaskRecord], None],
    listener: Listener | None = None,
) -> list[TaskRecord]:
    """Run every task; `on_record` gets each record as it completes. Raises EvalAborted when a
    session fails for a reason no task can escape (no key, refused key)."""
    checker = Checker(options)
    sessions = asyncio.Semaphore(options.concurrency)
    records: list[TaskRecord] = []

    async def one(task: Task) -> None:
        async with sessions:
            if listener is not None:
                listener.started(task.task_id)
            transcript = Transcript()
            started = time.monotonic()
            outcome = await run_tool_loop(
                edit_request(task, settings),
                RecordingProvider(provider, transcript),
                transcript.on_event,
            )
            latency = time.monotonic() - (transcript.opened_at or started)
        if outcome.reason in ABORT_REASONS:
            raise EvalAborted(outcome.reason or "config", outcome.error or "")
        if listener is not None:
            listener.session_ended(task.task_id)
        final = outcome.final_text if outcome.success else None
        reference_result, check = await asyncio.gather(
            _optional(None if task.broken_reference else checker.check(task.program(task.output))),
            _optional(None if final is None else checker.check(task.program(final))),
        )
        record = build_record(
            suite_name, task, settings, outcome, transcript, latency, check, reference_result
        )
        records.append(record)
        on_record(record)
        if listener is not None:
            listener.finished(record)

    ticker = asyncio.ensure_future(_tick(listener)) if listener and listener.live else None
    try:
        async with asyncio.TaskGroup() as group:
            for task in tasks:
                group.create_task(one(task))
    except* EvalAborted as aborted:
        raise aborted.exceptions[0] from None
    except* OSError as failed:  # the results file could not be written
        raise failed.exceptions[0] from None
    finally:
        if ticker is not None:
            ticker.cancel()
        await checker.close()
    return records


async def _optional(check: Awaitable[CheckResult] | None) -> CheckResult | None:
    return None if check is None else await check


async def _tick(listener: Listener) -> None:
    while True:
        await asyncio.sleep(TICK_SECONDS)
        listener.tick()


def build_record(
    suite_name: str,
    task: Task,
    settings: Settings,
    outcome: SessionOutcome,
    transcript: Transcript,
    latency: float,
    check: CheckResult | None,
    reference: CheckResult | None,
) -> TaskRecord:
    """The record of one task; `reference` is None for a task known to be broken."""
    passed = outcome.success and check is not None and check.passed
    reason: str | None = None
    error: str | None = None
    if not outcome.success:
        reason, error = outcome.reason or "model_error", outcome.error
    elif check is None:
        reason, error = "model_error", "The session succeeded without a final text."
    elif not check.passed:
        reason, error = f"test_{check.status}", last_line(check.stderr_tail) or check.status
    excluded: Exclusion | None = None
    detail = None
    if task.broken_reference is not None:
        excluded, detail = "broken_reference", task.broken_reference
    elif reference is not None and not reference.passed:
        missing = reference.missing_module
        excluded = "missing_dependency" if missing else "broken_reference"
        detail = (
            f"the check needs module {missing!r}, not installed for the check interpreter"
            if missing
            else f"the reference fails its own test ({reference.status}: "
            f"{last_line(reference.stderr_tail) or 'no error output'})"
        )
    usage = outcome.usage
    return TaskRecord(
        suite=suite_name,
        task_id=task.task_id,
        provider=settings.provider,
        model=settings.model,
        thinking_level=settings.thinking_level,
        passed=passed,
        scored=excluded is None,
        excluded=excluded,
        excluded_detail=detail,
        reason=reason,
        error=error,
        message=outcome.message,
        turns=outcome.turns,
        tool_calls=outcome.tool_calls,
        tool_errors=transcript.tool_errors,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_tokens=usage.cached_tokens,
        latency_seconds=round(latency, 3),
        final_text=outcome.final_text,
        transcript=transcript.turns,
        check=CheckRecord.of(check) if check is not None else None,
        reference_check=CheckRecord.of(reference) if reference is not None else None,
        **integrity_fields(outcome.integrity, transcript.turns),
    )


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
