"""Issue 30 item 6: overlapping occurrences of old_text are several places. One call never
picks one of them; the error lists each place. Issue 38: replace_all takes them from left to
right without overlap, as str.replace does, and says so."""

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


def test_replace_all_over_overlapping_places_goes_left_to_right_saying_so() -> None:
    # Issue 38: as str.replace (and Continue) do, taken left to right without overlap.
    text, outcome = call("x = 1\nababa\n", "aba", "X", replace_all=True)
    assert outcome.ok, outcome.response
    assert text == "x = 1\nXba\n"
    result = outcome.response["result"]
    assert "occurs at 2 places, some overlapping others" in result
    assert "from left to right without overlap" in result
    assert "1 place was replaced" in result


def test_replace_all_of_aa_in_aaaa_replaces_two_places() -> None:
    text, outcome = call("aaaa", "aa", "b", replace_all=True)
    assert outcome.ok, outcome.response
    assert text == "bb" == "aaaa".replace("aa", "b")
    assert "occurs at 3 places" in outcome.response["result"]
    assert "2 places were replaced" in outcome.response["result"]


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
    if overlap and replace_all:
        assert outcome.ok, outcome.response
        assert after == text.replace(old, "X")
        assert "without overlap" in outcome.response["result"]
    elif overlap:
        assert not outcome.ok
        assert after == text
        assert "overlap" in outcome.response["error"]
    else:
        assert outcome.ok == (len(places) == 1 or replace_all), outcome.response
