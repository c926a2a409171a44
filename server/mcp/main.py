"""`complex-edit mcp`: check the roots, answer the first requests early (`early.py`) while the
SDK and the server load on a thread (then the first call's machinery), then hand the
connection to the server (`server.py`).

Until the server's event loop takes over, SIGINT ends the command as everywhere
(`server/cli/entry.py`: status 130) and SIGTERM ends it with 143; neither can find an edit running.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from complex_edit.server.edit.roots import PathRefused, Roots, not_a_project
from complex_edit.server.mcp.early import answer_early, load_listing

SERVER_MODULE = "complex_edit.server.mcp.server"
CALL_MODULE = "complex_edit.server.mcp.call"


def serve(root_dirs: Sequence[str], overrides: Mapping[str, Any]) -> int:
    try:
        roots = Roots.from_dirs(root_dirs)
        for root in roots.paths:
            refused = not_a_project(root, "give --root")
            if refused is not None:
                raise PathRefused(refused)
    except PathRefused as exc:
        print(f"complex-edit mcp: {exc}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _terminated)
    server_loaded = threading.Event()
    threading.Thread(target=_load, args=(server_loaded,), daemon=True).start()
    opening = answer_early(sys.stdin.buffer, sys.stdout.buffer, load_listing())
    server_loaded.wait()
    from complex_edit.server.mcp.server import run

    return run(roots, overrides, opening)


def _load(server_loaded: threading.Event) -> None:
    """The SDK server, then the first call's machinery (the edit flow, the providers' SDKs,
    tree-sitter), so that a call finds it loaded; the early answers need neither. An import
    that fails is raised again where it is needed."""
    try:
        importlib.import_module(SERVER_MODULE)
    except BaseException:
        return
    finally:
        server_loaded.set()
    with contextlib.suppress(BaseException):
        importlib.import_module(CALL_MODULE)


def _terminated(signum: int, _frame: object) -> None:
    sys.stderr.flush()
    os._exit(128 + signum)
