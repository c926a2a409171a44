"""Old text + new text -> minimal offset-based changes, LSP ``TextEdit``s and a unified diff.

``compute_edits`` works in three steps:

1. trim the common prefix and suffix (chunked string comparisons, in C), snapped out to line
   boundaries that are boundaries in both texts (never between the ``\\r`` and ``\\n`` of a
   CRLF);
2. walk the middle: skip equal text quickly (in C), and at each difference re-synchronise on
   lines, choosing the nearest point (fewest lines skipped on both sides) from which at least
   ``_SYNC_RUN`` lines match again, looking at a window of lines that grows until such a point
   is found; the differing lines in between are diffed line by line: an exact shortest diff
   (Myers) on small blocks, difflib when that would cost too much, and unique-line anchors
   (patience style) to cut large blocks into small ones;
3. shrink each differing line block to the characters that changed, without cutting a CRLF
   pair, a surrogate pair, or a combining mark / ZWJ / variation selector from its base.

So a large document with a few scattered changes yields a few small changes, in time close to
a memory comparison of the two texts. Lines break only on ``\\r\\n``, ``\\r`` and ``\\n``.
"""

from __future__ import annotations

import bisect
import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress
from typing import Final

from lsprotocol.types import TextEdit

from server.positions import LINE_BREAK, Encoding, LineIndex, normalize_encoding

__all__ = [
    "TextChange",
    "apply_changes",
    "compute_edits",
    "to_text_edits",
    "unified_diff",
]

# One LSP line with its terminator, or a last line without one.
_LINE: Final = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_SYNC_RUN: Final = 8  # equal lines needed to call two positions synchronised
_FIRST_WINDOW: Final = 32  # lines looked at first when re-synchronising
_MAX_CANDIDATES: Final = 16  # earliest occurrences of a line tried as a sync point
_SMALL_BLOCK: Final = 100_000  # largest lines(a) * lines(b) diffed without anchors
_MYERS_MAX_COST: Final = 100  # most inserted + deleted lines for an exact (Myers) diff
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
    pieces: list[str] = []
    position = 0
    for change in changes:
        if change.start < position:
            raise ValueError("changes overlap or are not sorted")
        if change.end > len(text):
            raise ValueError(f"change end {change.end} is past the end of the text ({len(text)})")
        pieces.append(text[position : change.start])
        pieces.append(change.new_text)
        position = change.end
    pieces.append(text[position:])
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


def _next_line_end(text: str, position: int) -> int:
    """Offset just past the terminator of the line holding ``position`` (or the text end)."""
    match = LINE_BREAK.search(text, position)
    return match.end() if match else len(text)


def _prev_line_start(text: str, position: int) -> int:
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
    return _next_line_end(old, a_pos) - a_pos


# -- line diff -----------------------------------------------------------------------------


def _window(text: str, start: int, end: int, count: int) -> tuple[list[str], list[int], bool]:
    """Up to ``count`` lines of ``text[start:end]``, their start offsets (+ the end of the last
    one) and whether they reach ``end``. Splits a guessed span in C, growing it if needed."""
    span = 80 * count
    while True:
        stop = min(end, start + span)
        lines: list[str] = _LINE.findall(text, start, stop)
        if stop < end and lines:
            lines.pop()  # may be cut short (or be the CR of a CRLF)
        if len(lines) >= count or stop == end:
            break
        span *= 4
    del lines[count:]
    offsets = list(accumulate(map(len, lines), initial=start))
    return lines, offsets, offsets[-1] == end


def _confirmed(a: list[str], b: list[str], i: int, j: int, a_done: bool, b_done: bool) -> bool:
    """Do ``_SYNC_RUN`` lines (or both remainders, to their ends) match from (i, j)?"""
    for k in range(_SYNC_RUN):
        ai, bj = i + k, j + k
        if ai == len(a) or bj == len(b):
            return a_done and b_done and ai == len(a) and bj == len(b)
        if a[ai] != b[bj]:
            return False
    return True


