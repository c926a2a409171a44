"""Property tests for positions, edits, the document store and rebasing.

Everything here is checked against reference implementations that share no code with
``server``: the suite's position reference (``tests/fakes/lsp_positions.py``) and small ones
written plainly in this file.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol.types import (
    Position,
    Range,
    TextDocumentContentChangePartial,
    TextEdit,
)

from complex_edit.edit_tools.lines import split_lines
from complex_edit.server.lsp.bridge import content_changes, offset_at, position_at, to_text_edits
from complex_edit.server.text import line_diff as edits_module
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.documents import DocumentStore
from complex_edit.server.text.positions import ENCODINGS, Encoding, LineIndex
from complex_edit.server.text.rebase import Conflict, Rebased, compose_changes, rebase_changes
from complex_edit.server.text.unified import unified_diff
from tests.fakes.lsp_positions import addressable, clamped_offset, line_spans, offset_to_position

PROPERTY = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEAVY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces biased towards the hard cases: every line break kind, characters that splitlines()
# treats as breaks, astral and combining characters, ZWJ.
PIECES = [
    "a",
    "b",
    "a",
    " ",
    "\t",
    "\n",
    "\n",
    "\r",
    "\r\n",
    "\f",
    "\v",
    "\x1c",
    "\u2028",
    "\u2029",
    "\x85",
    "😀",
    "é",
    "e\u0301",
    "\u0301",
    "\u200d",
    "中",
    "line\n",
]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
encodings = st.sampled_from(ENCODINGS)


# -- reference implementations -------------------------------------------------------------


def ref_offset(text: str, line: int, character: int, encoding: Encoding) -> int:
    return clamped_offset(text, {"line": line, "character": character}, encoding)


def ref_position(text: str, offset: int, encoding: Encoding) -> Position:
    return Position(**offset_to_position(text, offset, encoding))


def ref_apply_text_edits(text: str, edits: list[TextEdit], encoding: Encoding) -> str:
    spans = []
    for text_edit in edits:
        start = clamped_offset(text, text_edit.range.start, encoding)
        end = clamped_offset(text, text_edit.range.end, encoding)
        spans.append((start, end, text_edit.new_text))
    for start, end, new_text in sorted(spans, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text


HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def ref_patch(old: str, diff: str) -> str:
    """Apply a unified diff whose lines keep their own terminators."""
    if not diff:
        return old
    old_lines = split_lines(old)
    rows = split_lines(diff)
    assert rows[0].startswith("--- ")
    assert rows[1].startswith("+++ ")
    out: list[str] = []
    cursor = 0
    i = 2
    while i < len(rows):
        header = HUNK.fullmatch(rows[i])
        assert header, rows[i]
        old_start, old_count = int(header[1]), int(header[2] or 1)
        new_count = int(header[4] or 1)
        first = old_start - 1 if old_count else old_start
        out.extend(old_lines[cursor:first])
        cursor = first
        i += 1
        seen_old = seen_new = 0
        while i < len(rows) and not rows[i].startswith("@@"):
            row = rows[i]
            if i + 1 < len(rows) and rows[i + 1] == "\\ No newline at end of file\n":
                row = row[:-1]
                i += 1
            mark, body = row[0], row[1:]
            if mark in " -":
                assert old_lines[cursor] == body
                cursor += 1
                seen_old += 1
            if mark in " +":
                out.append(body)
                seen_new += 1
            i += 1
        assert (seen_old, seen_new) == (old_count, new_count)
    out.extend(old_lines[cursor:])
    return "".join(out)


# -- strategies ----------------------------------------------------------------------------


@st.composite
def text_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A text and an edited version of it (a few splices, sometimes a fresh text)."""
    old = draw(texts)
    if draw(st.integers(0, 9)) == 0:
        return old, draw(texts)
    new = old
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, len(new)))
        end = draw(st.integers(start, min(len(new), start + 6)))
        new = new[:start] + draw(texts) + new[end:]
    return old, new


# -- positions -----------------------------------------------------------------------------


@PROPERTY
@given(texts, encodings)
def test_offset_position_round_trip(text: str, encoding: Encoding) -> None:
    index = LineIndex(text)
    for offset in addressable(text):
        position = position_at(index, offset, encoding)
        assert position == ref_position(text, offset, encoding)
        assert offset_at(index, position, encoding) == offset


@PROPERTY
@given(texts, encodings, st.integers(0, 12), st.integers(0, 40))
def test_any_position_matches_the_reference(
    text: str, encoding: Encoding, line: int, character: int
) -> None:
    index = LineIndex(text)
    position = Position(line=line, character=character)
    offset = offset_at(index, position, encoding)
    assert offset == ref_offset(text, line, character, encoding)
    assert position == Position(line=line, character=character)  # not mutated
    back = position_at(index, offset, encoding)
    assert (back.line, back.character) <= (line, character)


