"""The whitespace-tolerant fallback of replace_text, used only when `old_text` occurs nowhere
exactly (nor with other line endings or pasted line numbers).

A tolerant match is a run of whole lines of the document whose text, line by line, equals the
lines of `old_text` once indentation and spaces at line ends are set aside, and whose
indentation relates to `old_text`'s in one uniform way:
- the same, or a fixed prefix more or less on every line (a snippet copied without its base
  indentation, or with too much);
- the same widths once tabs count as a fixed number of columns, up to one uniform shift (spaces
  where the document has tabs, or the reverse).
Blank lines match blank lines. `new_text` is re-indented by the same relation, in the
document's style; lines of `new_text` that repeat a line of `old_text` unchanged are written
exactly as the document has them (spaces at line ends included).

Only when no place relates uniformly, a place whose indentation differs line by line
("uneven": a model re-flowing nested code) is a match too, and then only if it is the one
place with these lines; `uneven.py` re-indents new_text line by line from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from complex_edit.edit_tools import errors
from complex_edit.edit_tools.indent import (
    Style,
    columns,
    detect_style,
    is_blank,
    leading,
    space_unit,
)
from complex_edit.edit_tools.lines import (
    CR,
    CRLF,
    LF,
    count_breaks,
    ends_with_break,
    iter_lines,
    line_contents,
    strip_terminator,
)
from complex_edit.edit_tools.matching import strip_line_numbers
from complex_edit.edit_tools.view import BOM

_TAB_WIDTHS = (4, 8, 2)
# Candidates looked for at most: beyond one, the call fails anyway; the error shows a few.
MAX_CANDIDATES = 50
# Places with the same lines looked at, at most; past that the call is refused, not guessed.
MAX_EXAMINED = 2000
_BREAK = re.compile(r"\r\n|\r|\n")
INDENTATION = "indentation"
TABS = "tabs"
TRAILING = "trailing_whitespace"
FINAL_NEWLINE = "final_newline"
LINE_NUMBERS = "line_numbers"
LINE_ENDINGS = "line_endings"


@dataclass(frozen=True)
class Relation:
    """How the document's indentation relates to old_text's: `prefix` added ("prefix") or
    removed ("extra") on every line, or widths with tabs of `tab` columns shifted by `shift`
    ("columns"), or nothing ("same"); or no single relation ("uneven", widths counted with
    tabs of `tab` columns)."""

    kind: str
    prefix: str = ""
    tab: int = 4
    shift: int = 0


@dataclass(frozen=True)
class Window:
    """Whole lines of the document: `contents` (no terminators, no byte-order mark) and their
    `terminators`, the first starting at offset `start`, 0-based line `top`."""

    start: int
    top: int
    contents: list[str]
    terminators: list[str]

    @property
    def end(self) -> int:
        return self.start + sum(map(len, self.contents)) + sum(map(len, self.terminators))


@dataclass(frozen=True)
class Candidate:
    window: Window
    relation: Relation
    trailing: bool  # spaces or tabs at line ends differed
    old_lines: list[str]
    old_ends_with_break: bool
    new: str  # new_text, without pasted line numbers when old_text had them
    numbered: bool = False  # old_text matched once its pasted line numbers were removed
    old_breaks: tuple[str, ...] = ()  # old_text's line breaks, in order

    @property
    def first_line(self) -> int:
        return self.window.top + 1

    @property
    def last_line(self) -> int:
        return self.window.top + len(self.window.contents)

    @property
    def span(self) -> str:
        """`line 4` or `lines 4-7`."""
        first, last = self.first_line, self.last_line
        return f"line {first}" if first == last else f"lines {first}-{last}"


def _window_at(text: str, top_offset: int, size: int) -> Window | None:
    """The `size` lines from the line starting at `top_offset`; `top` is left at -1."""
    contents: list[str] = []
    terminators: list[str] = []
    for line in iter_lines(text, top_offset):
        content = strip_terminator(line)
        contents.append(content)
        terminators.append(line[len(content) :])
        if len(contents) == size:
            break
    if len(contents) < size:
        return None
    start = top_offset
    if start == 0 and text.startswith(BOM):
        contents[0] = contents[0][1:]
        start = 1
    return Window(start, -1, contents, terminators)


def _lines_pattern(text: str, stripped: Sequence[str]) -> re.Pattern[str]:
    """Finds, as zero-width matches so that overlapping runs are all found, the start of every
    run of lines with the texts `stripped` (blank for ""), any indentation and line-end spaces
    allowed."""
    lines = [r"[ \t]*" + (re.escape(line) + r"[ \t]*" if line else "") for line in stripped]
    body = r"(?:\r\n|\r|\n)".join(lines) + r"(?=\r|\n|\Z)"
    if CR in text and text.count(CR) != text.count(CRLF):  # lone CRs end lines too
        start = r"(?:\A|(?<=\n)|(?<=\r)(?!\n))"
    else:
        start = r"(?m:^)"
    return re.compile(rf"{start}(?={BOM}?{body})")


def _windows(text: str, old_lines: Sequence[str]) -> Iterator[Window]:
    """Every run of len(old_lines) whole lines with the texts of old_lines once indentation
    and line-end spaces are set aside, in order (found at C speed, then built one by one)."""
    stripped = [line.strip(" \t") for line in old_lines]
    counted_to, counted_lines = 0, 0
    for match in _lines_pattern(text, stripped).finditer(text):
        window = _window_at(text, match.start(), len(old_lines))
        if window is None:
            continue
        counted_lines += count_breaks(text, counted_to, match.start())
        counted_to = match.start()
        yield Window(window.start, counted_lines, window.contents, window.terminators)


def _relation(pairs: Sequence[tuple[str, str]], tab_widths: Sequence[int]) -> Relation | None:
    """The uniform relation taking each old indentation to the document's, if any. `pairs`:
    (old, document) indentations of the non-blank lines."""
    if all(old == doc for old, doc in pairs):
        return Relation("same")
    old0, doc0 = pairs[0]
    if doc0.endswith(old0) and len(doc0) > len(old0):
        prefix = doc0[: len(doc0) - len(old0)]
        if all(doc == prefix + old for old, doc in pairs):
            return Relation("prefix", prefix=prefix)
    if old0.endswith(doc0) and len(old0) > len(doc0):
        prefix = old0[: len(old0) - len(doc0)]
        if all(old == prefix + doc for old, doc in pairs):
            return Relation("extra", prefix=prefix)
    if not any("\t" in old + doc for old, doc in pairs):
        return None
    fits: list[Relation] = []
    for tab in tab_widths:
        shifts = {columns(doc, tab) - columns(old, tab) for old, doc in pairs}
        if len(shifts) == 1:
            fits.append(Relation("columns", tab=tab, shift=shifts.pop()))
    # The same widths in another style is the likeliest reading; then the first width tried.
    return next((fit for fit in fits if fit.shift == 0), fits[0] if fits else None)


def _compare(
    window: Window, old_lines: list[str], ends: bool, tab_widths: Sequence[int], new: str
) -> Candidate | None:
    pairs: list[tuple[str, str]] = []
    trailing = False
    for old, doc in zip(old_lines, window.contents, strict=True):
        if is_blank(old) or is_blank(doc):
            if not (is_blank(old) and is_blank(doc)):
                return None
            trailing = trailing or old != doc  # spaces on a blank line
            continue
        if old.strip(" \t") != doc.strip(" \t"):
            return None
        old_indent, doc_indent = leading(old), leading(doc)
        trailing = trailing or old[len(old_indent) :] != doc[len(doc_indent) :]
        pairs.append((old_indent, doc_indent))
    relation = _relation(pairs, tab_widths) or Relation("uneven", tab=tab_widths[0])
    return Candidate(window, relation, trailing, old_lines, ends, new)


def _tab_widths(text: str, old: str, new: str) -> list[int]:
    widths = [space_unit(line_contents(old + LF + new)), document_style(text).unit]
    return list(dict.fromkeys(w for w in [*widths, *_TAB_WIDTHS] if w))


def document_style(text: str) -> Style:
    return detect_style(line_contents(text[:200_000])) or Style(tabs=False, unit=4)


def find_candidates(text: str, old: str, new: str) -> list[Candidate]:
    """The tolerant matches of `old` (as sent, else without pasted line numbers), the first
    MAX_CANDIDATES of them. Raises `ToolError` when more than MAX_EXAMINED places have the
    same lines: which of them match could not be settled cheaply, and nothing is guessed."""
    variants = [(old, new, False)]
    stripped = strip_line_numbers(old, required=True)
    if stripped and stripped != old:
        variants.append((stripped, strip_line_numbers(new, required=False) or new, True))
    for variant, new_variant, numbered in variants:
        old_lines = line_contents(variant)
        if not old_lines or all(is_blank(line) for line in old_lines):
            continue
        tab_widths = _tab_widths(text, variant, new_variant)
        ends = ends_with_break(variant)
        found: list[Candidate] = []
        uneven: list[Candidate] = []
        for examined, window in enumerate(_windows(text, old_lines)):
            if examined == MAX_EXAMINED:
                raise errors.too_many_lookalikes(MAX_EXAMINED)
            candidate = _compare(window, old_lines, ends, tab_widths, new_variant)
            if candidate is None:
                continue
            if candidate.relation.kind != "uneven":
                found.append(candidate)
                if len(found) == MAX_CANDIDATES:
                    break
            elif len(uneven) < MAX_CANDIDATES:
                uneven.append(candidate)
        found = found or uneven
        if found:
            breaks = tuple(_BREAK.findall(variant))
            return [replace(c, numbered=numbered, old_breaks=breaks) for c in found]
    return []
