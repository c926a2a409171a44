"""The elision guard as the tools use it: run `elision.check`, refuse with an error the model
can act on, or describe the expansions for the tool result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from complex_edit.edit_tools import errors
from complex_edit.edit_tools.elision import Elision, check

_REASONS = {
    "changed": "it stands among new or changed lines, so which lines it replaces is unclear",
    "unanchored": (
        "the lines around it occur more than once there, so which lines it stands for is unclear"
    ),
    "moved": "some of those lines appear elsewhere in your text (moved, or kept twice?)",
}

ADVICE = {
    "set_document": (
        "Change only what the instruction needs with replace_text (old_text: just the lines "
        "you change), or send the complete text with every kept line written out."
    ),
    "replace_text": (
        "Put only the lines you change in old_text and new_text (lines you leave out of "
        "old_text stay as they are), or write every kept line out in new_text."
    ),
}
EXPANDED = "elision_expanded"


@dataclass(frozen=True)
class Guarded:
    text: str
    note: str  # "" when nothing was expanded
    expanded: int


def _lines(first: int, count: int) -> str:
    return f"line {first}" if count == 1 else f"lines {first}-{first + count - 1}"


def _where(source: str) -> str:
    return "the document" if source == "content" else "old_text's match"


def guard(
    tool: str,
    original: str,
    new: str,
    *,
    source: str,
    first_line: Callable[[], int] = lambda: 1,
    known: Callable[[str], bool] | None = None,
) -> Guarded:
    """`new` (the value of the parameter `source`) replacing `original`, which starts at
    document line `first_line()`. Raises `ToolError` when a placeholder cannot be expanded."""
    checked = check(original, new, known)
    if not checked.elisions:
        return Guarded(new, "", 0)
    if checked.refused:
        details = [_refusal(elision, source, first_line()) for elision in checked.refused]
        raise errors.elision_refused(tool, details, ADVICE[tool])
    line = first_line()
    notes = [_expansion(elision, source, line) for elision in checked.elisions]
    return Guarded(checked.text, " ".join(notes), len(checked.elisions))


def _refusal(elision: Elision, source: str, first_line: int) -> str:
    dropped = _lines(first_line + elision.dropped_first, elision.dropped_count)
    return (
        f"line {elision.line + 1} of `{source}`, {elision.placeholder!r}, looks like a "
        f"placeholder for code, standing where {errors.plural(elision.dropped_count, 'line')} "
        f"of {_where(source)} ({dropped}) {'was' if elision.dropped_count == 1 else 'were'} "
        f"left out, and {_REASONS[elision.reason]}."
    )


def _expansion(elision: Elision, source: str, first_line: int) -> str:
    dropped = _lines(first_line + elision.dropped_first, elision.dropped_count)
    kept = "it was" if elision.dropped_count == 1 else "they were"
    return (
        f"Note: {elision.placeholder!r} (line {elision.line + 1} of `{source}`) stood for "
        f"{dropped} of the document as it was, kept exactly as {kept}: the placeholder was "
        "not written. Never write such placeholders: write only what changes."
    )
