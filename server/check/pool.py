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
from collections.abc import Coroutine
from typing import Any

from complex_edit.server.check.client import CheckerProcess
from complex_edit.server.check.discovery import Checker

log = logging.getLogger("complex_edit.check")
# Checkers kept running at once (a basedpyright takes ~150 MB): past this, the one used least
# recently is stopped (a server whose user switches between many projects).
MAX_WARM = 6


class Entry:
    def __init__(self, process: CheckerProcess) -> None:
        self.process = process
        self.lock = asyncio.Lock()
        self.started: asyncio.Future[None] = asyncio.ensure_future(process.start())


class CheckerPool:
    def __init__(self) -> None:
        # By (name, argv, root), least recently used first.
        self._entries: dict[tuple[str, tuple[str, ...], str], Entry] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._closed = False

    def warm(self, checker: Checker, root: str) -> Entry:
        """The entry of `checker` for `root`, started now unless it runs (a dead one is
        started again)."""
        if self._closed:
            raise RuntimeError("the checkers are stopped")
        key = (checker.name, checker.argv, root)
        entry = self._entries.pop(key, None)
        if entry is not None and entry.started.done() and not _usable(entry):
            entry.process.kill()
            entry = None
        if entry is None:
            self._make_room()
            process = CheckerProcess(checker.argv, root, checker.options)
            entry = Entry(process)
            entry.started.add_done_callback(_quiet)
        self._entries[key] = entry
        return entry

    def _make_room(self) -> None:
        idle = [key for key, entry in self._entries.items() if not entry.lock.locked()]
        while len(self._entries) >= MAX_WARM and idle:
            entry = self._entries.pop(idle.pop(0))
            self.background(entry.process.stop())

    def background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` on its own; `close` waits for it."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def running(self, checker: Checker, root: str) -> Entry | None:
        """The entry of `checker` for `root` if its process runs (none is started)."""
        entry = self._entries.get((checker.name, checker.argv, root))
        return entry if entry is not None and entry.process.alive else None

    async def close(self) -> None:
        """Stop every checker (shutdown, exit; killed when slow) and start none afterwards."""
        self._closed = True
        entries, self._entries = list(self._entries.values()), {}
        for entry in entries:
            entry.started.cancel()
        stops = [entry.process.stop() for entry in entries]
        await asyncio.gather(*stops, *self._background, return_exceptions=True)

    def kill_now(self) -> None:
        """Kill every checker at once (a server leaving without its event loop)."""
        self._closed = True
        for entry in self._entries.values():
            entry.process.kill()

    def pids(self) -> list[int]:
        """The process ids of the checkers running (tests)."""
        return [
            pid
            for entry in self._entries.values()
            if entry.process.alive and (pid := entry.process.pid) is not None
        ]


def _usable(entry: Entry) -> bool:
    if entry.started.cancelled() or entry.started.exception() is not None:
        return False
    return entry.process.alive


def _quiet(started: asyncio.Future[None]) -> None:
    """A start that failed is reported by the check that waits for it."""
    with contextlib.suppress(asyncio.CancelledError, Exception):
        started.exception()
