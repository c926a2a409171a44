"""Review hunks: a result's changes grouped as a person reviews them.

Changes (`compute_edits`, against one text) that touch the same or adjacent lines form one
hunk; a hunk covers whole lines where the changes allow it. Any subset of the hunks applies
cleanly to the text, and all of them give the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from complex_edit.edit_tools.lines import count_breaks, line_count
from complex_edit.server.text.diff import TextChange, apply_changes, next_line_end, prev_line_start
from complex_edit.server.text.rebase import edit_landed
from complex_edit.server.text.unified import unified_diff

CONTEXT_LINES = 3
LABEL_WORDS_CHARS = 40


@dataclass(frozen=True)
class Hunk:
    """Replace `text[start:end]` (`old_text`) with `new_text`; `changes` are the minimal
    changes inside it (what an editor is sent), `first_line`/`last_line` 1-based."""

    start: int
    end: int
    old_text: str
    new_text: str
    changes: tuple[TextChange, ...]
    first_line: int
    last_line: int
    label: str
    diff: str

    def change(self) -> TextChange:
        return TextChange(self.start, self.end, self.new_text)


def make_hunks(text: str, changes: Sequence[TextChange], path_label: str = "") -> list[Hunk]:
    """The hunks of sorted, non-overlapping `changes` against `text`, in document order."""
    groups = _groups(text, changes)
    hunks: list[Hunk] = []
    line = 0
    position = 0
    for start, end, members in groups:
        line += count_breaks(text, position, start)
        position = start
        hunks.append(_hunk(text, start, end, members, line, path_label))
    return hunks


def changed_lines(text: str, changes: Sequence[TextChange]) -> tuple[int, int]:
    """Lines (added, removed) by sorted, non-overlapping `changes` to `text`, counted on the
    hunks' whole lines as `make_hunks` groups them (without building the hunks)."""
    added = removed = 0
    for start, end, members in _groups(text, changes):
        old_text = text[start:end]
        removed += line_count(old_text)
        added += line_count(apply_changes(old_text, [_shift(c, -start) for c in members]))
    return added, removed


def apply_hunks(text: str, hunks: Iterable[Hunk]) -> str:
    """`text` with the given hunks (any subset of one `make_hunks` answer) applied."""
    return apply_changes(text, sorted((h.change() for h in hunks), key=lambda c: c.start))


def landed_hunks(
    before: str, hunks: Sequence[Hunk], reported: Sequence[TextChange] | None, now: str
) -> list[int] | None:
    """Which hunks (indexes) the reported changes show landing, when that reads one way;
    None when they do not. When `now` is `before` with some of the hunks applied, those;
    else (the user typed too) all of them, or those that each show landing (checked
    together) with any other hunk whose landing beside them the changes then show."""
    exact = _exact(before, hunks, now)
    if exact is not None:
        return exact
    everything = list(range(len(hunks)))
    if edit_landed(before, _edit(hunks, everything), reported, now):
        return everything
    kept = [i for i in everything if edit_landed(before, hunks[i].changes, reported, now)]
    if kept and not edit_landed(before, _edit(hunks, kept), reported, now):
        return None
    for i in everything:
        more = sorted([*kept, i])
        if i not in kept and edit_landed(before, _edit(hunks, more), reported, now):
            kept = more
    return kept


def _exact(before: str, hunks: Sequence[Hunk], now: str) -> list[int] | None:
    """The hunks whose application to `before` gives exactly `now` (the most that do, where
    several subsets give it), or None."""
    states: dict[int, list[int]] = {0: []}  # offset in `now` reached → hunks applied
    end = 0
    for i, hunk in enumerate(hunks):
        gap = before[end : hunk.start]
        reached: dict[int, list[int]] = {}
        for at, chosen in states.items():
            if not now.startswith(gap, at):
                continue
            at += len(gap)
            if now.startswith(hunk.new_text, at):
                reached.setdefault(at + len(hunk.new_text), [*chosen, i])
            if now.startswith(hunk.old_text, at):
                reached.setdefault(at + len(hunk.old_text), chosen)
        states, end = reached, hunk.end
    tail = before[end:]
    done = [chosen for at, chosen in states.items() if now[at:] == tail]
    return max(done, key=len) if done else None


