"""Progress of an eval run on stderr: a live bar on a terminal, plain periodic lines otherwise."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from complex_edit.server.eval.record import TaskRecord

BAR_WIDTH = 24
LINE_EVERY_SECONDS = 10.0
LINE_EVERY_FRACTION = 0.1
REDRAW_EVERY_SECONDS = 0.1


class Progress:
    def __init__(
        self,
        total: int,
        stream: TextIO,
        *,
        live: bool | None = None,
        quiet: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        self.live = (stream.isatty() if live is None else live) and not quiet
        self._stream = stream
        self._quiet = quiet
        self._clock = clock
        self._start = clock()
        self._last_line_at = self._start
        self._last_line_done = 0
        self._last_draw_at: float | None = None
        self.running = 0
        self.testing = 0
        self.done = 0
        self.passed = 0
        self.failed = 0
        self.excluded = 0

    def started(self, task_id: str) -> None:
        self.running += 1
        if self.live:
            self._draw()

    def session_ended(self, task_id: str) -> None:
        self.running = max(0, self.running - 1)
        self.testing += 1

    def finished(self, record: TaskRecord) -> None:
        self.testing = max(0, self.testing - 1)
        self.done += 1
        if not record.scored:
            self.excluded += 1
        elif record.passed:
            self.passed += 1
        else:
            self.failed += 1
        if self.live:
            self._draw()
        elif not self._quiet:
            self._maybe_line()

    def tick(self) -> None:
        if self.live:
            self._draw()

    def close(self) -> None:
        if self.live:
            self._draw(force=True)
            self._stream.write("\n")
        elif not self._quiet and self.done != self._last_line_done:
            self._stream.write(self.status_line() + "\n")
        self._stream.flush()

    def status_line(self) -> str:
        elapsed = self._clock() - self._start
        parts = [f"{self.done}/{self.total} done", f"{self.passed} passed", f"{self.failed} failed"]
        if self.excluded:
            parts.append(f"{self.excluded} excluded")
        if self.running:
            parts.append(f"{self.running} with the model")
        if self.testing:
            parts.append(f"{self.testing} testing")
        return f"eval: {', '.join(parts)} · {_clock_text(elapsed)}"

    def bar(self) -> str:
        filled = BAR_WIDTH * self.done // self.total if self.total else BAR_WIDTH
        return "█" * filled + "░" * (BAR_WIDTH - filled)

    def _draw(self, *, force: bool = False) -> None:
        now = self._clock()
        last = self._last_draw_at
        if not force and last is not None and now - last < REDRAW_EVERY_SECONDS:
            return
        self._last_draw_at = now
        self._stream.write(f"\r\x1b[K{self.bar()} {self.status_line()}")
        self._stream.flush()

    def _maybe_line(self) -> None:
        now = self._clock()
        step = max(1, round(self.total * LINE_EVERY_FRACTION))
        if (
            self.done == self.total
            or self.done - self._last_line_done >= step
            or now - self._last_line_at >= LINE_EVERY_SECONDS
        ):
            self._last_line_at = now
            self._last_line_done = self.done
            self._stream.write(self.status_line() + "\n")
            self._stream.flush()


def _clock_text(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"
