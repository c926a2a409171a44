"""Before and after, honestly compared (pure): which diagnostics of a document an edit
introduced, which it fixed, and the lines the model reads about them.

A diagnostic from before is carried through the edit's own line map (`LineMap`): a line that
only moved is the same line, so an error that was there before and moved down is matched by
code, source, message and its mapped range. A diagnostic on lines the edit rewrote (before or
after) is matched by code, source and message alone: it counts as new only if its message is
new. Matching is one for one (two identical errors after, one before: one is new).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from complex_edit.server.text.changed_lines import changed_lines
from complex_edit.server.text.diff import compute_edits

SEVERITY_NAMES = {1: "error", 2: "warning", 3: "information", 4: "hint"}
MAX_LINES_PER_FILE = 20


@dataclass(frozen=True, slots=True)
class Found:
    """One diagnostic of a checker: 0-based positions (the checker's), LSP severity (1 error,
    2 warning, 3 information, 4 hint), its message, source and code as it gave them."""

    line: int
    character: int
    end_line: int
    end_character: int
    severity: int
    message: str
    source: str = ""
    code: str = ""

    @property
    def what(self) -> tuple[str, str, str]:
        return (self.code, self.source, self.message)

    def render(self, label: str) -> str:
        """`path:line:col: severity: message (source code)`, 1-based."""
        origin = " ".join(part for part in (self.source, self.code) if part)
        tail = f" ({origin})" if origin else ""
        severity = SEVERITY_NAMES.get(self.severity, "error")
        message = " ".join(part.strip() for part in self.message.splitlines() if part.strip())
        return f"{label}:{self.line + 1}:{self.character + 1}: {severity}: {message}{tail}"


class LineMap:
    """The lines of `before` carried to `after`: `line(n)` is where line n of before stands in
    after, None when the edit rewrote it; `rewritten(n)` whether line n of after is new."""

    def __init__(self, before: str, after: str) -> None:
        regions = changed_lines(before, compute_edits(before, after)) if before != after else []
        self._old_starts = [region.old_start for region in regions]
        self._regions = regions

    def line(self, old: int) -> int | None:
        index = bisect.bisect_right(self._old_starts, old) - 1
        if index < 0:
            return old
        region = self._regions[index]
        if old < region.old_end:
            return None
        return old - region.old_end + region.new_end

    def rewritten(self, new: int) -> bool:
        return any(region.new_start <= new < region.new_end for region in self._regions)

    def moved(self, found: Found) -> Found | None:
        """`found` with its lines carried to after, None when the edit rewrote one of them."""
        start, end = self.line(found.line), self.line(found.end_line)
        if start is None or end is None:
            return None
        return Found(
            start,
            found.character,
            end,
            found.end_character,
            found.severity,
            found.message,
            found.source,
            found.code,
        )


@dataclass(frozen=True)
class Compared:
    """`introduced`: diagnostics of after that were not there before; `fixed`: those of before
    that after no longer has (as before had them)."""

    introduced: tuple[Found, ...]
    fixed: tuple[Found, ...]


def counted(found: Found, threshold: int) -> bool:
    """Whether `found` is severe enough: `threshold` 1 counts errors, 2 warnings too."""
    return 0 < found.severity <= threshold or found.severity == 0


def compare(
    before_text: str,
    after_text: str,
    before: Iterable[Found],
    after: Iterable[Found],
    threshold: int = 1,
) -> Compared:
    """What the edit from `before_text` to `after_text` introduced and fixed, counting only
    diagnostics of severity `threshold` or worse."""
    lines = LineMap(before_text, after_text)
    old = [found for found in before if counted(found, threshold)]
    new = [found for found in after if counted(found, threshold)]
    moved = [lines.moved(found) for found in old]
    old_left = set(range(len(old)))
    new_left: list[int] = []
    exact: dict[Found, list[int]] = {}
    for index, carried in enumerate(moved):
        if carried is not None:
            exact.setdefault(_plain(carried), []).append(index)
    for index, found in enumerate(new):
        twins = exact.get(_plain(found))
        if twins:
            old_left.discard(twins.pop(0))
        else:
            new_left.append(index)
    # On rewritten lines (either side), the same message is the same diagnostic.
    introduced: list[Found] = []
    for index in new_left:
        found = new[index]
        rewritten_here = any(lines.rewritten(n) for n in range(found.line, found.end_line + 1))
        twin = next(
            (
                i
                for i in sorted(old_left)
                if old[i].what == found.what and (rewritten_here or moved[i] is None)
            ),
            None,
        )
        if twin is None:
            introduced.append(found)
        else:
            old_left.discard(twin)
    return Compared(tuple(introduced), tuple(old[i] for i in sorted(old_left)))


def _plain(found: Found) -> Found:
    """`found` as compared exactly: severity aside (a checker may grade the same thing
    differently as the file changes), everything else."""
    return Found(
        found.line,
        found.character,
        found.end_line,
        found.end_character,
        0,
        found.message,
        found.source,
        found.code,
    )


def report_lines(by_file: Sequence[tuple[str, Sequence[Found]]]) -> list[str]:
    """One line per diagnostic, file by file in the given order (the command's document
    first), at most `MAX_LINES_PER_FILE` a file (then how many more)."""
    out: list[str] = []
    for label, found in by_file:
        ordered = sorted(found, key=lambda f: (f.line, f.character))
        out.extend(f.render(label) for f in ordered[:MAX_LINES_PER_FILE])
        if len(ordered) > MAX_LINES_PER_FILE:
            out.append(f"{label}: … and {len(ordered) - MAX_LINES_PER_FILE} more")
    return out
