"""Checkers kept warm: one process per (checker, workspace root), started on first use,
restarted when it died, used by one check at a time, and all stopped by `close` (the language
server's session process and `complex-edit mcp` keep one pool for their whole life; the CLI
one per run).

A checker's process gets its own session (no terminal signal meant for the server reaches
it), the server's process id in `initialize` (language servers exit when it is gone) and a
pipe as stdin (they exit when it closes): none outlives the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from complex_edit.server.check.client import CheckerProcess
from complex_edit.server.check.discovery import Checker

log = logging.getLogger("complex_edit.check")


class _Entry:
    def __init__(self, process: CheckerProcess) -> None:
        self.process = process
        self.lock = asyncio.Lock()
        self.started: asyncio.Future[None] = asyncio.ensure_future(process.start())


class CheckerPool:
    def __init__(self) -> None:
        self._entries: dict[tuple[Checker, str], _Entry] = {}
        self._closed = False

    def warm(self, checker: Checker, root: str) -> _Entry:
        """The entry of `checker` for `root`, started now unless it runs (a dead one is
        started again)."""
        if self._closed:
            raise RuntimeError("the checkers are stopped")
        key = (checker, root)
        entry = self._entries.get(key)
        if entry is not None and entry.started.done() and not _usable(entry):
            entry.process.kill()
            entry = None
        if entry is None:
            process = CheckerProcess(checker.argv, root, checker.options)
            entry = self._entries[key] = _Entry(process)
            entry.started.add_done_callback(_quiet)
        return entry

    async def close(self) -> None:
        """Stop every checker (shutdown, exit; killed when slow) and start none afterwards."""
        self._closed = True
        entries, self._entries = list(self._entries.values()), {}
        for entry in entries:
            entry.started.cancel()
        await asyncio.gather(*(entry.process.stop() for entry in entries), return_exceptions=True)

    def pids(self) -> list[int]:
        """The process ids of the checkers running (tests)."""
        return [
            pid
            for entry in self._entries.values()
            if entry.process.alive and (pid := entry.process.pid) is not None
        ]


def _usable(entry: _Entry) -> bool:
    if entry.started.cancelled() or entry.started.exception() is not None:
        return False
    return entry.process.alive


def _quiet(started: asyncio.Future[None]) -> None:
    """A start that failed is reported by the check that waits for it."""
    with contextlib.suppress(asyncio.CancelledError, Exception):
        started.exception()