def _find_sync(
    a: list[str],
    b: list[str],
    width: int,
    a_done: bool,
    b_done: bool,
    shift: tuple[list[int], list[int], int],
) -> tuple[int, int, int] | None:
    """The best sync point (i, j) with i, j < ``width``, and its cost; None if there is none.

    The cost is i + j lines skipped, plus 1 when the characters skipped do not account for
    the whole remaining length difference (``shift``: line offsets of both windows and that
    difference), since another change must then make up for it. Ties go to the point that
    needs no such compensation: with repeated lines, a changed line is then a replacement
    rather than an insertion here and a deletion further down.
    """
    a_offsets, b_offsets, drift = shift
    a_head, b_head = a[:width], b[:width]
    in_a = set(a_head)
    where: dict[str, list[int]] = {}
    # Only lines present on both sides can start a sync: filter them in C.
    for j in compress(range(len(b_head)), map(in_a.__contains__, b_head)):
        line = b_head[j]
        found = where.get(line)
        if found is None:
            where[line] = [j]
        elif len(found) < _MAX_CANDIDATES:
            found.append(j)
    best: tuple[int, int, int] | None = None
    best_key = (len(a) + len(b) + 2, 1)
    a_base, b_base = a_offsets[0], b_offsets[0]
    for i in compress(range(len(a_head)), map(where.__contains__, a_head)):
        if i > best_key[0]:
            break
        for j in where[a[i]]:
            if i + j > best_key[0]:
                break
            if not _confirmed(a, b, i, j, a_done, b_done):
                continue
            penalty = 0 if (b_offsets[j] - b_base) - (a_offsets[i] - a_base) == drift else 1
            key = (i + j + penalty, penalty)
            if key < best_key:
                best, best_key = (i, j, key[0]), key
    return best


def _patience_anchors(
    a: list[str], a0: int, a1: int, b: list[str], b0: int, b1: int
) -> list[tuple[int, int]]:
    """Pairs of lines unique on both sides, longest increasing subsequence (patience)."""
    count_a: dict[str, int] = {}
    for i in range(a0, a1):
        line = a[i]
        count_a[line] = -1 if line in count_a else i
    count_b: dict[str, int] = {}
    for j in range(b0, b1):
        line = b[j]
        if line in count_a and count_a[line] >= 0:
            count_b[line] = -1 if line in count_b else j
    pairs = [(count_a[line], j) for line, j in count_b.items() if j >= 0]
    if not pairs:
        return []
    pairs.sort()
    # Longest increasing subsequence of the b indices.
    tails: list[int] = []  # index into pairs of the smallest tail of each length
    tail_values: list[int] = []
    previous: list[int] = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        slot = bisect.bisect_left(tail_values, j)
        if slot > 0:
            previous[index] = tails[slot - 1]
        if slot == len(tails):
            tails.append(index)
            tail_values.append(j)
        else:
            tails[slot] = index
            tail_values[slot] = j
    chain: list[tuple[int, int]] = []
    index = tails[-1]
    while index >= 0:
        chain.append(pairs[index])
        index = previous[index]
    chain.reverse()
    return chain


def _myers(
    a: list[str], a0: int, a1: int, b: list[str], b0: int, b1: int, max_cost: int
) -> list[tuple[int, int, int, int]] | None:
    """Shortest line diff (Myers) of a[a0:a1] / b[b0:b1] as differing blocks.

    None when more than ``max_cost`` lines would have to be inserted or deleted.
    """
    n, m = a1 - a0, b1 - b0
    # Cheap bound first (set operations run in C): the lines the two sides can have in common.
    a_set, b_set = set(a[a0:a1]), set(b[b0:b1])
    most_common = len(a_set & b_set) + min(n - len(a_set), m - len(b_set))
    if n + m - 2 * min(most_common, n, m) > max_cost:
        return None
    limit = min(n + m, max_cost)
    middle = limit + 1
    furthest = [0] * (2 * limit + 3)  # furthest x reached on diagonal k, at index k + middle
    trace: list[list[int]] = []  # after step d: x for diagonals -d..d
    found = False
    for d in range(limit + 1):
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and furthest[k - 1 + middle] < furthest[k + 1 + middle]):
                x = furthest[k + 1 + middle]  # insertion (down)
            else:
                x = furthest[k - 1 + middle] + 1  # deletion (right)
            y = x - k
            while x < n and y < m and a[a0 + x] == b[b0 + y]:
                x += 1
                y += 1
            furthest[k + middle] = x
            if x >= n and y >= m:
                found = True
        trace.append(furthest[middle - d : middle + d + 1])
        if found:
            break
    if not found:
        return None
    # Walk back from (n, m), collecting the equal lines of every snake.
    matches: list[tuple[int, int]] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        previous = trace[d - 1]  # index k + d - 1
        k = x - y
        if k == -d or (k != d and previous[k - 1 + d - 1] < previous[k + 1 + d - 1]):
            previous_k = k + 1
            previous_x = previous[previous_k + d - 1]
            start_x, start_y = previous_x, previous_x - previous_k + 1
        else:
            previous_k = k - 1
            previous_x = previous[previous_k + d - 1]
            start_x, start_y = previous_x + 1, previous_x - previous_k
        matches.extend((start_x + t, start_y + t) for t in range(x - start_x - 1, -1, -1))
        x, y = previous_x, previous_x - previous_k
    matches.extend((t, t) for t in range(x - 1, -1, -1))
    matches.reverse()
    blocks: list[tuple[int, int, int, int]] = []
    next_a = next_b = 0
    for i, j in [*matches, (n, m)]:
        if i > next_a or j > next_b:
            blocks.append((a0 + next_a, a0 + i, b0 + next_b, b0 + j))
        next_a, next_b = i + 1, j + 1
    return blocks


