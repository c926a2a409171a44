"""Rebasing the agent's result onto concurrent user edits, composing sequential changes, and
reading an applied edit out of what the editor reported after it."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.rebase import (
    Conflict,
    Rebased,
    compose_changes,
    edit_landed,
    rebase,
    rebase_changes,
)

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


# -- reading an applied edit out of the editor's report ------------------------------------

DOC = "alpha = 1\nbeta = 2\ngamma = 3\nomega = 4\n"
EDIT = [TextChange(9, 9, "0"), TextChange(38, 38, "0")]  # alpha = 10, omega = 40
RESULT = "alpha = 10\nbeta = 2\ngamma = 3\nomega = 40\n"


def landed(before: str, edit: list[TextChange], reported: list[TextChange]) -> bool:
    """`edit_landed` given the changes reported one after another, and the text they leave."""
    now = before
    for change in reported:
        now = apply_changes(now, [change])
    return edit_landed(before, edit, reported, now)


def as_reported(text: str, changes: list[TextChange]) -> list[TextChange]:
    """Changes against `text` as an editor reports them: one after another, from the end."""
    return list(reversed(changes))


def typed(text: str, old: str, new: str) -> tuple[str, TextChange]:
    """The user replaces the only `old` of `text`: the new text and the change."""
    assert text.count(old) == 1
    at = text.index(old)
    return text.replace(old, new), TextChange(at, at + len(old), new)


def test_an_exact_echo_shows_the_edit() -> None:
    assert apply_changes(DOC, EDIT) == RESULT
    assert landed(DOC, EDIT, as_reported(DOC, EDIT))


def test_an_edit_reported_in_another_shape_shows_it() -> None:
    # Neovim reports whole changed lines, or one range spanning both edits.
    lines = [TextChange(29, 38, "omega = 40"), TextChange(0, 9, "alpha = 10")]
    assert landed(DOC, EDIT, lines)
    assert landed(DOC, EDIT, [TextChange(9, 38, RESULT[9:40])])


def test_an_edit_reported_half_now_and_half_later_shows_it_once_whole() -> None:
    first, second = as_reported(DOC, EDIT)
    assert not landed(DOC, EDIT, [first])
    assert landed(DOC, EDIT, [first, second])


def test_keystrokes_after_the_edit_are_the_users() -> None:
    text, below = typed(RESULT, "gamma", "gamma_ray")
    text, touching = typed(text, "alpha = 10", "alpha = 10  # x")
    text, inside = typed(text, "omega = 40", "omega = 400")
    reported = [*as_reported(DOC, EDIT), below, touching, inside]
    assert landed(DOC, EDIT, reported)


def test_the_edit_deleted_right_after_it_landed_still_landed() -> None:
    _, deleted = typed(RESULT, "alpha = 10\n", "")
    assert landed(DOC, EDIT, [*as_reported(DOC, EDIT), deleted])


def test_a_keystroke_before_the_edit_that_leaves_its_positions_alone() -> None:
    # Typed just before the edit arrived, below it: the editor applies the edit as sent.
    text, before = typed(DOC, "gamma = 3", "gamma = 3.5")
    reported = [before, *as_reported(text, EDIT[:1])]
    edit = EDIT[:1]
    assert landed(DOC, edit, reported)


def test_a_keystroke_before_the_edit_that_moves_it() -> None:
    text, before = typed(DOC, "alpha", "# new line\nalpha")
    shift = len("# new line\n")
    # An editor applying the edit where it now belongs: landed.
    rebased = [TextChange(c.start + shift, c.end + shift, c.new_text) for c in EDIT]
    assert landed(DOC, EDIT, [before, *as_reported(text, rebased)])
    # An editor applying the unversioned edit at its old offsets: not the edit.
    assert not landed(DOC, EDIT, [before, *as_reported(text, EDIT)])


def test_a_keystroke_before_the_edit_touching_it_is_not_read_as_the_edit() -> None:
    text, before = typed(DOC, "alpha = 1", "alpha = 1x")
    assert not landed(DOC, EDIT, [before, *as_reported(text, EDIT)])


def test_a_dropped_edit_is_not_read_from_the_users_typing() -> None:
    assert not landed(DOC, EDIT, [])
    _, user = typed(DOC, "beta", "BETA")
    assert not landed(DOC, EDIT, [user])


def test_an_altered_edit_is_not_the_edit() -> None:
    garbled = [TextChange(c.start, c.end, c.new_text + "~") for c in EDIT]
    assert not landed(DOC, EDIT, as_reported(DOC, garbled))
    assert not landed(DOC, EDIT, as_reported(DOC, EDIT[:1]))


def test_crlf_lines_added_around_the_edit() -> None:
    doc = DOC.replace("\n", "\r\n")
    result = RESULT.replace("\n", "\r\n")
    edit = compute_edits(doc, result)
    top = TextChange(0, 0, "# top\r\n")
    after_top = apply_changes(doc, [top])
    shift = len(top.new_text)
    moved = [TextChange(c.start + shift, c.end + shift, c.new_text) for c in edit]
    done = apply_changes(after_top, moved)
    bottom = TextChange(len(done), len(done), "# bottom\r\n")
    assert landed(doc, edit, [top, *as_reported(after_top, moved), bottom])


texts = st.text(alphabet="ab\r\n", max_size=30)


@st.composite
def typing_around_an_edit(
    draw: st.DrawFn,
) -> tuple[str, list[TextChange], list[TextChange], list[TextChange]]:
    """A text, an edit, the user's changes before it (apart from it), the edit as landed and
    the user's changes after it."""
    text = draw(texts)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=4, max_size=4)))
    edit = [TextChange(cuts[1], cuts[2], draw(texts))]
    user: list[TextChange] = []
    if cuts[0] + 1 < cuts[1]:
        user.append(TextChange(cuts[0], cuts[1] - 1, draw(texts)))
    if cuts[2] + 1 < cuts[3]:
        user.append(TextChange(cuts[2] + 1, cuts[3], draw(texts)))
    live = apply_changes(text, user)
    rebased = rebase_changes(text, live, edit, user)
    assert isinstance(rebased, Rebased), rebased
    after = draw(st.integers(0, len(rebased.text)))
    later = [TextChange(after, after, draw(texts))]
    return text, edit, [*reversed(user), *reversed(rebased.changes)], later


