"""The six tools, each a function of the working buffer and its validated parameters.

A tool either returns a `ToolResult` or raises `ToolError` before touching the buffer.
"""

from __future__ import annotations

from functools import partial

from complex_edit.edit_tools import errors
from complex_edit.edit_tools.buffer import WorkingBuffer, diff
from complex_edit.edit_tools.elision import has_line
from complex_edit.edit_tools.endings import NAMES, document_ending, write_breaks
from complex_edit.edit_tools.escapes import consistent, escaped_document
from complex_edit.edit_tools.guard import EXPANDED, guard
from complex_edit.edit_tools.lines import line_count, line_index_at
from complex_edit.edit_tools.params import (
    CompleteTaskParams,
    GetDocumentParams,
    RedoParams,
    SetDocumentParams,
    UndoParams,
)
from complex_edit.edit_tools.readings import ESCAPES
from complex_edit.edit_tools.replace import replace_text
from complex_edit.edit_tools.results import Completion, Limits, ToolResult
from complex_edit.edit_tools.view import BOM, change_snippet, render_document

__all__ = [
    "Limits",
    "ToolResult",
    "complete_task",
    "get_document",
    "redo",
    "replace_text",
    "set_document",
    "unchanged_view",
    "undo",
]


def _count_changes(count: int, kind: str) -> str:
    if count == 0:
        return f"No {kind} change"
    return f"{count} {kind} change{'' if count == 1 else 's'}"


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
    note, adjustments = "", tuple[str, ...]()
    escaped = escaped_document(content, current)
    if escaped is not None:
        if not consistent([content], escaped.used):
            raise errors.escaped_document(escaped.describe())
        content = escaped.text
        note = (
            f" It was one line of escaped text ({escaped.describe()}), escaped one time too "
            "many: it was read back as the text it stands for. Send text as it is, without "
            "escaping it again."
        )
        adjustments = (ESCAPES,)
    if current.startswith(BOM) and not content.startswith(BOM):
        content = BOM + content
    ending = document_ending(current)
    written = write_breaks(content, ending)
    adopted = written.text
    if ending is not None and adopted != content:
        note += f" Its line breaks were written as {NAMES[ending]}, like the rest of the document."
    if written.converted:
        adjustments += ("line_endings",)
    guarded = guard(
        "set_document",
        current,
        adopted,
        source="content",
        known=partial(has_line, buffer.original),
    )
    adopted = guarded.text
    if len(adopted) > limits.max_text_chars:
        raise errors.result_too_large("set_document", len(adopted), limits.max_text_chars)
    change = diff(current, adopted, "set_document")
    if change is None:
        expanded = f" {guarded.note}" if guarded.note else ""
        return ToolResult(
            f"No change: the content is identical to the current document.{expanded}",
            "set_document: no change",
            adjustments=adjustments + ((EXPANDED,) if guarded.note else ()),
        )
    buffer.apply(change)
    text = buffer.text
    start = change.first
    if guarded.note:
        note += " " + guarded.note
    return ToolResult(
        f"Document replaced: it now has {errors.plural(line_count(text), 'line')} "
        f"(before: {errors.plural(line_count(current), 'line')}).{note}\n"
        + change_snippet(text, start, start + len(change.inserted)),
        f"set_document: {errors.plural(line_count(text), 'line')}",
        adjustments=adjustments + ((EXPANDED,) if guarded.note else ()),
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
        + change_snippet(text, change.first, change.first + len(change.removed), line),
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
        + change_snippet(text, change.first, change.first + len(change.inserted), line),
        f"redo: {change.label} at line {line}",
    )


def complete_task(params: CompleteTaskParams) -> ToolResult:
    completion = Completion(success=params.success, message=params.message, error=params.error)
    outcome = "success" if params.success else "failure"
    return ToolResult("Task completion recorded.", f"complete_task: {outcome}", completion)
