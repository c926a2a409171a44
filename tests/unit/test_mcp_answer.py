"""The MCP tool's text block (issue 31 item 4): the facts of `structuredContent` in a few lines,
for agents that hand their model only the text."""

from __future__ import annotations

from complex_edit.edit_tools.syntax.models import SyntaxProblem, Validation
from complex_edit.server.mcp.answer import capped_diff, summary, syntax_line
from complex_edit.server.outcome import EditResult


def _diff(lines: int) -> str:
    body = "".join(f"-old {n}\n+new {n}\n" for n in range(lines // 2))
    return f"--- a/x.py\n+++ b/x.py\n@@ -1,{lines // 2} +1,{lines // 2} @@\n{body}"


def test_a_short_diff_is_shown_whole() -> None:
    diff = _diff(10)
    assert capped_diff(diff) == diff


def test_a_long_diff_is_cut_and_says_how_much() -> None:
    diff = _diff(1000)
    shown = capped_diff(diff, max_lines=50)
    lines = shown.splitlines()
    assert lines[:50] == diff.splitlines()[:50]
    assert lines[50] == (
        "[… 953 of the diff's 1003 lines cut here; the structured result's `diff` has them all]"
    )
    assert len(lines) == 51


def test_the_diff_is_cut_by_size_as_well() -> None:
    diff = _diff(1000)
    shown = capped_diff(diff, max_chars=100)
    assert len(shown.split("\n[…")[0]) <= 100
    assert "lines cut here" in shown


def test_the_syntax_line_says_ok_skipped_or_the_errors_with_lines() -> None:
    assert syntax_line(Validation(language="python", syntax="ok")) == "Syntax check: ok (python)"
    skipped = Validation(syntax="skipped", detail="no grammar for .txt")
    assert syntax_line(skipped) == "Syntax check: skipped: no grammar for .txt"
    problem = SyntaxProblem(line=12, column=9, text="print(f(1, 2", problem='missing ")"')
    errors = Validation(language="python", syntax="errors", errors=[problem], count=1)
    assert syntax_line(errors) == (
        "Syntax check: The text has 1 syntax error that the original did not have (python):\n"
        '- line 12, column 9: missing ")" | print(f(1, 2'
    )


def test_a_failure_with_turns_says_them_and_what_would_have_been_written() -> None:
    result = EditResult(
        success=False,
        reason="document_changed",
        error="x.py changed on disk",
        diff=_diff(4),
        turns=3,
        tool_calls=5,
        validation=Validation(language="python", syntax="ok"),
    )
    text = summary(result, result.to_wire(), "x.py")
    assert text == (
        "The edit failed (document_changed): x.py changed on disk\nx.py was not changed.\n"
        "Syntax check: ok (python)\nTurns: 3 · tool calls: 5\n\n"
        f"What would have been written:\n{_diff(4)}"
    )


def test_no_change_says_the_file_was_left_as_it_was() -> None:
    result = EditResult(success=True, message="nothing to do", turns=1, tool_calls=1)
    text = summary(result.with_validation(), result.to_wire(), "x.py")
    assert text.startswith("nothing to do\nx.py was left as it was.\nSyntax check: skipped")
    assert text.endswith("Turns: 1 · tool calls: 1")
