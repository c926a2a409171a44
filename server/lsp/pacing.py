"""At most one delivery per interval, the latest value winning: the pace of a command's progress
reports and of its live previews, so a busy session floods neither the editor nor the event
loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Latest(Generic[T]):
    """Delivers offered values through `deliver`, at most one per `interval` seconds; a value
    offered while one waits replaces it."""

    def __init__(self, deliver: Callable[[T], None], interval: float) -> None:
        self._deliver = deliver
        self._interval = interval
        self._pending: T | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._last_sent = float("-inf")

    def offer(self, value: T) -> None:
        """Deliver `value` now, or once the interval since the last delivery is up."""
        self._pending = value
        if self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_sent + self._interval - loop.time()
        if wait <= 0:
            self._flush()
        else:
            self._timer = loop.call_later(wait, self._flush)

    def flush(self) -> None:
        """Deliver the waiting value, if any, now."""
        if self._timer is not None:
            self._timer.cancel()
            self._flush()

    def drop(self) -> None:
        """Forget the waiting value, if any."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pending = None

    def _flush(self) -> None:
        self._timer = None
        value, self._pending = self._pending, None
        if value is None:
            return
        self._last_sent = asyncio.get_running_loop().time()
        self._deliver(value)