@PROPERTY
@given(texts, st.data())
def test_replaced_index_equals_a_fresh_index(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    new_text = data.draw(texts)
    derived = LineIndex(text).replaced(start, end, new_text)
    fresh = LineIndex(text[:start] + new_text + text[end:])
    assert derived.text == fresh.text
    assert derived.line_count == fresh.line_count == len(line_spans(fresh.text))
    assert [derived.line_start(i) for i in range(derived.line_count)] == [
        start for start, _ in line_spans(fresh.text)
    ]


# -- edits ---------------------------------------------------------------------------------


@PROPERTY
@given(text_pairs())
def test_compute_edits_turns_old_into_new(pair: tuple[str, str]) -> None:
    old, new = pair
    changes = compute_edits(old, new)
    assert apply_changes(old, changes) == new
    if old == new:
        assert changes == []
    for change in changes:
        assert change.start < change.end or change.new_text  # no empty edit
        for offset, text in ((change.start, old), (change.end, old)):
            assert not (
                0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"
            )
    for before, after in itertools.pairwise(changes):
        assert before.end < after.start


@PROPERTY
@given(text_pairs(), encodings)
def test_text_edits_applied_by_a_reference_client_give_new(
    pair: tuple[str, str], encoding: Encoding
) -> None:
    old, new = pair
    edits = to_text_edits(old, compute_edits(old, new), encoding)
    assert ref_apply_text_edits(old, edits, encoding) == new


@PROPERTY
@given(text_pairs())
def test_unified_diff_patches_old_into_new(pair: tuple[str, str]) -> None:
    old, new = pair
    diff = unified_diff(old, new, "doc.txt")
    assert (diff == "") == (old == new)
    assert ref_patch(old, diff) == new


@HEAVY
@given(
    st.lists(st.sampled_from(["x\n", "y\n", "}\n", "\n", "a b\n", "c\r\n"]), max_size=60),
    st.data(),
    st.booleans(),
)
def test_inserted_or_deleted_lines_replace_nothing_else(
    lines: list[str], data: st.DataObject, insert: bool
) -> None:
    """Only inserting (or only deleting) whole lines: the edits must only insert (or only
    delete) -- no line that survived is ever rewritten, however ambiguous the repeats."""
    new_lines = list(lines)
    for _ in range(data.draw(st.integers(1, 4))):
        if insert:
            at = data.draw(st.integers(0, len(new_lines)))
            new_lines.insert(at, data.draw(st.sampled_from(["new\n", "x\n", "\n"])))
        elif new_lines:
            del new_lines[data.draw(st.integers(0, len(new_lines) - 1))]
    old, new = "".join(lines), "".join(new_lines)
    changes = compute_edits(old, new)
    assert apply_changes(old, changes) == new
    if insert:
        assert sum(change.end - change.start for change in changes) == 0
        assert sum(len(change.new_text) for change in changes) == len(new) - len(old)
    else:
        assert all(change.new_text == "" for change in changes)
        assert sum(change.end - change.start for change in changes) == len(old) - len(new)


LINES = ["x\n", "y\n", "}\n", "\n", "a b\n", "c\r\n", "d\r", "😀\n", "e\u0301\n", "\f\n"]


# Internal limits of server.text.line_diff, shrunk so that every path of the line diff runs on small
# documents: growing re-synchronisation windows, unique-line anchors, the difflib fallback.
MODES: dict[str, dict[str, int]] = {
    "default": {},
    "anchors": {"_FIRST_WINDOW": 1, "_SMALL_BLOCK": 0},
    "difflib": {"_FIRST_WINDOW": 2, "_MYERS_MAX_COST": 0},
}


@HEAVY
@given(st.lists(st.sampled_from(LINES), max_size=200), st.data(), st.sampled_from(sorted(MODES)))
def test_line_documents_with_block_edits(lines: list[str], data: st.DataObject, mode: str) -> None:
    """Larger documents with inserted and deleted blocks of lines, in every diff mode."""
    new_lines = list(lines)
    for _ in range(data.draw(st.integers(1, 5))):
        at = data.draw(st.integers(0, len(new_lines)))
        size = data.draw(st.integers(0, 30))
        if data.draw(st.booleans()):
            del new_lines[at : at + size]
        else:
            block = data.draw(
                st.lists(st.sampled_from([*LINES, "new\n", "other\n"]), max_size=size)
            )
            new_lines[at:at] = block
    old, new = "".join(lines), "".join(new_lines)
    with contextlib.ExitStack() as stack:
        for name, value in MODES[mode].items():
            stack.enter_context(mock.patch.object(edits_module, name, value))
        changes = compute_edits(old, new)
        diff = unified_diff(old, new, "doc.txt")
    assert apply_changes(old, changes) == new
    assert ref_patch(old, diff) == new
    for before, after in itertools.pairwise(changes):
        assert before.end < after.start


# -- the document store --------------------------------------------------------------------


@st.composite
def edit_sessions(draw: st.DrawFn) -> tuple[str, Encoding, list[list[tuple[int, int, str]]]]:
    """A start text, an encoding and batches of (start, end, text) edits by offset."""
    text = draw(texts)
    encoding = draw(encodings)
    batches = []
    current = text
    for _ in range(draw(st.integers(1, 6))):
        batch = []
        for _ in range(draw(st.integers(1, 3))):
            offsets = addressable(current)
            start = draw(st.sampled_from(offsets))
            end = draw(st.sampled_from([offset for offset in offsets if offset >= start]))
            new_text = draw(texts)
            batch.append((start, end, new_text))
            current = current[:start] + new_text + current[end:]
        batches.append(batch)
    return text, encoding, batches


@PROPERTY
@given(edit_sessions())
def test_store_follows_a_client_making_incremental_changes(
    session: tuple[str, Encoding, list[list[tuple[int, int, str]]]],
) -> None:
    text, encoding, batches = session
    store = DocumentStore(encoding)
    store.open("file:///t", text, 1)
    client = text
    for version, batch in enumerate(batches, start=2):
        events = []
        for start, end, new_text in batch:
            events.append(
                TextDocumentContentChangePartial(
                    range=Range(
                        start=ref_position(client, start, encoding),
                        end=ref_position(client, end, encoding),
                    ),
                    text=new_text,
                )
            )
            client = client[:start] + new_text + client[end:]
        store.change("file:///t", version, content_changes(events))
        assert store.snapshot("file:///t").text == client
        assert store.line_index("file:///t").line_count == len(line_spans(client))
    since_open = store.changes_since("file:///t", 1)
    assert since_open is not None
    assert apply_changes(text, compose_changes(since_open)) == client


@PROPERTY
@given(texts, st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6), texts), max_size=8))
def test_compose_equals_sequential_application(
    text: str, steps: list[tuple[int, int, str]]
) -> None:
    current = text
    sequence = []
    for position, length, new_text in steps:
        start = min(position, len(current))
        end = min(start + length, len(current))
        sequence.append(TextChange(start, end, new_text))
        current = current[:start] + new_text + current[end:]
    composed = compose_changes(sequence)
    assert apply_changes(text, composed) == current
    for before, after in itertools.pairwise(composed):
        assert before.end < after.start


