"""LSP line rules: a line ends only at `\\r\\n`, `\\r` or `\\n`.

`str.splitlines` is never used: it also breaks at `\\f \\v \\x1c-\\x1e \\x85 \\u2028 \\u2029`.
Line numbers here are 1-based and follow `cat -n`: a final line terminator does not start an
extra (empty) line, so `"a\\n"` has one line and `""` has none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

LF = "\n"
CRLF = "\r\n"
CR = "\r"

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each keeping its terminator (the last one may have none)."""
    return _LINE.findall(text)


def line_contents(text: str) -> list[str]:
    """The lines of `text` without their terminators (`split_lines` minus the breaks), split
    in C: `"a\\n"` gives `["a"]`, `""` gives `[]`."""
    parts = _BREAK.split(text) if CR in text else text.split(LF)
    if parts[-1] == "":
        parts.pop()
    return parts


def strip_terminator(line: str) -> str:
    if line.endswith(CRLF):
        return line[:-2]
    if line.endswith((LF, CR)):
        return line[:-1]
    return line


def count_breaks(text: str, start: int = 0, end: int | None = None) -> int:
    """Line breaks in `text[start:end]`, a `\\r\\n` counting once."""
    stop = len(text) if end is None else end
    lf = text.count(LF, start, stop)
    # Looking for one CR (memchr) is several times faster than counting: most texts have none.
    cr = text.count(CR, start, stop) if text.find(CR, start, stop) != -1 else 0
    return lf + cr - (text.count(CRLF, start, stop) if cr and lf else 0)


def ends_with_break(text: str) -> bool:
    return text.endswith((LF, CR))


def line_count(text: str) -> int:
    if not text:
        return 0
    return count_breaks(text) + (0 if ends_with_break(text) else 1)


def _outside_crlf(text: str, offset: int) -> int:
    """`offset`, moved onto the `\\r` when it points at the `\\n` of a `\\r\\n`."""
    if 0 < offset < len(text) and text[offset] == LF and text[offset - 1] == CR:
        return offset - 1
    return offset


def line_index_at(text: str, offset: int) -> int:
    """0-based index of the line holding `offset` (a terminator belongs to its line)."""
    return count_breaks(text, 0, _outside_crlf(text, offset))


def line_index_from(text: str, known_start: int, known_index: int, offset: int) -> int:
    """`line_index_at(text, offset)`, counting only from `known_start`: a line start at or
    before `offset` whose 0-based index is `known_index`."""
    return known_index + count_breaks(text, known_start, _outside_crlf(text, offset))


def lines_after(text: str, offset: int, limit: int) -> int:
    """How many lines follow the one holding `offset`, at most `limit` (looks no further)."""
    match = _BREAK.search(text, _outside_crlf(text, offset))
    position = match.end() if match else len(text)
    count = 0
    while count < limit and position < len(text):
        count += 1
        match = _BREAK.search(text, position)
        position = match.end() if match else len(text)
    return count


def line_start(text: str, offset: int) -> int:
    """Offset where the line holding `offset` begins."""
    offset = _outside_crlf(text, offset)
    newline = text.rfind(LF, 0, offset)
    # A CR only matters after the last LF: do not scan the whole text before it for one.
    return max(newline, text.rfind(CR, newline + 1, offset)) + 1


def lines_back(text: str, offset: int, count: int) -> int:
    """Start of the line `count` lines above the one holding `offset` (stops at line 1)."""
    start = line_start(text, offset)
    for _ in range(count):
        if start == 0:
            break
        start = line_start(text, start - 1)
    return start


def iter_lines(text: str, start: int) -> Iterator[str]:
    """The lines from offset `start` (a line start) onwards, each with its terminator."""
    for match in _LINE.finditer(text, start):
        yield match.group()


def line_endings(text: str) -> list[str]:
    """The kinds of line ending present, most frequent first (ties: CRLF, LF, CR)."""
    if CR not in text:  # the usual case: one fast scan instead of three counts
        return [LF] if LF in text else []
    crlf = text.count(CRLF)
    counts = {CRLF: crlf, LF: text.count(LF) - crlf, CR: text.count(CR) - crlf}
    present = [ending for ending, n in counts.items() if n]
    return sorted(present, key=lambda ending: -counts[ending])


def uniform_line_ending(text: str) -> str | None:
    """The line ending when the text has breaks and all of them are the same kind."""
    endings = line_endings(text)
    return endings[0] if len(endings) == 1 else None


def convert_line_endings(text: str, ending: str) -> str:
    """Every line break of `text` written as `ending`."""
    return _BREAK.sub(ending, text)


def only_lf_breaks(text: str) -> bool:
    """True when the text has at least one break and all of them are bare `\\n`."""
    return LF in text and CR not in text
