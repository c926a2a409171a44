"""The child process that runs sessions for the language server (`server/session/process.py`),
started as `python -P -E -m complex_edit.server.session.worker`.

It keeps the checkers (`server.check`) warm for its sessions and stops them when it ends, and
the workspaces' ignore rules and listings between commands (`server/workspace/kept.py`).
It reads `ToWorker` messages from stdin (`RunSession`, `CancelSession`) and writes `FromWorker`
messages to stdout (`Event`, `Returned`, `Failed` for a bug inside the session), each in a frame
of `wire.py`. It exits when stdin closes (the server went away). Its own log goes to stderr.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
from typing import TYPE_CHECKING

from complex_edit.server.check.pool import CheckerPool
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import SessionEvent
from complex_edit.server.session.messages import (
    CancelSession,
    Event,
    Failed,
    FromWorker,
    Returned,
    RunSession,
)
from complex_edit.server.session.result import run_and_diff
from complex_edit.server.session.wire import CHUNK, encode_frame, read_frame
from complex_edit.server.workspace.kept import Kept

if TYPE_CHECKING:
    from complex_edit.server.session.request import EditRequest

log = logging.getLogger("complex_edit.session_worker")


class Worker:
    """The child's whole state: the pipes to the server, the providers its sessions talk to,
    the checkers kept warm, the workspaces' listings kept, and the sessions running, by run
    id."""

    def __init__(
        self, frames_in: asyncio.StreamReader, frames_out: asyncio.WriteTransport, hub: ProviderHub
    ) -> None:
        self._in = frames_in
        self._out = frames_out
        self._hub = hub
        self._runs: dict[int, asyncio.Task[None]] = {}
        self._checks = CheckerPool()
        self._kept = Kept()  # the workspaces' ignore rules and listings, between commands

    async def serve(self) -> None:
        """Run and cancel sessions as the server asks, until it closes the pipe; then cancel
        the sessions still running."""
        self._preload()
        try:
            while (message := await read_frame(self._in)) is not None:
                match message:
                    case RunSession(run_id, request):
                        self._runs[run_id] = asyncio.create_task(self._run(run_id, request))
                    case CancelSession(run_id):
                        # Popped here: a task cancelled before it starts never runs its finally.
                        if (task := self._runs.pop(run_id, None)) is not None:
                            task.cancel()
                    case _:
                        raise TypeError(f"not a message for the worker: {type(message).__name__}")
        finally:
            for task in self._runs.values():
                task.cancel()
            await asyncio.sleep(0)
            await self._checks.close()

    def _preload(self) -> None:
        """Import the SDK and build its client before the first command needs them."""
        from complex_edit.edit_tools.registry import Toolbox
        from complex_edit.server.providers.base import ConversationRequest
        from complex_edit.server.settings import Settings

        try:
            settings = Settings.from_layers(os.environ)
            self._hub.open(
                ConversationRequest(
                    system_instruction="",
                    tools=Toolbox.declarations(),
                    first_message="",
                    settings=settings,
                )
            )
        except Exception as exc:
            log.debug("preload skipped: %s", type(exc).__name__)

    async def _run(self, run_id: int, request: EditRequest) -> None:
        try:
            report = functools.partial(self._report, run_id)
            result = await run_and_diff(request, self._hub, report, self._checks, self._kept)
        except asyncio.CancelledError:
            return
        except Exception as exc:
            log.exception("session %d failed", run_id)
            self._send(Failed(run_id, f"{type(exc).__name__}: {exc}"))
        else:
            self._send(Returned(run_id, result))
        finally:
            self._runs.pop(run_id, None)

    def _report(self, run_id: int, event: SessionEvent) -> None:
        # (`SessionFinished` has no final text: the result goes back in `Returned` as changes)
        self._send(Event(run_id, event))

    def _send(self, message: FromWorker) -> None:
        if not self._out.is_closing():
            for piece in encode_frame(message):
                self._out.write(piece)


async def _stdio() -> tuple[asyncio.StreamReader, asyncio.WriteTransport]:
    """Stdin and a private copy of stdout as streams of this loop. Fd 1 then points at
    stderr, so a stray print can only end up in the log."""
    loop = asyncio.get_running_loop()
    frames_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    reader = asyncio.StreamReader(limit=CHUNK)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, frames_out)
    return reader, transport


async def serve() -> None:
    frames_in, frames_out = await _stdio()
    await Worker(frames_in, frames_out, ProviderHub(os.environ)).serve()


def main() -> None:
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s"
    )
    asyncio.run(serve())


if __name__ == "__main__":
    main()
