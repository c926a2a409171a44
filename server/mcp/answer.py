"""What the tool answers: the contract's result as `structuredContent`, and a text block that
carries the same facts for agents whose model sees only the text (Gemini CLI): what was done,
the syntax check, turns and tool calls, and the diff, capped with how much was cut."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mcp.types import CallToolResult, TextContent, ToolAnnotations

from complex_edit.edit_tools.syntax.message import render_problems
from complex_edit.edit_tools.syntax.models import Validation
from complex_edit.server.check.run import answer_lines
from complex_edit.server.edit.roots import file_path
from complex_edit.server.outcome import EditResult

# The diff in the text block; the whole one is always in `structuredContent.diff`.
DIFF_LINES = 400
DIFF_CHARS = 24_000

# The review setting over MCP: nobody can be asked about each change here, and the setting
# promises that nothing lands unreviewed, so the change is returned, not written.
_REVIEW_HEAD = (
    "Review is on (setting review) and MCP cannot ask about each change, so nothing was "
    "written to {path}: {count} proposed below as a diff (and as `hunks` in the structured "
    "result). Apply the ones to keep yourself, or run again with the review setting off to "
    "write the edit."
)


def writes_files(title: str) -> ToolAnnotations:
    """The annotations of a tool that writes files in the roots (both tools do)."""
    return ToolAnnotations(
        title=title,
        read_only_hint=False,
        destructive_hint=True,
        idempotent_hint=False,
        open_world_hint=False,
    )


def tool_result(result: EditResult, env: Mapping[str, str], path: str) -> CallToolResult:
    complete = result.with_validation()
    wire = complete.scrubbed_wire(env)
    return CallToolResult(
        content=[TextContent(type="text", text=summary(complete, wire, path))],
        structured_content=wire,
        is_error=not result.success,
    )


def summary(result: EditResult, wire: Mapping[str, Any], path: str) -> str:
    """The text block: the outcome's line, then the syntax check, the turns, and the diff."""
    lines = [_head(result, wire, path)]
    if result.documents:
        done = "Files changed" if result.applied else "Files the edit changes"
        lines.append(f"{done}: " + ", ".join(file_path(d.uri) for d in result.documents))
    if result.validation is not None:
        lines.append(syntax_line(result.validation))
    if result.diagnostics is not None:
        lines.extend(answer_lines(result.diagnostics, file_path))
    if result.turns:
        lines.append(f"Turns: {result.turns} · tool calls: {result.tool_calls}")
    text = "\n".join(lines)
    if result.diff:
        intro = "" if result.success else "What would have been written:\n"
        text += f"\n\n{intro}{capped_diff(result.diff)}"
    return text


def _head(result: EditResult, wire: Mapping[str, Any], path: str) -> str:
    if not result.success:
        error = wire.get("error", "")
        return f"The edit failed ({result.reason}): {error}\n{path} was not changed."
    message = wire.get("message") or "Edit complete."
    if not result.diff:
        return f"{message}\n{path} was left as it was."
    if result.hunks is not None:
        return _REVIEW_HEAD.format(path=path, count=_changes(len(result.hunks)))
    if result.applied:
        return f"Edited {path}: {message}"
    return f"Dry run, {path} not written: {message}"


def syntax_line(validation: Validation) -> str:
    """`Syntax check: ok (python)`, `… skipped: why`, or the new errors with their lines."""
    language = f" ({validation.language})" if validation.language else ""
    if validation.syntax == "ok":
        return f"Syntax check: ok{language}"
    if validation.syntax == "skipped":
        why = f": {validation.detail}" if validation.detail else ""
        return f"Syntax check: skipped{language}{why}"
    return f"Syntax check: {render_problems(validation)}"


def capped_diff(diff: str, max_lines: int = DIFF_LINES, max_chars: int = DIFF_CHARS) -> str:
    """The diff, or its first lines with a last line saying how much was left out."""
    lines = diff.splitlines(keepends=True)
    kept: list[str] = []
    size = 0
    for line in lines[:max_lines]:
        if size + len(line) > max_chars:
            break
        kept.append(line)
        size += len(line)
    if len(kept) == len(lines):
        return diff
    cut = len(lines) - len(kept)
    shown = "".join(kept)
    if not shown.endswith("\n"):
        shown += "\n"
    return (
        f"{shown}[… {cut} of the diff's {len(lines)} lines cut here; the structured result's "
        "`diff` has them all]"
    )


def _changes(count: int) -> str:
    return "1 change is" if count == 1 else f"{count} changes are"


def invalid_arguments(problems: Sequence[Mapping[str, Any]]) -> str:
    """One sentence per invalid argument, with the value given when it is short."""
    sentences = []
    for problem in problems:
        name = argument_name(problem["loc"])
        if problem["type"] == "missing":
            sentences.append(f"The argument {name} is missing; it is required.")
            continue
        shown = json.dumps(problem.get("input"), ensure_ascii=False, default=str)
        got = f" (got {shown})" if len(shown) <= 40 else ""
        detail = str(problem["msg"]).rstrip(".")
        sentences.append(f"The argument {name} is invalid: {detail[:1].lower()}{detail[1:]}{got}.")
    return " ".join(sentences) or "The arguments are invalid."


def argument_name(location: Sequence[Any]) -> str:
    return ".".join(str(part) for part in location) or "(all)"
