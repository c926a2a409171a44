"""`changed_lines`: the line spans a result changes, as the answer's `changedLines` gives them,
checked against the texts themselves; the CLI's review answers the lines it wrote."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from complex_edit.edit_tools.lines import split_lines
from complex_edit.server.edit.apply import ApplyStep, DocumentChange
from complex_edit.server.edit.disk import DiskEditor
from complex_edit.server.edit.files import read_text_file
from complex_edit.server.edit.review import Proposal, Proposals, land_review
from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.text.changed_lines import LineRegion, changed_lines
from complex_edit.server.text.diff import TextChange, compute_edits


def regions(before: str, after: str) -> list[tuple[int, int, int, int]]:
    return [
        (r.old_start, r.old_end, r.new_start, r.new_end)
        for r in changed_lines(before, compute_edits(before, after))
    ]


def test_a_changed_line() -> None:
    assert regions("a\nb\nc\n", "a\nB\nc\n") == [(1, 2, 1, 2)]


def test_a_pure_insertion_and_a_pure_deletion() -> None:
    assert regions("a\nb\n", "a\nx\ny\nb\n") == [(1, 1, 1, 3)]
    assert regions("a\nb\nc\n", "a\nc\n") == [(1, 2, 1, 1)]


def test_changes_on_adjacent_lines_are_one_region_and_apart_are_two() -> None:
    assert regions("a\nb\nc\nd\ne\n", "A\nB\nc\nd\nE\n") == [(0, 2, 0, 2), (4, 5, 4, 5)]


def test_two_changes_on_one_line_are_one_region() -> None:
    assert changed_lines("abc def\n", [TextChange(0, 1, "A"), TextChange(4, 5, "D")]) == [
        LineRegion(0, 1, 0, 1)
    ]


def test_a_joined_line_and_a_split_line() -> None:
    assert regions("a\nb\n", "ab\n") == [(0, 2, 0, 1)]
    assert regions("ab\n", "a\nb\n") == [(0, 1, 0, 2)]


def test_crlf_and_no_final_break() -> None:
    assert regions("a\r\nb\r\nc", "a\r\nB\r\nc") == [(1, 2, 1, 2)]
    assert regions("a\r\nb", "a\r\nb\r\nc") == [(1, 2, 1, 3)]
    assert regions("", "x\n") == [(0, 0, 0, 1)]


def test_a_lone_cr_that_a_lf_joins() -> None:
    # "a\r" + "\n" + "b": the CR ending line 0 and the inserted LF make one break.
    assert regions("a\r\nb", "a\r\n\nb") == [(1, 1, 1, 2)]
    assert regions("a\rb", "a\r\nb") == [(0, 1, 0, 1)]


LINE_TEXT = st.text(alphabet="ab\r\n", max_size=14)


@settings(max_examples=400, deadline=None)
@given(LINE_TEXT, LINE_TEXT)
def test_the_regions_rebuild_the_new_lines_from_the_old(before: str, after: str) -> None:
    old, new = split_lines(before), split_lines(after)
    found = changed_lines(before, compute_edits(before, after))
    rebuilt: list[str] = []
    at = 0
    for region in found:
        assert at <= region.old_start <= region.old_end <= len(old)
        assert region.new_start - region.old_start == len(rebuilt) - at
        rebuilt += old[at : region.old_start] + new[region.new_start : region.new_end]
        at = region.old_end
        assert (region.old_start, region.new_start) != (region.old_end, region.new_end)
    rebuilt += old[at:]
    assert rebuilt == new
    assert bool(found) == (before != after)


async def test_a_review_on_the_terminal_answers_the_lines_it_wrote(tmp_path: Path) -> None:
    path = tmp_path / "letters.txt"
    path.write_bytes(b"alpha\nbeta\ngamma\ndelta\n")
    file = read_text_file(path, 1000, "letters.txt")
    editor = DiskEditor(file, "letters.txt")
    changes = tuple(compute_edits(file.text, "ALPHA\nbeta\ngamma\nDELTA\n"))
    change = DocumentChange(editor.snapshot(str(path)), "letters.txt", changes, "(both)")
    step = ApplyStep(editor, (change,), "t", False, 5.0, None, lambda _: None)
    placed = step.propose()
    assert isinstance(placed, list)
    proposals = Proposals()

    def proposed() -> str:
        return proposals.keep(Proposal(step, tuple(placed), SessionOutcome(success=True)))

    kept = await land_review(proposals, proposed(), [1], lambda _: None)
    assert kept.applied is True
    assert [(r.snapshot.start, r.snapshot.end) for r in kept.changed_lines or []] == [(3, 4)]
    none = await land_review(proposals, proposed(), [], lambda _: None)
    assert none.diff == ""
    assert none.changed_lines is None
