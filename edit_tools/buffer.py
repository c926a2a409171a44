"""The working text and its bounded undo/redo history, stored as reversible diffs."""

from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass

# Chunk used to find the common prefix/suffix of two long texts with C-speed slice compares.
_CHUNK = 4096


@dataclass(frozen=True, eq=False)
class Change:
    """`removed` replaced by `inserted` at each offset of `starts` (ascending, non-overlapping,
    offsets into the text before the change). One start for a single edit, several for
    replace_all. `label` names the tool that made it."""

    starts: array[int]
    removed: str
    inserted: str
    label: str

    @classmethod
    def single(cls, offset: int, removed: str, inserted: str, label: str) -> Change:
        return cls(array("q", (offset,)), removed, inserted, label)

    @property
    def first(self) -> int:
        return self.starts[0]

    @property
    def inserted_chars(self) -> int:
        return len(self.inserted) * len(self.starts)

    @property
    def size(self) -> int:
        """Characters kept in memory for this change (offsets count as a few each)."""
        return len(self.removed) + len(self.inserted) + 2 * len(self.starts)

    def apply(self, text: str) -> str:
        starts, removed, inserted = self.starts, self.removed, self.inserted
        if text[starts[0] : starts[0] + len(removed)] != removed:
            raise AssertionError("change does not fit the text it is applied to")
        if len(starts) == 1:
            start = starts[0]
            # One join: two copies of the text in all, where `a + b + c` makes three.
            return "".join((text[:start], inserted, text[start + len(removed) :]))
        pieces: list[str] = []
        previous = 0
        for start in starts:
            pieces.append(text[previous:start])
            pieces.append(inserted)
            previous = start + len(removed)
        pieces.append(text[previous:])
        return "".join(pieces)

    def inverse(self) -> Change:
        """The change that turns the text after this one back into the text before it."""
        delta = len(self.inserted) - len(self.removed)
        starts = array("q", (start + i * delta for i, start in enumerate(self.starts)))
        return Change(starts, self.inserted, self.removed, self.label)


def common_prefix_length(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    n = 0
    while n + _CHUNK <= limit and a[n : n + _CHUNK] == b[n : n + _CHUNK]:
        n += _CHUNK
    while n < limit and a[n] == b[n]:
        n += 1
    return n


def common_suffix_length(a: str, b: str, limit: int) -> int:
    """Length of the common suffix of `a` and `b`, at most `limit`."""
    la, lb = len(a), len(b)
    n = 0
    while n + _CHUNK <= limit and a[la - n - _CHUNK : la - n] == b[lb - n - _CHUNK : lb - n]:
        n += _CHUNK
    while n < limit and a[la - n - 1] == b[lb - n - 1]:
        n += 1
    return n


def diff(before: str, after: str, label: str) -> Change | None:
    """The single change turning `before` into `after`, common prefix and suffix trimmed."""
    if before == after:
        return None
    prefix = common_prefix_length(before, after)
    suffix = common_suffix_length(before, after, min(len(before), len(after)) - prefix)
    return Change.single(
        prefix, before[prefix : len(before) - suffix], after[prefix : len(after) - suffix], label
    )


class WorkingBuffer:
    """The text being edited. Each change is recorded so `undo` and `redo` can replay it.

    The history keeps at most `max_history` changes and, beyond the most recent one, at most
    about `max_history_chars` characters of diffs; the oldest are dropped first."""

    def __init__(
        self, text: str, *, max_history: int = 100, max_history_chars: int = 64_000_000
    ) -> None:
        if max_history < 1:
            raise ValueError("max_history must be at least 1")
        self._original = text
        self._text = text
        self._max_history = max_history
        self._max_history_chars = max_history_chars
        self._undo: deque[Change] = deque()
        self._redo: list[Change] = []
        self._dropped = 0

    @property
    def text(self) -> str:
        return self._text

    @property
    def original(self) -> str:
        return self._original

    @property
    def changed(self) -> bool:
        return self._text != self._original

    @property
    def undo_depth(self) -> int:
        return len(self._undo)

    @property
    def redo_depth(self) -> int:
        return len(self._redo)

    @property
    def history_chars(self) -> int:
        """Characters the undo and redo stacks keep in memory."""
        return sum(change.size for change in self._undo) + sum(c.size for c in self._redo)

    @property
    def max_history(self) -> int:
        return self._max_history

    @property
    def dropped(self) -> int:
        """How many changes fell off the bounded history."""
        return self._dropped

    def apply(self, change: Change) -> None:
        """Apply a new change: it becomes the last undo step and clears the redo stack."""
        self._text = change.apply(self._text)
        self._redo.clear()
        self._undo.append(change)
        self._trim()

    def undo(self) -> Change | None:
        """Revert the last change and return it, or None when there is nothing to undo."""
        if not self._undo:
            return None
        change = self._undo.pop()
        self._text = change.inverse().apply(self._text)
        self._redo.append(change)
        return change

    def redo(self) -> Change | None:
        """Re-apply the last undone change and return it, or None when there is none."""
        if not self._redo:
            return None
        change = self._redo.pop()
        self._text = change.apply(self._text)
        self._undo.append(change)
        return change

    def _trim(self) -> None:
        kept = self.history_chars
        while len(self._undo) > 1 and (
            len(self._undo) > self._max_history or kept > self._max_history_chars
        ):
            kept -= self._undo.popleft().size
            self._dropped += 1
