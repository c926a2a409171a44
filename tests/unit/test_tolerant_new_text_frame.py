"""Issue 30 item 1: old_text lacks (or has too much of) the indentation the document has at
the match, but new_text already carries the document's indentation: it is written as sent,
never shifted twice. Only a new_text indented like old_text is shifted; one indented both
ways is refused, never half shifted."""

from __future__ import annotations

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome

DOC = "class A:\n    def f(self):\n        x = 1\n        return x\n"


def call(text: str, old: str, new: str) -> tuple[str, ToolOutcome]:
    toolbox = Toolbox(text)
    outcome = toolbox.execute("replace_text", {"old_text": old, "new_text": new})
    return toolbox.text, outcome


def test_new_text_already_indented_for_the_place_is_kept_as_sent() -> None:
    text, outcome = call(DOC, "def f(self):\n    x = 1", "    def f(self):\n        x = 2")
    assert outcome.ok, outcome.response
    assert text == "class A:\n    def f(self):\n        x = 2\n        return x\n"
    assert "indentation" in outcome.adjustments
    assert "written as sent, not shifted again" in outcome.response["result"]


def test_too_much_indentation_in_old_text_and_the_documents_in_new_text() -> None:
    doc = "if a:\n  b = 1\n  c = 2\n"
    text, outcome = call(doc, "      b = 1\n      c = 2", "  b = 1\n  c = 3\n  d = 4")
    assert outcome.ok, outcome.response
    assert text == "if a:\n  b = 1\n  c = 3\n  d = 4\n"


def test_a_new_first_line_does_not_stop_a_unanimous_new_text() -> None:
    text, outcome = call(DOC, "x = 1\nreturn x", "        # note\n        x = 1\n        return x")
    assert outcome.ok, outcome.response
    assert text == "class A:\n    def f(self):\n        # note\n        x = 1\n        return x\n"


def test_tabbed_document_new_text_in_tabs_is_kept() -> None:
    doc = "def f():\n\tif a:\n\t\tb()\n"
    text, outcome = call(doc, "if a:\n    b()", "\tif a:\n\t\tc()")
    assert outcome.ok, outcome.response
    assert text == "def f():\n\tif a:\n\t\tc()\n"


def test_near_miss_new_text_indented_like_old_text_is_still_shifted() -> None:
    text, outcome = call(DOC, "def f(self):\n    x = 1", "def f(self):\n    x = 2")
    assert outcome.ok, outcome.response
    assert text == "class A:\n    def f(self):\n        x = 2\n        return x\n"
    assert "re-indented the same way" in outcome.response["result"]


def test_near_miss_a_line_nested_deeper_is_not_taken_for_the_documents_frame() -> None:
    text, outcome = call(DOC, "x = 1\nreturn x", "if a:\n    x = 1\nreturn x")
    assert outcome.ok, outcome.response
    assert (
        text == "class A:\n    def f(self):\n        if a:\n            x = 1\n        return x\n"
    )


def test_half_shifted_new_text_is_refused() -> None:
    text, outcome = call(DOC, "def f(self):\n    x = 1", "    def f(self):\n    x = 2")
    assert not outcome.ok
    assert text == DOC
    error = outcome.response["error"]
    assert "indented two ways" in error
    assert "line 1 has the document's indentation, its line 2 old_text's" in error
