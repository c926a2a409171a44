"""Finding `old_text` in the document: exact match first, then the model's usual slips (other
line endings, pasted line numbers), and the nearest similar lines when nothing matches."""

from __future__ import annotations

import heapq
import re
from array import array
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import Enum
from itertools import accumulate

from complex_edit.edit_tools import errors
from complex_edit.edit_tools.endings import document_ending, region_ending, write_breaks
from complex_edit.edit_tools.lines import (
    CR,
    CRLF,
    LF,
    convert_line_endings,
    count_breaks,
    line_endings,
    split_lines,
    strip_terminator,
)
from complex_edit.edit_tools.view import clip, number_line, shown_line

# A line-number prefix as get_document prints it: digits then a tab, or (for a blank line whose
# tab was trimmed) a number padded to the full 6 columns.
_NUMBER_PREFIX = re.compile(r"[ ]*\d+\t|(?=[ \d]{6,}$)[ ]*\d+$")
_TOKEN = re.compile(r"\w{3,}")
_WHITESPACE = re.compile(r"\s+")

# Bounds that keep the nearest-text search fast on multi-megabyte documents.
_MAX_NEEDLE_LINES = 40
_MAX_COMPARED_CHARS = 2000
_MAX_TOKENS = 12
_MAX_HITS_PER_TOKEN = 500
_MAX_CANDIDATES = 40
_BRUTE_FORCE_LINES = 400
_MIN_SIMILARITY = 0.5
_MAX_SHOWN_LINES = 15


class Adjustment(Enum):
    """How `old_text` had to be adapted before it matched."""

    NONE = "none"
    LINE_ENDINGS = "line_endings"
    LINE_NUMBERS = "line_numbers"


@dataclass(frozen=True, eq=False)
class Match:
    """Where the adapted `old` occurs: `count` non-overlapping occurrences, the first at
    `first`. `known_starts` holds all of them when finding them took a scan anyway."""

    old: str
    new: str
    count: int
    first: int
    adjustment: Adjustment
    known_starts: array[int] | None = None
    converted_endings: tuple[str, ...] = ()  # kinds of break in new_text rewritten
    ending: str = LF  # the one they were written as

    def starts(self, text: str, limit: int | None = None) -> array[int]:
        """Offsets of the occurrences (the first `limit` of them)."""
        if self.known_starts is not None:
            return self.known_starts[:limit]
        if self.count == 1 or limit == 1:
            return array("q", (self.first,))
        starts: array[int] = array("q")
        position = self.first
        while position != -1 and (limit is None or len(starts) < limit):
            starts.append(position)
            position = text.find(self.old, position + len(self.old))
        return starts


def strip_line_numbers(text: str, *, required: bool) -> str | None:
    """`text` without get_document's line-number prefixes. With `required`, every line must
    carry one (else None); otherwise lines without one are kept as they are."""
    lines = split_lines(text)
    out: list[str] = []
    for line in lines:
        body = strip_terminator(line)
        prefix = _NUMBER_PREFIX.match(body)
        if prefix is None:
            if required:
                return None
            out.append(line)
        else:
            out.append(line[prefix.end() :])
    return "".join(out) if lines else None


def _variants(text: str, old: str, new: str) -> Iterator[tuple[str, str, Adjustment]]:
    yield old, new, Adjustment.NONE
    endings = line_endings(text)
    for ending in endings:
        converted = convert_line_endings(old, ending)
        if converted != old:
            yield converted, convert_line_endings(new, ending), Adjustment.LINE_ENDINGS
    stripped = strip_line_numbers(old, required=True)
    if stripped:
        new_stripped = strip_line_numbers(new, required=False) or new
        yield stripped, new_stripped, Adjustment.LINE_NUMBERS
        for ending in endings:
            converted = convert_line_endings(stripped, ending)
            if converted != stripped:
                yield (
                    converted,
                    convert_line_endings(new_stripped, ending),
                    Adjustment.LINE_NUMBERS,
                )


def _splits_crlf(text: str, start: int, end: int) -> bool:
    return (start > 0 and text[start] == LF and text[start - 1] == CR) or (
        end < len(text) and text[end - 1] == CR and text[end] == LF
    )


def _whole_crlf_starts(text: str, old: str) -> array[int]:
    """Occurrences of `old` that do not cut a `\\r\\n` in two."""
    starts: array[int] = array("q")
    position = text.find(old)
    while position != -1:
        end = position + len(old)
        if _splits_crlf(text, position, end):
            position = text.find(old, position + 1)
        else:
            starts.append(position)
            position = text.find(old, end)
    return starts


def find_match(text: str, old: str, new: str) -> Match | None:
    """The first variant of `old` that occurs in `text`. Occurrences are non-overlapping, as
    `str.replace` counts them, and never take one half of a `\\r\\n` (the model cannot see
    the `\\r`, so such a match is never what it meant)."""
    for candidate_old, candidate_new, adjustment in _variants(text, old, new):
        known: array[int] | None = None
        if (candidate_old.startswith(LF) or candidate_old.endswith(CR)) and CRLF in text:
            known = _whole_crlf_starts(text, candidate_old)
            count = len(known)
            first = known[0] if count else -1
        else:
            count = text.count(candidate_old)
            first = text.find(candidate_old) if count else -1
        if count:
            converted: tuple[str, ...] = ()
            if adjustment is Adjustment.NONE or adjustment is Adjustment.LINE_NUMBERS:
                ending = (
                    region_ending(text, first, first + len(candidate_old))
                    if count == 1
                    else document_ending(text)
                )
                written = write_breaks(candidate_new, ending)
                candidate_new, converted = written.text, written.converted
                return Match(
                    candidate_old,
                    candidate_new,
                    count,
                    first,
                    adjustment,
                    known,
                    converted,
                    written.ending,
                )
            return Match(candidate_old, candidate_new, count, first, adjustment, known)
    return None


