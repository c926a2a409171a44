"""Every message the model reads when a call goes wrong, written for the model to act on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# Shown line numbers in one error message; the rest are counted.
MAX_LISTED_LINES = 20


class ToolError(ValueError):
    """A mistake the model can fix. `message` goes back to the model; `summary` is a few words
    for progress UIs and never holds document text."""

    def __init__(self, message: str, summary: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.summary = summary
        self.kind = kind


def describe_value(value: Any) -> str:
    """A short JSON-flavoured description of a value the model sent."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 30 else value[:30] + "…"
        return f"the string {shown!r}"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a value of type {type(value).__name__}"


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def lines_phrase(lines: Sequence[int]) -> str:
    """`"line 4"` or `"lines 4, 17 and 30"`, each line once."""
    distinct = [str(n) for n in dict.fromkeys(lines)]
    if len(distinct) == 1:
        return f"line {distinct[0]}"
    return "lines " + ", ".join(distinct[:-1]) + " and " + distinct[-1]


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "(none)"


def unknown_tool(name: str, known: Sequence[str], close: str | None) -> ToolError:
    shown = name if len(name) <= 60 else name[:60] + "…"
    hint = f" Did you mean {close}?" if close else ""
    return ToolError(
        f"There is no tool named {shown!r}.{hint} The available tools are: {_names(known)}.",
        "error: unknown tool",
    )


def arguments_not_object(tool: str, value: Any) -> ToolError:
    return ToolError(
        f"The arguments of {tool} must be an object of named parameters, "
        f"got {describe_value(value)}.",
        f"{tool}: error: invalid arguments",
    )


def invalid_arguments(tool: str, problems: Sequence[str], accepted: Sequence[str]) -> ToolError:
    takes = (
        f"{tool} takes no parameters."
        if not accepted
        else f"{tool} takes these parameters: {_names(accepted)}."
    )
    return ToolError(
        f"Invalid arguments for {tool}: " + " ".join(problems) + f" {takes} Nothing was changed.",
        f"{tool}: error: invalid arguments",
    )


def missing_parameter(param: str, expected: str) -> str:
    return f"The required parameter `{param}` is missing (expected {expected})."


def unknown_parameter(param: str) -> str:
    return f"`{param}` is not a parameter of this tool."


def wrong_value(param: str, expected: str, value: Any) -> str:
    return f"`{param}` must be {expected}, got {describe_value(value)}."


def argument_too_large(tool: str, size: int, limit: int) -> ToolError:
    return ToolError(
        f"The arguments of {tool} are {size:,} bytes (UTF-8), over the limit of {limit:,} bytes. "
        "Nothing was changed. Send smaller pieces: several replace_text calls instead of one "
        "large call.",
        f"{tool}: error: arguments too large",
    )


def lone_surrogate(tool: str, param: str, index: int) -> ToolError:
    return ToolError(
        f"`{param}` contains an unpaired UTF-16 surrogate at character {index}, which is not "
        "valid Unicode text. Nothing was changed. Send the text again as valid Unicode.",
        f"{tool}: error: invalid text",
    )


def empty_old_text(document_empty: bool) -> ToolError:
    if document_empty:
        advice = "The document is empty: use set_document to give it content."
    else:
        advice = (
            "To insert text, put an existing nearby line in old_text and repeat it in new_text "
            "together with the addition. To replace everything, use set_document."
        )
    return ToolError(
        f"`old_text` is empty, so there is nothing to find. Nothing was changed. {advice}",
        "replace_text: error: empty old_text",
    )


def identical_texts() -> ToolError:
    return ToolError(
        "`old_text` and `new_text` are identical, so this call would change nothing. Nothing "
        "was changed. Put the text you want in `new_text`; if the document is already as "
        "the instruction asks, no edit is needed.",
        "replace_text: error: old_text equals new_text",
    )


def no_match(line_count: int, suggestion: str | None) -> ToolError:
    message = (
        f"No match: `old_text` does not occur in the document ({plural(line_count, 'line')}). "
        "It must "
        "match the current text exactly, character for character, including indentation, "
        "whitespace and line breaks, and without the line numbers shown by get_document. "
        "Nothing was changed."
    )
    if suggestion:
        message += "\n" + suggestion
    else:
        message += " Call get_document to see the current text."
    return ToolError(message, "replace_text: error: no match")


