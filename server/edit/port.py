"""What the edit flow needs from an editor (`EditorPort`), and how an editor answers.

Two editors implement it: the language server's connection (`server/lsp/editor.py`) and a file
on disk (`server/edit/disk.py`), so the CLI, the MCP tool and the LSP command share one flow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from complex_edit.server.text.diff import TextChange
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk
from complex_edit.server.text.positions import Encoding

Echo = Literal["matches", "differs", "silent", "closed"]


@dataclass(frozen=True)
class ApplyAnswer:
    applied: bool
    failure_reason: str | None = None


@dataclass(frozen=True)
class Review:
    """Send the edit for review: each hunk as its own change that needs confirmation,
    labelled with the hunk's label and described with `description`."""

    hunks: Sequence[Hunk]
    description: str


class ApplyFailed(Exception):
    """The edit was not applied. `message`, when given, is the sentence the result shows
    instead of the flow's own; `keep_diff`: the result still shows the diff (what would have
    been applied)."""

    def __init__(self, message: str = "", *, keep_diff: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.keep_diff = keep_diff


class ApplyRefused(ApplyFailed):
    """The editor did not apply the edit; the message says why."""


class StaleDocument(ApplyFailed):
    """The live document moved on between the last check and the send."""


class EditorPort(Protocol):
    def is_open(self, uri: str) -> bool: ...

    def snapshot(self, uri: str) -> Snapshot: ...

    def can_apply_edits(self) -> bool: ...

    def can_review(self) -> bool:
        """Can the editor ask its user to confirm each change of an edit (`apply` with a
        `Review`)?"""
        ...

    def encoding(self) -> Encoding:
        """How the editor counts characters in positions."""
        ...

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        """The user's changes after `version`, in order, or None when unknown."""
        ...

    async def apply(
        self,
        base: Snapshot,
        changes: Sequence[TextChange],
        label: str,
        limit_seconds: float,
        review: Review | None = None,
    ) -> ApplyAnswer:
        """Apply `changes` (offsets into `base.text`) as one edit (for review: `review`'s
        hunks, the same changes grouped, when `can_review`).

        Must re-check, synchronously right before sending, that the live document is still
        `base`; raises `StaleDocument` otherwise, `ApplyRefused` when the editor fails it."""
        ...

    async def confirm(
        self, base: Snapshot, changes: Sequence[TextChange], limit_seconds: float
    ) -> Echo:
        """After an accepted edit of `changes` (offsets into `base.text`), read what the editor
        reports: `matches` once its changes since `base` show the edit landing (the user's own
        keystrokes may come before and after it), `differs` when changes came but never the
        edit, `silent` when no change came in time, `closed` when the document was closed."""
        ...

    async def landed(
        self, base: Snapshot, hunks: Sequence[Hunk], limit_seconds: float
    ) -> list[int] | None:
        """After an accepted `apply` with a `Review` of `hunks` (against `base.text`): the
        indexes of the hunks the editor's changes since `base` show landing (waiting for them
        up to `limit_seconds`), or None when those changes do not read as any of them."""
        ...
