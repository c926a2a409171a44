"""LSP positions as plain ``(line, character)`` pairs <-> Python string offsets, in the
negotiated position encoding (the LSP types themselves are converted in ``server/lsp/bridge.py``).

Offsets are indices into a Python ``str`` (code points). A position ``(line, character)`` counts
``character`` in the negotiated encoding: UTF-16 code units (``"utf-16"``, VS Code; an
astral character counts 2), UTF-8 bytes (``"utf-8"``, Neovim) or code points (``"utf-32"``).

Lines break only on ``\\r\\n``, ``\\r`` and ``\\n`` (LSP rules). ``\\f``, ``\\v``, ``\\x1c``-
``\\x1e``, ``\\x85``, ``\\u2028`` and ``\\u2029`` are ordinary characters inside a line (pygls'
``str.splitlines`` gets this wrong). Nothing here calls ``str.splitlines``.

Rules for positions that do not name a character boundary (they never raise):

- a negative line or character counts as 0;
- a line past the last line means the end of the document;
- a character past the end of its line means the end of that line's content, before its
  terminator;
- a character that lands inside a multi-unit character (between the two halves of a UTF-16
  surrogate pair, or inside a UTF-8 sequence) rounds **down** to the start of that character,
  so the character itself is never split and a range that starts and ends inside the same
  character is empty.

Offsets outside ``[0, len(text)]`` are clamped; an offset between the ``\\r`` and ``\\n`` of a CRLF
maps to the end of that line's content.

Lone surrogates (possible in a Python ``str``, never in valid UTF-8 JSON) count as one UTF-16
unit and three UTF-8 bytes (``surrogatepass``), and never crash a conversion.
"""

from __future__ import annotations

import bisect
import operator
import re
from array import array
from collections.abc import Sequence
from itertools import accumulate, islice, repeat
from typing import Final, Literal

__all__ = [
    "ENCODINGS",
    "LINE",
    "LINE_BREAK",
    "Encoding",
    "LineIndex",
    "Point",
    "code_units",
    "normalize_encoding",
]

Encoding = Literal["utf-8", "utf-16", "utf-32"]
ENCODINGS: Final[tuple[Encoding, ...]] = ("utf-8", "utf-16", "utf-32")

Point = tuple[int, int]  # (line, character)

LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")
# One line with its terminator, or a last line without one.
LINE: Final = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_SCAN_WINDOW: Final = 1 << 16
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def normalize_encoding(encoding: object) -> Encoding:
    """Return the canonical encoding name for ``encoding``.

    Accepts the LSP strings ``"utf-8"``, ``"utf-16"``, ``"utf-32"`` (any case) or an object
    whose ``value`` is one (``lsprotocol.types.PositionEncodingKind``). Anything else is a
    ``ValueError``.
    """
    value = getattr(encoding, "value", encoding)
    if isinstance(value, str):
        lowered = value.lower()
        for name in ENCODINGS:
            if lowered == name:
                return name
    raise ValueError(f"unsupported position encoding: {encoding!r}")


