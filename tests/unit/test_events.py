"""The one-line progress texts: a turn shows the change so far and the previous turn's calls."""

from __future__ import annotations

from complex_edit.server.session.events import TurnStarted, WorkingChanged, describe
from complex_edit.server.text.diff import TextChange


def test_the_first_turn_only_waits() -> None:
    assert describe(TurnStarted(1, 8)) == "Turn 1/8 · waiting for the model…"


def test_a_later_turn_shows_the_change_so_far_and_the_last_calls() -> None:
    event = TurnStarted(3, 8, 12, 3, ("replace_text", "get_document", "replace_text"))
    assert describe(event) == (
        "Turn 3/8 · +12 −3 lines · last turn: replace_text ×2, get_document · "
        "waiting for the model…"
    )


def test_no_change_yet_shows_only_the_calls() -> None:
    event = TurnStarted(2, 8, last_calls=("get_document",))
    assert describe(event) == "Turn 2/8 · last turn: get_document · waiting for the model…"


def test_cached_input_tokens_show_once_there_are_some() -> None:
    cached = TurnStarted(3, 8, last_calls=("get_document",), input_tokens=24000, cached_tokens=9800)
    assert describe(cached) == (
        "Turn 3/8 · last turn: get_document · 9,800 of 24,000 input tokens cached · "
        "waiting for the model…"
    )
    uncached = TurnStarted(2, 8, input_tokens=12000)
    assert describe(uncached) == "Turn 2/8 · waiting for the model…"


def test_a_working_change_shows_the_lines_so_far() -> None:
    event = WorkingChanged(2, 8, (TextChange(0, 1, "x"),), 3, 1)
    assert describe(event) == "Turn 2/8 · +3 −1 lines so far"
