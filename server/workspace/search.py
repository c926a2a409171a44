"""find_in_files' part that looks inside texts: which lines match, and the answer's wording.

Matches are found in the whole text (a C-speed scan), one step per matching line (never one
per line of the file), with line numbers counted between them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from complex_edit.edit_tools.lines import count_breaks, line_contents
from complex_edit.server.workspace.secrets import Spot, where

MAX_HITS = 200
SHOWN_LINE_CHARS = 300
_LEAD_CHARS = 100  # of a long line, shown before the match


@dataclass(frozen=True)
class Matcher:
    """A literal `pattern` or, with `regex`, a compiled expression (raises `re.error`)."""

    pattern: str
    regex: re.Pattern[str] | None

    @classmethod
    def of(cls, pattern: str, regex: bool) -> Matcher:
        compiled = re.compile(pattern, re.MULTILINE) if regex else None
        return cls(pattern, compiled)

    def _next(self, text: str, start: int) -> tuple[int, int]:
        """The first match at or after `start`: (where it starts, where it ends); (-1, -1)."""
        if self.regex is None:
            at = text.find(self.pattern, start)
            return at, at + len(self.pattern)
        found = self.regex.search(text, start)
        return (-1, -1) if found is None else found.span()

    def lines(self, text: str) -> Iterator[tuple[int, str, int]]:
        """(1-based line number, line, where the match starts in it) of each matching line.

        One step per matching line, not per line: the text is searched from the end of each
        matching line, and line numbers are counted between matches."""
        has_cr = "\r" in text
        if has_cr and self.regex is not None:
            yield from self._each_line(text, self.regex)  # `^` and `$` know only `\n`
            return
        number = 1
        counted = 0  # line breaks are counted up to here
        at, end = self._next(text, 0)
        # A match at the very end is on no line when the text is empty or ends with a break.
        while at >= 0 and not (at == len(text) and (not text or text[-1] in "\r\n")):
            start = _line_start(text, at, has_cr)
            stop = _line_end(text, at, has_cr)
            if end > stop and (self.regex is None or not self.regex.search(text[start:stop])):
                at, end = self._next(text, at + 1)  # a match across lines is not one line's
                continue
            number += count_breaks(text, counted, start)
            counted = start
            yield number, text[start:stop], at - start
            if stop >= len(text):
                return
            at, end = self._next(text, stop + (2 if text.startswith("\r\n", stop) else 1))

    @staticmethod
    def _each_line(text: str, regex: re.Pattern[str]) -> Iterator[tuple[int, str, int]]:
        for number, line in enumerate(line_contents(text), start=1):
            found = regex.search(line)
            if found is not None:
                yield number, line, found.start()


def _line_start(text: str, at: int, has_cr: bool) -> int:
    start = text.rfind("\n", 0, at) + 1
    if has_cr:
        start = max(start, text.rfind("\r", start, at) + 1)
    return start


def _line_end(text: str, at: int, has_cr: bool) -> int:
    stop = text.find("\n", at)
    stop = len(text) if stop < 0 else stop
    if has_cr:
        cr = text.find("\r", at, stop)
        stop = stop if cr < 0 else cr
    return stop


def shown(line: str, at: int) -> str:
    """The line cut to SHOWN_LINE_CHARS around the match at `at`."""
    if len(line) <= SHOWN_LINE_CHARS:
        return line
    begin = max(0, min(at - _LEAD_CHARS, len(line) - SHOWN_LINE_CHARS))
    end = begin + SHOWN_LINE_CHARS
    return ("…" if begin else "") + line[begin:end] + ("…" if end < len(line) else "")


@dataclass(frozen=True)
class Stop:
    """Why a search ended before seeing every match: the deadline (`seconds`, setting
    searchTimeoutSeconds) passed."""

    seconds: float


def answer(
    hits: list[str],
    total: int,
    pattern: str,
    searched: int | None,
    skipped: int,
    stop: Stop | None = None,
) -> str:
    """What find_in_files says: the first MAX_HITS `path:line: text` lines and how many more
    (`searched` None: ripgrep searched, and counted no files)."""
    where = "" if searched is None else f"{searched:,} file{'' if searched == 1 else 's'} searched"
    if skipped:
        where += f"; {skipped:,} not readable (binary, not UTF-8 or over maxDocumentBytes)"
    partial = ""
    if stop is not None:
        partial = (
            f"Partial: the search stopped after {stop.seconds:g} s (setting "
            "searchTimeoutSeconds); files it had not reached are not listed. Narrow it with "
            "glob or a longer pattern."
        )
    if not hits:
        found = f"No line contains {pattern!r}" + (f" ({where})." if where else ".")
        return f"{found}\n{partial}" if partial else found
    lines = f"{total:,}{'+' if stop is not None else ''} matching line{'' if total == 1 else 's'}"
    head = f"{lines} ({where}):" if where else f"{lines}:"
    body = "\n".join(hits)
    if total > len(hits):
        body += (
            f"\n… and {total - len(hits):,} more matching lines not shown: narrow the search "
            "with glob or a longer pattern."
        )
    return f"{head}\n{body}" + (f"\n{partial}" if partial else "")


def masked_line(matcher: Matcher, hidden: str, line: str, at: int) -> str:
    """The matching `line` as the model may see it (`hidden`: with its secret values masked;
    the match found again in it), cut around the match."""
    if hidden != line:
        again = next(iter(matcher.lines(hidden)), None)
        line, at = hidden, (again[2] if again is not None else 0)
    return shown(line, at)


def masked_note(masked: Sequence[tuple[str, Spot]]) -> str:
    """The answer's line saying how many secret values were masked, and where."""
    if not masked:
        return ""
    places = ", ".join(where(label, [spot]) for label, spot in masked[:20])
    more = f" and {len(masked) - 20} more" if len(masked) > 20 else ""
    count = len(masked)
    return (
        f"\n{count} secret value{'' if count == 1 else 's'} masked as «secret: KIND, N chars» "
        f"({places}{more}); a line holding a marker cannot be changed."
    )


class Shown:
    """The secret values the model was shown masked over a command, each once, in the order
    they were first shown (`places`: the file's label and the `Spot`)."""

    def __init__(self) -> None:
        self._places: dict[tuple[str, Spot], None] = {}

    @property
    def places(self) -> tuple[tuple[str, Spot], ...]:
        return tuple(self._places)

    def note(self, masked: Sequence[tuple[str, Spot]]) -> str:
        """`masked_note` of `masked`, its values kept."""
        self._places.update(dict.fromkeys(masked))
        return masked_note(masked)
