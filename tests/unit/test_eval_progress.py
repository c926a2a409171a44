"""Eval progress on stderr: a live bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import io

from complex_edit.server.eval.progress import Progress
from complex_edit.server.eval.record import TaskRecord


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def record(task_id: str, *, passed: bool = True, scored: bool = True) -> TaskRecord:
    return TaskRecord(
        suite="s", task_id=task_id, provider="p", model="m", passed=passed, scored=scored
    )


def run_tasks(progress: Progress, clock: Clock, count: int) -> None:
    for number in range(count):
        progress.started(f"t{number}")
        progress.session_ended(f"t{number}")
        clock.now += 0.5
        progress.finished(record(f"t{number}", passed=number % 4 != 0, scored=number != 5))


def test_without_a_terminal_it_prints_a_line_every_tenth_and_at_the_end() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(20, stream, live=False, clock=clock)
    run_tasks(progress, clock, 20)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert [line.split(" done")[0] for line in lines] == [f"eval: {n}/20" for n in range(2, 21, 2)]
    assert lines[-1] == "eval: 20/20 done, 14 passed, 5 failed, 1 excluded · 0:10"
    assert "\r" not in stream.getvalue()


def test_a_slow_run_still_reports_every_ten_seconds() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(1000, stream, live=False, clock=clock)
    progress.started("t0")
    clock.now += 11
    progress.session_ended("t0")
    progress.finished(record("t0"))
    assert stream.getvalue() == "eval: 1/1000 done, 1 passed, 0 failed · 0:11\n"


def test_on_a_terminal_it_redraws_one_line_with_a_bar() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(4, stream, live=True, clock=clock)
    progress.started("t0")
    progress.started("t1")  # within 0.1 s of the last draw: skipped
    clock.now += 0.2
    progress.session_ended("t0")
    progress.finished(record("t0"))
    progress.close()
    frames = stream.getvalue().split("\r\x1b[K")[1:]
    assert frames[0] == "░" * 24 + " eval: 0/4 done, 0 passed, 0 failed, 1 with the model · 0:00"
    assert frames[1].startswith("██████" + "░" * 18 + " eval: 1/4 done, 1 passed, 0 failed")
    assert "1 with the model" in frames[1]
    assert stream.getvalue().endswith("\n")
    assert len(frames) == 3


def test_quiet_prints_nothing() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(3, stream, live=True, quiet=True, clock=clock)
    assert not progress.live
    run_tasks(progress, clock, 3)
    progress.tick()
    progress.close()
    assert stream.getvalue() == ""