def _edit(hunks: Sequence[Hunk], indexes: Iterable[int]) -> list[TextChange]:
    return [change for i in indexes for change in hunks[i].changes]


def _groups(text: str, changes: Sequence[TextChange]) -> list[tuple[int, int, list[TextChange]]]:
    groups: list[tuple[int, int, list[TextChange]]] = []
    for change in changes:
        start = _line_start(text, change.start)
        end = change.end if _is_boundary(text, change.end) else next_line_end(text, change.end)
        if groups and start <= groups[-1][1]:
            first, last, members = groups[-1]
            groups[-1] = (first, max(last, end), [*members, change])
        else:
            groups.append((start, end, [change]))
    return groups


def _hunk(
    text: str, start: int, end: int, members: list[TextChange], line: int, path_label: str
) -> Hunk:
    old_text = text[start:end]
    new_text = apply_changes(old_text, [_shift(c, -start) for c in members])
    inner = max(0, count_breaks(old_text) - (1 if old_text.endswith(("\n", "\r")) else 0))
    first, last = line + 1, line + 1 + inner
    where = f"Line {first}" if first == last else f"Lines {first}–{last}"
    return Hunk(
        start=start,
        end=end,
        old_text=old_text,
        new_text=new_text,
        changes=tuple(members),
        first_line=first,
        last_line=last,
        label=f"{where}: {_few_words(old_text, new_text)}",
        diff=_diff(text, start, end, new_text, line, path_label),
    )


def _shift(change: TextChange, by: int) -> TextChange:
    return TextChange(change.start + by, change.end + by, change.new_text)


def _few_words(old_text: str, new_text: str) -> str:
    old_lines = {line.strip() for line in old_text.splitlines()}
    for line in new_text.splitlines():
        if line.strip() and line.strip() not in old_lines:
            return _cut(line.strip())
    removed = [line.strip() for line in old_text.splitlines() if line.strip()]
    new_lines = {line.strip() for line in new_text.splitlines()}
    for line in removed:
        if line not in new_lines:
            return "remove " + _cut(line)
    return "whitespace" if old_text != new_text else "no change"


def _cut(words: str) -> str:
    flat = " ".join(words.split())
    return flat if len(flat) <= LABEL_WORDS_CHARS else flat[: LABEL_WORDS_CHARS - 1] + "…"


def _diff(text: str, start: int, end: int, new_text: str, line: int, path_label: str) -> str:
    """A one-hunk unified diff, with the document's line numbers."""
    low = start
    before = 0
    while before < CONTEXT_LINES and low > 0:
        low = prev_line_start(text, low)
        before += 1
    high = end
    for _ in range(CONTEXT_LINES):
        if high >= len(text):
            break
        high = next_line_end(text, high)
    window = text[low:high]
    edited = text[low:start] + new_text + text[end:high]
    diff = unified_diff(window, edited, path_label, context=CONTEXT_LINES)
    return _renumber(diff, line - before)


def _renumber(diff: str, offset: int) -> str:
    """`diff` with its `@@` line numbers moved down by `offset` lines."""
    out = []
    for row in diff.splitlines(keepends=True):
        if row.startswith("@@ -"):
            old, new = row[4:].split(" @@", 1)[0].split(" +")
            row = f"@@ -{_moved(old, offset)} +{_moved(new, offset)} @@\n"
        out.append(row)
    return "".join(out)


def _moved(spec: str, offset: int) -> str:
    first, _, count = spec.partition(",")
    moved = str(int(first) + offset)
    return f"{moved},{count}" if count else moved


def _is_boundary(text: str, position: int) -> bool:
    if position <= 0 or position >= len(text):
        return True
    before = text[position - 1]
    return before == "\n" or (before == "\r" and text[position] != "\n")


def _line_start(text: str, position: int) -> int:
    """Start of the line holding `position` (one between a CR and its LF: the CRLF's line)."""
    limit = position
    if 0 < limit < len(text) and text[limit - 1] == "\r" and text[limit] == "\n":
        limit -= 1
    return max(text.rfind("\n", 0, limit), text.rfind("\r", 0, limit)) + 1
