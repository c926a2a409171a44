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

from server.frames import CHUNK, read_frame, write_frame

if TYPE_CHECKING:
    from server.command import SessionResult
    from server.events import EventSink
    from server.providers.base import Provider
    from server.session import EditRequest

log = logging.getLogger("complex_edit.sessions")
# The child imports this checkout's packages, whatever the server's working directory holds.
_ROOT = str(Path(__file__).resolve().parent.parent)
_BOOT = f"import sys; sys.path.insert(0, {_ROOT!r}); from server.session_worker import main; main()"


class SessionProcessError(RuntimeError):
    """The child failed to run a session (a bug in it, or it exited)."""


class _Child:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pending: dict[int, tuple[asyncio.Future[SessionResult], EventSink]] = {}
        self.exited = False
        self._outbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())
        self._writer = asyncio.create_task(self._write())

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
            limit=CHUNK,
        )
        log.debug("session process %s started", process.pid)
        return cls(process)

    def send(self, message: tuple[Any, ...]) -> None:
        """Queue a frame; one task writes them in order (a large frame is written in chunks,
        and nothing may come in between)."""
        if self.exited:
            raise SessionProcessError("the session process is not running")
        self._outbox.put_nowait(message)

    def close(self) -> None:
        """Stop writing and close the child's stdin: it ends its sessions and exits."""
        self._writer.cancel()
        if self.process.stdin is not None:
            self.process.stdin.close()

    async def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            while True:
                await write_frame(stdin, await self._outbox.get())
        except (ConnectionError, RuntimeError) as exc:
            log.warning("could not write to the session process: %s", type(exc).__name__)
            if self.process.returncode is None:
                self.process.kill()

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
            self._writer.cancel()
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
        self._starting: asyncio.Future[_Child] | None = None
        self._stopped = False

    def start_soon(self) -> None:
        """Start the child in the background now (it imports the SDK meanwhile) rather than
        on first use; a failure is logged (the first command tries again)."""
        self._starting = asyncio.ensure_future(self._running_child())
        self._starting.add_done_callback(_log_failure)

    async def _running_child(self) -> _Child:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._stopped:
                raise SessionProcessError("the server is stopping")
            if self._child is None or self._child.exited:
                self._child = await _Child.spawn(self._env)
            return self._child

    async def stop(self) -> None:
        """End the child (closing its stdin ends it) and wait for it; none starts afterwards.
        One being started is waited for, then ended too: a start still under way when the
        event loop closes never finishes (asyncio waits forever for the process it kills), and
        that kept the server from exiting."""
        self._stopped = True
        if self._lock is not None:
            async with self._lock:
                child, self._child = self._child, None
        else:
            child, self._child = self._child, None
        if child is None:
            return
        child.close()
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


def _log_failure(started: asyncio.Future[_Child]) -> None:
    if not started.cancelled() and started.exception() is not None:
        log.warning("could not start the session process: %s", started.exception())
