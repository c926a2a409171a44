"""The elision guard: a placeholder line (`# ... existing code ...`, a bare `...`) written
where original lines were dropped is expanded back into those lines, or refused.

The rule fires on a line of the new text only when all three hold:
(a) the line is new: no line of the original (nor anything `known` accepts) has its text;
(b) it has the shape of a placeholder (`placeholders.is_placeholder`);
(c) original lines were dropped where it stands: in the line diff of the original against the
    new text, the change holding it removes at least one non-blank original line, and the line
    is not an edit of one of them (60% of its words the same or more, as a changed comment's
    would be).
A bare `...` that is the whole body of a Python `def` or `class` (the line before it opens the
block or closes its docstring, the next line is less indented) is the Ellipsis of a stub, never a
placeholder.

When it fires, the placeholder is expanded when that is unambiguous: the change holding it
consists of placeholders and blank lines only; the unchanged lines right before it and right
after it (up to 20 non-blank ones, or the start or end of the text) each occur exactly once in
the original; and none of the dropped lines that are unique in the original appears elsewhere in
the new text (then they were moved, not kept). Otherwise it is refused.

When the diff alone leaves a placeholder unanchored or among changed lines, it is read from its
neighbours instead (`_span_by_anchors`): followed by a blank line, with the lines before and
after it (past blank lines, and past the lines the rewrite adds before the next kept line) each
reading as exactly one original line, it stands for the original lines between those two, the
same blank lines aside, and is expanded; otherwise refused.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from itertools import pairwise

from complex_edit.edit_tools.buffer import common_prefix_length, common_suffix_length
from complex_edit.edit_tools.indent import columns, leading
from complex_edit.edit_tools.lines import (
    count_breaks,
    line_contents,
    line_start,
    split_lines,
    strip_terminator,
)
from complex_edit.edit_tools.pinning import edited_from, past_added, pinned
from complex_edit.edit_tools.placeholders import HINT, is_bare_dots, is_placeholder

_MAX_ANCHOR_LINES = 20
# A new line this similar to a line it replaces is an edit of that line, not a placeholder.
_EDITED_LINE_RATIO = 0.6
_MAX_COMPARED_LINES = 50
_MIN_EDITED_WORDS = 3
_WORD = re.compile(r"\w+")
_BLOCK_OPENER = re.compile(r"^\s*(?:@\S.*|(?:async\s+)?def\s.*|class\s.*):\s*(?:#.*)?$")
_DOCSTRING_END = re.compile(r"(?:\"\"\"|''')\s*$")
_TAB = 8
_LINE_BREAK = re.compile(r"[\r\n]")


@dataclass(frozen=True)
class Elision:
    """A placeholder standing for dropped original lines. Indices are 0-based lines: `line` in
    the new text as sent, `dropped_first` in the original."""

    placeholder: str
    line: int
    dropped_first: int
    dropped_count: int
    expanded: bool
    reason: str = ""  # why it could not be expanded


@dataclass(frozen=True)
class Checked:
    text: str  # the new text, with every expandable placeholder expanded
    elisions: tuple[Elision, ...] = ()

    @property
    def refused(self) -> list[Elision]:
        return [elision for elision in self.elisions if not elision.expanded]


@dataclass(frozen=True)
class _Block:
    i1: int
    i2: int
    j1: int
    j2: int


def has_line(text: str, content: str) -> bool:
    """Whether some line of `text` has `content` once spaces and tabs around it are removed."""
    position = text.find(content)
    while position != -1:
        start, stop = position, position + len(content)
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        while stop < len(text) and text[stop] in " \t":
            stop += 1
        opens = start == 0 or text[start - 1] in "\r\n" or (start == 1 and text[0] == "\ufeff")
        if opens and (stop == len(text) or text[stop] in "\r\n"):
            return True
        position = text.find(content, position + 1)
    return False


def _opcodes(old: Sequence[str], new: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """The line diff, with the common head and tail taken off before difflib sees it."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    middle = SequenceMatcher(
        None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False
    )
    ops = [("equal", 0, head, 0, head)]
    ops += [
        (t, i1 + head, i2 + head, j1 + head, j2 + head)
        for t, i1, i2, j1, j2 in middle.get_opcodes()
    ]
    ops.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return [op for op in ops if op[2] > op[1] or op[4] > op[3]]


def _is_stub(new: Sequence[str], index: int) -> bool:
    """A bare `...` as the whole body of a def or class."""
    indent = columns(leading(new[index]), _TAB)
    before = next((line for line in reversed(new[:index]) if line.strip()), None)
    after = next((line for line in new[index + 1 :] if line.strip()), None)
    if indent == 0 or before is None:
        return False
    if not (_BLOCK_OPENER.match(before) or _DOCSTRING_END.search(before)):
        return False
    return after is None or columns(leading(after), _TAB) < indent


def _words(line: str) -> list[str]:
    return _WORD.findall(line.lower())


