"""Reference LSP positions, independent of the server's code: the LSP line rule (``\n``,
``\r\n`` and ``\r`` end a line) and columns in the three position encodings, strict (a
position that is not in the text is a ValueError), plus the lenient reading the LSP allows
(``clamped_offset``). This is the one reference of the suite: the raw LSP client, the test
editor of ``tests/editor`` and the Neovim tests apply edits with it, and the property tests
check the server against it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from typing import Protocol

__all__ = [
    "addressable",
    "clamped_offset",
    "line_spans",
    "line_starts",
    "offset_to_position",
    "position_to_offset",
]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """The offset where each line starts; ``\\n``, ``\\r\\n`` and ``\\r`` end a line."""
    if "\r" in text:
        return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
    starts = [0]
    position = text.find("\n")
    while position >= 0:  # str.find is C-speed: a 10 MB document is indexed in milliseconds
        starts.append(position + 1)
        position = text.find("\n", position + 1)
    return starts


def _line_end(text: str, starts: list[int], line: int) -> int:
    """Where the content of ``line`` ends, before its line break."""
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    if end > start and text[end - 1] == "\n":
        end -= 1
    if end > start and text[end - 1] == "\r":
        end -= 1
    return end


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end of content) of every line."""
    starts = line_starts(text)
    return [(start, _line_end(text, starts, line)) for line, start in enumerate(starts)]


def addressable(text: str) -> list[int]:
    """Offsets a position can name: all but the middle of a CRLF."""
    return [
        offset
        for offset in range(len(text) + 1)
        if not (0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n")
    ]


class _Position(Protocol):
    @property
    def line(self) -> int: ...
    @property
    def character(self) -> int: ...


PositionLike = Mapping[str, int] | _Position


def _line_character(position: PositionLike) -> tuple[int, int]:
    if isinstance(position, Mapping):
        return position["line"], position["character"]
    return position.line, position.character


_CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}


def _units(text: str, encoding: str) -> int:
    """How many code units ``text`` takes in ``encoding`` (lone surrogates count as one)."""
    codec, unit_bytes = _CODECS[encoding]
    return len(text.encode(codec, "surrogatepass")) // unit_bytes


def position_to_offset(
    text: str, position: PositionLike, encoding: str, starts: list[int] | None = None
) -> int:
    """The offset of an LSP position (a mapping or an object with ``line`` and ``character``);
    ValueError for a position that is not in ``text``. ``starts`` (``line_starts(text)``) saves
    indexing the text again."""
    starts = line_starts(text) if starts is None else starts
    line, character = _line_character(position)
    if not 0 <= line < len(starts):
        raise ValueError(f"line {line} does not exist")
    start, end = starts[line], _line_end(text, starts, line)
    if character < 0:
        raise ValueError(f"character {character} is negative")
    if encoding == "utf-32" or text[start:end].isascii():
        if start + character > end:
            raise ValueError(f"character {character} is past the line end")
        return start + character
    column, offset = 0, start
    while column < character:
        if offset >= end:
            raise ValueError(f"character {character} is past the line end")
        column += _units(text[offset], encoding)
        offset += 1
    if column != character:
        raise ValueError("position inside a character")
    return offset


def offset_to_position(
    text: str, offset: int, encoding: str, starts: list[int] | None = None
) -> dict[str, int]:
    """The LSP position of an offset; ValueError inside a line break or outside ``text``."""
    starts = line_starts(text) if starts is None else starts
    line = bisect.bisect_right(starts, offset) - 1
    if line < 0 or offset > _line_end(text, starts, line):
        raise ValueError(f"offset {offset} is inside a line break")
    before = text[starts[line] : offset]
    if encoding == "utf-32" or before.isascii():
        return {"line": line, "character": len(before)}
    return {"line": line, "character": _units(before, encoding)}


def clamped_offset(text: str, position: PositionLike, encoding: str) -> int:
    """The offset of a position read leniently, as the LSP allows: a line past the end is the
    end of the text, a character past the end of its line is the line end, and a character
    inside a multi-unit character is that character's start."""
    line, character = _line_character(position)
    spans = line_spans(text)
    if line >= len(spans):
        return len(text)
    start, end = spans[line]
    column = 0
    for offset in range(start, end):
        step = _units(text[offset], encoding)
        if column + step > character:
            return offset
        column += step
    return end