def _diff_lines(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """Differing blocks (a0, a1, b0, b1) between two line lists, sorted, never adjacent."""
    blocks: list[tuple[int, int, int, int]] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        a0, a1, b0, b1 = stack.pop()
        while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
            a0 += 1
            b0 += 1
        while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:
            a1 -= 1
            b1 -= 1
        if a0 == a1 and b0 == b1:
            continue
        if a0 == a1 or b0 == b1:
            blocks.append((a0, a1, b0, b1))
            continue
        if (a1 - a0) * (b1 - b0) <= _SMALL_BLOCK:
            shortest = _myers(a, a0, a1, b, b0, b1, _MYERS_MAX_COST)
            if shortest is not None:
                blocks.extend(shortest)
                continue
            matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag != "equal":
                    blocks.append((a0 + i1, a0 + i2, b0 + j1, b0 + j2))
            continue
        anchors = _patience_anchors(a, a0, a1, b, b0, b1)
        if not anchors:
            blocks.append((a0, a1, b0, b1))
            continue
        prev_a, prev_b = a0, b0
        for i, j in anchors:
            stack.append((prev_a, i, prev_b, j))
            prev_a, prev_b = i + 1, j + 1
        stack.append((prev_a, a1, prev_b, b1))
    blocks.sort()
    merged: list[tuple[int, int, int, int]] = []
    for block in blocks:
        if merged and merged[-1][1] == block[0] and merged[-1][3] == block[2]:
            last = merged[-1]
            merged[-1] = (last[0], block[1], last[2], block[3])
        else:
            merged.append(block)
    return merged


def _resync(
    old: str, a_start: int, a_end: int, new: str, b_start: int, b_end: int
) -> tuple[int, int, list[tuple[int, int, int, int]]]:
    """From a difference at line starts (a_start, b_start), find where the texts agree again.

    Returns the sync offsets and the differing line blocks before them, as character offsets.
    """
    width = _FIRST_WINDOW
    while True:
        a_lines, a_offsets, a_done = _window(old, a_start, a_end, width + _SYNC_RUN)
        b_lines, b_offsets, b_done = _window(new, b_start, b_end, width + _SYNC_RUN)
        everything = a_done and b_done
        drift = (b_end - b_start) - (a_end - a_start)
        sync = _find_sync(a_lines, b_lines, width, a_done, b_done, (a_offsets, b_offsets, drift))
        if sync is not None and (sync[2] < width or everything):
            i, j, _ = sync
            if i == 0 and j == 0:  # cannot happen: the first lines always differ
                raise RuntimeError("compute_edits lost track of a difference")
            break
        if everything:
            i, j = len(a_lines), len(b_lines)
            break
        width *= 4
    blocks = [
        (a_offsets[i0], a_offsets[i1], b_offsets[j0], b_offsets[j1])
        for i0, i1, j0, j1 in _diff_lines(a_lines[:i], b_lines[:j])
    ]
    return a_offsets[i], b_offsets[j], blocks


def _line_blocks(old: str, new: str) -> list[tuple[int, int, int, int]]:
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
        a_pos, b_pos, found = _resync(
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
    return [_refine(old, new, block) for block in _line_blocks(old, new)]


def to_text_edits(
    old_text: str,
    changes: Sequence[TextChange],
    encoding: Encoding | str = "utf-16",
    *,
    line_index: LineIndex | None = None,
) -> list[TextEdit]:
    """LSP ``TextEdit``s for ``changes`` against ``old_text``, in ``encoding``.

    Pass the ``LineIndex`` of ``old_text`` when you have it, to avoid building one.
    """
    kind = normalize_encoding(encoding)
    if line_index is None:
        line_index = LineIndex(old_text)
    elif line_index.text is not old_text and line_index.text != old_text:
        raise ValueError("line_index was built for a different text")
    return [
        TextEdit(
            range=line_index.range_of(change.start, change.end, kind), new_text=change.new_text
        )
        for change in changes
    ]


# -- unified diff --------------------------------------------------------------------------


def _count_breaks(text: str, start: int, end: int, has_cr: bool) -> int:
    """Line breaks in ``text[start:end]``; both ends must be line boundaries."""
    count = text.count("\n", start, end)
    if has_cr:
        count += text.count("\r", start, end) - text.count("\r\n", start, end)
    return count


def _count_lines(text: str, start: int, end: int, has_cr: bool) -> int:
    """Lines in ``text[start:end]`` (boundaries), counting a last line without terminator."""
    count = _count_breaks(text, start, end, has_cr)
    if end > start and text[end - 1] not in "\r\n":
        count += 1
    return count


def _lines_at_most(text: str, start: int, end: int, limit: int) -> bool:
    """Does ``text[start:end]`` (whole lines) hold at most ``limit`` lines? Stops early."""
    position = start
    for _ in range(limit):
        if position >= end:
            return True
        position = _next_line_end(text, position)
    return position >= end


def _range_label(start: int, count: int) -> str:
    """difflib's ``_format_range_unified``: 1-based start, length omitted when 1."""
    if count == 1:
        return str(start + 1)
    if count == 0:
        return f"{start},0"
    return f"{start + 1},{count}"


def _emit(out: list[str], mark: str, chunk: str) -> None:
    for line in _LINE.findall(chunk):
        out.append(mark + line)
        if line[-1] not in "\r\n":
            out.append("\n\\ No newline at end of file\n")


def unified_diff(old: str, new: str, path_label: str, *, context: int = 3) -> str:
    """A unified diff of ``old`` -> ``new`` (``--- path_label`` / ``+++ path_label``).

    Lines keep their own terminators; a last line without one is followed by
    ``\\ No newline at end of file``. Only the changed regions and their context are split into
    lines, so a large document with few changes is cheap. "" when the texts are equal.
    """
    blocks = _line_blocks(old, new)
    if not blocks:
        return ""
    old_cr, new_cr = "\r" in old, "\r" in new
    # Line numbers of every block start, counted incrementally.
    numbered: list[tuple[int, int, int, int, int, int]] = []  # a0, a1, b0, b1, line_a, line_b
    line_a = line_b = 0
    last_a = last_b = 0
    for a0, a1, b0, b1 in blocks:
        line_a += _count_breaks(old, last_a, a0, old_cr)
        line_b += _count_breaks(new, last_b, b0, new_cr)
        last_a, last_b = a0, b0
        numbered.append((a0, a1, b0, b1, line_a, line_b))
    # Group blocks whose gap is at most 2 * context lines into hunks.
    hunks: list[list[tuple[int, int, int, int, int, int]]] = [[numbered[0]]]
    for block in numbered[1:]:
        previous = hunks[-1][-1]
        if _lines_at_most(old, previous[1], block[0], 2 * context):
            hunks[-1].append(block)
        else:
            hunks.append([block])
    out = [f"--- {path_label}\n", f"+++ {path_label}\n"]
    for hunk in hunks:
        first, last = hunk[0], hunk[-1]
        before_start = first[0]
        before_lines = 0
        while before_lines < context and before_start > 0:
            before_start = _prev_line_start(old, before_start)
            before_lines += 1
        after_end = last[1]
        after_lines = 0
        while after_lines < context and after_end < len(old):
            after_end = _next_line_end(old, after_end)
            after_lines += 1
        body: list[str] = []
        _emit(body, " ", old[before_start : first[0]])
        old_count = new_count = before_lines + after_lines
        previous_end: int | None = None
        for a0, a1, b0, b1, _, _ in hunk:
            if previous_end is not None:
                _emit(body, " ", old[previous_end:a0])
                gap_lines = _count_lines(old, previous_end, a0, old_cr)
                old_count += gap_lines
                new_count += gap_lines
            _emit(body, "-", old[a0:a1])
            _emit(body, "+", new[b0:b1])
            old_count += _count_lines(old, a0, a1, old_cr)
            new_count += _count_lines(new, b0, b1, new_cr)
            previous_end = a1
        _emit(body, " ", old[last[1] : after_end])
        old_from = first[4] - before_lines
        new_from = first[5] - before_lines
        out.append(
            f"@@ -{_range_label(old_from, old_count)} +{_range_label(new_from, new_count)} @@\n"
        )
        out.extend(body)
    return "".join(out)