def _edits_a_dropped_line(line: str, dropped: Sequence[str]) -> bool:
    """Whether `line` reads as an edited version of one of the `dropped` lines: their words
    (comment markers and dots left out) are 60% the same or more. A placeholder of fewer
    than three words (`// ...`, `# (unchanged)`) is never taken for an edit."""
    wanted = _words(line)
    if len(wanted) < _MIN_EDITED_WORDS:
        return False
    for other in dropped[:_MAX_COMPARED_LINES]:
        matcher = SequenceMatcher(None, wanted, _words(other), autojunk=False)
        if (
            matcher.real_quick_ratio() >= _EDITED_LINE_RATIO
            and matcher.ratio() >= _EDITED_LINE_RATIO
        ):
            return True
    return False


def _unique(old: Sequence[str], where: dict[str, list[int]], run: Sequence[str]) -> bool:
    found = 0
    for start in where.get(run[0], ()):
        if old[start : start + len(run)] == run:
            found += 1
            if found > 1:
                return False
    return found == 1


def _anchored(old: Sequence[str], where: dict[str, list[int]], lines: range) -> bool:
    """Whether the unchanged lines `lines` of the original (nearest first) pin a place: some
    run of them holding 1 to _MAX_ANCHOR_LINES non-blank lines occurs only once in the
    original."""
    taken: list[int] = []
    for index in lines:
        taken.append(index)
        if old[index].strip():
            run = [old[i] for i in sorted(taken)]  # a list, as old's slices are
            if _unique(old, where, run):
                return True
            if sum(1 for i in taken if old[i].strip()) >= _MAX_ANCHOR_LINES:
                return False
    return False


def _why_not_expandable(
    block: _Block,
    ops: Sequence[tuple[str, int, int, int, int]],
    at: int,
    old: Sequence[str],
    new: Sequence[str],
    placeholder_lines: set[int],
    where: dict[str, list[int]],
) -> str:
    """ "" when the block can be expanded, else why not: "changed" (other new lines stand
    beside the placeholder), "unanchored" (the lines around it occur elsewhere too), "moved"
    (dropped lines reappear elsewhere in the new text)."""
    others = [j for j in range(block.j1, block.j2) if new[j].strip() and j not in placeholder_lines]
    if others:
        return "changed"
    before = ops[at - 1] if at > 0 else None
    after = ops[at + 1] if at + 1 < len(ops) else None
    if (
        before is not None
        and not _anchored(old, where, range(before[2] - 1, before[1] - 1, -1))
        and not pinned(ops, at, True, old, new, where)
    ):
        return "unanchored"
    if (
        after is not None
        and not _anchored(old, where, range(after[1], after[2]))
        and not pinned(ops, at, False, old, new, where)
    ):
        return "unanchored"
    kept = set(new[: block.j1]) | set(new[block.j2 :])
    for index in range(block.i1, block.i2):
        line = old[index]
        if line.strip() and len(where[line]) == 1 and line in kept:
            return "moved"
    return ""


def _changed_lines(original: str, new: str) -> tuple[int, int] | None:
    """The 0-based range of lines of `new` between its common head and tail with `original`,
    when one of them has a placeholder's shape; else None. Only those lines are looked at: on
    a large document that is the difference between a few lines and millions of characters."""
    head = common_prefix_length(original, new)
    tail = common_suffix_length(original, new, min(len(original), len(new)) - head)
    start = line_start(new, head) if head < len(new) else line_start(new, max(0, head - 1))
    end = len(new) - tail
    changed = new[start : end + _line_end_distance(new, end)]
    if HINT.search(changed) is None:
        return None
    lines = split_lines(changed)
    if not any(is_placeholder(strip_terminator(line)) for line in lines):
        return None
    first = count_breaks(new, 0, start)
    return first, first + len(lines)


def _line_end_distance(text: str, offset: int) -> int:
    match = _LINE_BREAK.search(text, offset)
    return (match.start() if match else len(text)) - offset


