"""Issue 30 item 6: overlapping occurrences of old_text are several places. One call never
picks one of them, replace_all never replaces them all; the error lists each place."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome


def call(text: str, old: str, new: str, **extra: Any) -> tuple[str, ToolOutcome]:
    toolbox = Toolbox(text)
    outcome = toolbox.execute("replace_text", {"old_text": old, "new_text": new, **extra})
    return toolbox.text, outcome


def test_two_overlapping_places_are_ambiguous_and_both_are_listed() -> None:
    text, outcome = call("aaa", "aa", "b")
    assert not outcome.ok
    assert text == "aaa"
    error = outcome.response["error"]
    assert "occurs at 2 places" in error
    assert "line 1 column 1, line 1 column 2" in error


def test_replace_all_over_overlapping_places_is_refused_saying_why() -> None:
    text, outcome = call("x = 1\nababa\n", "aba", "X", replace_all=True)
    assert not outcome.ok
    assert text == "x = 1\nababa\n"
    error = outcome.response["error"]
    assert "replace_all cannot replace places that overlap" in error
    assert "line 2 column 1" in error


def test_overlaps_on_several_lines_are_all_listed() -> None:
    doc = "one\n--x--\n----\n"
    text, outcome = call(doc, "---", "+")
    assert not outcome.ok
    assert text == doc
    assert "occurs at 2 places" in outcome.response["error"]
    assert "line 3 column 1, line 3 column 2" in outcome.response["error"]


def test_places_that_only_touch_do_not_overlap() -> None:
    # Near miss: "abab" holds "ab" twice, end to end: two places, replace_all replaces both.
    text, outcome = call("abab", "ab", "X", replace_all=True)
    assert outcome.ok, outcome.response
    assert text == "XX"


def test_a_self_similar_old_text_that_occurs_once_is_still_replaced() -> None:
    # Near miss: "aba" could overlap itself, but occurs once here.
    text, outcome = call("xabax", "aba", "B")
    assert outcome.ok, outcome.response
    assert text == "xBx"


@given(text=st.text(alphabet="ab\n", max_size=12), data=st.data(), replace_all=st.booleans())
def test_refused_exactly_when_two_places_overlap(
    text: str, data: st.DataObject, replace_all: bool
) -> None:
    start = data.draw(st.integers(0, len(text)))
    old = text[start : data.draw(st.integers(start, len(text)))]
    assume(old and old.strip("\n"))
    places = [i for i in range(len(text)) if text.startswith(old, i)]
    overlap = any(b < a + len(old) for a, b in pairwise(places))
    after, outcome = call(text, old, "X", replace_all=replace_all)
    if overlap:
        assert not outcome.ok
        assert after == text
        assert "overlap" in outcome.response["error"]
    else:
        assert outcome.ok == (len(places) == 1 or replace_all), outcome.response
