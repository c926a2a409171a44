"""Issue 30 item 5: replace_all over places that match only once whitespace is set aside.
When every place differs from old_text in the same way (the same indentation missing, or only
spaces at line ends) and none overlaps another, each is replaced, re-indented for itself; when
the places differ in kind, the call is refused as before."""

from __future__ import annotations

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome

TWICE = (
    "class A:\n    def f(self):\n        x = 1\n        return x\n\n"
    "class B:\n    def f(self):\n        x = 1\n        return x\n"
)


def call(text: str, old: str, new: str, replace_all: bool = True) -> tuple[str, ToolOutcome]:
    toolbox = Toolbox(text)
    outcome = toolbox.execute(
        "replace_text", {"old_text": old, "new_text": new, "replace_all": replace_all}
    )
    return toolbox.text, outcome


def test_every_place_missing_the_same_indentation_is_replaced() -> None:
    text, outcome = call(TWICE, "def f(self):\n    x = 1", "def f(self):\n    x = 2\n    y = 3")
    assert outcome.ok, outcome.response
    assert text == TWICE.replace("        x = 1\n", "        x = 2\n        y = 3\n")
    result = outcome.response["result"]
    assert result.startswith("Replaced 2 occurrences, on lines 2 and 8.")
    assert "it matched 2 places once whitespace was set aside" in result
    assert outcome.adjustments == ("indentation",)
    assert outcome.summary == "replace_text: 2 replacements from line 2 (whitespace tolerated)"


def test_one_undo_step_restores_every_place() -> None:
    toolbox = Toolbox(TWICE)
    args = {"old_text": "x = 1\nreturn x", "new_text": "return 1", "replace_all": True}
    assert toolbox.execute("replace_text", args).ok
    assert toolbox.text.count("return 1") == 2
    assert toolbox.execute("undo", {}).ok
    assert toolbox.text == TWICE


def test_spaces_at_line_ends_each_place_keeps_its_own() -> None:
    doc = "a = 1  \nb = 2\n\na = 1\t\nb = 2 \n"
    text, outcome = call(doc, "a = 1\nb = 2", "a = 1\nb = 3")
    assert outcome.ok, outcome.response
    assert text == "a = 1  \nb = 3\n\na = 1\t\nb = 3\n"
    assert outcome.adjustments == ("trailing_whitespace",)


def test_tabbed_places_are_written_in_tabs() -> None:
    doc = "if a:\n\tx()\n\ty()\nif b:\n\tx()\n\ty()\n"
    text, outcome = call(doc, "x()\ny()", "x()\nz()")
    assert outcome.ok, outcome.response
    assert text == "if a:\n\tx()\n\tz()\nif b:\n\tx()\n\tz()\n"


def test_near_miss_places_at_different_depths_are_refused() -> None:
    doc = "def f():\n    x()\n    y()\n\ndef g():\n    if a:\n        x()\n        y()\n"
    text, outcome = call(doc, "x()\ny()", "x()\nz()")
    assert not outcome.ok
    assert text == doc
    assert "matches 2 places" in outcome.response["error"]
    assert "differs from old_text in the same way" in outcome.response["error"]


def test_near_miss_one_place_indented_and_one_with_line_end_spaces_is_refused() -> None:
    doc = "if a:\n    x()\n    y()\nx() \ny()\n"
    text, outcome = call(doc, "x()\ny()", "x()\nz()")
    assert not outcome.ok
    assert text == doc


def test_near_miss_overlapping_places_are_refused() -> None:
    doc = "if a:\n    x()\n    x()\n    x()\n"
    text, outcome = call(doc, "x()\nx()", "y()")
    assert not outcome.ok
    assert text == doc


def test_near_miss_without_replace_all_several_places_are_still_refused() -> None:
    text, outcome = call(TWICE, "def f(self):\n    x = 1", "def f(self):\n    x = 2", False)
    assert not outcome.ok
    assert text == TWICE
