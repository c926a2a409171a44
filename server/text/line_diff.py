"""The line-level steps of ``compute_edits`` (``server/text/diff.py``): from a difference at
two line starts, re-synchronise on lines (the nearest point from which ``_SYNC_RUN`` lines match
again, in a window of lines that grows until one is found) and diff the lines in between: an
exact shortest diff (Myers) on small blocks, difflib when that would cost too much, and
unique-line anchors (patience style) to cut large blocks into small ones.
"""

from __future__ import annotations

import bisect
import difflib
from itertools import accumulate, compress
from typing import Final

from complex_edit.server.text.positions import LINE

_SYNC_RUN: Final = 8  # equal lines needed to call two positions synchronised
_FIRST_WINDOW: Final = 32  # lines looked at first when re-synchronising
_MAX_CANDIDATES: Final = 16  # earliest occurrences of a line tried as a sync point
_SMALL_BLOCK: Final = 100_000  # largest lines(a) * lines(b) diffed without anchors
_MYERS_MAX_COST: Final = 100  # most inserted + deleted lines for an exact (Myers) diff


def _window(text: str, start: int, end: int, count: int) -> tuple[list[str], list[int], bool]:
    """Up to ``count`` lines of ``text[start:end]``, their start offsets (+ the end of the last
    one) and whether they reach ``end``. Splits a guessed span in C, growing it if needed."""
    span = 80 * count
    while True:
        stop = min(end, start + span)
        lines: list[str] = LINE.findall(text, start, stop)
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


def resync(
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
