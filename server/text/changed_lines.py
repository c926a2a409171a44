"""The lines a set of changes changes: one `LineRegion` per changed region, in order, as line
numbers (0-based, end excluded) of the text the changes apply to and of the text they give.

A region is a run of whole lines (LSP line rule) that the changes touch; changes on the same or
adjacent lines make one region. Lines the region's old and new text share at its top and its
bottom are left out, as a line diff leaves them out, so a pure insertion has an empty old span
and a pure deletion an empty new span.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from complex_edit.edit_tools.lines import count_breaks, line_start, split_lines
from complex_edit.server.text.diff import TextChange, apply_within, next_line_end


@dataclass(frozen=True, slots=True)
class LineRegion:
    """Lines `old_start`..`old_end` of the old text became `new_start`..`new_end` of the new."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


def changed_lines(before: str, changes: Sequence[TextChange]) -> list[LineRegion]:
    """The regions of sorted, non-overlapping `changes` against `before`, in order."""
    regions: list[LineRegion] = []
    line = 0  # index of the line starting at `position` in `before`
    position = 0
    growth = 0  # lines the regions so far added (negative: removed)
    for start, end, new_text in _whole_lines(before, changes):
        line += count_breaks(before, position, start)
        position = start
        old_text = before[start:end]
        region = _trimmed(old_text, new_text, line, line + growth)
        if region is not None:
            regions.append(region)
        growth += count_breaks(new_text) - count_breaks(old_text)
    return regions


def pair_regions(old_side: list[LineRegion], new_side: list[LineRegion]) -> list[LineRegion]:
    """The old lines of `old_side` with the new lines of `new_side`: the same changes read
    against two texts (the session's snapshot, and the document the changes, rebased over
    the user's typing, landed in). Paired one for one when both read as as many regions;
    else one region spanning them all on each side."""
    if len(old_side) == len(new_side):
        return [
            LineRegion(old.old_start, old.old_end, new.new_start, new.new_end)
            for old, new in zip(old_side, new_side, strict=True)
        ]
    if not old_side or not new_side:
        return old_side or new_side
    return [
        LineRegion(
            old_side[0].old_start,
            old_side[-1].old_end,
            new_side[0].new_start,
            new_side[-1].new_end,
        )
    ]


def _whole_lines(before: str, changes: Sequence[TextChange]) -> list[tuple[int, int, str]]:
    """Each region as (start, end, new text): `before[start:end]` are whole lines, and the new
    text joins neither the line before nor the line after (a CR never meets a LF across its
    ends, and it ends with a line break unless it reaches the end of the text)."""
    pending = deque((c.start, c.end, [c]) for c in changes)
    settled: list[tuple[int, int, list[TextChange]]] = []
    while pending:
        start, end, members = pending.popleft()
        start = line_start(before, start)
        if not _at_line_start(before, end):
            end = next_line_end(before, end)
        while pending and pending[0][0] <= end:
            _, later_end, later = pending.popleft()
            end, members = max(end, later_end), [*members, *later]
        if settled and start <= settled[-1][1]:
            earlier_start, earlier_end, earlier = settled.pop()
            start, end, members = earlier_start, max(end, earlier_end), [*earlier, *members]
        new_text = apply_within(before, members, start, end)
        grown = _grown(before, start, end, new_text)
        if grown != (start, end):
            pending.appendleft((*grown, members))
        else:
            settled.append((start, end, members))
    return [
        (start, end, apply_within(before, members, start, end)) for start, end, members in settled
    ]


def _grown(before: str, start: int, end: int, new_text: str) -> tuple[int, int]:
    """(start, end) taking in the line before or after where the new text would join it."""
    left = before[start - 1] if start > 0 else ""
    right = before[end] if end < len(before) else ""
    if left == "\r" and (new_text + right).startswith("\n"):
        return line_start(before, start - 1), end
    if right and new_text:
        ends_line = new_text.endswith(("\n", "\r")) and not (
            new_text.endswith("\r") and right == "\n"
        )
        if not ends_line:
            return start, next_line_end(before, end)
    return start, end


def _at_line_start(text: str, offset: int) -> bool:
    return offset == 0 or offset == len(text) or line_start(text, offset) == offset


def _trimmed(old_text: str, new_text: str, old_line: int, new_line: int) -> LineRegion | None:
    """The region without the lines its old and new text share at either end."""
    old_lines, new_lines = split_lines(old_text), split_lines(new_text)
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(old_lines), len(new_lines)) - head
        and old_lines[-1 - tail] == new_lines[-1 - tail]
    ):
        tail += 1
    if head + tail == len(old_lines) == len(new_lines):
        return None
    return LineRegion(
        old_line + head,
        old_line + len(old_lines) - tail,
        new_line + head,
        new_line + len(new_lines) - tail,
    )
