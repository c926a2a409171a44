"""Indentation: a line's leading spaces and tabs, their width in columns, and a document's own
style (tabs or spaces, and its indent unit)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_LEADING = re.compile(r"[ \t]*")
# Lines looked at to guess a document's style: enough for any real file, bounded for huge ones.
_STYLE_SAMPLE_LINES = 5000
_UNITS = (2, 3, 4, 8)
DEFAULT_UNIT = 4


def leading(line: str) -> str:
    """The spaces and tabs `line` starts with."""
    match = _LEADING.match(line)
    return match.group() if match else ""


def is_blank(line: str) -> bool:
    return not line.strip(" \t")


def columns(indent: str, tab: int) -> int:
    """The width of `indent` (spaces and tabs) with tab stops every `tab` columns."""
    if "\t" not in indent:
        return len(indent)
    column = 0
    for char in indent:
        column = (column // tab + 1) * tab if char == "\t" else column + 1
    return column


def render(width: int, *, tabs: bool, tab: int) -> str:
    """An indentation `width` columns wide: tabs then alignment spaces, or only spaces."""
    if tabs:
        return "\t" * (width // tab) + " " * (width % tab)
    return " " * width


@dataclass(frozen=True)
class Style:
    """How a text indents: with tabs or with spaces, `unit` columns per level for spaces."""

    tabs: bool
    unit: int

    def describe(self) -> str:
        return "tabs" if self.tabs else f"{self.unit} spaces per level"


def space_unit(lines: Iterable[str]) -> int | None:
    """The most common step between the widths of consecutive space-indented lines, or None
    when no line is indented with spaces."""
    steps: Counter[int] = Counter()
    previous = 0
    seen = False
    for line in lines:
        if is_blank(line):
            continue
        indent = leading(line)
        if "\t" in indent:
            continue
        width = len(indent)
        seen = seen or width > 0
        step = width - previous
        if step in _UNITS:
            steps[step] += 1
        previous = width
    if steps:
        # Ties go to the larger unit: 4-space code has 8-column steps, never the reverse.
        return max(steps, key=lambda unit: (steps[unit], unit))
    return DEFAULT_UNIT if seen else None


def detect_style(lines: Iterable[str]) -> Style | None:
    """The indentation style of a text's lines (contents, without terminators), or None when
    no line is indented."""
    tabbed = spaced = 0
    sample: list[str] = []
    for count, line in enumerate(lines):
        if count >= _STYLE_SAMPLE_LINES:
            break
        sample.append(line)
        if line.startswith("\t"):
            tabbed += 1
        elif line.startswith(" ") and not is_blank(line):
            spaced += 1
    if not tabbed and not spaced:
        return None
    unit = space_unit(sample) or DEFAULT_UNIT
    return Style(tabs=tabbed > spaced, unit=unit)