WHITESPACE_ONLY = (
    "it differs from old_text only in whitespace: indentation, tabs versus spaces, spaces at "
    "line ends or blank lines"
)
CASE_ONLY = "it differs from old_text only in letter case"


def did_you_mean(first_line: int, last_line: int, numbered: str, hint: str | None) -> str:
    where = f"line {first_line}" if first_line == last_line else f"lines {first_line}-{last_line}"
    text = f"The most similar text is at {where}:\n{numbered}"
    if hint:
        text += f"\n({hint})"
    return text


def several_matches(count: int, lines: Sequence[int], all_listed: bool) -> ToolError:
    where = f"on {lines_phrase(lines)}" if all_listed else f"first on {lines_phrase(lines)}"
    return ToolError(
        f"`old_text` occurs {count} times, {where}. Nothing was changed. Add surrounding "
        "lines to `old_text` so it matches exactly one place, or set `replace_all` to true to "
        "replace every occurrence.",
        f"replace_text: error: {count} matches",
    )


def overlapping_matches(count: int, places: Sequence[tuple[int, int]]) -> ToolError:
    """`places`: (line, column) of each listed place, 1-based; some of them overlap."""
    where = ", ".join(f"line {line} column {column}" for line, column in places)
    listed = "" if len(places) == count else "first "
    return ToolError(
        f"`old_text` occurs at {count} places, some overlapping others, {listed}at {where}. "
        "Nothing was changed. Add surrounding text to `old_text` so it matches exactly one "
        "place, or set `replace_all` to true to replace them from left to right.",
        f"replace_text: error: {count} overlapping matches",
    )


def overlaps_taken_in_turn(count: int, taken: int) -> str:
    """The note of a replace_all whose `count` places overlap: `taken` were replaced."""
    return (
        f"`old_text` occurs at {count} places, some overlapping others: replace_all took them "
        f"from left to right without overlap, as str.replace does: {plural(taken, 'place')} "
        f"{'was' if taken == 1 else 'were'} replaced. If you meant other places, undo and make "
        "one call per place."
    )


def several_tolerant_matches(
    places: Sequence[str], count: int, replace_all: bool, *, at_least: bool = False
) -> ToolError:
    """`places`: each candidate as a numbered excerpt; `at_least`: the search stopped at
    `count`."""
    shown = "\n".join(places)
    rest = count - len(places)
    more = f"\n(and {'at least ' if at_least else ''}{rest} more)" if rest > 0 else ""
    scope = (
        " replace_all replaces several places only when they match exactly, or when every "
        "place differs from old_text in the same way (the same indentation missing or added, "
        "or only spaces at line ends) and none overlaps another."
        if replace_all
        else ""
    )
    return ToolError(
        f"No exact match: `old_text` does not occur in the document as written. Setting "
        f"indentation, tabs versus spaces and spaces at line ends aside, it matches "
        f"{'at least ' if at_least else ''}{count} places:\n{shown}{more}\n"
        "Nothing was changed: there is no guessing between places."
        f"{scope} Copy old_text exactly from the place you mean, indentation included, with "
        "enough surrounding lines to make it unique.",
        f"replace_text: error: {count} whitespace-tolerant matches",
    )


def too_many_lookalikes(limit: int) -> ToolError:
    return ToolError(
        f"No exact match: `old_text` does not occur in the document as written, and more than "
        f"{limit:,} places have the same lines once indentation and spaces at line ends are "
        "set aside. Nothing was changed. Copy old_text exactly, indentation included, with "
        "enough surrounding lines to make it unique.",
        "replace_text: error: too many whitespace-tolerant look-alikes",
    )


def nothing_left_after_expansion(note: str) -> ToolError:
    return ToolError(
        "Nothing to change: once its placeholder was expanded into the lines it stood for, "
        f"new_text is the same as the text it replaces. Nothing was changed. {note}",
        "replace_text: error: only a placeholder",
    )


def cannot_reindent(new_line: int, first_line: int, last_line: int) -> ToolError:
    return ToolError(
        f"No exact match: `old_text` matches lines {first_line}-{last_line} only once its "
        "indentation is adapted to the document's, and line "
        f"{new_line} of `new_text` would then need less than no indentation. Nothing was "
        "changed. Copy old_text exactly from the document, indentation included, and indent "
        "new_text the same way.",
        "replace_text: error: cannot re-indent new_text",
    )


