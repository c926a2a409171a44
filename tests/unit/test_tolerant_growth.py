"""Issue 22 item 2: a one-line exact match that grows into several lines. Found after the
indentation of its line, its added lines take that indentation (the document's own tabs or
spaces) unless new_text already carries some; the result says so."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome


def replaced(text: str, old: str, new: str, **extra: Any) -> tuple[str, ToolOutcome]:
    toolbox = Toolbox(text)
    outcome = toolbox.execute("replace_text", {"old_text": old, "new_text": new, **extra})
    assert outcome.ok, outcome.response
    return toolbox.text, outcome


DOC = "def f():\n    x = 1\n    return x\n"


def test_added_lines_take_the_indentation_of_the_matched_line() -> None:
    text, outcome = replaced(DOC, "x = 1", "x = 1\ny = 2")
    assert text == "def f():\n    x = 1\n    y = 2\n    return x\n"
    assert outcome.adjustments == ("indentation",)
    result = outcome.response["result"]
    assert "matched after the indentation of line 2" in result
    assert "1 added line of new_text was given that indentation too (4 spaces)" in result


def test_relative_indentation_and_blank_lines_are_kept_in_a_tabbed_document() -> None:
    doc = "def f():\n\tif a:\n\t\tx = 1\n"
    text, _ = replaced(doc, "x = 1", "x = 1\nif b:\n\ty = 2\n\nz()")
    assert text == "def f():\n\tif a:\n\t\tx = 1\n\t\tif b:\n\t\t\ty = 2\n\n\t\tz()\n"


def test_relative_spaces_become_tabs_in_a_tabbed_document() -> None:
    doc = "def f():\n\tx = 1\n"
    text, _ = replaced(doc, "x = 1", "x = 1\nif b:\n    y = 2")
    assert text == "def f():\n\tx = 1\n\tif b:\n\t\ty = 2\n"


def test_the_match_with_its_line_break() -> None:
    text, _ = replaced(DOC, "x = 1\n", "x = 1\ny = 2\n")
    assert text == "def f():\n    x = 1\n    y = 2\n    return x\n"


def test_a_line_break_taken_and_not_given_back_leaves_the_last_line_as_written() -> None:
    """The model moved where its lines end: its closing brace at column 0 is meant there
    (tests/e2e/test_lsp_validation.py fixes a removed brace this way)."""
    doc = "function f() {\n  return 1;\n\n\ng();\n"
    text, outcome = replaced(doc, "return 1;\n", "return 2;\n}")
    assert text == "function f() {\n  return 2;\n}\n\ng();\n"
    assert outcome.adjustments == ()


def test_crlf_document() -> None:
    text, _ = replaced(DOC.replace("\n", "\r\n"), "x = 1", "x = 1\ny = 2")
    assert text == "def f():\r\n    x = 1\r\n    y = 2\r\n    return x\r\n"


def test_new_text_that_carries_indentation_is_written_as_sent() -> None:
    text, outcome = replaced(DOC, "x = 1", "x = 1\n    y = 2")
    assert text == "def f():\n    x = 1\n    y = 2\n    return x\n"
    assert outcome.adjustments == ()


def test_old_text_with_the_indentation_means_column_0_is_meant() -> None:
    text, outcome = replaced(DOC, "    return x\n", "    return x\n\n\nz = f()\n")
    assert text == DOC + "\n\nz = f()\n"
    assert outcome.adjustments == ()


def test_a_match_in_the_middle_of_a_line_is_written_as_sent() -> None:
    text, outcome = replaced("    call(x = 1)\n", "x = 1", "x = 1,\ny = 2")
    assert text == "    call(x = 1,\ny = 2)\n"
    assert outcome.adjustments == ()


def test_several_occurrences_are_written_as_sent() -> None:
    doc = "    x = 1\n    x = 1\n"
    text, _ = replaced(doc, "x = 1", "x = 1\ny", replace_all=True)
    assert text == "    x = 1\ny\n    x = 1\ny\n"


@given(
    depth=st.integers(1, 3),
    tabs=st.booleans(),
    before=st.integers(0, 3),
    after=st.integers(0, 3),
    added=st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=1, max_size=4),
)
def test_only_the_matched_line_changes_and_added_lines_sit_under_it(
    depth: int, tabs: bool, before: int, after: int, added: list[tuple[int, bool]]
) -> None:
    """Lines before and after the match are byte-identical; each added line is the matched
    line's indentation plus what the model wrote (blank lines stay empty)."""
    unit = "\t" if tabs else "    "
    indent = unit * depth
    head = [f"head_{i}()" for i in range(before)]
    tail = [f"{indent}tail_{i}()" for i in range(after)]
    doc = "\n".join([*head, f"{indent}target()", *tail]) + "\n"
    written = [
        "" if blank else unit * level + f"new_{i}()" for i, (level, blank) in enumerate(added)
    ]
    if all(not line for line in written):
        written[0] = "new_0()"
    if all(line.startswith(unit) for line in written if line):
        written[0] = "new_0()"
    text, _ = replaced(doc, "target()", "\n".join(["target()", *written]))
    expected = [f"{indent}target()", *[indent + line if line else "" for line in written]]
    assert text == "\n".join([*head, *expected, *tail]) + "\n"
