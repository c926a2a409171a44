"""Old text + new text -> minimal offset-based changes (``TextChange``).

``compute_edits`` works in three steps:

1. trim the common prefix and suffix (chunked string comparisons, in C), snapped out to line
   boundaries that are boundaries in both texts (never between the ``\\r`` and ``\\n`` of a
   CRLF);
2. walk the middle: skip equal text quickly (in C), and at each difference re-synchronise on
   lines, choosing the nearest point (fewest lines skipped on both sides) from which at least
   ``_SYNC_RUN`` lines match again, looking at a window of lines that grows until such a point
   is found; the differing lines in between are diffed line by line (``line_diff.py``);
3. shrink each differing line block to the characters that changed, without cutting a CRLF
   pair, a surrogate pair, or a combining mark / ZWJ / variation selector from its base.

So a large document with a few scattered changes yields a few small changes, in time close to
a memory comparison of the two texts. Lines break only on ``\\r\\n``, ``\\r`` and ``\\n``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from complex_edit.server.text.line_diff import resync
from complex_edit.server.text.positions import LINE_BREAK

__all__ = [
    "TextChange",
    "apply_changes",
    "compute_edits",
    "line_blocks",
]

_MAX_CHUNK: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class TextChange:
    """Replace ``text[start:end]`` with ``new_text`` (offsets in code points)."""

    start: int
    end: int
    new_text: str

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"invalid change range {self.start}..{self.end}")


def apply_changes(text: str, changes: Iterable[TextChange]) -> str:
    """Apply sorted, non-overlapping ``changes`` (all against ``text``)."""
    return apply_within(text, changes, 0, len(text))


def apply_within(text: str, changes: Iterable[TextChange], low: int, high: int) -> str:
    """``text[low:high]`` with sorted, non-overlapping ``changes`` (all inside it, offsets into
    ``text``) applied."""
    pieces: list[str] = []
    position = low
    for change in changes:
        if change.start < position:
            raise ValueError("changes overlap or are not sorted")
        if change.end > high:
            raise ValueError(f"change end {change.end} is past the end of the text ({high})")
        pieces.append(text[position : change.start])
        pieces.append(change.new_text)
        position = change.end
    pieces.append(text[position:high])
    return "".join(pieces)


# -- fast equal-run scanning -------------------------------------------------------------


def _common_prefix(a: str, a_start: int, b: str, b_start: int, limit: int) -> int:
    """Length of the common prefix of ``a[a_start:]`` and ``b[b_start:]``, at most ``limit``."""
    done = 0
    step = 256
    while done < limit:
        size = min(step, limit - done)
        if a.startswith(b[b_start + done : b_start + done + size], a_start + done):
            done += size
            step = min(step * 2, _MAX_CHUNK)
            continue
        while size > 1:  # the mismatch is inside [done, done + size): halve
            half = size >> 1
            if a.startswith(b[b_start + done : b_start + done + half], a_start + done):
                done += half
                size -= half
            else:
                size = half
        return done
    return limit


def _common_suffix(a: str, a_end: int, b: str, b_end: int, limit: int) -> int:
    """Length of the common suffix of ``a[:a_end]`` and ``b[:b_end]``, at most ``limit``."""
    done = 0
    step = 256
    while done < limit:
        size = min(step, limit - done)
        if a.endswith(b[b_end - done - size : b_end - done], 0, a_end - done):
            done += size
            step = min(step * 2, _MAX_CHUNK)
            continue
        while size > 1:
            half = size >> 1
            if a.endswith(b[b_end - done - half : b_end - done], 0, a_end - done):
                done += half
                size -= half
            else:
                size = half
        return done
    return limit


# -- line boundaries -----------------------------------------------------------------------


def _is_boundary(text: str, position: int) -> bool:
    """True if ``position`` is a line boundary of ``text`` (start, end, or after a break)."""
    if position <= 0 or position >= len(text):
        return True
    before = text[position - 1]
    if before == "\n":
        return True
    return before == "\r" and text[position] != "\n"


def _line_start(text: str, position: int, floor: int) -> int:
    """Start of the line holding ``position``, searching no further back than ``floor``.

    ``floor`` must be a line boundary. A ``position`` between ``\\r`` and ``\\n`` belongs to the
    line the CRLF ends.
    """
    limit = position
    if limit > floor and text[limit - 1] == "\r":
        limit -= 1  # that CR is this line's terminator (or half of one): not a break before us
    newline = text.rfind("\n", floor, limit)
    carriage = text.rfind("\r", max(floor, newline + 1), limit)
    last = max(newline, carriage)
    return last + 1 if last >= 0 else floor


def next_line_end(text: str, position: int) -> int:
    """Offset just past the terminator of the line holding ``position`` (or the text end)."""
    match = LINE_BREAK.search(text, position)
    return match.end() if match else len(text)


def prev_line_start(text: str, position: int) -> int:
    """Start of the line before the line starting at ``position`` (``position`` > 0)."""
    limit = position - 1
    if text[limit] == "\n" and limit > 0 and text[limit - 1] == "\r":
        limit -= 1
    newline = text.rfind("\n", 0, limit)
    carriage = text.rfind("\r", newline + 1, limit)
    return max(newline, carriage) + 1


def _snap_start(old: str, new: str, a_pos: int, b_pos: int, a_floor: int) -> int:
    """Move a difference point (equal text before it) back to a line start in both texts.

    Returns how far to move back. ``a_floor`` is a boundary in both texts with equal text
    between it and ``a_pos``.
    """
    if a_pos <= a_floor:
        return 0
    before = old[a_pos - 1]
    if before == "\n" or (
        before == "\r" and old[a_pos : a_pos + 1] != "\n" and new[b_pos : b_pos + 1] != "\n"
    ):
        return 0
    return a_pos - _line_start(old, a_pos, a_floor)


def _snap_end(old: str, new: str, a_pos: int, b_pos: int) -> int:
    """Move a point (equal text after it) forward to a line boundary in both texts."""
    if _is_boundary(old, a_pos) and _is_boundary(new, b_pos):
        return 0
    return next_line_end(old, a_pos) - a_pos


def line_blocks(old: str, new: str) -> list[tuple[int, int, int, int]]:
    """Differing blocks of whole lines, as (old_start, old_end, new_start, new_end) offsets."""
    if old == new:
        return []
    size_a, size_b = len(old), len(new)
    prefix = _common_prefix(old, 0, new, 0, min(size_a, size_b))
    suffix = _common_suffix(old, size_a, new, size_b, min(size_a, size_b) - prefix)
    a_end, b_end = size_a - suffix, size_b - suffix
    forward = _snap_end(old, new, a_end, b_end)
    a_end += forward
    b_end += forward
    a_pos = prefix - _snap_start(old, new, prefix, prefix, 0)
    b_pos = a_pos
    blocks: list[tuple[int, int, int, int]] = []
    while True:
        equal = _common_prefix(old, a_pos, new, b_pos, min(a_end - a_pos, b_end - b_pos))
        if a_pos + equal == a_end and b_pos + equal == b_end:
            return blocks
        back = _snap_start(old, new, a_pos + equal, b_pos + equal, a_pos)
        a_pos, b_pos, found = resync(
            old, a_pos + equal - back, a_end, new, b_pos + equal - back, b_end
        )
        blocks.extend(found)


# -- character refinement ------------------------------------------------------------------


def _is_extender(char: str) -> bool:
    """Characters that belong to the character before them (for edit boundaries)."""
    code = ord(char)
    if code < 0x300:
        return False
    return (
        char == "\u200d"
        or 0xFE00 <= code <= 0xFE0F
        or 0x1F3FB <= code <= 0x1F3FF
        or 0xE0020 <= code <= 0xE007F
        or 0xE0100 <= code <= 0xE01EF
        or unicodedata.category(char) in ("Mn", "Me", "Mc")
    )


def _bad_cut(text: str, position: int) -> bool:
    """Would an edit boundary at ``position`` split something that belongs together?"""
    if position <= 0 or position >= len(text):
        return False
    before, after = text[position - 1], text[position]
    if before == "\r" and after == "\n":
        return True
    if before == "\u200d" or _is_extender(after):
        return True
    return "\ud800" <= before <= "\udbff" and "\udc00" <= after <= "\udfff"


def _refine(old: str, new: str, block: tuple[int, int, int, int]) -> TextChange:
    """Shrink a differing line block to the characters that changed, on safe boundaries."""
    a0, a1, b0, b1 = block
    prefix = _common_prefix(old, a0, new, b0, min(a1 - a0, b1 - b0))
    suffix = _common_suffix(old, a1, new, b1, min(a1 - a0, b1 - b0) - prefix)
    a_start, b_start = a0 + prefix, b0 + prefix
    a_end, b_end = a1 - suffix, b1 - suffix
    while a_start > a0 and (_bad_cut(old, a_start) or _bad_cut(new, b_start)):
        a_start -= 1
        b_start -= 1
    while a_end < a1 and b_end < b1 and (_bad_cut(old, a_end) or _bad_cut(new, b_end)):
        a_end += 1
        b_end += 1
    return TextChange(a_start, a_end, new[b_start:b_end])


def compute_edits(old: str, new: str) -> list[TextChange]:
    """Sorted, non-overlapping changes turning ``old`` into ``new``; [] when equal."""
    return [_refine(old, new, block) for block in line_blocks(old, new)]