def overlapping_starts(text: str, match: Match, limit: int) -> list[int] | None:
    """Every place `match.old` occurs, overlapping ones included (the first `limit`), when
    some of them overlap; None when none does. `"aa"` in `"aaa"` is two places, not one."""
    old = match.old
    reach = 2 * len(old) - 1
    if match.count > 1 and not _has_border(old):
        return None  # no two occurrences can overlap
    if not any(
        _next_place(text, old, start + 1, start + reach) != -1 for start in match.starts(text)
    ):
        return None
    places: list[int] = []
    position = match.first
    while position != -1 and len(places) < limit:
        places.append(position)
        position = _next_place(text, old, position + 1)
    return places


def _has_border(text: str) -> bool:
    """Whether some proper prefix of `text` is also its suffix (then it can overlap itself)."""
    border = [0] * len(text)
    length = 0
    for index in range(1, len(text)):
        while length and text[index] != text[length]:
            length = border[length - 1]
        if text[index] == text[length]:
            length += 1
        border[index] = length
    return bool(text) and border[-1] > 0


def count_overlapping(text: str, old: str, first: int) -> int:
    """How many places `old` occurs at from `first` on, overlapping ones included."""
    count = 0
    position = first
    while position != -1:
        count += 1
        position = _next_place(text, old, position + 1)
    return count


def _next_place(text: str, old: str, start: int, end: int | None = None) -> int:
    """The next occurrence of `old` from `start` (ending by `end`) that cuts no CRLF."""
    careful = (old.startswith(LF) or old.endswith(CR)) and CRLF in text
    position = text.find(old, start, end)
    while careful and position != -1 and _splits_crlf(text, position, position + len(old)):
        position = text.find(old, position + 1, end)
    return position


def line_numbers(text: str, starts: Iterable[int]) -> list[int]:
    """1-based line numbers of ascending offsets, counting the text once overall."""
    numbers: list[int] = []
    line, previous = 1, 0
    for start in starts:
        line += count_breaks(text, previous, start)
        previous = start
        numbers.append(line)
    return numbers


def _needle(old: str) -> list[str]:
    lines = [strip_terminator(line) for line in split_lines(old)]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines[:_MAX_NEEDLE_LINES]


def _candidate_tops(text: str, doc_lines: list[str], needle: list[str]) -> list[int]:
    if len(doc_lines) <= _BRUTE_FORCE_LINES:
        return list(range(len(doc_lines)))
    where: dict[str, set[int]] = {}
    for j, line in enumerate(needle):
        for token in _TOKEN.findall(line):
            where.setdefault(token, set()).add(j)
    tokens = sorted(where, key=len, reverse=True)[:_MAX_TOKENS]
    starts = list(accumulate((len(line) for line in doc_lines), initial=0))
    votes: dict[int, float] = defaultdict(float)
    for token in tokens:
        # Rare tokens locate the intended lines; a token found everywhere says little.
        weight = 1 / max(1, text.count(token))
        position = text.find(token)
        hits = 0
        while position != -1 and hits < _MAX_HITS_PER_TOKEN:
            index = bisect_right(starts, position) - 1
            for j in where[token]:
                votes[index - j] += weight
            hits += 1
            position = text.find(token, position + len(token))
    return heapq.nlargest(_MAX_CANDIDATES, votes, key=votes.__getitem__)


def nearest_text(text: str, old: str) -> str | None:
    """A "did you mean" paragraph showing the lines most similar to `old`, or None."""
    needle = _needle(strip_line_numbers(old, required=True) or old)
    if not needle or not text:
        return None
    doc_lines = split_lines(text)
    size = len(needle)
    wanted = "\n".join(needle)

    def window(top: int) -> str:
        return "\n".join(strip_terminator(line) for line in doc_lines[top : top + size])

    tops = {
        max(0, min(top, len(doc_lines) - size)) for top in _candidate_tops(text, doc_lines, needle)
    }
    matchers: list[tuple[float, int, SequenceMatcher[str]]] = []
    for top in tops:
        matcher = SequenceMatcher(
            None, wanted[:_MAX_COMPARED_CHARS], window(top)[:_MAX_COMPARED_CHARS], autojunk=False
        )
        if matcher.real_quick_ratio() >= _MIN_SIMILARITY:
            quick = matcher.quick_ratio()
            if quick >= _MIN_SIMILARITY:
                matchers.append((quick, -top, matcher))
    matchers.sort(key=lambda item: item[:2], reverse=True)
    best: tuple[float, int] | None = None
    for _, negative_top, matcher in matchers[:_MAX_CANDIDATES]:
        score = matcher.ratio()
        if score >= _MIN_SIMILARITY and (best is None or (score, negative_top) > best):
            best = (score, negative_top)
    if best is None:
        return None
    top = -best[1]
    found = doc_lines[top : top + size]
    numbered = [
        number_line(top + i + 1, clip(shown_line(line, top + i == 0)))
        for i, line in enumerate(found[:_MAX_SHOWN_LINES])
    ]
    if len(found) > _MAX_SHOWN_LINES:
        numbered.append(f"{'…':>6}\t({len(found) - _MAX_SHOWN_LINES} more lines)")
    return errors.did_you_mean(
        top + 1, top + len(found), "\n".join(numbered), _difference_hint(wanted, window(top))
    )


def _difference_hint(wanted: str, found: str) -> str | None:
    if _WHITESPACE.sub("", wanted) == _WHITESPACE.sub("", found):
        return errors.WHITESPACE_ONLY
    if wanted.casefold() == found.casefold():
        return errors.CASE_ONLY
    return None
