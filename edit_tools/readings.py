"""Other readings of a replace_text call whose old_text matches nothing, exactly or with
whitespace set aside. Each is tried in turn, and used only when its old_text matches exactly
one place (`replace.py`):
- stray blank lines: blank lines at the start or end of old_text that the document does not
  have there, set aside (and as many from the same end of new_text, when it has them too);
- escapes: old_text and new_text escaped one time too many (`escapes.py`), read back.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from complex_edit.edit_tools import errors
from complex_edit.edit_tools.escapes import consistent, unescape
from complex_edit.edit_tools.indent import is_blank
from complex_edit.edit_tools.lines import (
    LF,
    convert_line_endings,
    iter_lines,
    lines_back,
    split_lines,
    strip_terminator,
)

BLANK_LINES = "blank_lines"
ESCAPES = "escapes"


@dataclass(frozen=True)
class Reading:
    old: str
    new: str
    kind: str  # BLANK_LINES or ESCAPES: the adjustment reported
    note: str  # what the result tells the model
    explain: str  # how old_text was read, for an error: "once … are set aside"
    refusal: errors.ToolError | None = None  # matched, but new_text cannot be read the same way
    lead: str = ""  # old_text's blank lines set aside at its start
    trail: str = ""  # and at its end


def _blank(line: str) -> bool:
    return is_blank(strip_terminator(line))


def _strip_blank_lines(lines: list[str], lead: int, trail: int) -> tuple[list[str], int, int]:
    """`lines` without up to `lead` blank lines at the start and `trail` at the end, one
    line at least left; and how many went from each end."""
    head = 0
    while head < lead and head < len(lines) - 1 and _blank(lines[head]):
        head += 1
    tail = 0
    while tail < trail and len(lines) - tail - 1 > head and _blank(lines[len(lines) - tail - 1]):
        tail += 1
    return lines[head : len(lines) - tail], head, tail


def stray_blank_lines(old: str, new: str) -> Reading | None:
    sent = split_lines(old)
    old_lines, lead, trail = _strip_blank_lines(sent, len(old), len(old))
    if not (lead or trail) or all(_blank(line) for line in old_lines):
        return None
    new_lines, _, _ = _strip_blank_lines(split_lines(new), lead, trail)
    where = " and ".join(part for part, count in (("start", lead), ("end", trail)) if count)
    count = lead + trail
    return Reading(
        "".join(old_lines),
        "".join(new_lines),
        BLANK_LINES,
        f"old_text matched once the {errors.plural(count, 'blank line')} at its {where}, "
        f"which the document does not have there, {'was' if count == 1 else 'were'} set "
        "aside (and the same from new_text).",
        f"once the {errors.plural(count, 'blank line')} at its {where} "
        f"{'is' if count == 1 else 'are'} set aside",
        lead="".join(sent[:lead]),
        trail="".join(sent[len(sent) - trail :]),
    )


def _breaks_as_lf(text: str) -> str:
    return convert_line_endings(text, LF)


def _has_text(text: str, start: int, end: int, reading: Reading) -> bool:
    """The characters of the set-aside lines stand right before `start` and after `end`,
    line breaks of any kind (a match found by characters, which may begin mid-line)."""
    lead, trail = _breaks_as_lf(reading.lead), _breaks_as_lf(reading.trail)
    before = _breaks_as_lf(text[max(0, start - 2 * len(reading.lead)) : start])
    after = _breaks_as_lf(text[end : end + 2 * len(reading.trail)])
    return before.endswith(lead) and after.startswith(trail)


def _has_lines(text: str, start: int, end: int, reading: Reading) -> bool:
    """As many blank lines right above the line at `start` and below the one ending at `end`
    (a match of whole lines)."""
    lead, trail = len(split_lines(reading.lead)), len(split_lines(reading.trail))
    above: list[str] = []
    if lead and start:
        above = split_lines(text[lines_back(text, start - 1, lead - 1) : start])
    below = [line for _, line in zip(range(trail), iter_lines(text, end), strict=False)]
    return (
        len(above) == lead and len(below) == trail and all(_blank(line) for line in above + below)
    )


def document_has_set_aside(
    text: str, start: int, end: int, reading: Reading, *, whole_lines: bool
) -> bool:
    """The document has, around the place `[start, end)` the reading matched, the blank lines
    it set aside: then they were not stray, old_text failed to match for another reason, and
    setting them aside would be a guess (new_text's own blank lines there would be lost)."""
    if reading.kind != BLANK_LINES:
        return False
    has = _has_lines if whole_lines else _has_text
    return has(text, start, end, reading)


def escaped(old: str, new: str) -> Reading | None:
    unescaped = unescape(old)
    if unescaped is None:
        return None
    written = unescape(new)
    used = unescaped.used | (written.used if written else frozenset())
    shown = unescaped.describe()
    explain = f"read with its escape sequences ({shown}) as the characters they stand for"
    if not consistent([old, new], used):
        refusal = errors.inconsistent_escapes(shown)
        return Reading(unescaped.text, new, ESCAPES, "", explain, refusal)
    return Reading(
        unescaped.text,
        written.text if written else new,
        ESCAPES,
        f"old_text matched only once its escape sequences ({shown}) were read as the "
        "characters they stand for: it was escaped one time too many, and new_text was read "
        "the same way. Send text as it is, without escaping it again.",
        explain,
    )


def readings(old: str, new: str) -> Iterator[Reading]:
    for reading in (stray_blank_lines(old, new), escaped(old, new)):
        if reading is not None:
            yield reading
