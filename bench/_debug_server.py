"""Diagnosis wrapper: ``complex-edit lsp`` with asyncio's debug mode reporting every event-loop
callback that runs longer than ``BENCH_SLOW_MS`` (default 10 ms) on stderr.

Run by ``bench_concurrency.py --debug``; not used for measurements (debug mode is slower).
"""

from __future__ import annotations

import asyncio.base_events
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

_init = asyncio.base_events.BaseEventLoop.__init__


def _patched_init(self: asyncio.base_events.BaseEventLoop) -> None:
    _init(self)
    self.set_debug(True)
    self.slow_callback_duration = float(os.environ.get("BENCH_SLOW_MS", "10")) / 1000


asyncio.base_events.BaseEventLoop.__init__ = _patched_init  # type: ignore[method-assign]

from complex_edit.server.cli import main  # noqa: E402

sys.exit(main(["lsp"]))