def half_reindented(first: int, late: int, first_line: int, last_line: int) -> ToolError:
    return ToolError(
        f"No exact match: `old_text` matches lines {first_line}-{last_line} only once its "
        "indentation is adapted to the document's, and `new_text` is indented two ways: its "
        f"line {first} has the document's indentation, its line {late} old_text's. Nothing "
        "was changed: shifting it would indent some lines twice, and not shifting it would "
        "misplace others. Copy old_text exactly from the document, indentation included, "
        "and indent new_text the same way.",
        "replace_text: error: new_text indented two ways",
    )


def several_readings(explain: str, count: int, lines: Sequence[int]) -> ToolError:
    """`explain`: how old_text was read ("once the blank line at its end is set aside")."""
    listed = "" if len(lines) == count else "first "
    return ToolError(
        f"No exact match: `old_text` does not occur in the document as written; {explain}, it "
        f"occurs {count} times, {listed}on {lines_phrase(lines)}. Nothing was changed: there "
        "is no guessing between places. Copy old_text exactly from the place you mean, with "
        "enough surrounding lines to make it unique.",
        f"replace_text: error: {count} matches once read another way",
    )


def inconsistent_escapes(shown: str) -> ToolError:
    return ToolError(
        f"No exact match: `old_text` matches only once its escape sequences ({shown}) are read "
        "as the characters they stand for, but the call also writes some of those characters "
        "as they are, so which backslashes belong to the text is unclear. Nothing was "
        "changed. Send old_text and new_text as plain text, without escaping them.",
        "replace_text: error: escaped text",
    )


def escaped_document(shown: str) -> ToolError:
    return ToolError(
        f"`content` is one line holding escape sequences ({shown}) where the document has "
        "line breaks, and it also writes some of those characters as they are, so it cannot "
        "be read back safely. Nothing was changed. Send the content as plain text, with real "
        "line breaks, without escaping it.",
        "set_document: error: escaped text",
    )


def elision_refused(tool: str, details: Sequence[str], advice: str) -> ToolError:
    return ToolError(
        f"Refused: {' '.join(details)} Writing such a line would delete the lines it stands "
        f"for. Nothing was changed. Never stand in for kept code with a placeholder. {advice} "
        "If you really mean to delete those lines and write that line, delete them in one call "
        "and add the line in another.",
        f"{tool}: error: elision placeholder",
        kind="elision_refused",
    )


def result_too_large(tool: str, size: int, limit: int) -> ToolError:
    return ToolError(
        f"This {tool} call would make the document {size:,} characters long, over the limit of "
        f"{limit:,}. Nothing was changed.",
        f"{tool}: error: result too large",
    )


def line_out_of_range(param: str, value: int, line_count: int) -> ToolError:
    advice = (
        "leave `end_line` out to read to the end"
        if param == "end_line"
        else "leave both out to see the whole document"
    )
    return ToolError(
        f"`{param}` is {value}, but the document has only {plural(line_count, 'line')}. Use line "
        f"numbers from 1 to {line_count}, or {advice}.",
        "get_document: error: line out of range",
    )


def empty_document_range() -> ToolError:
    return ToolError(
        "The document is empty (0 lines), so there is no line range to show. Call "
        "get_document without start_line and end_line, or give the document content with "
        "set_document.",
        "get_document: error: document is empty",
    )


def start_after_end(start: int, end: int, line_count: int) -> ToolError:
    return ToolError(
        f"`start_line` ({start}) is after `end_line` ({end}). The document has "
        f"{plural(line_count, 'line')}; ask for a range with start_line ≤ end_line.",
        "get_document: error: start_line > end_line",
    )


def nothing_to_undo(dropped: int, max_history: int) -> ToolError:
    if dropped:
        why = (
            f"the earlier changes fell off the history, which keeps only the last "
            f"{max_history} changes"
        )
    else:
        why = "no change made by set_document or replace_text is left to revert"
    return ToolError(
        f"Nothing to undo: {why}. The document was not changed.", "undo: error: nothing to undo"
    )


def nothing_to_redo() -> ToolError:
    return ToolError(
        "Nothing to redo: redo re-applies a change reverted by undo, and there is none (a new "
        "edit after undo clears what can be redone). The document was not changed.",
        "redo: error: nothing to redo",
    )


def internal_error(tool: str, exc: BaseException) -> ToolError:
    return ToolError(
        f"{tool} failed because of an internal error ({type(exc).__name__}). The document was "
        "not changed. Try a different call.",
        f"{tool}: error: internal error",
    )
