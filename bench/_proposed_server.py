"""Experiment (not the product): ``complex-edit lsp`` with the server changes proposed in
BENCHMARKS.md applied by monkeypatching, so their effect can be measured before they are made
in ``server/`` (``--server proposed`` on the benchmark scripts):

* ``worker``: every session runs on one worker thread's own event loop (tools, prompt
  building, the SDK's request and response handling), session events are forwarded to the LSP
  loop, and the GIL switch interval is 1 ms, so the LSP event loop only does protocol work;
* ``progress``: work-done progress reports are coalesced to at most one per 100 ms (the last
  one wins; the end message is always sent);
* ``preload``: after ``initialized``, a background thread imports the SDK, builds its
  client and lets pydantic build the SDK types' validators, so the first command neither
  blocks the event loop for a second nor pays for it (unless it comes at once).

``BENCH_PROPOSED`` (comma-separated, default all three) picks the changes.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lsprotocol import types

import server.command as command
import server.lsp as lsp
from server.events import SessionFinished, describe
from server.session import run_session as _run_session
from server.settings import Settings

CHOSEN = set(os.environ.get("BENCH_PROPOSED", "worker,progress,preload").split(","))


class _WorkerLoop:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="sessions", daemon=True).start()

    async def run(self, coroutine: Any) -> Any:
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # cancels the session's task on the worker loop (aborts HTTP)
            raise


if "worker" in CHOSEN:
    sys.setswitchinterval(0.001)
    _worker = _WorkerLoop()

    async def run_session_off_loop(request: Any, provider: Any, on_event: Any) -> Any:
        lsp_loop = asyncio.get_running_loop()

        def forward(event: Any) -> None:
            lsp_loop.call_soon_threadsafe(on_event, event)

        return await _worker.run(_run_session(request, provider, forward))

    command.run_session = run_session_off_loop  # type: ignore[assignment]


if "progress" in CHOSEN:

    class _ThrottledProgress(lsp._Progress):
        INTERVAL = 0.1

        def __init__(self, ls: Any, token: str | None) -> None:
            super().__init__(ls, token)
            self._pending: str | None = None
            self._timer: asyncio.TimerHandle | None = None
            self._last = 0.0

        def report(self, event: Any) -> None:
            if self.token is None or self._ended or isinstance(event, SessionFinished):
                return
            self._pending = describe(event)
            if self._timer is not None:
                return
            loop = asyncio.get_running_loop()
            wait = self._last + self.INTERVAL - loop.time()
            if wait <= 0:
                self._flush()
            else:
                self._timer = loop.call_later(wait, self._flush)

        def _flush(self) -> None:
            self._timer = None
            if self._pending is None or self._ended or self.token is None:
                return
            message, self._pending = self._pending, None
            self._last = asyncio.get_running_loop().time()
            self._ls.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message)
            )

        def end(self, message: str) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            super().end(message)

    lsp._Progress = _ThrottledProgress  # type: ignore[misc]


_build_server = lsp.build_server
_SAMPLE_RESPONSE = {
    "candidates": [
        {
            "content": {"role": "model", "parts": [{"functionCall": {"name": "x", "args": {}}}]},
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
}


def build_server(env: Any = None) -> Any:
    ls = _build_server(env)
    if "preload" in CHOSEN:

        def preload() -> None:
            try:
                settings = Settings.from_layers(ls.env, ls.init_options)
                # Opening a conversation (it sends nothing) imports the SDK, builds its client
                # and the request types; reading a sample response builds the rest (pydantic
                # builds the SDK types' validators on first use: ~0.2 s).
                from google.genai import types as genai_types

                from edit_tools.registry import Toolbox
                from server.providers.base import ConversationRequest

                ls.provider.open(
                    ConversationRequest(
                        system_instruction="",
                        tools=Toolbox.declarations(),
                        first_message="",
                        settings=settings,
                    )
                )
                genai_types.GenerateContentResponse.model_validate(_SAMPLE_RESPONSE)
            except Exception as exc:  # a failed warm-up only means the first command pays
                print(f"preload failed: {exc!r}", file=sys.stderr)

        @ls.feature(types.INITIALIZED)
        def initialized(params: types.InitializedParams) -> None:
            threading.Thread(target=preload, name="preload", daemon=True).start()

    return ls


lsp.build_server = build_server

if __name__ == "__main__":
    from server.cli import main

    sys.exit(main(["lsp"]))
