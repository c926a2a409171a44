"""Sessions run in a child process (`server/session_worker.py`), so the language server's own
interpreter only does protocol work.

A session spends 10–50 ms of CPU between two awaits (the first message, the SDK building a
request and parsing the answer, tools on large texts), much of it in C calls that hold the
GIL. In the server's process, twenty sessions whose model turns come back together would keep
every other request waiting behind that work, on the event loop or for the GIL; in a child
they run on their own interpreter (and on another core when there is one).

The child is started once (after `initialized`, or by the first command) and restarted if it
dies; the sessions it was running then fail as internal errors. It exits with the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.session_worker import encode_frame, read_frame

if TYPE_CHECKING:
    from server.command import SessionResult
    from server.events import EventSink
    from server.providers.base import Provider
    from server.session import EditRequest

log = logging.getLogger("complex_edit.sessions")
# The child imports this checkout's packages, whatever the server's working directory holds.
_ROOT = str(Path(__file__).resolve().parent.parent)
_BOOT = f"import sys; sys.path.insert(0, {_ROOT!r}); from server.session_worker import main; main()"
_READ_LIMIT = 2**24


class SessionProcessError(RuntimeError):
    """The child failed to run a session (a bug in it, or it exited)."""


class _Child:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pending: dict[int, tuple[asyncio.Future[SessionResult], EventSink]] = {}
        self.exited = False
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def spawn(cls, env: Mapping[str, str]) -> _Child:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-c",
            _BOOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=dict(env),
            limit=_READ_LIMIT,
        )
        log.debug("session process %s started", process.pid)
        return cls(process)

    def send(self, message: tuple[Any, ...]) -> None:
        stdin = self.process.stdin
        if self.exited or stdin is None or stdin.is_closing():
            raise SessionProcessError("the session process is not running")
        stdin.write(encode_frame(message))

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while (message := await read_frame(stdout)) is not None:
                self._dispatch(*message)
        except Exception:
            log.exception("unreadable message from the session process")
        finally:
            self.exited = True
            for future, _ in self.pending.values():
                if not future.done():
                    future.set_exception(SessionProcessError("the session process exited"))
            if self.process.returncode is None:
                self.process.kill()

    def _dispatch(self, kind: str, run_id: int, payload: Any) -> None:
        entry = self.pending.get(run_id)
        if entry is None:
            return  # a run that was cancelled meanwhile
        future, on_event = entry
        if kind == "event":
            try:
                on_event(payload)
            except Exception:
                log.exception("a progress callback failed")
        elif future.done():
            return
        elif kind == "done":
            future.set_result(payload)
        else:
            future.set_exception(SessionProcessError(str(payload)))


class SessionProcess:
    """Runs sessions in the child, one at a time or many at once."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env
        self._child: _Child | None = None
        self._lock: asyncio.Lock | None = None
        self._ids = itertools.count(1)

    async def start(self) -> None:
        """Start the child now (it imports the SDK meanwhile) rather than on first use."""
        await self._running_child()

    async def _running_child(self) -> _Child:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._child is None or self._child.exited:
                self._child = await _Child.spawn(self._env)
            return self._child

    async def stop(self) -> None:
        """End the child (closing its stdin ends it) and wait for it."""
        child, self._child = self._child, None
        if child is None or child.process.stdin is None:
            return
        child.process.stdin.close()
        try:
            async with asyncio.timeout(5):
                await child.process.wait()
        except TimeoutError:
            child.process.kill()
            await child.process.wait()

    def pid(self) -> int | None:
        child = self._child
        return None if child is None or child.exited else child.process.pid

    async def run_session(
        self, request: EditRequest, provider: Provider, on_event: EventSink
    ) -> SessionResult:
        """`server.command.run_and_diff` in the child, which builds its providers from the
        server's environment (`provider` is not used: it cannot cross processes). `on_event`
        is called on this loop, in order. Cancelling the caller cancels the session in the
        child (its HTTP request is aborted) without waiting for it to unwind."""
        child = await self._running_child()
        run_id = next(self._ids)
        future: asyncio.Future[SessionResult] = asyncio.get_running_loop().create_future()
        child.pending[run_id] = (future, on_event)
        try:
            child.send(("run", run_id, request))
            return await future
        except asyncio.CancelledError:
            with contextlib.suppress(SessionProcessError):
                child.send(("cancel", run_id))
            raise
        finally:
            child.pending.pop(run_id, None)
