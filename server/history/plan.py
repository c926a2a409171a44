"""What taking an edit back would change, worked out from texts alone (no I/O).

For each document of a record: the inverse of the edit's change (its text after → its text
before), rebased over what happened to the document since (its text now against the text the
edit left), with the rebase every edit uses over the user's typing (`server/text/rebase.py`).
A document whose lines the edit changed (whole lines: a line diff of the two texts) were
changed again since is a conflict, as is a change the rebase cannot keep apart; so is a file
that is gone, and a file the edit created that no longer holds exactly what the edit wrote (a
created file is deleted by the revert only when untouched).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from complex_edit.edit_tools.lines import count_breaks
from complex_edit.server.history.record import Record, RecordedDocument
from complex_edit.server.text.changed_lines import changed_lines
from complex_edit.server.text.diff import TextChange, compute_edits
from complex_edit.server.text.rebase import Conflict, rebase


@dataclass(frozen=True)
class DocumentRevert:
    """One document's part of a revert: `changes` against `current` give `result` (None:
    the file is deleted; `current` None: the file is created)."""

    document: RecordedDocument
    current: str | None
    result: str | None
    changes: tuple[TextChange, ...]

    @property
    def label(self) -> str:
        return self.document.label


@dataclass(frozen=True)
class RevertConflict:
    """A document the revert cannot take back: `lines` (1-based, inclusive) of the text the
    edit left that were changed again since, when the conflict is in the text."""

    label: str
    why: str
    lines: tuple[int, int] | None = None

    def describe(self) -> str:
        if self.lines is None:
            return f"{self.label}: {self.why}"
        first, last = self.lines
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        return f"{self.label}:{first}: {where} {self.why}"


@dataclass(frozen=True)
class RevertPlan:
    record: Record
    documents: tuple[DocumentRevert, ...]
    """The documents the revert changes (those in conflict are not among them)."""
    conflicts: tuple[RevertConflict, ...]
    unchanged: tuple[str, ...]
    """Documents already as they were before the edit (nothing to take back)."""


def plan_revert(
    record: Record,
    texts: Mapping[str, tuple[str | None, str | None]],
    current: Mapping[str, str | None],
) -> RevertPlan:
    """The revert of `record`: `texts` has each document's (before, after) texts by path,
    `current` its text now (None: no such file)."""
    documents: list[DocumentRevert] = []
    conflicts: list[RevertConflict] = []
    unchanged: list[str] = []
    for document in record.documents:
        before, after = texts[document.path]
        now = current.get(document.path)
        outcome = _one(document, before, after, now)
        if isinstance(outcome, RevertConflict):
            conflicts.append(outcome)
        elif outcome is None:
            unchanged.append(document.label)
        else:
            documents.append(outcome)
    return RevertPlan(record, tuple(documents), tuple(conflicts), tuple(unchanged))


def _one(
    document: RecordedDocument, before: str | None, after: str | None, now: str | None
) -> DocumentRevert | RevertConflict | None:
    label = document.label
    if before is None:  # the edit created the file
        if now is None:
            return None
        if now != after:
            return RevertConflict(
                label, "was created by the edit and changed since; it is not deleted."
            )
        return DocumentRevert(document, now, None, (TextChange(0, len(now), ""),))
    if after is None:  # the edit deleted the file (a revert of a created file)
        if now is None:
            return DocumentRevert(document, None, before, (TextChange(0, 0, before),))
        if now == before:
            return None
        return RevertConflict(label, "was deleted by the edit and exists again since.")
    if now is None:
        return RevertConflict(label, "no longer exists.")
    if now == before:
        return None
    clash = _clash(after, before, now)
    if clash is not None:
        return RevertConflict(label, "changed again since the edit.", clash)
    rebased = rebase(after, before, now)
    if isinstance(rebased, Conflict):
        return RevertConflict(label, "changed again since the edit.", _lines(after, rebased))
    if not rebased.changes or rebased.text == now:
        return None
    return DocumentRevert(document, now, rebased.text, tuple(rebased.changes))


def _clash(after: str, before: str, now: str) -> tuple[int, int] | None:
    """The first lines (1-based, of `after`) that the edit wrote and that were changed again
    since (`after` → `now`): a later change of the same lines, or lines put inside them."""
    edit = changed_lines(after, compute_edits(after, before))
    later = changed_lines(after, compute_edits(after, now))
    for mine in edit:
        for theirs in later:
            low = max(mine.old_start, theirs.old_start)
            high = min(mine.old_end, theirs.old_end)
            inside = mine.old_start < theirs.old_start < mine.old_end or (
                theirs.old_start < mine.old_start < theirs.old_end
            )
            if low < high or inside:
                return low + 1, max(low + 1, high)
    return None


def _lines(after: str, conflict: Conflict) -> tuple[int, int]:
    """The lines of `after` (1-based) that both the edit and the later change touched."""
    start = min(conflict.agent.start, conflict.user.start)
    end = max(conflict.agent.end, conflict.user.end)
    first = count_breaks(after, 0, start) + 1
    last = first + count_breaks(after, start, max(start, end - 1))
    return first, last