def code_units(text: str, encoding: Encoding) -> int:
    """Length of ``text`` in code units of ``encoding``."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-16":
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    return len(text.encode("utf-8", "surrogatepass"))


def _code_points_in_units(line: str, units: int, encoding: Encoding) -> int:
    """How many code points of ``line`` fit in its first ``units`` code units.

    Rounds down inside a multi-unit character and clamps to ``len(line)``.
    """
    if units <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(units, len(line))
    if encoding == "utf-8":
        data = line.encode("utf-8", "surrogatepass")
        if units >= len(data):
            return len(line)
        while units > 0 and (data[units] & 0xC0) == 0x80:  # a continuation byte: step back
            units -= 1
        return len(data[:units].decode("utf-8", "surrogatepass"))
    # utf-16
    if _SURROGATE.search(line) is not None:
        # Lone surrogate code points: decoding would pair a high and a low one into one
        # character, so count code point by code point (rare, refused elsewhere anyway).
        count = 0
        for index, char in enumerate(line):
            count += 2 if ord(char) > 0xFFFF else 1
            if count > units:
                return index
        return len(line)
    data = line.encode("utf-16-le", "surrogatepass")
    if 2 * units >= len(data):
        return len(line)
    unit_at = int.from_bytes(data[2 * units : 2 * units + 2], "little")
    if 0xDC00 <= unit_at <= 0xDFFF:  # inside a surrogate pair: round down to its start
        units -= 1
    return len(data[: 2 * units].decode("utf-16-le", "surrogatepass"))


def _line_starts(text: str) -> array[int]:
    """Offsets at which each LSP line starts; always begins with 0.

    Kept as an ``array`` of machine integers: a fifth of the memory of a list of ints (a
    10 MB document has ~150,000 lines)."""
    if "\r" not in text:
        separator = "\n"
    elif "\n" not in text:
        separator = "\r"
    else:
        crlf = text.count("\r\n")
        if crlf == text.count("\r") == text.count("\n"):
            separator = "\r\n"
        else:
            return array("q", [0, *(match.end() for match in LINE_BREAK.finditer(text))])
    starts = array("q", (0,))
    step = len(separator)
    begin = 0
    # A window at a time, cut just after a separator: the lines of a window exist as strings
    # only while it is scanned (a 10 MB text would otherwise hold ~25 MB of them at once).
    while True:
        cut = text.rfind(separator, begin, begin + _SCAN_WINDOW)
        if cut < 0:
            cut = text.find(separator, begin)  # a line longer than the window
            if cut < 0:
                return starts
        end = cut + step
        parts = text[begin:end].split(separator)
        parts.pop()
        # Cumulative (len(part) + len(separator)), all in C, from this window's first start
        # (already in `starts`) on.
        lengths = map(operator.add, map(len, parts), repeat(step))
        starts.extend(islice(accumulate(lengths, initial=begin), 1, None))
        begin = end


def _shifted(starts: array[int], begin: int, end: int, delta: int) -> array[int]:
    """``starts[begin:end]``, each moved by ``delta`` (a window at a time, as above)."""
    part = starts[begin:end]
    if not delta or not part:
        return part
    moved = array("q")
    for low in range(0, len(part), _SCAN_WINDOW):
        moved.extend([offset + delta for offset in part[low : low + _SCAN_WINDOW].tolist()])
    return moved


class LineIndex:
    """Line start offsets of one immutable text, for fast position <-> offset conversion.

    Build one per text version (``O(n)`` in C, no per-character Python loop, on first use);
    conversion works on the one line involved. ``replaced`` derives the index of an edited
    text cheaply.
    """

    __slots__ = ("_built", "_text")

    def __init__(self, text: str, *, _starts: array[int] | None = None) -> None:
        self._text = text
        self._built = _starts

    def build(self) -> None:
        """Scan the text now; otherwise the first lookup does (a megabyte takes ~3 ms)."""
        if self._built is None:
            self._built = _line_starts(self._text)

    @property
    def _starts(self) -> array[int]:
        if self._built is None:
            self._built = _line_starts(self._text)
        return self._built

    @property
    def text(self) -> str:
        return self._text

    @property
    def line_count(self) -> int:
        """Number of LSP lines (a text ending in a line break has a final empty line)."""
        return len(self._starts)

    def line_start(self, line: int) -> int:
        """Offset of the first character of ``line`` (clamped to the document)."""
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self._text)
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset just past the content of ``line``, before its terminator (clamped)."""
        if line < 0:
            line = 0
        if line >= len(self._starts) - 1:
            return len(self._text)
        end = self._starts[line + 1] - 1
        text = self._text
        if text[end] == "\n" and end > self._starts[line] and text[end - 1] == "\r":
            end -= 1
        return end

    # -- conversions -----------------------------------------------------------------------

    def offset_of(self, line: int, character: int, encoding: Encoding = "utf-16") -> int:
        """Offset of (``line``, ``character``) with the clamping rules of this module."""
        if line < 0:
            line, character = 0, 0
        if line >= len(self._starts):
            return len(self._text)
        start = self._starts[line]
        end = self.line_end(line)
        if character <= 0:
            return start
        if encoding == "utf-32":
            return start + min(character, end - start)
        return start + _code_points_in_units(self._text[start:end], character, encoding)

    def line_character_of(self, offset: int, encoding: Encoding = "utf-16") -> tuple[int, int]:
        """(line, character) of ``offset``, ``character`` counted in ``encoding``."""
        offset = min(max(offset, 0), len(self._text))
        line = bisect.bisect_right(self._starts, offset) - 1
        start = self._starts[line]
        offset = min(offset, self.line_end(line))
        if encoding == "utf-32":
            return line, offset - start
        return line, code_units(self._text[start:offset], encoding)

    def span_offsets(
        self, start: Point, end: Point, encoding: Encoding = "utf-16"
    ) -> tuple[int, int]:
        """(start, end) offsets of the range ``start``..``end``; a reversed range is put in
        order."""
        low = self.offset_of(*start, encoding)
        high = self.offset_of(*end, encoding)
        return (low, high) if low <= high else (high, low)

    # -- derivation ------------------------------------------------------------------------

    def replaced(self, start: int, end: int, new_text: str) -> LineIndex:
        """Index of ``text[:start] + new_text + text[end:]`` (offsets clamped and ordered).

        Only the lines around the change are re-scanned; later line starts are shifted.
        A ``\\r`` and a ``\\n`` brought together (or split apart) by the edit are handled: the
        re-scanned window starts one line before the change and ends two lines after it,
        where the line boundaries cannot have moved.
        """
        text = self._text
        size = len(text)
        start = min(max(start, 0), size)
        end = min(max(end, 0), size)
        if end < start:
            start, end = end, start
        return self.replaced_many([(start, end, new_text)])

    def replaced_many(self, changes: Sequence[tuple[int, int, str]]) -> LineIndex:
        """Index of the text with every ``(start, end, new_text)`` change applied at once.

        The changes are offsets into this text, sorted and apart (one may end where the next
        starts); the result is the same as applying them one by one from the last, in one
        pass over the line starts instead of one per change. Each change re-scans its own
        window of lines as ``replaced`` does; windows that meet are merged.
        """
        text, starts = self._text, self._starts
        pieces: list[str] = []
        position = 0
        for start, end, new_text in changes:
            if not position <= start <= end <= len(text):
                raise ValueError("changes must be sorted, apart, and inside the text")
            pieces += (text[position:start], new_text)
            position = end
        pieces.append(text[position:])
        new = "".join(pieces)
        count = len(starts)
        result = array("q")
        copied = delta = 0  # starts[copied:] are still to be copied, moved by delta
        index = 0
        while index < len(changes):
            first = max(bisect.bisect_right(starts, changes[index][0]) - 2, 0)
            after = bisect.bisect_right(starts, changes[index][1]) + 1
            growth = 0
            while True:  # this change, and the next ones whose windows meet this one's
                start, end, new_text = changes[index]
                after = max(after, bisect.bisect_right(starts, end) + 1)
                growth += len(new_text) - (end - start)
                index += 1
                if index == len(changes):
                    break
                if after < count and bisect.bisect_right(starts, changes[index][0]) - 2 > after:
                    break
            result.extend(_shifted(starts, copied, first + 1, delta))
            low = starts[first] + delta
            delta += growth
            if after >= count:
                result.extend([match.end() for match in LINE_BREAK.finditer(new, low)])
                copied = count
                break
            high = starts[after] + delta
            result.extend([m.end() for m in LINE_BREAK.finditer(new, low, high) if m.end() != high])
            copied = after
        result.extend(_shifted(starts, copied, count, delta))
        return LineIndex(new, _starts=result)