@given(typing_around_an_edit())
def test_an_edit_among_the_users_changes_apart_from_it_is_read(
    case: tuple[str, list[TextChange], list[TextChange], list[TextChange]],
) -> None:
    text, edit, reported, later = case
    assert landed(text, edit, reported)
    assert landed(text, edit, [*reported, *later])


def landed_by_the_texts(before: str, edit: list[TextChange], reported: list[TextChange]) -> bool:
    """The first reading of `edit_landed` (the edit among the changes, in their order), by its
    definition, on whole texts. An empty edit has nothing to land."""
    if not edit:
        return True
    texts = [before]
    for change in reported:
        texts.append(apply_changes(texts[-1], [change]))
    for k in range(len(reported)):
        rebased = rebase_changes(before, texts[k], edit, compose_changes(reported[:k]))
        if isinstance(rebased, Rebased) and rebased.text in texts[k + 1 :]:
            return True
    return False


@st.composite
def reports(draw: st.DrawFn) -> tuple[str, list[TextChange], list[TextChange]]:
    """A text, an edit of it, and what an editor might report: random changes, with the edit
    (rebased onto the changes before it) somewhere among them, or not."""
    text = draw(texts)
    target = text
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(target)))
        end = draw(st.integers(start, min(len(target), start + 4)))
        target = target[:start] + draw(texts) + target[end:]
    edit = compute_edits(text, target)
    reported: list[TextChange] = []
    current = text
    landing = draw(st.integers(0, 4)) if edit and draw(st.booleans()) else None
    for index in range(draw(st.integers(0, 5))):
        if index == landing:
            rebased = rebase_changes(text, current, edit, compose_changes(reported))
            if isinstance(rebased, Rebased):
                reported.extend(reversed(rebased.changes))
                current = rebased.text
                continue
        start = draw(st.integers(0, len(current)))
        end = draw(st.integers(start, min(len(current), start + 4)))
        change = TextChange(start, end, draw(texts))
        reported.append(change)
        current = apply_changes(current, [change])
    return text, edit, reported


@given(reports())
@example(  # changes that cancel out, before the user's own: nothing the edit can conflict with
    (
        "a",
        [TextChange(1, 1, "\r")],
        [TextChange(1, 1, ""), TextChange(0, 0, "a"), TextChange(2, 2, "\r")],
    )
)
def test_edit_landed_reads_what_the_texts_say(
    case: tuple[str, list[TextChange], list[TextChange]],
) -> None:
    text, edit, reported = case
    now = apply_changes(text, compose_changes(reported))
    if landed_by_the_texts(text, edit, reported):
        assert edit_landed(text, edit, reported, now)
    # Without the order, the text alone: the edit's result with changes apart from its text.
    others = compute_edits(apply_changes(text, edit), now)
    if not others:
        assert edit_landed(text, edit, None, now)
    if edit_landed(text, edit, None, now):
        assert all(change.new_text in now for change in edit)


def test_a_whole_text_report_is_read_without_the_order() -> None:
    # The edit and a keystroke between its two ranges, reported as one new text: the store
    # logs it as three changes in the order of the text, the keystroke between the edit's.
    text, _ = typed(RESULT, "gamma", "gamma_ray")
    assert edit_landed(DOC, EDIT, compute_edits(DOC, text)[::-1], text)
    assert edit_landed(DOC, EDIT, None, text)  # no log to read: the text alone


def test_a_whole_text_report_with_typing_against_the_edit_is_not_read_as_the_edit() -> None:
    text, _ = typed(RESULT, "alpha = 10", "alpha = 10x")  # right after the edit's "0"
    assert not edit_landed(DOC, EDIT, None, text)
    dropped, _ = typed(DOC, "gamma", "gamma_ray")
    assert not edit_landed(DOC, EDIT, None, dropped)
    misplaced = DOC.replace("beta = 2", "beta = 20").replace("omega = 4", "omega = 40")
    assert not edit_landed(DOC, EDIT, None, misplaced)
