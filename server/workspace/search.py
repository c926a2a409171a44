"""find_in_files' part that looks inside texts: which lines match, and the answer's wording.

A literal pattern is first looked for in the file's bytes (a C-speed scan): a file is decoded
and split into lines only when it holds the pattern. A regular expression is searched in the
whole decoded text first, then line by line where it matched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from complex_edit.edit_tools.lines import count_breaks, line_contents

MAX_HITS = 200
SHOWN_LINE_CHARS = 200
_LEAD_CHARS = 60  # of a long line, shown before the match


@dataclass(frozen=True)
class Matcher:
    """A literal `pattern` or, with `regex`, a compiled expression (raises `re.error`)."""

    pattern: str
    regex: re.Pattern[str] | None
    raw: bytes

    @classmethod
    def of(cls, pattern: str, regex: bool) -> Matcher:
        compiled = re.compile(pattern, re.MULTILINE) if regex else None
        return cls(pattern, compiled, pattern.encode("utf-8", "surrogatepass"))

    def may_hold(self, data: bytes) -> bool:
        """False only when `data` certainly holds no match (a literal not in its bytes)."""
        return self.regex is not None or self.raw in data

    def first(self, text: str) -> int:
        """Where the first match in `text` starts, or -1."""
        if self.regex is None:
            return text.find(self.pattern)
        found = self.regex.search(text)
        return -1 if found is None else found.start()

    def lines(self, text: str) -> Iterator[tuple[int, str, int]]:
        """(1-based line number, line, where the match starts in it) of each matching line."""
        start = self.first(text)
        if start < 0:
            return
        first_line = count_breaks(text, 0, start)
        for offset, line in enumerate(line_contents(text)[first_line:]):
            at = self.first(line)
            if at >= 0:
                yield first_line + offset + 1, line, at


def shown(line: str, at: int) -> str:
    """The line cut to SHOWN_LINE_CHARS around the match at `at`."""
    if len(line) <= SHOWN_LINE_CHARS:
        return line
    begin = max(0, min(at - _LEAD_CHARS, len(line) - SHOWN_LINE_CHARS))
    end = begin + SHOWN_LINE_CHARS
    return ("…" if begin else "") + line[begin:end] + ("…" if end < len(line) else "")


def answer(hits: list[str], total: int, pattern: str, searched: int, skipped: int) -> str:
    """What find_in_files says: the first MAX_HITS `path:line: text` lines and how many more."""
    where = f"{searched:,} file{'' if searched == 1 else 's'} searched"
    if skipped:
        where += f"; {skipped:,} not readable (binary, not UTF-8 or over maxDocumentBytes)"
    if not hits:
        return f"No line contains {pattern!r} ({where})."
    head = f"{total:,} matching line{'' if total == 1 else 's'} ({where}):"
    body = "\n".join(hits)
    if total > len(hits):
        body += (
            f"\n… and {total - len(hits):,} more matching lines not shown: narrow the search "
            "with glob or a longer pattern."
        )
    return f"{head}\n{body}"
