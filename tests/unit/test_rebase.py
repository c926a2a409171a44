"""Rebasing the agent's result onto concurrent user edits, and composing sequential changes."""

from __future__ import annotations

import itertools

import pytest

from server.edits import TextChange, apply_changes
from server.rebase import Conflict, Rebased, compose_changes, rebase, rebase_changes

SNAPSHOT = "def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n"
AGENT_RESULT = SNAPSHOT.replace("return 2", "return 20")


def rebased_text(result: Rebased | Conflict) -> str:
    assert isinstance(result, Rebased), result
    return result.text


def test_user_typed_above_the_edit() -> None:
    live = SNAPSHOT.replace("def a():", "def alpha():")
    result = rebase(SNAPSHOT, AGENT_RESULT, live)
    assert rebased_text(result) == live.replace("return 2", "return 20")
    assert isinstance(result, Rebased)
    assert apply_changes(live, result.changes) == result.text
    assert result.changes == [
        TextChange(live.index("return 2") + 8, live.index("return 2") + 8, "0")
    ]


def test_user_typed_below_the_edit() -> None:
    live = SNAPSHOT + "# trailing comment\n"
    assert (
        rebased_text(rebase(SNAPSHOT, AGENT_RESULT, live)) == AGENT_RESULT + "# trailing comment\n"
    )


def test_user_typed_on_the_same_line_apart_from_the_edit() -> None:
    live = SNAPSHOT.replace("    return 2", "  # x\n    return 2")
    expected = live.replace("return 2", "return 20")
    assert rebased_text(rebase(SNAPSHOT, AGENT_RESULT, live)) == expected


def test_user_typed_inside_the_edit_is_a_conflict() -> None:
    live = SNAPSHOT.replace("return 2", "return 22")
    result = rebase(SNAPSHOT, AGENT_RESULT, live)
    assert isinstance(result, Conflict)
    assert result.agent.start <= result.user.end
    assert result.user.start <= result.agent.end


def test_no_user_changes_gives_the_agent_result() -> None:
    result = rebase(SNAPSHOT, AGENT_RESULT, SNAPSHOT)
    assert rebased_text(result) == AGENT_RESULT


def test_exact_user_changes_can_be_passed_in() -> None:
    live = "XX" + SNAPSHOT
    result = rebase(SNAPSHOT, AGENT_RESULT, live, user=[TextChange(0, 0, "XX")])
    assert rebased_text(result) == "XX" + AGENT_RESULT


def test_inconsistent_user_changes_are_rejected() -> None:
    with pytest.raises(ValueError, match="do not turn the snapshot"):
        rebase_changes("abc", "abcd", [], [TextChange(0, 0, "x")])


# -- the adjacency rule --------------------------------------------------------------------

TEXT = "one\ntwo\nthree\n"  # line starts at 0, 4, 8


@pytest.mark.parametrize(
    ("agent", "user"),
    [
        (TextChange(4, 4, "A"), TextChange(4, 4, "U")),  # two insertions at one point
        (TextChange(4, 4, "new\n"), TextChange(4, 4, "typed\n")),  # even whole lines
        (TextChange(0, 2, "ON"), TextChange(2, 3, "E")),  # mid-line: agent ends where user starts
        (TextChange(2, 3, "E"), TextChange(0, 2, "ON")),  # mid-line: user ends where agent starts
        (TextChange(1, 3, "X"), TextChange(3, 3, "!")),  # user inserts where agent's range ends
        (TextChange(5, 5, "!"), TextChange(4, 6, "X")),  # agent inserts inside user's range
        (TextChange(0, 4, "ONE"), TextChange(4, 5, "T")),  # before-change drops the line break
        (TextChange(2, 4, ""), TextChange(4, 5, "T")),  # deletion joining two lines
        (TextChange(0, 4, "one\r"), TextChange(4, 4, "\nx")),  # CR + LF would join
        (TextChange(3, 9, "Z"), TextChange(5, 6, "W")),  # plain overlap
    ],
)
def test_conflicting_pairs(agent: TextChange, user: TextChange) -> None:
    live = apply_changes(TEXT, [user])
    result = rebase_changes(TEXT, live, [agent], [user])
    assert result == Conflict(agent, user)


@pytest.mark.parametrize(
    ("agent", "user", "expected"),
    [
        # Agent rewrites line 1 including its break; user types at the start of line 2.
        (TextChange(0, 4, "ONE\n"), TextChange(4, 4, "> "), "ONE\n> two\nthree\n"),
        # User rewrites line 1 including its break; agent edits the start of line 2.
        (TextChange(4, 7, "TWO"), TextChange(0, 4, "1\n"), "1\nTWO\nthree\n"),
        # Agent deletes the whole first line; user types at the start of line 2.
        (TextChange(0, 4, ""), TextChange(4, 4, "# "), "# two\nthree\n"),
        # User inserts a whole line at line 2; agent replaces line 2's text.
        (TextChange(4, 7, "2"), TextChange(4, 4, "new\n"), "one\nnew\n2\nthree\n"),
        # One character apart is never touching.
        (TextChange(0, 3, "1"), TextChange(4, 7, "2"), "1\n2\nthree\n"),
    ],
)
def test_safe_adjacent_pairs(agent: TextChange, user: TextChange, expected: str) -> None:
    live = apply_changes(TEXT, [user])
    result = rebase_changes(TEXT, live, [agent], [user])
    assert rebased_text(result) == expected
    assert isinstance(result, Rebased)
    assert apply_changes(live, result.changes) == expected


def test_many_changes_on_both_sides_are_interleaved() -> None:
    text = "".join(f"line {i}\n" for i in range(10))  # each line is 7 chars
    agent = [TextChange(7 * i, 7 * i + 4, "LINE") for i in (1, 4, 7)]
    user = [TextChange(7 * i + 5, 7 * i + 6, f"<{i}>") for i in (0, 2, 4, 9)]
    live = apply_changes(text, user)
    result = rebase_changes(text, live, agent, user)
    merged = sorted([*agent, *user], key=lambda change: change.start)
    assert rebased_text(result) == apply_changes(text, merged)


# -- composing sequential changes ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "sequence"),
    [
        ("abcdef", [TextChange(1, 1, "X"), TextChange(2, 2, "Y")]),  # typing "XY"
        ("abcdef", [TextChange(1, 1, "XY"), TextChange(2, 3, "")]),  # typing then backspace
        ("abcdef", [TextChange(4, 5, "Q"), TextChange(0, 1, "P")]),  # later then earlier
        ("abcdef", [TextChange(1, 2, "xx"), TextChange(4, 5, "yy"), TextChange(2, 5, "")]),
        ("abcdef", [TextChange(0, 6, ""), TextChange(0, 0, "new")]),
        ("abcdef", [TextChange(3, 3, "x"), TextChange(3, 4, "")]),  # undo of an insertion
    ],
)
def test_compose_matches_sequential_application(text: str, sequence: list[TextChange]) -> None:
    expected = text
    for change in sequence:
        expected = apply_changes(expected, [change])
    composed = compose_changes(sequence)
    assert apply_changes(text, composed) == expected
    for before, after in itertools.pairwise(composed):
        assert before.end < after.start


def test_compose_merges_typing_into_one_change() -> None:
    typed = [TextChange(3 + i, 3 + i, char) for i, char in enumerate("hello")]
    assert compose_changes(typed) == [TextChange(3, 3, "hello")]


def test_compose_drops_changes_that_cancel_out() -> None:
    assert compose_changes([TextChange(3, 3, "x"), TextChange(3, 4, "")]) == []
