"""The working buffer, its reversible diffs, and the LSP line rules underneath."""

from __future__ import annotations

from array import array

import pytest

from complex_edit.edit_tools.buffer import Change, WorkingBuffer, common_prefix_length, diff
from complex_edit.edit_tools.lines import (
    CR,
    CRLF,
    LF,
    convert_line_endings,
    count_breaks,
    line_count,
    line_endings,
    line_index_at,
    line_start,
    lines_back,
    split_lines,
    uniform_line_ending,
)


class TestLines:
    @pytest.mark.parametrize(
        ("text", "lines"),
        [
            ("", []),
            ("a", ["a"]),
            ("a\n", ["a\n"]),
            ("a\r\nb", ["a\r\n", "b"]),
            ("a\rb\r", ["a\r", "b\r"]),
            ("\r\r\n\n", ["\r", "\r\n", "\n"]),
            ("a\n\n\n", ["a\n", "\n", "\n"]),
        ],
    )
    def test_split_lines_keeps_terminators(self, text: str, lines: list[str]) -> None:
        assert split_lines(text) == lines
        assert "".join(split_lines(text)) == text

    @pytest.mark.parametrize("separator", ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028"])
    def test_only_cr_and_lf_break_lines(self, separator: str) -> None:
        text = f"a{separator}b\nc\u2029d"
        assert split_lines(text) == [f"a{separator}b\n", "c\u2029d"]
        assert line_count(text) == 2
        assert count_breaks(text) == 1

    @pytest.mark.parametrize(
        ("text", "count"),
        [("", 0), ("\n", 1), ("a", 1), ("a\n", 1), ("a\nb", 2), ("a\r\n\r\n", 2), ("a\r\rb", 3)],
    )
    def test_line_count_follows_cat_n(self, text: str, count: int) -> None:
        assert line_count(text) == count

    def test_line_index_treats_crlf_as_one_break(self) -> None:
        text = "ab\r\ncd\ref\ngh"
        assert [line_index_at(text, i) for i in range(len(text))] == [
            0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3,
        ]  # fmt: skip

    def test_line_start_from_inside_a_crlf(self) -> None:
        text = "ab\r\ncd"
        assert line_start(text, 3) == 0
        assert line_start(text, 4) == 4
        assert line_start(text, 5) == 4

    def test_lines_back_stops_at_the_first_line(self) -> None:
        text = "one\ntwo\r\nthree\rfour"
        four = text.index("four")
        assert text[lines_back(text, four, 2) :].startswith("two")
        assert lines_back(text, four, 10) == 0

    def test_line_endings_are_ordered_by_frequency(self) -> None:
        assert line_endings("a\r\nb\r\nc\nd\r") == [CRLF, LF, CR]
        assert line_endings("no breaks") == []
        assert uniform_line_ending("a\r\nb\r\n") == CRLF
        assert uniform_line_ending("a\r\nb\n") is None
        assert uniform_line_ending("plain") is None

    def test_convert_line_endings_touches_only_breaks(self) -> None:
        assert convert_line_endings("a\nb\r\nc\rd\fe", CRLF) == "a\r\nb\r\nc\r\nd\fe"


class TestChange:
    def test_single_change_applies_and_inverts(self) -> None:
        change = Change.single(2, "cd", "XYZ", "replace_text")
        assert change.apply("abcdef") == "abXYZef"
        assert change.inverse().apply("abXYZef") == "abcdef"

    def test_multi_change_shifts_offsets_in_its_inverse(self) -> None:
        change = Change(array("q", [0, 4, 8]), "ab", "x", "replace_text")
        after = change.apply("ab..ab..ab")
        assert after == "x..x..x"
        assert list(change.inverse().starts) == [0, 3, 6]
        assert change.inverse().apply(after) == "ab..ab..ab"

    def test_applying_to_the_wrong_text_is_refused(self) -> None:
        with pytest.raises(AssertionError):
            Change.single(0, "zz", "y", "replace_text").apply("abc")

    @pytest.mark.parametrize(
        ("before", "after", "expected"),
        [
            ("abc", "abc", None),
            ("abc", "abXc", (2, "", "X")),
            ("hello world", "hello", (5, " world", "")),
            ("a\r\nb", "a\nb", (1, "\r", "")),
            ("", "new", (0, "", "new")),
        ],
    )
    def test_diff_trims_common_prefix_and_suffix(
        self, before: str, after: str, expected: tuple[int, str, str] | None
    ) -> None:
        change = diff(before, after, "set_document")
        if expected is None:
            assert change is None
            return
        assert change is not None
        assert (change.first, change.removed, change.inserted) == expected
        assert change.apply(before) == after

    def test_diff_of_long_texts_stores_only_the_difference(self) -> None:
        before = "x" * 100_000 + "middle" + "y" * 100_000
        after = "x" * 100_000 + "MIDDLE!" + "y" * 100_000
        change = diff(before, after, "set_document")
        assert change is not None
        assert (change.first, change.removed, change.inserted) == (100_000, "middle", "MIDDLE!")
        assert change.size < 100

    def test_common_prefix_crosses_chunk_boundaries(self) -> None:
        assert common_prefix_length("a" * 10_000 + "b", "a" * 10_000 + "c") == 10_000
        assert common_prefix_length("abc", "abc") == 3


class TestWorkingBuffer:
    def test_undo_and_redo_walk_the_history(self) -> None:
        buffer = WorkingBuffer("one two")
        buffer.apply(Change.single(0, "one", "1", "replace_text"))
        buffer.apply(Change.single(2, "two", "2", "replace_text"))
        assert buffer.text == "1 2"
        assert buffer.undo() is not None
        assert buffer.text == "1 two"
        assert buffer.undo() is not None
        assert buffer.text == "one two"
        assert buffer.undo() is None
        assert buffer.text == "one two"
        assert buffer.redo() is not None
        assert buffer.text == "1 two"
        assert (buffer.undo_depth, buffer.redo_depth) == (1, 1)

    def test_a_new_change_clears_redo(self) -> None:
        buffer = WorkingBuffer("abc")
        buffer.apply(Change.single(0, "a", "A", "replace_text"))
        buffer.undo()
        buffer.apply(Change.single(1, "b", "B", "replace_text"))
        assert buffer.redo_depth == 0
        assert buffer.redo() is None
        assert buffer.text == "aBc"

    def test_history_drops_the_oldest_beyond_its_bound(self) -> None:
        buffer = WorkingBuffer("0", max_history=3)
        for i in range(5):
            buffer.apply(Change.single(0, str(i), str(i + 1), "replace_text"))
        assert buffer.undo_depth == 3
        assert buffer.dropped == 2
        while buffer.undo() is not None:
            pass
        assert buffer.text == "2"

    def test_history_is_bounded_in_characters_too(self) -> None:
        buffer = WorkingBuffer("", max_history=100, max_history_chars=1_000)
        for i in range(10):
            change = diff(buffer.text, str(i) * 400, "set_document")
            assert change is not None
            buffer.apply(change)
        assert buffer.undo_depth < 10
        assert buffer.undo() is not None
        assert buffer.text == "8" * 400

    def test_the_last_change_survives_even_when_larger_than_the_budget(self) -> None:
        buffer = WorkingBuffer("", max_history_chars=10)
        buffer.apply(Change.single(0, "", "x" * 100, "set_document"))
        assert buffer.undo_depth == 1
        assert buffer.undo() is not None
        assert buffer.text == ""

    def test_changed_compares_with_the_original(self) -> None:
        buffer = WorkingBuffer("abc")
        assert not buffer.changed
        buffer.apply(Change.single(0, "a", "b", "replace_text"))
        assert buffer.changed
        buffer.apply(Change.single(0, "b", "a", "replace_text"))
        assert not buffer.changed
        assert buffer.original == "abc"

    def test_ten_megabytes_with_twenty_edits_keeps_no_copies(self) -> None:
        text = ("line of text\n" * 800_000)[:10_000_000]
        buffer = WorkingBuffer(text)
        for i in range(20):
            offset = i * 400_000
            buffer.apply(Change.single(offset, text[offset : offset + 4], "EDIT", "replace_text"))
        assert buffer.undo_depth == 20
        assert buffer.history_chars < 1_000
        for _ in range(20):
            buffer.undo()
        assert buffer.text == text

    def test_max_history_must_be_positive(self) -> None:
        with pytest.raises(ValueError, match="max_history"):
            WorkingBuffer("", max_history=0)