# -- rebase --------------------------------------------------------------------------------


@st.composite
def separate_changes(draw: st.DrawFn) -> tuple[str, list[TextChange], list[TextChange]]:
    """A snapshot and agent / user change sets that never touch each other."""
    snapshot = draw(texts.filter(lambda text: len(text) >= 2))
    cuts = sorted(draw(st.lists(st.integers(0, len(snapshot)), min_size=2, max_size=10)))
    agent: list[TextChange] = []
    user: list[TextChange] = []
    last_end = -2
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if start <= last_end + 1:
            continue  # keep at least one untouched character between changes
        change = TextChange(start, end, draw(texts))
        if change.start == change.end and not change.new_text:
            continue
        (agent if draw(st.booleans()) else user).append(change)
        last_end = end
    return snapshot, agent, user


@PROPERTY
@given(separate_changes())
def test_rebase_keeps_both_sides_when_apart(
    case: tuple[str, list[TextChange], list[TextChange]],
) -> None:
    snapshot, agent, user = case
    live = apply_changes(snapshot, user)
    result = rebase_changes(snapshot, live, agent, user)
    assert isinstance(result, Rebased)
    merged = sorted([*agent, *user], key=lambda change: change.start)
    assert result.text == apply_changes(snapshot, merged)
    assert apply_changes(live, result.changes) == result.text


@PROPERTY
@given(texts.filter(lambda text: len(text) >= 2), st.data())
def test_rebase_refuses_overlapping_changes(text: str, data: st.DataObject) -> None:
    a_start = data.draw(st.integers(0, len(text) - 1))
    a_end = data.draw(st.integers(a_start + 1, len(text)))
    # The user's change shares at least one replaced character with the agent's.
    inside = data.draw(st.integers(a_start, a_end - 1))
    u_start = data.draw(st.integers(0, inside))
    u_end = data.draw(st.integers(inside + 1, len(text)))
    agent = TextChange(a_start, a_end, data.draw(texts))
    user = TextChange(u_start, u_end, data.draw(texts))
    result = rebase_changes(text, apply_changes(text, [user]), [agent], [user])
    assert result == Conflict(agent, user)


@PROPERTY
@given(texts, st.data())
def test_rebase_refuses_insertions_at_the_same_point(text: str, data: st.DataObject) -> None:
    point = data.draw(st.integers(0, len(text)))
    agent = TextChange(point, point, data.draw(texts.filter(bool)))
    user = TextChange(point, point, data.draw(texts.filter(bool)))
    result = rebase_changes(text, apply_changes(text, [user]), [agent], [user])
    assert result == Conflict(agent, user)
