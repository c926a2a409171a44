"""Positions between the text (code points) and tree-sitter (UTF-8 bytes; points whose row
counts `\\n` only and whose column counts bytes), and text changes as tree-sitter edits.

Lone surrogates (JSON-RPC text may carry them) are encoded with `surrogatepass`, here and in
every other conversion, so byte lengths always agree.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from dataclasses import dataclass

ENCODING = "utf-8"
ERRORS = "surrogatepass"
NL = 0x0A
CR = 0x0D

Point = tuple[int, int]
# (start, end, new_text): code-point offsets into the previous text and what replaces them.
TextChange = tuple[int, int, str]

# Block size for the chunked prefix/suffix comparisons (C-speed, no copies).
_BLOCK = 1 << 16


def encode(text: str) -> bytes:
    if text.isascii() or len(text) <= _BLOCK:
        return text.encode(ENCODING, ERRORS)
    # In blocks: encoding a long non-ASCII text at once reserves 3-4 bytes a character.
    return b"".join(
        text[start : start + _BLOCK].encode(ENCODING, ERRORS)
        for start in range(0, len(text), _BLOCK)
    )


def decode(data: bytes) -> str:
    return data.decode(ENCODING, ERRORS)


@dataclass(frozen=True, slots=True)
class ByteEdit:
    """One `Tree.edit`: byte offsets and points, in the text as it is before this edit and
    after the edits listed before it."""

    start_byte: int
    old_end_byte: int
    new_end_byte: int
    start_point: Point
    old_end_point: Point
    new_end_point: Point


def point_after(start: Point, data: bytes, begin: int, end: int) -> Point:
    """The point reached from `start` by reading `data[begin:end]`."""
    newlines = data.count(b"\n", begin, end)
    if not newlines:
        return (start[0], start[1] + end - begin)
    return (start[0] + newlines, end - data.rfind(b"\n", begin, end) - 1)


class PointCursor:
    """Points of ascending byte offsets into `data`, each counted from the previous one."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._offset = 0
        self._row = 0
        self._line_start = 0

    def at(self, offset: int) -> Point:
        if offset < self._offset:
            raise ValueError("offsets must ascend")
        data = self._data
        newlines = data.count(b"\n", self._offset, offset)
        if newlines:
            self._row += newlines
            self._line_start = data.rfind(b"\n", self._offset, offset) + 1
        self._offset = offset
        return (self._row, offset - self._line_start)


