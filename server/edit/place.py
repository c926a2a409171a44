"""Placing an edit on the live documents: each document's change as the session made it
(`DocumentChange`), put on the document the editor has now (`Placed`: the live snapshot if
open → the change rebased onto it; a file not open → as it is, if its disk text is still what
the session read; else `document_changed`), all or nothing (`place_all`). `onto_live` is the
one rebase of a session's change onto a live document (the live preview's too).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from complex_edit.server.edit.answer import Diff, Shown, Verdict
from complex_edit.server.edit.port import DocumentEdit, EditorPort
from complex_edit.server.outcome import ProposedHunk, WirePosition, WireRange
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk, apply_hunks, landed_hunks, make_hunks
from complex_edit.server.text.positions import Encoding, LineIndex
from complex_edit.server.text.rebase import Conflict, compose_changes, rebase
from complex_edit.server.text.unified import unified_diff

log = logging.getLogger("complex_edit.flow")
# The version of a snapshot read from disk: no editor version, and none the change log has
# (rebasing it onto a buffer opened since works from the texts).
DISK_VERSION = -1
Step = Literal["apply", "resend", "propose"]
# Why the command's document could not take its change, by step: (closed, conflict).
_MOVED: dict[Step, tuple[str, str]] = {
    "apply": (
        "The document was closed while the edit was running.",
        "The document changed where the edit applies while the sub-agent worked; nothing "
        "was applied. Run the command again.",
    ),
    "resend": (
        "The document changed where the edit applies while the edit was on its way, and the "
        "editor refused it; nothing was applied. Run the command again.",
    )
    * 2,
    "propose": (
        "The document changed where the edit applies (or was closed) while the sub-agent "
        "worked; nothing was proposed. Run the command again.",
    )
    * 2,
}


@dataclass(frozen=True)
class DocumentChange:
    """What is applied to one document: `changes`, offsets into `base.text` (the snapshot the
    session started from, or the live text a review proposed them on), shown as `diff` under
    `label` (the document's path from the workspace root, else its path as given)."""

    base: Snapshot
    label: str
    changes: tuple[TextChange, ...]
    diff: str
    on_disk: bool = False
    """The session read `base.text` from the file on disk (another document, not open in the
    editor then): it lands only if the file still holds it."""

    def computed(self) -> Diff:
        return Diff.of(self.diff, self.base.text, self.changes)

    def placed(self, editor: EditorPort) -> Placed | Literal["closed", "conflict"]:
        """The change on the live document: the live snapshot when the document is open, the
        change rebased onto it; a file not open: as it is, if its disk text is still `base`;
        else why not."""
        uri = self.base.uri
        if not editor.is_open(uri):
            if not self.on_disk:
                return "closed"
            if editor.disk_text(uri) != self.base.text:
                return "conflict"
            as_read = list(self.changes)
            return Placed(self, self.base, as_read, make_hunks(self.base.text, as_read, self.label))
        live = editor.snapshot(uri)
        changes = onto_live(editor, self.base, live, self.changes)
        if changes is None:
            return "conflict"
        if live.version != self.base.version or live.text != self.base.text:
            log.info(
                "rebased the result over concurrent changes (v%s→v%s)",
                self.base.version,
                live.version,
            )
        return Placed(self, live, changes, make_hunks(live.text, changes, self.label))


@dataclass(frozen=True)
class Placed:
    """A document's change on its live text: `changes` against `live`, grouped as `hunks`."""

    document: DocumentChange
    live: Snapshot
    changes: list[TextChange]
    hunks: list[Hunk]

    @property
    def versioned(self) -> bool:
        """Open in the editor (not a file on disk): sent for the version `live` has."""
        return self.live is not self.document.base or not self.document.on_disk

    def edit(self) -> DocumentEdit:
        """This document's part of the edit the editor is sent."""
        return DocumentEdit(self.live, self.changes, self.versioned, self.hunks)

    def shown(self, editor: EditorPort) -> list[int] | None:
        """Which of `hunks` the editor's copy of the document shows landed now (a file
        not open: none), or None when its changes do not read as any of them."""
        uri = self.live.uri
        if not editor.is_open(uri):
            return []
        now = editor.snapshot(uri).text
        reported = editor.changes_since(uri, self.live.version) if self.versioned else None
        return landed_hunks(self.live.text, self.hunks, reported, now)

    def shows_all(self, editor: EditorPort) -> bool:
        """Does the editor's copy of the document hold its change now?"""
        return self.shown(editor) == list(range(len(self.hunks)))

    def landed(self) -> Diff:
        """Every hunk landed: the change's diff, its new lines read where they landed."""
        change = self.document
        return Diff.of(
            change.diff, change.base.text, change.changes, (self.live.text, self.changes)
        )

    def kept(self, kept: Sequence[int]) -> Diff:
        """The diff of the hunks `kept` (indexes), against the live text."""
        text, chosen = self.live.text, [self.hunks[i] for i in kept]
        diff = unified_diff(text, apply_hunks(text, chosen), self.document.label)
        return Diff.of(diff, text, [change for hunk in chosen for change in hunk.changes])

    def proposed(self) -> Diff:
        """The diff a review proposes: the change's own, unless the document moved."""
        if self.live.text == self.document.base.text:
            return self.document.computed()
        return self.kept(range(len(self.hunks)))

    def answered(self, diff: Diff | None = None, *, applied: bool = True) -> Shown:
        """The document in the answer: `diff` (every hunk landed: `landed`), `applied` when it
        has a change to apply."""
        return Shown(
            self.live.uri,
            diff or self.landed(),
            applied and bool(self.changes),
            self.live.version if self.versioned else None,
        )

    def kept_change(self, chosen: Sequence[Hunk]) -> DocumentChange:
        """The `chosen` hunks as a change of the text they were proposed on."""
        text, label = self.live.text, self.document.label
        return DocumentChange(
            self.live,
            label,
            tuple(change for hunk in chosen for change in hunk.changes),
            unified_diff(text, apply_hunks(text, chosen), label) if chosen else "",
            on_disk=not self.versioned,
        )


def place_all(
    editor: EditorPort, documents: Sequence[DocumentChange], step: Step
) -> list[Placed] | Verdict:
    """Every document's change placed (in order), or the `document_changed` verdict of the
    first that cannot take it: all or nothing."""
    placed: list[Placed] = []
    for number, change in enumerate(documents):
        put = change.placed(editor)
        if isinstance(put, Placed):
            placed.append(put)
            continue
        if number == 0:  # the command's document: the message names no file
            closed, conflict = _MOVED[step]
            return Verdict.failed("document_changed", closed if put == "closed" else conflict)
        done = "proposed" if step == "propose" else "applied to any file"
        return Verdict.failed(
            "document_changed",
            f"{change.label} changed where the edit applies (or was closed) while the "
            f"sub-agent worked; nothing was {done}. Run the command again.",
        )
    return placed


def proposed_hunks(every: Sequence[Placed], encoding: Encoding) -> list[ProposedHunk]:
    """The hunks of `every` (one document's, or several documents' each with its `uri`)
    as the answer's `hunks`, numbered in order."""
    hunks: list[ProposedHunk] = []
    for placed in every:
        for hunk in wire_hunks(placed.live.text, placed.hunks, encoding):
            uri = placed.live.uri if len(every) > 1 else None
            hunks.append(hunk.model_copy(update={"id": len(hunks), "uri": uri}))
    return hunks


def wire_hunks(text: str, hunks: Sequence[Hunk], encoding: Encoding) -> list[ProposedHunk]:
    """`hunks` of `text` as the answer's `hunks` (ids: their indexes)."""
    index = LineIndex(text)

    def position(offset: int) -> WirePosition:
        line, character = index.line_character_of(offset, encoding)
        return WirePosition(line=line, character=character)

    return [
        ProposedHunk(
            id=number,
            range=WireRange(start=position(hunk.start), end=position(hunk.end)),
            new_text=hunk.new_text,
            old_text=hunk.old_text,
            label=hunk.label,
            diff=hunk.diff,
        )
        for number, hunk in enumerate(hunks)
    ]


def onto_live(
    editor: EditorPort, snapshot: Snapshot, live: Snapshot, changes: Sequence[TextChange]
) -> list[TextChange] | None:
    """`changes` (against `snapshot`) against the live document: as they are when nothing
    changed meanwhile, else rebased over the user's changes; None on a conflict. The final
    edit and the live preview both put a session's change on the document this way."""
    if live.version == snapshot.version and live.text == snapshot.text:
        return list(changes)
    target = apply_changes(snapshot.text, changes)
    # A client that changed the text without a new version (or went backwards) leaves the
    # change log unusable: the changes are then worked out from the texts.
    user = (
        editor.changes_since(snapshot.uri, snapshot.version)
        if live.version != snapshot.version
        else None
    )
    try:
        rebased = rebase(
            snapshot.text,
            target,
            live.text,
            user=compose_changes(user) if user is not None else None,
        )
    except ValueError:
        log.warning("the change log does not match the document; rebasing from the texts")
        rebased = rebase(snapshot.text, target, live.text, user=None)
    if isinstance(rebased, Conflict):
        return None
    return _nameable(live.text, rebased.changes, rebased.text)


def _nameable(text: str, changes: Sequence[TextChange], target: str) -> list[TextChange]:
    """`changes` if every end falls where an LSP position can point, else the same result
    computed afresh. A rebased change can end between a CR the user typed and the LF after
    it; no position names that offset, and the editor would apply another range."""
    for change in changes:
        for cut in (change.start, change.end):
            if 0 < cut < len(text) and text[cut - 1] == "\r" and text[cut] == "\n":
                return compute_edits(text, target)
    return list(changes)
