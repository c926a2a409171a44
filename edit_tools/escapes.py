"""Text escaped one time too many (Gemini models write `\\n`, `\\t`, `\\"` in function
arguments where the text has a line break, a tab or a quote): reading it back.

Only ever used when the text as written matches nothing: a text that matches as written
(LaTeX's `\\title`, C escapes, regular expressions) is never read this way. And only when the
text is escaped consistently: a character both escaped and written raw in the same call (a
`\\"` beside a bare `"`) leaves it unclear which backslashes are the text's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BREAK = re.compile(r"\r\n|\r|\n")
_ESCAPE = re.compile(r"\\([nrt\"'\\])")
_CHARS = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "'": "'", "\\": "\\"}
_NAMES = {"n": "\\n", "r": "\\r", "t": "\\t", '"': '\\"', "'": "\\'", "\\": "\\\\"}
# One line of escaped text standing for a whole document: this many lines read back at least.
MIN_LINES = 3


@dataclass(frozen=True)
class Unescaped:
    text: str
    used: frozenset[str]  # the escaped characters found (n, t, ", …)

    def describe(self) -> str:
        return ", ".join(_NAMES[char] for char in sorted(self.used))


def unescape(text: str) -> Unescaped | None:
    """`text` with its escape sequences read as the characters they stand for, or None when
    it has none."""
    used = frozenset(match.group(1) for match in _ESCAPE.finditer(text))
    if not used:
        return None
    return Unescaped(_ESCAPE.sub(lambda match: _CHARS[match.group(1)], text), used)


def consistent(texts: list[str], used: frozenset[str]) -> bool:
    """Whether no character escaped in the call is also written raw in `texts` (outside
    escape sequences); the backslash itself aside."""
    for text in texts:
        raw = _ESCAPE.sub("", text)
        if any(_CHARS[char] in raw for char in used if char != "\\"):
            return False
    return True


def escaped_document(content: str, document: str) -> Unescaped | None:
    """`content` read back when it is one line of escaped text standing for a new version of
    `document`: no real line break; read back, MIN_LINES lines at least, of which a third
    (non-blank ones) are lines of `document` (a one-line program with `\\n` in its strings
    stays as sent); `document` itself MIN_LINES lines at least. None otherwise; whether it is
    escaped consistently is the caller's to check."""
    if "\n" in content or "\r" in content:
        return None
    unescaped = unescape(content)
    if unescaped is None or "n" not in unescaped.used:
        return None
    lines = [line.strip() for line in unescaped.text.split("\n") if line.strip()]
    known = {line.strip() for line in _BREAK.split(document) if line.strip()}
    if len(lines) < MIN_LINES or len(known) < MIN_LINES:
        return None
    shared = sum(1 for line in lines if line in known)
    return unescaped if 3 * shared >= len(lines) else None
