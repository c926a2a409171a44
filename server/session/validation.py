"""The `validate` setting inside a session: the snapshot is parsed while the model works, and
each `complete_task(success=true)` is checked against it before the task may end.

Only errors the snapshot did not have block (see `edit_tools.syntax`). The check is
incremental: the changes since the last text checked come from the line diff, so the parse
after the model's last turn reuses the snapshot's tree.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Literal

from complex_edit.edit_tools.syntax import SyntaxCheck, Validation
from complex_edit.server.text.diff import compute_edits

ValidateMode = Literal["syntax", "off"]
# A tree-sitter tree takes ~21 bytes per byte of text: above this many characters the check
# would more than double the session's peak memory (benchmark goal 5: ≤ 10× the document), so
# larger documents are not checked, and their result says so.
MAX_CHECKED_CHARS = 4_000_000
log = logging.getLogger("complex_edit.validation")


class ResultValidator:
    """One session's syntax check. `start` begins parsing the snapshot in a worker thread;
    `check` waits for it, then validates a candidate result."""

    def __init__(self, snapshot: str, language: str | None, mode: ValidateMode) -> None:
        self._last = snapshot
        self._language = language
        self._mode = mode
        self._started: asyncio.Future[SyntaxCheck] | None = None

    def start(self) -> None:
        if self._started is not None:
            return
        skipped = self._skipped_because()
        if skipped is not None:
            future: asyncio.Future[SyntaxCheck] = asyncio.get_running_loop().create_future()
            future.set_result(SyntaxCheck.skipping(self._language, skipped))
            self._started = future
            return
        self._started = asyncio.ensure_future(
            asyncio.to_thread(SyntaxCheck.start, self._last, self._language)
        )

    def _skipped_because(self) -> str | None:
        if self._mode == "off":
            return "validation is off (setting validate)"
        if len(self._last) > MAX_CHECKED_CHARS:
            return (
                f"documents over {MAX_CHECKED_CHARS:,} characters are not checked "
                "(a syntax tree would take ~20 times the document's memory)"
            )
        return None

    async def check(self, text: str) -> Validation:
        self.start()
        assert self._started is not None
        checker = await self._started
        changes = [
            (change.start, change.end, change.new_text)
            for change in compute_edits(self._last, text)
        ]
        try:
            validation = await asyncio.to_thread(checker.check, text, changes)
        except Exception as exc:  # a fault of the checker must not block or fail the edit
            log.warning("the syntax check failed (%s); result not checked", type(exc).__name__)
            return Validation(
                language=checker.language,
                syntax="skipped",
                detail=f"the syntax check failed ({type(exc).__name__})",
            )
        self._last = text
        return validation

    def close(self) -> None:
        """Stop waiting for a snapshot parse nobody will use (the thread finishes on its own)."""
        if self._started is not None and not self._started.done():
            self._started.cancel()
