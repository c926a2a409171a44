"""The checks an edit passes before any model call, one copy for every front end: the
instruction, the selection, the document. Each refusal is an `EditRefused` with the contract's
reason; `argument` names the command argument at fault (the LSP answers those as invalid
params, the other front ends as a refused edit)."""

from __future__ import annotations

from complex_edit.edit_tools.lines import line_count
from complex_edit.server.outcome import EditRefused
from complex_edit.server.session.request import LineRange
from complex_edit.server.settings import Settings


def check_before_model(
    prompt: str, selection: LineRange | None, text: str, settings: Settings
) -> None:
    """Raises EditRefused when the instruction, the selection or the document cannot go to
    the model."""
    if not prompt.strip():
        raise EditRefused("invalid_request", "The instruction is empty.", argument="prompt")
    problem = prompt_problem(prompt, settings.max_prompt_bytes)
    if problem is not None:
        raise EditRefused("invalid_request", problem, argument="prompt")
    document_check(text, settings)
    problem = selection_problem(selection, text) if selection is not None else None
    if problem is not None:
        raise EditRefused("invalid_request", problem, argument="range")


def document_check(text: str, settings: Settings) -> None:
    """Raises EditRefused when the document cannot be edited (invalid Unicode, too large,
    binary)."""
    try:
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise EditRefused(
            "invalid_request", "The document contains invalid Unicode (a lone surrogate)."
        ) from None
    if size > settings.max_document_bytes:
        raise EditRefused(
            "too_large",
            f"The document is {size} bytes, over the limit of {settings.max_document_bytes} "
            "bytes (setting maxDocumentBytes).",
        )
    if "\x00" in text:
        raise EditRefused(
            "invalid_request", "The document contains NUL bytes; binary content is not edited."
        )


def prompt_problem(prompt: str, max_prompt_bytes: int) -> str | None:
    """Why the instruction is too large, or None."""
    size = len(prompt.encode("utf-8", "surrogatepass"))
    if size <= max_prompt_bytes:
        return None
    return (
        f"The instruction is {size} bytes, over the limit of {max_prompt_bytes} bytes "
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