class ByteCursor:
    """UTF-8 byte offsets of ascending code-point offsets into `text`."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._ascii = text.isascii()
        self._chars = 0
        self._bytes = 0

    def at(self, chars: int) -> int:
        if chars < self._chars or chars > len(self._text):
            raise ValueError("offset out of order or past the end of the text")
        if self._ascii:
            self._chars = chars
            return chars
        # In blocks: a slice of a long text costs up to 4 bytes a character.
        for begin in range(self._chars, chars, _BLOCK):
            self._bytes += len(encode(self._text[begin : min(begin + _BLOCK, chars)]))
        self._chars = chars
        return self._bytes


def skip_chars(data: bytes, start: int, count: int, ascii_only: bool) -> int:
    """The byte offset `count` code points after byte `start` of the UTF-8 `data`."""
    if ascii_only:
        if start + count > len(data):
            raise ValueError("change extends past the end of the previous text")
        return start + count
    view = memoryview(data)
    position, remaining = start, count
    while remaining:
        # final=False: a character cut at the block's end is left for the next block.
        text, used = codecs.utf_8_decode(view[position : position + _BLOCK], ERRORS, False)
        if not used:
            raise ValueError("change extends past the end of the previous text")
        if len(text) >= remaining:
            return position + len(encode(text[:remaining]))
        position, remaining = position + used, remaining - len(text)
    return position


def same_bytes(data: bytes, at: int, other: memoryview) -> bool:
    return data.startswith(other, at)


def edits_from_changes(
    old: bytes,
    old_ascii: bool,
    new_text: str,
    new: bytes,
    changes: Sequence[TextChange],
) -> list[ByteEdit]:
    """Tree-sitter edits for `changes` (ascending, non-overlapping code-point ranges of the
    text encoded in `old`), checked against `new`: raises ValueError unless applying them to
    the old text gives exactly `new_text`."""
    new_bytes = ByteCursor(new_text)
    points = PointCursor(new)
    old_view = memoryview(old)
    edits: list[ByteEdit] = []
    shift_chars = shift_bytes = previous_end = 0
    old_kept_from = new_kept_from = 0
    for start, end, inserted in changes:
        if start < previous_end or end < start:
            raise ValueError("changes must be ascending, non-overlapping ranges")
        start_byte = new_bytes.at(start + shift_chars)
        old_start = start_byte - shift_bytes
        old_end = skip_chars(old, old_start, end - start, old_ascii)
        insert = encode(inserted)
        if not (
            same_bytes(new, new_kept_from, old_view[old_kept_from:old_start])
            and same_bytes(new, start_byte, memoryview(insert))
        ):
            raise ValueError("the changes do not turn the previous text into the new text")
        start_point = points.at(start_byte)
        edits.append(
            ByteEdit(
                start_byte=start_byte,
                old_end_byte=start_byte + old_end - old_start,
                new_end_byte=start_byte + len(insert),
                start_point=start_point,
                old_end_point=point_after(start_point, old, old_start, old_end),
                new_end_point=point_after(start_point, insert, 0, len(insert)),
            )
        )
        shift_chars += len(inserted) - (end - start)
        shift_bytes += len(insert) - (old_end - old_start)
        previous_end = end
        old_kept_from, new_kept_from = old_end, start_byte + len(insert)
    if len(old) + shift_bytes != len(new) or not same_bytes(
        new, new_kept_from, old_view[old_kept_from:]
    ):
        raise ValueError("the changes do not turn the previous text into the new text")
    return edits


def common_prefix(a: bytes, b: bytes) -> int:
    limit = min(len(a), len(b))
    view = memoryview(b)
    n = 0
    while n + _BLOCK <= limit and a.startswith(view[n : n + _BLOCK], n):
        n += _BLOCK
    low, high = n, min(n + _BLOCK, limit)
    while low < high:  # the longest equal run from n, by bisection
        middle = (low + high + 1) // 2
        if a.startswith(view[n:middle], n):
            low = middle
        else:
            high = middle - 1
    return low


def common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the common suffix of `a` and `b`, at most `limit`."""
    la, lb = len(a), len(b)
    view = memoryview(b)
    n = 0
    while n + _BLOCK <= limit and a.endswith(view[lb - n - _BLOCK : lb - n], 0, la - n):
        n += _BLOCK
    low, high = n, min(n + _BLOCK, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a.endswith(view[lb - middle : lb - n], 0, la - n):
            low = middle
        else:
            high = middle - 1
    return low


def _is_continuation(data: bytes, offset: int) -> bool:
    return offset < len(data) and data[offset] & 0xC0 == 0x80


def edit_from_diff(old: bytes, new: bytes) -> ByteEdit | None:
    """One edit spanning everything between the common prefix and suffix of `old` and `new`
    (on character boundaries), or None when they are equal."""
    if old == new:
        return None
    prefix = common_prefix(old, new)
    while prefix and (_is_continuation(old, prefix) or _is_continuation(new, prefix)):
        prefix -= 1
    suffix = common_suffix(old, new, min(len(old), len(new)) - prefix)
    while suffix and _is_continuation(old, len(old) - suffix):
        suffix -= 1
    old_end, new_end = len(old) - suffix, len(new) - suffix
    start_point = PointCursor(old).at(prefix)
    return ByteEdit(
        start_byte=prefix,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=start_point,
        old_end_point=point_after(start_point, old, prefix, old_end),
        new_end_point=point_after(start_point, new, prefix, new_end),
    )
