"""The checks an edit passes before any model call, one copy for every front end."""

from __future__ import annotations

from complex_edit.edit_tools.lines import line_count
from complex_edit.server.outcome import EditResult
from complex_edit.server.session.loop import LineRange
from complex_edit.server.settings import Settings


def document_problem(text: str, settings: Settings) -> EditResult | None:
    """Why the document cannot be edited (invalid Unicode, too large, binary), or None."""
    try:
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return EditResult.failure(
            "invalid_request", "The document contains invalid Unicode (a lone surrogate)."
        )
    if size > settings.max_document_bytes:
        return EditResult.failure(
            "too_large",
            f"The document is {size} bytes, over the limit of {settings.max_document_bytes} "
            "bytes (setting maxDocumentBytes).",
        )
    if "\x00" in text:
        return EditResult.failure(
            "invalid_request", "The document contains NUL bytes; binary content is not edited."
        )
    return None


def prompt_problem(prompt: str, max_prompt_bytes: int, name: str) -> str | None:
    """Why the instruction is too large (`name`: how the front end calls it), or None."""
    size = len(prompt.encode("utf-8", "surrogatepass"))
    if size <= max_prompt_bytes:
        return None
    return (
        f"{name} is {size} bytes, over the limit of {max_prompt_bytes} bytes "
        "(setting maxPromptBytes)."
    )


def selection_problem(selection: LineRange, text: str) -> str | None:
    """Why `selection` does not name lines of `text`, or None."""
    start, end = selection.start_line, selection.end_line
    if start < 1 or end < start:
        return f"The line range {start}:{end} is not a valid range (1-based)."
    total = line_count(text)
    if end > total:
        return f"The line range {start}:{end} is past the end of the file ({total} lines)."
    return None
