"""The six tools, each a function of the working buffer and its validated parameters.

A tool either returns a `ToolResult` or raises `ToolError` before touching the buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from edit_tools import errors
from edit_tools.buffer import Change, WorkingBuffer, diff
from edit_tools.lines import CRLF, line_count, line_index_at, uniform_line_ending
from edit_tools.matching import (
    Adjustment,
    adopt_line_endings,
    find_match,
    line_numbers,
    nearest_text,
)
from edit_tools.params import (
    CompleteTaskParams,
    GetDocumentParams,
    RedoParams,
    ReplaceTextParams,
    SetDocumentParams,
    UndoParams,
)
from edit_tools.results import Completion
from edit_tools.view import BOM, render_document, render_snippet


@dataclass(frozen=True)
class ToolResult:
    text: str
    summary: str
    completion: Completion | None = None
    full_view: bool = False  # the text shows the whole document


@dataclass(frozen=True)
class Limits:
    max_text_chars: int


def _count_changes(count: int, kind: str) -> str:
    if count == 0:
        return f"No {kind} change"
    return f"{count} {kind} change{'' if count == 1 else 's'}"


def _snippet(text: str, start: int, end: int, start_line: int | None = None) -> str:
    """The lines around the change; `start_line` (1-based, of `start`) spares a count."""
    snippet = render_snippet(
        text, start, end, start_index=None if start_line is None else start_line - 1
    )
    if snippet is None:
        return "The document is now empty."
    if snippet.first_line == snippet.last_line:
        return f"Line {snippet.first_line} now reads:\n{snippet.body}"
    return f"Lines {snippet.first_line}-{snippet.last_line} now read:\n{snippet.body}"


def get_document(buffer: WorkingBuffer, params: GetDocumentParams) -> ToolResult:
    text = buffer.text
    rendered = render_document(text, params.start_line, params.end_line)
    total = line_count(text)
    if total == 0:
        return ToolResult(rendered, "get_document: empty document")
    first = params.start_line or 1
    last = params.end_line or total
    return ToolResult(
        rendered,
        f"get_document: lines {first}-{last} of {total}",
        full_view=first == 1 and last == total,
    )


def unchanged_view(buffer: WorkingBuffer, where: str) -> ToolResult:
    """A full get_document of a text the model already has in full: say so instead of
    sending another copy of the document."""
    total = line_count(buffer.text)
    return ToolResult(
        f"[lines 1-{total} of {total}] The document has not changed since {where}: that "
        "copy is current, so it is not repeated here.",
        f"get_document: unchanged, {errors.plural(total, 'line')}",
    )


def set_document(buffer: WorkingBuffer, params: SetDocumentParams, limits: Limits) -> ToolResult:
    current = buffer.text
    content = params.content
    if current.startswith(BOM) and not content.startswith(BOM):
        content = BOM + content
    adopted = adopt_line_endings(current, content)
    note = ""
    if adopted != content:
        ending = "CRLF" if uniform_line_ending(current) == CRLF else "CR"
        note = f" Its line breaks were written as {ending}, like the rest of the document."
    if len(adopted) > limits.max_text_chars:
        raise errors.result_too_large("set_document", len(adopted), limits.max_text_chars)
    change = diff(current, adopted, "set_document")
    if change is None:
        return ToolResult(
            "No change: the content is identical to the current document.",
            "set_document: no change",
        )
    buffer.apply(change)
    text = buffer.text
    start = change.first
    return ToolResult(
        f"Document replaced: it now has {errors.plural(line_count(text), 'line')} "
        f"(before: {errors.plural(line_count(current), 'line')}).{note}\n"
        + _snippet(text, start, start + len(change.inserted)),
        f"set_document: {errors.plural(line_count(text), 'line')}",
    )


def replace_text(buffer: WorkingBuffer, params: ReplaceTextParams, limits: Limits) -> ToolResult:
    text = buffer.text
    if not params.old_text:
        raise errors.empty_old_text(not text)
    if params.old_text == params.new_text:
        raise errors.identical_texts()
    match = find_match(text, params.old_text, params.new_text)
    if match is None:
        raise errors.no_match(line_count(text), nearest_text(text, params.old_text))
    if match.old == match.new:
        raise errors.identical_texts()
    if match.count > 1 and not params.replace_all:
        listed = match.starts(text, limit=errors.MAX_LISTED_LINES)
        raise errors.several_matches(
            match.count, line_numbers(text, listed), all_listed=len(listed) == match.count
        )
    size = len(text) + match.count * (len(match.new) - len(match.old))
    if size > limits.max_text_chars:
        raise errors.result_too_large("replace_text", size, limits.max_text_chars)
    change = Change(match.starts(text), match.old, match.new, "replace_text")
    buffer.apply(change)
    delta = len(match.new) - len(match.old)
    after = [start + i * delta for i, start in enumerate(change.starts[: errors.MAX_LISTED_LINES])]
    new_text = buffer.text
    lines = line_numbers(new_text, after)
    where = errors.lines_phrase(lines)
    if match.count == 1:
        head = f"Replaced 1 occurrence, on {where}."
        summary = f"replace_text: 1 replacement at line {lines[0]}"
    else:
        first_ones = "" if len(lines) == match.count else "the first ones "
        head = f"Replaced {match.count:,} occurrences, {first_ones}on {where}."
        summary = f"replace_text: {match.count:,} replacements from line {lines[0]}"
    if match.adjustment is Adjustment.LINE_ENDINGS:
        head += (
            " old_text matched once its line breaks were written the way the document writes "
            "them; new_text was written the same way."
        )
    elif match.adjustment is Adjustment.LINE_NUMBERS:
        head += (
            " old_text matched only after removing the get_document line numbers it contained; "
            "they were removed from new_text too. Leave them out of old_text and new_text."
        )
    first = after[0]
    return ToolResult(
        head + "\n" + _snippet(new_text, first, first + len(match.new), lines[0]), summary
    )


def undo(buffer: WorkingBuffer, _params: UndoParams) -> ToolResult:
    change = buffer.undo()
    if change is None:
        raise errors.nothing_to_undo(buffer.dropped, buffer.max_history)
    text = buffer.text
    line = line_index_at(text, change.first) + 1
    return ToolResult(
        f"Undid the last {change.label} change (from line {line}); redo re-applies it. "
        f"{_count_changes(buffer.undo_depth, 'earlier')} can still be undone.\n"
        + _snippet(text, change.first, change.first + len(change.removed), line),
        f"undo: {change.label} at line {line}",
    )


def redo(buffer: WorkingBuffer, _params: RedoParams) -> ToolResult:
    change = buffer.redo()
    if change is None:
        raise errors.nothing_to_redo()
    text = buffer.text
    line = line_index_at(text, change.first) + 1
    return ToolResult(
        f"Re-applied the {change.label} change (from line {line}). "
        f"{_count_changes(buffer.redo_depth, 'more undone')} can be redone.\n"
        + _snippet(text, change.first, change.first + len(change.inserted), line),
        f"redo: {change.label} at line {line}",
    )


def complete_task(params: CompleteTaskParams) -> ToolResult:
    completion = Completion(success=params.success, message=params.message, error=params.error)
    outcome = "success" if params.success else "failure"
    return ToolResult("Task completion recorded.", f"complete_task: {outcome}", completion)
