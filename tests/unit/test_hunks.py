"""Review hunks: any subset applies, all give the result, ordered and apart."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from complex_edit.server.edit.disk import edit_file
from complex_edit.server.session.result import InProcess
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.hunks import apply_hunks, landed_hunks, make_hunks
from tests.fakes.scripted import ScriptedProvider, call, done

LINES = st.lists(
    st.sampled_from(["a\n", "b\n", "c = 1\n", "\n", "x\r\n", "y\r", "é😀\n", "  z\n", "q"]),
    max_size=12,
).map("".join)


@given(LINES, LINES, st.data())
@example("a\nb\nc\n", "a\nB\nc\n", None)
@example("a\r\nb\r\n", "a\r\nb\r\nc", None)
def test_any_subset_applies_and_all_give_the_result(
    old: str, new: str, data: st.DataObject | None
) -> None:
    hunks = make_hunks(old, compute_edits(old, new), "f.py")
    assert apply_hunks(old, hunks) == new
    for before, after in itertools.pairwise(hunks):
        assert before.end < after.start  # ordered, apart (not even touching)
    for hunk in hunks:
        assert old[hunk.start : hunk.end] == hunk.old_text
        assert hunk.diff.startswith("--- a/f.py\n+++ b/f.py\n@@ ")
        assert hunk.label.startswith(("Line ", "Lines "))
    if data is not None and hunks:
        subset = data.draw(st.lists(st.sampled_from(hunks), unique_by=id))
        result = apply_hunks(old, subset)
        landed = landed_hunks(old, hunks, None, result)
        assert landed is not None
        assert apply_hunks(old, [hunks[i] for i in landed]) == result
        kept = {id(h) for h in subset}
        # The other hunks still apply to what the subset left, and finish the result.
        rest, growth = [], 0
        for hunk in hunks:
            if id(hunk) in kept:
                growth += len(hunk.new_text) - len(hunk.old_text)
                continue
            assert result[hunk.start + growth : hunk.end + growth] == hunk.old_text
            rest.append(TextChange(hunk.start + growth, hunk.end + growth, hunk.new_text))
        assert apply_changes(result, rest) == new


def test_adjacent_lines_merge_and_separate_lines_do_not() -> None:
    old = "one\ntwo\nthree\nfour\nfive\nsix\n"
    new = "ONE\nTWO\nthree\nfour\nfive\nSIX\n"
    hunks = make_hunks(old, compute_edits(old, new), "f")
    assert [(h.first_line, h.last_line) for h in hunks] == [(1, 2), (6, 6)]
    assert [h.old_text for h in hunks] == ["one\ntwo\n", "six\n"]
    assert [h.new_text for h in hunks] == ["ONE\nTWO\n", "SIX\n"]
    assert hunks[0].label == "Lines 1–2: ONE"
    assert hunks[1].label == "Line 6: SIX"
    assert "@@ -3,4 +3,4 @@" in hunks[1].diff


def test_landed_hunks_reads_which_hunks_landed() -> None:
    old = "one\ntwo\nthree\nfour\nfive\n"
    new = "ONE\ntwo\nthree\nfour\nFIVE\n"
    hunks = make_hunks(old, compute_edits(old, new))
    only_second = apply_hunks(old, hunks[1:])
    assert landed_hunks(old, hunks, None, only_second) == [1]
    assert landed_hunks(old, hunks, None, new) == [0, 1]
    assert landed_hunks(old, hunks, None, old) == []


def test_a_file_on_disk_gets_hunks_in_utf16_and_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    old = "s = '😀'\nb = 2\nc = 3\nd = 4\ne = 5\n"
    path.write_text(old, encoding="utf-8")
    provider = ScriptedProvider(
        [
            [
                call("replace_text", old_text="s = '😀'", new_text="s = '😀😀'"),
                call("replace_text", old_text="e = 5", new_text="e = 50"),
            ],
            [done(message="two")],
        ]
    )
    settings = Settings(review=True)
    result = asyncio.run(edit_file(path, "edit", settings, InProcess(provider)))
    assert path.read_text(encoding="utf-8") == old
    assert result.success
    assert not result.applied
    assert result.version == 0
    assert result.hunks is not None
    assert len(result.hunks) == 2
    first = result.hunks[0]
    assert (first.range.start.line, first.range.end.line) == (0, 1)
    assert first.new_text == "s = '😀😀'\n"
    assert result.hunks[1].range.start.line == 4
    wire = result.to_wire()
    assert wire["hunks"][0]["newText"] == first.new_text
    assert "declined" not in wire
