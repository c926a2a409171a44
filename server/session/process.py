"""Sessions run in a child process (`server/session/worker.py`), so the language server's own
interpreter only does protocol work.

A session spends 10–50 ms of CPU between two awaits (the first message, the SDK building a
request and parsing the answer, tools on large texts), much of it in C calls that hold the
GIL. In the server's process, twenty sessions whose model turns come back together would keep
every other request waiting behind that work, on the event loop or for the GIL; in a child
they run on their own interpreter (and on another core when there is one).

The child is started when the server process starts (`SessionProcess.launch`, before the
server imports pygls: the two processes import side by side), or else on first use, and
restarted if it dies; the sessions it was running then fail as internal errors. It exits when
its stdin closes: `stop` (or `stop_now` once no event loop runs), or the server's exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import subprocess
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from complex_edit.server.session.messages import (
    CancelSession,
    Event,
    Failed,
    Message,
    Returned,
    RunSession,
    ToWorker,
)
from complex_edit.server.session.wire import CHUNK, read_frame, write_frame

if TYPE_CHECKING:
    from complex_edit.server.session.events import EventSink, SessionEvent
    from complex_edit.server.session.request import EditRequest
    from complex_edit.server.session.result import FinishedSession

log = logging.getLogger("complex_edit.sessions")
# The installed package's worker, whatever the server's working directory holds: `-P` keeps
# that directory off `sys.path` (`-m` would put it first), `-E` ignores PYTHONPATH and the
# other PYTHON* variables. The user site stays: `pip install --user` puts the package there.
WORKER = [sys.executable, "-P", "-E", "-m", "complex_edit.server.session.worker"]
STOP_SECONDS = 5.0


def _popen(env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start the worker, in the server's working directory. It gets a session of its own: a
    Ctrl-C meant for the server (on a terminal) never interrupts it; the server ends it
    through its stdin."""
    process = subprocess.Popen(
        WORKER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=dict(env),
        bufsize=0,
        start_new_session=True,
    )
    log.debug("session process %s started", process.pid)
    return process


class _Process:
    """A started child, waited for on a thread (it may have started before any event loop)."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def kill(self) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.kill()

    async def wait(self) -> int:
        return await asyncio.to_thread(self.popen.wait)

    async def end(self) -> None:
        """Wait for it to exit (its stdin is closed), killing it after `STOP_SECONDS`."""
        try:
            async with asyncio.timeout(STOP_SECONDS):
                await self.wait()
        except TimeoutError:
            self.kill()
            await self.wait()

    def close_stdin(self) -> None:
        """For a child never talked to (`_pipes` owns the pipe of one that was)."""
        if self.popen.stdin is not None:
            self.popen.stdin.close()

    def end_now(self) -> None:
        """`end` without an event loop: close its stdin, wait, kill after `STOP_SECONDS`."""
        self.close_stdin()
        try:
            self.popen.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.kill()
            self.popen.wait()


async def _pipes(
    popen: subprocess.Popen[bytes],
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The child's stdout and stdin as asyncio streams of this loop."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=CHUNK)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), popen.stdout)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), popen.stdin
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


class SessionProcessError(RuntimeError):
    """The child failed to run a session (a bug in it, or it exited)."""


class _Run(NamedTuple):
    """A session running in the child: its answer, and who hears its events."""

    answer: asyncio.Future[FinishedSession]
    on_event: EventSink


class _Child:
    def __init__(
        self, process: _Process, stdout: asyncio.StreamReader, stdin: asyncio.StreamWriter
    ) -> None:
        self.process = process
        self.runs: dict[int, _Run] = {}
        self.exited = False
        self._stdin = stdin
        self._outbox: asyncio.Queue[ToWorker] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read(stdout))
        self._writer = asyncio.create_task(self._write())

    @classmethod
    async def adopt(cls, popen: subprocess.Popen[bytes]) -> _Child:
        """Talk to a started child over its pipes (it is killed if they cannot be set up)."""
        try:
            stdout, stdin = await _pipes(popen)
        except BaseException:
            _Process(popen).kill()
            raise
        return cls(_Process(popen), stdout, stdin)

    def send(self, message: ToWorker) -> None:
        """Queue a frame; one task writes them in order (a large frame is written in chunks,
        and nothing may come in between)."""
        if self.exited:
            raise SessionProcessError("the session process is not running")
        self._outbox.put_nowait(message)

    def close(self) -> None:
        """Stop writing and close the child's stdin: it ends its sessions and exits."""
        self._writer.cancel()
        self._stdin.close()

    async def _write(self) -> None:
        try:
            while True:
                await write_frame(self._stdin, await self._outbox.get())
        except (ConnectionError, RuntimeError) as exc:
            log.warning("could not write to the session process: %s", type(exc).__name__)
            self.process.kill()

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        try:
            while (message := await read_frame(stdout)) is not None:
                self._dispatch(message)
        except Exception:
            log.exception("unreadable message from the session process")
        finally:
            self.exited = True
            self._writer.cancel()
            for run in self.runs.values():
                if not run.answer.done():
                    run.answer.set_exception(SessionProcessError("the session process exited"))
            self.process.kill()
            await self.process.wait()

    def _dispatch(self, message: Message) -> None:
        """Hand a message to its run (none: the run was cancelled meanwhile)."""
        match message:
            case Event(run_id, event):
                self._report(run_id, event)
            case Returned(run_id, result):
                if (answer := self._unanswered(run_id)) is not None:
                    answer.set_result(result)
            case Failed(run_id, error):
                if (answer := self._unanswered(run_id)) is not None:
                    answer.set_exception(SessionProcessError(error))
            case _:
                raise TypeError(f"not a message for the server: {type(message).__name__}")

    def _report(self, run_id: int, event: SessionEvent) -> None:
        run = self.runs.get(run_id)
        if run is not None:
            try:
                run.on_event(event)
            except Exception:
                log.exception("a progress callback failed")

    def _unanswered(self, run_id: int) -> asyncio.Future[FinishedSession] | None:
        run = self.runs.get(run_id)
        return None if run is None or run.answer.done() else run.answer


