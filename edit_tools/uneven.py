"""Re-indenting new_text for an uneven tolerant match (`tolerant.py`, relation "uneven"):
old_text's lines equal the document's once leading whitespace is set aside, but not by one
offset on every line, so there is no single shift to apply. Each line of new_text that is not
a repeat of an old_text line (those keep the document's exact text) takes its indentation
from one matched line:
- the nearest line of old_text indented as it is (at or above its place first), whose
  document indentation it takes as is;
- else the nearest non-blank line of old_text at its place, shifted by the difference
  between the two in old_text (in columns, written in the document's style).
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from complex_edit.edit_tools.indent import columns, is_blank, leading, render


def _anchors(old_lines: Sequence[str], new_lines: Sequence[str]) -> list[int]:
    """For each line of new_text, the old_text line at its place."""
    anchors = [0] * len(new_lines)
    matcher = SequenceMatcher(None, list(old_lines), list(new_lines), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for offset, j in enumerate(range(j1, j2)):
            if tag in ("equal", "replace"):
                anchors[j] = min(i1 + offset, i2 - 1)
            else:  # inserted after old line i1 - 1
                anchors[j] = max(0, i1 - 1)
    return anchors


def _nearest(anchor: int, fits: Sequence[bool]) -> int | None:
    """The first line that fits, looking up from `anchor`, then down."""
    order = list(range(anchor, -1, -1)) + list(range(anchor + 1, len(fits)))
    return next((index for index in order if fits[index]), None)


def uneven_indents(
    old_lines: Sequence[str],
    doc_lines: Sequence[str],
    new_lines: Sequence[str],
    *,
    tab: int,
    tabs: bool,
) -> list[str | None]:
    """The indentation of each line of new_text (None: it would need less than none; blank
    lines get ""). `doc_lines` are the matched lines, in step with `old_lines`."""
    anchors = _anchors(old_lines, new_lines)
    widths = [columns(leading(line), tab) for line in old_lines]
    filled = [not is_blank(line) for line in old_lines]
    out: list[str | None] = []
    for line, anchor in zip(new_lines, anchors, strict=True):
        if is_blank(line):
            out.append("")
            continue
        width = columns(leading(line), tab)
        same = [fill and old == width for fill, old in zip(filled, widths, strict=True)]
        ref = _nearest(anchor, same)
        if ref is not None:
            out.append(leading(doc_lines[ref]))
            continue
        ref = _nearest(anchor, filled)
        assert ref is not None  # old_text has a non-blank line, or it is never matched
        shifted = columns(leading(doc_lines[ref]), tab) + width - widths[ref]
        out.append(None if shifted < 0 else render(shifted, tabs=tabs, tab=tab))
    return out
