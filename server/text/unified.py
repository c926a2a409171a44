"""Unified diffs that follow LSP line rules (lines break only on ``\\r\\n``, ``\\r`` and
``\\n``), computed from the line blocks of ``compute_edits``."""

from __future__ import annotations

from complex_edit.edit_tools.lines import count_breaks
from complex_edit.server.text.diff import line_blocks, next_line_end, prev_line_start
from complex_edit.server.text.positions import LINE


def _count_lines(text: str, start: int, end: int) -> int:
    """Lines in ``text[start:end]`` (boundaries), counting a last line without terminator."""
    count = count_breaks(text, start, end)
    if end > start and text[end - 1] not in "\r\n":
        count += 1
    return count


def _lines_at_most(text: str, start: int, end: int, limit: int) -> bool:
    """Does ``text[start:end]`` (whole lines) hold at most ``limit`` lines? Stops early."""
    position = start
    for _ in range(limit):
        if position >= end:
            return True
        position = next_line_end(text, position)
    return position >= end


def _range_label(start: int, count: int) -> str:
    """difflib's ``_format_range_unified``: 1-based start, length omitted when 1."""
    if count == 1:
        return str(start + 1)
    if count == 0:
        return f"{start},0"
    return f"{start + 1},{count}"


def _emit(out: list[str], mark: str, chunk: str) -> None:
    for line in LINE.findall(chunk):
        out.append(mark + line)
        if line[-1] not in "\r\n":
            out.append("\n\\ No newline at end of file\n")


def diff_headers(path_label: str) -> str:
    """``--- a/PATH`` and ``+++ b/PATH``, git's shape, so ``git apply`` (which strips one
    leading component) patches ``PATH`` itself; an absolute path loses its leading slash, as
    in ``git diff --no-index``."""
    path = path_label.lstrip("/")
    return f"--- a/{path}\n+++ b/{path}\n"


def unified_diff(old: str, new: str, path_label: str, *, context: int = 3) -> str:
    """A unified diff of ``old`` -> ``new`` under ``diff_headers(path_label)``.

    Lines keep their own terminators; a last line without one is followed by
    ``\\ No newline at end of file``. Only the changed regions and their context are split into
    lines, so a large document with few changes is cheap. "" when the texts are equal.
    """
    blocks = line_blocks(old, new)
    if not blocks:
        return ""
    # Line numbers of every block start, counted incrementally.
    numbered: list[tuple[int, int, int, int, int, int]] = []  # a0, a1, b0, b1, line_a, line_b
    line_a = line_b = 0
    last_a = last_b = 0
    for a0, a1, b0, b1 in blocks:
        line_a += count_breaks(old, last_a, a0)
        line_b += count_breaks(new, last_b, b0)
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
    out = [diff_headers(path_label)]
    for hunk in hunks:
        first, last = hunk[0], hunk[-1]
        before_start = first[0]
        before_lines = 0
        while before_lines < context and before_start > 0:
            before_start = prev_line_start(old, before_start)
            before_lines += 1
        after_end = last[1]
        after_lines = 0
        while after_lines < context and after_end < len(old):
            after_end = next_line_end(old, after_end)
            after_lines += 1
        body: list[str] = []
        _emit(body, " ", old[before_start : first[0]])
        old_count = new_count = before_lines + after_lines
        previous_end: int | None = None
        for a0, a1, b0, b1, _, _ in hunk:
            if previous_end is not None:
                _emit(body, " ", old[previous_end:a0])
                gap_lines = _count_lines(old, previous_end, a0)
                old_count += gap_lines
                new_count += gap_lines
            _emit(body, "-", old[a0:a1])
            _emit(body, "+", new[b0:b1])
            old_count += _count_lines(old, a0, a1)
            new_count += _count_lines(new, b0, b1)
            previous_end = a1
        _emit(body, " ", old[last[1] : after_end])
        old_from = first[4] - before_lines
        new_from = first[5] - before_lines
        out.append(
            f"@@ -{_range_label(old_from, old_count)} +{_range_label(new_from, new_count)} @@\n"
        )
        out.extend(body)
    return "".join(out)
