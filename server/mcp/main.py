"""`complex-edit mcp`: check the roots, answer the first requests early (`early.py`) while the
SDK and the server load on a thread, then hand the connection to the server (`server.py`).

Until the server's event loop takes over, SIGINT ends the command as everywhere
(`cli.py`: status 130) and SIGTERM ends it with 143; neither can find an edit running.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from complex_edit.server.edit.roots import PathRefused, Roots
from complex_edit.server.mcp.early import answer_early, load_listing

SERVER_MODULE = "complex_edit.server.mcp.server"


def serve(root_dirs: Sequence[str], overrides: Mapping[str, Any]) -> int:
    try:
        roots = Roots.from_dirs(root_dirs)
    except PathRefused as exc:
        print(f"complex-edit mcp: {exc}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _terminated)
    loading = threading.Thread(target=importlib.import_module, args=(SERVER_MODULE,), daemon=True)
    loading.start()
    opening = answer_early(sys.stdin.buffer, sys.stdout.buffer, load_listing())
    loading.join()
    from complex_edit.server.mcp.server import run

    return run(roots, overrides, opening)


def _terminated(signum: int, _frame: object) -> None:
    sys.stderr.flush()
    os._exit(128 + signum)
