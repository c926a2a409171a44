"""The replace_text tool: an exact match (or one with other line endings or pasted line
numbers) first; failing that, a unique whitespace-tolerant match (`tolerant.py`); every
replacement through the elision guard (`guard.py`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from itertools import pairwise

from complex_edit.edit_tools import errors
from complex_edit.edit_tools.buffer import Change, WorkingBuffer
from complex_edit.edit_tools.elision import has_line
from complex_edit.edit_tools.endings import Written
from complex_edit.edit_tools.grow import indent_added_lines
from complex_edit.edit_tools.guard import EXPANDED, guard
from complex_edit.edit_tools.lines import line_count, line_index_at, line_start
from complex_edit.edit_tools.matching import (
    Adjustment,
    Match,
    count_overlapping,
    find_match,
    line_numbers,
    nearest_text,
    overlapping_starts,
)
from complex_edit.edit_tools.params import ReplaceTextParams
from complex_edit.edit_tools.readings import (
    BLANK_LINES,
    ESCAPES,
    Reading,
    document_has_set_aside,
    readings,
)
from complex_edit.edit_tools.reindent import apply_candidate, describe_indent
from complex_edit.edit_tools.results import Limits, ToolResult
from complex_edit.edit_tools.tolerant import MAX_CANDIDATES, Candidate, find_candidates
from complex_edit.edit_tools.view import change_snippet, clip, number_line

_READ = {BLANK_LINES: "blank lines set aside", ESCAPES: "escapes read back"}
# The words of the one-line "Reading:" of a result, by adjustment, in this order.
_READINGS = {
    "line_numbers": "line numbers removed",
    "line_endings": "line breaks",
    "indentation": "indentation",
    "tabs": "tabs versus spaces",
    "trailing_whitespace": "spaces at line ends",
    "final_newline": "final line break",
    BLANK_LINES: "blank lines",
    ESCAPES: "escapes read back",
    EXPANDED: "elision expanded",
}
_SHOWN_PLACES = 8
_SHOWN_LINES_PER_PLACE = 3


def replace_text(buffer: WorkingBuffer, params: ReplaceTextParams, limits: Limits) -> ToolResult:
    text = buffer.text
    if not params.old_text:
        raise errors.empty_old_text(not text)
    if params.old_text == params.new_text:
        raise errors.identical_texts()
    match = find_match(text, params.old_text, params.new_text)
    if match is None:
        candidates = find_candidates(text, params.old_text, params.new_text)
        if candidates:
            return _replace_tolerantly(buffer, candidates, params.replace_all, limits)
        for reading in readings(params.old_text, params.new_text):
            result = _replace_as_read(buffer, reading, limits)
            if result is not None:
                return result
        raise errors.no_match(line_count(text), nearest_text(text, params.old_text))
    if match.old == match.new:
        raise errors.identical_texts()
    overlapping = _overlaps(text, match, params.replace_all)
    if match.count > 1 and not params.replace_all:
        listed = match.starts(text, limit=errors.MAX_LISTED_LINES)
        raise errors.several_matches(
            match.count, line_numbers(text, listed), all_listed=len(listed) == match.count
        )
    return _replace_exactly(buffer, match, limits, note=overlapping)


def _reading_line(adjustments: Sequence[str]) -> str:
    """One line saying which reading of the call was taken: `Reading: exact.`, or what was
    set aside or adapted (`Reading: indentation, spaces at line ends; elision expanded.`)."""
    taken = [words for kind, words in _READINGS.items() if kind in adjustments and kind != EXPANDED]
    said = "exact" if not taken else ", ".join(taken)
    if EXPANDED in adjustments:
        said += "; elision expanded"
    return f"Reading: {said}."


def _overlaps(text: str, match: Match, replace_all: bool) -> str:
    """Overlapping occurrences are several places: one call never picks one of them (refused);
    replace_all takes them from left to right without overlap, as `str.replace` does, and the
    note returned says so ("" when none overlaps)."""
    places = overlapping_starts(text, match, errors.MAX_LISTED_LINES)
    if places is None:
        return ""
    count = count_overlapping(text, match.old, match.first)
    if replace_all:
        return errors.overlaps_taken_in_turn(count, match.count)
    lines = line_numbers(text, places)
    columns = [start - line_start(text, start) + 1 for start in places]
    raise errors.overlapping_matches(count, list(zip(lines, columns, strict=True)))


def _known(text: str) -> Callable[[str], bool]:
    return partial(has_line, text)


def _replace_as_read(buffer: WorkingBuffer, reading: Reading, limits: Limits) -> ToolResult | None:
    """The call read another way (`readings.py`), when that matches exactly one place."""
    text = buffer.text
    match = find_match(text, reading.old, reading.new)
    if match is None:
        try:
            candidates = find_candidates(text, reading.old, reading.new)
        except errors.ToolError:
            return None
        if len(candidates) > 1:
            starts = [c.window.start for c in candidates[: errors.MAX_LISTED_LINES]]
            lines = line_numbers(text, sorted(starts))
            raise errors.several_readings(reading.explain, len(candidates), lines)
        if not candidates:
            return None
        window = candidates[0].window
        if document_has_set_aside(text, window.start, window.end, reading, whole_lines=True):
            return None
    elif match.count > 1:
        lines = line_numbers(text, match.starts(text, limit=errors.MAX_LISTED_LINES))
        raise errors.several_readings(reading.explain, match.count, lines)
    elif document_has_set_aside(
        text, match.first, match.first + len(match.old), reading, whole_lines=False
    ):
        return None
    if reading.refusal is not None:
        raise reading.refusal
    if match is None:
        return _replace_tolerantly(buffer, candidates, False, limits, reading)
    if match.old == match.new:
        raise errors.identical_texts()
    return _replace_exactly(buffer, match, limits, reading)


def _replace_exactly(
    buffer: WorkingBuffer,
    match: Match,
    limits: Limits,
    reading: Reading | None = None,
    note: str = "",
) -> ToolResult:
    text = buffer.text
    grown = (
        indent_added_lines(text, match.first, match.old, match.new) if match.count == 1 else None
    )
    if grown is not None:
        match = replace(match, new=grown.new)
    guarded = guard(
        "replace_text",
        match.old,
        match.new,
        source="new_text",
        first_line=lambda: line_index_at(text, match.first) + 1,
        known=_known(text),
    )
    new = guarded.text
    if new == match.old:
        raise errors.nothing_left_after_expansion(guarded.note)
    size = len(text) + match.count * (len(new) - len(match.old))
    if size > limits.max_text_chars:
        raise errors.result_too_large("replace_text", size, limits.max_text_chars)
    change = Change(match.starts(text), match.old, new, "replace_text")
    buffer.apply(change)
    delta = len(new) - len(match.old)
    after = [start + i * delta for i, start in enumerate(change.starts[: errors.MAX_LISTED_LINES])]
    new_text = buffer.text
    lines = line_numbers(new_text, after)
    where = errors.lines_phrase(lines)
    if match.count == 1:
        head = f"Replaced 1 occurrence, on {where}."
        summary = f"replace_text: 1 replacement at line {lines[0]}"
        if reading is not None:
            summary += f" ({_READ[reading.kind]})"
    else:
        first_ones = "" if len(lines) == match.count else "the first ones "
        head = f"Replaced {match.count:,} occurrences, {first_ones}on {where}."
        summary = f"replace_text: {match.count:,} replacements from line {lines[0]}"
    if note:
        head += " " + note
    adjustments: tuple[str, ...] = ()
    if reading is not None:
        head += " " + reading.note
        adjustments += (reading.kind,)
    if match.adjustment is Adjustment.LINE_ENDINGS:
        head += (
            " old_text matched once its line breaks were written the way the document writes "
            "them; new_text was written the same way."
        )
        adjustments += ("line_endings",)
    elif match.adjustment is Adjustment.LINE_NUMBERS:
        head += (
            " old_text matched only after removing the get_document line numbers it contained; "
            "they were removed from new_text too. Leave them out of old_text and new_text."
        )
        adjustments += ("line_numbers",)
    if grown is not None and grown.inside:
        head += (
            f" old_text matched inside the indentation of line {lines[0]}, so it was read as "
            f"that whole line: the {errors.plural(grown.added, 'line')} after the first of "
            "new_text kept their indentation relative to it, with the line's "
            f"{describe_indent(grown.indent)} before them."
        )
        adjustments += ("indentation",)
    elif grown is not None:
        head += (
            f" old_text matched after the indentation of line {lines[0]}, so "
            f"{errors.plural(grown.added, 'added line')} of new_text "
            f"{'was' if grown.added == 1 else 'were'} given that indentation too "
            f"({describe_indent(grown.indent)})."
        )
        adjustments += ("indentation",)
    if match.converted_endings:
        head += Written(match.new, match.converted_endings, match.ending).note("new_text")
        if "line_endings" not in adjustments:
            adjustments += ("line_endings",)
    if guarded.note:
        head += " " + guarded.note
        adjustments += (EXPANDED,)
    first = after[0]
    return ToolResult(
        head
        + "\n"
        + _reading_line(adjustments)
        + "\n"
        + change_snippet(new_text, first, first + len(new), lines[0]),
        summary,
        adjustments=adjustments,
    )


def _replace_tolerantly(
    buffer: WorkingBuffer,
    candidates: Sequence[Candidate],
    replace_all: bool,
    limits: Limits,
    reading: Reading | None = None,
) -> ToolResult:
    text = buffer.text
    if len(candidates) > 1 and replace_all and reading is None:
        everywhere = _replace_everywhere(buffer, candidates, limits)
        if everywhere is not None:
            return everywhere
    if len(candidates) > 1:
        raise errors.several_tolerant_matches(
            _places(candidates[:_SHOWN_PLACES]),
            len(candidates),
            replace_all,
            at_least=len(candidates) == MAX_CANDIDATES,
        )
    (candidate,) = candidates
    tolerated = apply_candidate(text, candidate)
    old = text[tolerated.start : tolerated.end]
    if tolerated.new == old:
        raise errors.identical_texts()
    guarded = guard(
        "replace_text",
        old,
        tolerated.new,
        source="new_text",
        first_line=lambda: tolerated.first_line,
        known=_known(text),
    )
    if guarded.text == old:
        raise errors.nothing_left_after_expansion(guarded.note)
    size = len(text) - len(old) + len(guarded.text)
    if size > limits.max_text_chars:
        raise errors.result_too_large("replace_text", size, limits.max_text_chars)
    buffer.apply(Change.single(tolerated.start, old, guarded.text, "replace_text"))
    new_text = buffer.text
    first_line = tolerated.first_line
    head = f"Replaced 1 occurrence, on line {first_line}. {tolerated.note}"
    adjustments = tolerated.tolerated
    if reading is not None:
        head += " " + reading.note
        adjustments = (reading.kind, *adjustments)
    if guarded.note:
        head += " " + guarded.note
        adjustments += (EXPANDED,)
    end = tolerated.start + len(guarded.text)
    return ToolResult(
        head
        + "\n"
        + _reading_line(adjustments)
        + "\n"
        + change_snippet(new_text, tolerated.start, end, first_line),
        f"replace_text: 1 replacement at line {first_line} (whitespace tolerated)",
        adjustments=adjustments,
    )


def _replace_everywhere(
    buffer: WorkingBuffer, candidates: Sequence[Candidate], limits: Limits
) -> ToolResult | None:
    """replace_all over tolerant matches: each place re-indented for itself, when every place
    differs from old_text in the same way (the same indentation relation, the same spaces at
    line ends or not), none overlaps another and the search did not stop short; else None
    (refused as several places)."""
    if len(candidates) >= MAX_CANDIDATES:
        return None
    if len({(c.relation, c.trailing) for c in candidates}) != 1:
        return None
    if candidates[0].relation.kind == "uneven":
        return None
    if any(b.window.start < a.window.end for a, b in pairwise(candidates)):
        return None
    text = buffer.text
    matched = f"{len(candidates)} places"
    tolerated = [apply_candidate(text, candidate, matched) for candidate in candidates]
    if len({t.tolerated for t in tolerated}) != 1:
        return None
    pieces: list[str] = []
    new_starts: list[int] = []
    lengths: list[int] = []
    notes: list[str] = []
    position, written = tolerated[0].start, 0
    for place in tolerated:
        old = text[place.start : place.end]
        guarded = guard(
            "replace_text",
            old,
            place.new,
            source="new_text",
            first_line=partial(int, place.first_line),
            known=_known(text),
        )
        pieces.append(text[position : place.start])
        written += place.start - position
        new_starts.append(tolerated[0].start + written)
        pieces.append(guarded.text)
        lengths.append(len(guarded.text))
        written += len(guarded.text)
        position = place.end
        if guarded.note:
            notes.append(guarded.note)
    start, end = tolerated[0].start, tolerated[-1].end
    removed, inserted = text[start:end], "".join(pieces)
    if removed == inserted:
        raise errors.identical_texts()
    size = len(text) - len(removed) + len(inserted)
    if size > limits.max_text_chars:
        raise errors.result_too_large("replace_text", size, limits.max_text_chars)
    buffer.apply(Change.single(start, removed, inserted, "replace_text"))
    new_text = buffer.text
    lines = line_numbers(new_text, new_starts[: errors.MAX_LISTED_LINES])
    count = len(tolerated)
    first_ones = "" if len(lines) == count else "the first ones "
    head = (
        f"Replaced {count} occurrences, {first_ones}on {errors.lines_phrase(lines)}. "
        + tolerated[0].note
    )
    adjustments = tolerated[0].tolerated
    if notes:
        head += " " + " ".join(notes)
        adjustments += (EXPANDED,)
    first_end = new_starts[0] + lengths[0]
    return ToolResult(
        head
        + "\n"
        + _reading_line(adjustments)
        + "\n"
        + change_snippet(new_text, new_starts[0], first_end, lines[0]),
        f"replace_text: {count} replacements from line {lines[0]} (whitespace tolerated)",
        adjustments=adjustments,
    )


def _places(candidates: Sequence[Candidate]) -> list[str]:
    places: list[str] = []
    for candidate in candidates:
        first = candidate.first_line
        shown = candidate.window.contents[:_SHOWN_LINES_PER_PLACE]
        rows = [number_line(first + i, clip(line)) for i, line in enumerate(shown)]
        if len(candidate.window.contents) > len(shown):
            rows.append(f"{'…':>6}\t({len(candidate.window.contents) - len(shown)} more lines)")
        places.append(f"At {candidate.span}:\n" + "\n".join(rows))
    return places
