"""Elisions pinned by edited lines (`elision.py`): a placeholder whose unchanged neighbours on
one side are only blank lines has nothing unique there to anchor it, yet its place can still be
certain. Beyond those blank lines stands either the start or end of both texts, or a line the
model edited: when that edited line reads as an edit of exactly one line of the original (most
of its characters the same, and no other original line as close), and that original line occurs
only once, the blank lines and the edge of the placeholder's span are fixed by it. Two possible
readings (the edited line resembles several original lines) pin nothing. `past_added` finds,
for a lazy rewrite's placeholder, the next kept line past the comment lines the rewrite adds.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

Op = tuple[str, int, int, int, int]

# An edited line this similar (characters, spaces around it aside) to an original line is an
# edit of it.
_EDIT_RATIO = 0.6
# Original lines compared with an edited line, at most: past that, nothing is pinned.
_MAX_COMPARED = 5000


def edited_from(line: str, old: Sequence[str]) -> list[int]:
    """The original lines `line` reads as an edit of (none when the original is too long to
    compare)."""
    wanted = line.strip()
    if not wanted or len(old) > _MAX_COMPARED:
        return []
    return [i for i, other in enumerate(old) if other.strip() and _close(wanted, other.strip())]


def _close(line: str, other: str) -> bool:
    matcher = SequenceMatcher(None, line, other, autojunk=False)
    return (
        matcher.real_quick_ratio() >= _EDIT_RATIO
        and matcher.quick_ratio() >= _EDIT_RATIO
        and matcher.ratio() >= _EDIT_RATIO
    )


def _edit_of(edited: str, original: int, old: Sequence[str]) -> bool:
    """Whether `edited` reads as an edit of `old[original]` and of no other original line."""
    wanted = edited.strip()
    if not wanted or not old[original].strip() or len(old) > _MAX_COMPARED:
        return False
    return _close(wanted, old[original].strip()) and edited_from(edited, old) == [original]


def _blank(lines: Sequence[str], start: int, stop: int) -> bool:
    return all(not line.strip() for line in lines[start:stop])


def pinned(
    ops: Sequence[Op],
    at: int,
    before: bool,
    old: Sequence[str],
    new: Sequence[str],
    where: dict[str, list[int]],
) -> bool:
    """Whether the unchanged run beside the placeholder's change `ops[at]` (the one before it,
    or after it) is only blank lines pinned by the text's edge or by an edited line."""
    step = -1 if before else 1
    neighbour = ops[at + step]
    if not _blank(old, neighbour[1], neighbour[2]):
        return False
    if before and neighbour[1] == 0 and neighbour[3] == 0:
        return True
    if not before and neighbour[2] == len(old) and neighbour[4] == len(new):
        return True
    edge = at + 2 * step
    if not 0 <= edge < len(ops) or ops[edge][0] != "replace":
        return False
    _, i1, i2, j1, j2 = ops[edge]
    original, edited = (i2 - 1, j2 - 1) if before else (i1, j1)
    return len(where.get(old[original], ())) == 1 and _edit_of(new[edited], original, old)


def past_added(new: Sequence[str], down: int, old: Sequence[str]) -> int | None:
    """The first line of `new` from `down` on that exists in the original, past blank lines
    and lines the rewrite adds (their text on no original line, nor reading as an edit of
    one): a lazy rewrite's new comment between its placeholder and the next kept line. None
    when a line on the way reads as an edit, or none exists in the original."""
    present = {line.strip() for line in old}
    for index in range(down, len(new)):
        wanted = new[index].strip()
        if not wanted:
            continue
        if wanted in present:
            return index
        if edited_from(wanted, old):
            return None
    return None
