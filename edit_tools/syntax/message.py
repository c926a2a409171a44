"""The new syntax errors as the model reads them: a short list it can act on."""

from __future__ import annotations

from complex_edit.edit_tools.syntax.models import Validation

# Errors listed for the model; the rest are counted.
MESSAGE_LIMIT = 10
_TEXT_CHARS = 120


def render_problems(validation: Validation, limit: int = MESSAGE_LIMIT) -> str:
    """E.g. `The text has 2 syntax errors that the original did not have (python):` then one
    line each, `- line 12, column 9: missing ")" | print(f(1, 2`, at most `limit`, then how
    many more. Empty when there is nothing to fix."""
    if validation.syntax != "errors" or not validation.errors:
        return ""
    count = max(validation.count, len(validation.errors))
    plural = "error" if count == 1 else "errors"
    language = f" ({validation.language})" if validation.language else ""
    lines = [f"The text has {count} syntax {plural} that the original did not have{language}:"]
    for problem in validation.errors[:limit]:
        text = problem.text.strip()
        if len(text) > _TEXT_CHARS:
            text = text[:_TEXT_CHARS] + "…"
        lines.append(f"- line {problem.line}, column {problem.column}: {problem.problem} | {text}")
    if count > min(limit, len(validation.errors)):
        lines.append(f"- … and {count - min(limit, len(validation.errors))} more")
    return "\n".join(lines)
