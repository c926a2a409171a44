"""What the edit flow needs from an editor (`EditorPort`), and how an editor answers an edit
(`Delivery`, then `Landing`).

Two editors implement it: the language server's connection (`server/lsp/editor.py`) and a file
on disk (`server/edit/disk.py`), so the CLI, the MCP tool and the LSP command share one flow.
An editor that cannot take an edit raises `EditRefused` (`server/outcome.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from complex_edit.server.outcome import EditRefused
from complex_edit.server.text.diff import TextChange
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk
from complex_edit.server.text.positions import Encoding


@dataclass(frozen=True)
class Review:
    """Send the edit for review: each hunk of each document (`DocumentEdit.hunks`) as its own
    change that needs confirmation, labelled with the hunk's label and described with
    `description`."""

    description: str


@dataclass(frozen=True)
class Landing:
    """What the editor's changes after an accepted edit show: `kept`, the indexes of the
    hunks that landed (None: the changes read as none of them); `heard`, whether any change
    was reported; `closed`, whether the document was closed meanwhile; `pending`, that the
    editor cannot report the change before its answer has been answered (a client blocked in
    the request): the delivery confirms it later, and tells the user if it is not the edit."""

    kept: list[int] | None
    heard: bool = False
    closed: bool = False
    pending: bool = False


@dataclass(frozen=True)
class DocumentEdit:
    """One document's part of an edit: `changes` against `base`, its live snapshot when it is
    open in the editor (`versioned`), else the text its file holds on disk."""

    base: Snapshot
    changes: Sequence[TextChange]
    versioned: bool = True
    hunks: Sequence[Hunk] = ()
    """The same changes grouped, for a review's annotations."""


class StaleEdit(EditRefused):
    """The editor refused the edit because its document had moved on from the version the
    edit was sent for, and it has since reported how: the result can be rebased onto the
    document it now has and sent once more."""

    def __init__(self, message: str) -> None:
        super().__init__("client_rejected", message)


class Delivery(Protocol):
    """An edit the editor has answered."""

    @property
    def applied(self) -> bool: ...

    @property
    def failure_reason(self) -> str | None: ...

    async def others_landed(self, limit_seconds: float) -> bool:
        """Have the documents of the edit after the first (the command's) reported exactly
        their change, waiting up to `limit_seconds`?"""
        ...

    async def landed(self, hunks: Sequence[Hunk], limit_seconds: float, *, settle: bool) -> Landing:
        """Which of `hunks` (the first document's changes grouped, against the text it was sent
        for)
        the editor's changes since show landing, waiting up to `limit_seconds` for all of
        them (the user's own keystrokes may come before and after). `settle`: once some have
        landed, wait only a short while for the rest (the user declined them)."""
        ...


class EditorPort(Protocol):
    def is_open(self, uri: str) -> bool: ...

    def snapshot(self, uri: str) -> Snapshot: ...

    def can_apply_edits(self) -> bool: ...

    def can_edit_several(self) -> bool:
        """Can one edit change several documents, all or none?"""
        ...

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

    def uri_for(self, path: str) -> str:
        """The document id of the file at the absolute `path` (its URI in an editor)."""
        ...

    def disk_text(self, uri: str) -> str | None:
        """The text the file of `uri` holds on disk now (None: it cannot be read as text)."""
        ...

    async def apply(
        self,
        edits: Sequence[DocumentEdit],
        label: str,
        limit_seconds: float,
        review: Review | None = None,
    ) -> Delivery:
        """Apply `edits` (each document's changes, offsets into its `base.text`; the command's
        document first) as one edit titled `label` (for review: each document's hunks, when
        `can_review`; several documents only when `can_edit_several`).

        Must re-check, synchronously right before sending, that each live document is still
        its `base` (a file not open: still not open); raises `EditRefused`
        (`document_changed`) otherwise, and (`client_rejected`) when the editor fails it
        (`StaleEdit` when it refused a version its document had left behind); `TimeoutError`
        when it does not answer in time."""
        ...
