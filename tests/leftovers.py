"""No process may outlive the test run, whatever a test's outcome.

At the start of the session `mark_run` puts a variable with a value unique to this run in the
environment; every process started afterwards inherits it, however deep (servers started by
pytest-lsp, by Neovim or by the CLI, their session processes, Neovim itself). At the end
`sweep` finds the processes that still carry it, and the live descendants of pytest (a test may
start a child with an environment of its own), waits a moment for the ones already on their
way out, then kills the rest and returns them for the report.

Linux only (it reads /proc); elsewhere it finds nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

MARKER = "COMPLEXEDIT_TEST_RUN"
GRACE_SECONDS = 5.0
_PROC = Path("/proc")


@dataclass(frozen=True)
class Leftover:
    pid: int
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid}: {self.command}"


def mark_run() -> str:
    """Set a new marker for this run (a nested pytest gets its own) and return it."""
    value = uuid.uuid4().hex
    os.environ[MARKER] = value
    return value


def sweep(marker: str, grace: float = GRACE_SECONDS) -> list[Leftover]:
    """Kill what is still running from this run; returns what had to be killed."""
    deadline = time.monotonic() + grace
    while (found := _survivors(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for leftover in found:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(leftover.pid, signal.SIGKILL)
    return found


def _survivors(marker: str) -> list[Leftover]:
    me = os.getpid()
    parents = _parents()
    needle = f"{MARKER}={marker}".encode()
    found = []
    for pid in sorted(parents):
        if pid == me or not running(pid):
            continue
        if _descends_from(pid, me, parents) or needle in _environ(pid):
            found.append(Leftover(pid, _command(pid)))
    return found


def _parents() -> dict[int, int]:
    parents = {}
    for entry in _PROC.glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may contain spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    return parents


def _descends_from(pid: int, ancestor: int, parents: dict[int, int]) -> bool:
    seen = set()
    while pid in parents and pid not in seen:
        seen.add(pid)
        pid = parents[pid]
        if pid == ancestor:
            return True
    return False


def running(pid: int) -> bool:
    """Alive and not a zombie (exited, not yet collected by its parent)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] not in ("Z", "X")


def _environ(pid: int) -> bytes:
    try:
        return (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return b""


def _command(pid: int) -> str:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode("utf-8", "replace").strip()[:200] or "?"