class SessionProcess:
    """Runs sessions in the child, one at a time or many at once (a `SessionRunner`)."""

    def __init__(
        self, env: Mapping[str, str], launched: subprocess.Popen[bytes] | None = None
    ) -> None:
        self._env = env
        self._launched = launched
        self._child: _Child | None = None
        self._lock: asyncio.Lock | None = None
        self._ids = itertools.count(1)
        self._starting: asyncio.Future[_Child] | None = None
        self._stopped = False

    @classmethod
    def launch(cls, env: Mapping[str, str]) -> SessionProcess:
        """Start the child now, before any event loop runs; the first use talks to it."""
        return cls(env, _popen(env))

    def start_soon(self) -> None:
        """Have the child running in the background (it imports the SDK meanwhile) rather
        than on first use; a failure is logged (the first command tries again)."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._running_child())
            self._starting.add_done_callback(self._log_failure)

    async def _running_child(self) -> _Child:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._stopped:
                raise SessionProcessError("the server is stopping")
            if self._child is None or self._child.exited:
                popen, self._launched = self._launched or _popen(self._env), None
                self._child = await _Child.adopt(popen)
            return self._child

    async def stop(self) -> None:
        """End the child (closing its stdin ends it) and wait for it; none starts afterwards.
        One being started is waited for, then ended too."""
        self._stopped = True
        if self._lock is not None:
            async with self._lock:
                child, self._child = self._child, None
        else:
            child, self._child = self._child, None
        launched, self._launched = self._launched, None
        if launched is not None:  # never talked to
            process = _Process(launched)
            process.close_stdin()
            await process.end()
        if child is not None:
            child.close()
            await child.process.end()

    def stop_now(self) -> None:
        """`stop` once no event loop runs (or none ever ran): a safety net for every exit."""
        self._stopped = True
        launched, self._launched = self._launched, None
        child, self._child = self._child, None
        for process in (
            _Process(launched) if launched is not None else None,
            child.process if child is not None else None,
        ):
            if process is not None and process.returncode is None:
                process.end_now()

    def _log_failure(self, started: asyncio.Future[_Child]) -> None:
        """A start that failed, unless the server stopped first (an editor that closed the
        connection at once, `complex-edit lsp < /dev/null`): nothing went wrong then."""
        if self._stopped or started.cancelled() or started.exception() is None:
            return
        log.warning("could not start the session process: %s", started.exception())

    def pid(self) -> int | None:
        child = self._child
        return None if child is None or child.exited else child.process.pid

    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        """`run_and_diff` in the child, with providers built from the server's environment.
        `on_event` is called on this loop, in order. Cancelling the caller cancels the session
        in the child (its HTTP request is aborted) without waiting for it to unwind."""
        child = await self._running_child()
        run_id = next(self._ids)
        answer: asyncio.Future[FinishedSession] = asyncio.get_running_loop().create_future()
        child.runs[run_id] = _Run(answer, on_event)
        try:
            child.send(RunSession(run_id, request))
            return await answer
        except asyncio.CancelledError:
            with contextlib.suppress(SessionProcessError):
                child.send(CancelSession(run_id))
            raise
        finally:
            child.runs.pop(run_id, None)
