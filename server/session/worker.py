"""The child process that runs sessions for the language server (`server/session/process.py`),
started as `python -m server.session.worker`.

It reads frames from stdin and writes frames to stdout, each a 4-byte big-endian length and a
pickle of a tuple (the two processes are the same program, on a private pipe):

* in: ``("run", id, EditRequest)``, ``("cancel", id)``;
* out: ``("event", id, SessionEvent)``, ``("done", id, SessionResult)``,
  ``("failed", id, "TypeName: message")`` for a bug inside the session.

It exits when stdin closes (the server went away). Its own log goes to stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any

from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import SessionEvent, SessionFinished
from complex_edit.server.session.result import run_and_diff
from complex_edit.server.session.wire import CHUNK, encode_frame, read_frame

log = logging.getLogger("complex_edit.session_worker")


class _Worker:
    def __init__(self, writer: asyncio.WriteTransport) -> None:
        self._writer = writer
        self._hub = ProviderHub(os.environ)
        self._tasks: dict[int, asyncio.Task[None]] = {}

    def send(self, message: tuple[Any, ...]) -> None:
        if not self._writer.is_closing():
            for piece in encode_frame(message):
                self._writer.write(piece)

    def preload(self) -> None:
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

    def start(self, run_id: int, request: Any) -> None:
        self._tasks[run_id] = asyncio.create_task(self._run(run_id, request))

    def cancel(self, run_id: int) -> None:
        task = self._tasks.get(run_id)
        if task is not None:
            task.cancel()

    def cancel_all(self) -> None:
        for task in self._tasks.values():
            task.cancel()

    async def _run(self, run_id: int, request: Any) -> None:
        def forward(event: SessionEvent) -> None:
            if isinstance(event, SessionFinished) and event.outcome.final_text is not None:
                # The result goes back in the `done` frame as changes, not as a second copy.
                event = SessionFinished(event.outcome.model_copy(update={"final_text": None}))
            self.send(("event", run_id, event))

        try:
            finished = await run_and_diff(request, self._hub, forward)
        except asyncio.CancelledError:
            return
        except Exception as exc:
            log.exception("session %d failed", run_id)
            self.send(("failed", run_id, f"{type(exc).__name__}: {exc}"))
        else:
            self.send(("done", run_id, finished))
        finally:
            self._tasks.pop(run_id, None)


async def serve() -> None:
    loop = asyncio.get_running_loop()
    # Frames get a private copy of stdout; fd 1 then points at stderr, so a stray print can
    # only end up in the log.
    frames_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    reader = asyncio.StreamReader(limit=CHUNK)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, frames_out)
    worker = _Worker(transport)
    worker.preload()
    while (message := await read_frame(reader)) is not None:
        kind, run_id, *rest = message
        if kind == "run":
            worker.start(run_id, rest[0])
        elif kind == "cancel":
            worker.cancel(run_id)
    worker.cancel_all()
    await asyncio.sleep(0)


def main() -> None:
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s"
    )
    asyncio.run(serve())


if __name__ == "__main__":
    main()
