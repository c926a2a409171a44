"""Issue 30 item 2: a one-line exact match that starts inside its line's indentation and
grows into several lines reads as if it had been the whole line: every line after the first
keeps its indentation relative to the first (whitespace-only lines too)."""

from __future__ import annotations

from typing import Any

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome


def replaced(text: str, old: str, new: str, **extra: Any) -> tuple[str, ToolOutcome]:
    toolbox = Toolbox(text)
    outcome = toolbox.execute("replace_text", {"old_text": old, "new_text": new, **extra})
    assert outcome.ok, outcome.response
    return toolbox.text, outcome


DOC = "def f():\n    item\n    x = 1\n"


def test_siblings_stay_siblings_whitespace_only_lines_included() -> None:
    text, outcome = replaced(DOC, "  item", "  item\n   \n  code")
    assert text == "def f():\n    item\n     \n    code\n    x = 1\n"
    assert outcome.adjustments == ("indentation",)
    assert "matched inside the indentation of line 2" in outcome.response["result"]


def test_nested_lines_keep_their_depth_relative_to_the_first() -> None:
    text, _ = replaced(DOC, "  item", "  item\n\n  if a:\n    b()")
    assert text == "def f():\n    item\n\n    if a:\n      b()\n    x = 1\n"


def test_a_shallower_line_keeps_its_offset_from_the_first() -> None:
    doc = "class A:\n    def f(self):\n        pass\n"
    text, _ = replaced(doc, "    pass", "    pass\n  return")
    assert text == "class A:\n    def f(self):\n        pass\n      return\n"


def test_tabs_before_the_match_are_the_documents_own() -> None:
    doc = "if a:\n\t\tx()\n"
    text, _ = replaced(doc, "\tx()", "\tx()\n\ty()")
    assert text == "if a:\n\t\tx()\n\t\ty()\n"


def test_near_miss_match_after_the_indentation_keeps_the_issue_22_rule() -> None:
    # old_text without indentation: added lines already indented are written as sent.
    text, _ = replaced(DOC, "item", "item\n    code")
    assert text == "def f():\n    item\n    code\n    x = 1\n"


def test_near_miss_a_match_at_the_start_of_its_line_is_written_as_sent() -> None:
    text, _ = replaced(DOC, "    item", "    item\n    code")
    assert text == "def f():\n    item\n    code\n    x = 1\n"


def test_near_miss_an_indentation_that_occurs_twice_is_still_refused() -> None:
    toolbox = Toolbox("def f():\n    item\n    item\n")
    outcome = toolbox.execute("replace_text", {"old_text": "  item", "new_text": "  item\n  x"})
    assert not outcome.ok
    assert toolbox.text == "def f():\n    item\n    item\n"
