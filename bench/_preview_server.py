"""Measurement wrapper for ``bench_live_preview.py``: ``complex-edit lsp`` that writes
``bench-working-changed <uri> <time.monotonic()>`` on stderr when a session's `WorkingChanged`
reaches the command's live preview (before the preview is worked out and sent)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from complex_edit.server.lsp import preview

_show = preview.LivePreview.show


def _timed_show(self: preview.LivePreview, event: Any) -> None:
    print(f"bench-working-changed {self._uri} {time.monotonic()}", file=sys.stderr, flush=True)
    _show(self, event)


preview.LivePreview.show = _timed_show  # type: ignore[method-assign]

from complex_edit.server.cli import main  # noqa: E402

sys.exit(main(["lsp"]))