def check(original: str, new: str, known: Callable[[str], bool] | None = None) -> Checked:
    """`new` with its placeholders expanded, and what was found. `known(text)`: whether a
    line with this text (stripped) existed somewhere else before (then it is not new)."""
    changed = _changed_lines(original, new)
    if changed is None:
        return Checked(new)
    new_contents = line_contents(new)
    suspects = [i for i in range(*changed) if is_placeholder(new_contents[i])]
    old_contents = line_contents(original)
    seen = {line.strip() for line in old_contents}
    suspects = [
        i
        for i in suspects
        if new_contents[i].strip() not in seen
        and not (known is not None and known(new_contents[i].strip()))
        and not (is_bare_dots(new_contents[i]) and _is_stub(new_contents, i))
    ]
    if not suspects:
        return Checked(new)
    ops = _opcodes(old_contents, new_contents)
    found: dict[int, tuple[_Block, list[int]]] = {}
    for index in suspects:
        at = next(n for n, op in enumerate(ops) if op[3] <= index < op[4])
        _, i1, i2, j1, j2 = ops[at]
        dropped = [line for line in old_contents[i1:i2] if line.strip()]
        if dropped and not _edits_a_dropped_line(new_contents[index], dropped):
            found.setdefault(at, (_Block(i1, i2, j1, j2), []))[1].append(index)
    if not found:
        return Checked(new)
    placeholder_lines = {i for _, lines in found.values() for i in lines}
    where: dict[str, list[int]] = defaultdict(list)
    for position, line in enumerate(old_contents):
        where[line].append(position)
    elisions: list[Elision] = []
    for at, (block, lines) in sorted(found.items()):
        reason = _why_not_expandable(
            block, ops, at, old_contents, new_contents, placeholder_lines, where
        )
        elisions.append(
            Elision(
                new_contents[lines[0]].strip(),
                lines[0],
                block.i1,
                block.i2 - block.i1,
                expanded=not reason,
                reason=reason,
            )
        )
    blocks = [block for _, (block, _) in sorted(found.items())]
    for number, elision in enumerate(elisions):
        if elision.reason not in ("changed", "unanchored"):
            continue
        span = _span_by_anchors(elision.line, old_contents, new_contents, where)
        if span is not None:
            blocks[number] = _Block(span[0], span[1], elision.line, elision.line + 1)
            elisions[number] = Elision(
                elision.placeholder, elision.line, span[0], span[1] - span[0], expanded=True
            )
    if any(not elision.expanded for elision in elisions):
        return Checked(new, tuple(elisions))
    if not _in_order(blocks):
        refused = [replace(elision, expanded=False, reason="unanchored") for elision in elisions]
        return Checked(new, tuple(refused))
    expanded = _expand(split_lines(original), split_lines(new), blocks)
    return Checked(expanded, tuple(elisions))


def _in_order(blocks: Sequence[_Block]) -> bool:
    ordered = sorted(blocks, key=lambda block: block.j1)
    return all(a.i2 <= b.i1 for a, b in pairwise(ordered))


def _reads_as(line: str, old: Sequence[str], where: dict[str, list[int]]) -> int | None:
    """The one original line `line` is (the only copy of its text) or reads as an edit of (of
    no other original line as close, itself occurring once); None when there is none or more
    than one."""
    if not line.strip():
        return None
    copies = where.get(line)
    if copies:
        return copies[0] if len(copies) == 1 else None
    close = edited_from(line, old)
    if len(close) != 1 or len(where[old[close[0]]]) != 1:
        return None
    return close[0]


def _span_by_anchors(
    index: int, old: Sequence[str], new: Sequence[str], where: dict[str, list[int]]
) -> tuple[int, int] | None:
    """The original lines the placeholder at new line `index` stands for, read from its
    neighbours alone: one blank line at least after it; past the blank lines around it, the
    line before it and the line after it (or the text's edges) each read as exactly one
    original line; the same blank lines beside those in the original; code between them. A
    lazy rewrite keeping a class's first line, a placeholder, then every later member
    restated with small changes, pins the kept block so. None when either neighbour could be
    several lines (refused)."""
    up = index - 1
    while up >= 0 and not new[up].strip():
        up -= 1
    down = index + 1
    while down < len(new) and not new[down].strip():
        down += 1
    if down == index + 1:
        return None  # no blank line bounds the span: which lines it ends with is a guess
    before = -1 if up < 0 else _reads_as(new[up], old, where)
    after = len(old) if down == len(new) else _reads_as(new[down], old, where)
    if after is None and (anchor := past_added(new, down, old)) is not None:
        after = where[new[anchor]][0] if len(where.get(new[anchor], ())) == 1 else None
    if before is None or after is None:
        return None
    start = before + 1 + (index - 1 - up)
    end = after - (down - index - 1)
    if not (before < start <= end <= after):
        return None
    if any(line.strip() for line in [*old[before + 1 : start], *old[end:after]]):
        return None
    span = old[start:end]
    if not any(line.strip() for line in span):
        return None
    kept = set(new[: up + 1]) | set(new[down:])
    if any(line.strip() and len(where[line]) == 1 and line in kept for line in span):
        return None  # moved, not kept
    return start, end


def _expand(old: Sequence[str], new: Sequence[str], blocks: Sequence[_Block]) -> str:
    pieces: list[str] = []
    position = 0
    for block in sorted(blocks, key=lambda b: b.j1):
        pieces.extend(new[position : block.j1])
        restored = list(old[block.i1 : block.i2])
        last_new = new[block.j2 - 1]
        ending = last_new[len(strip_terminator(last_new)) :]
        restored[-1] = strip_terminator(restored[-1]) + ending
        pieces.extend(restored)
        position = block.j2
    pieces.extend(new[position:])
    return "".join(pieces)
