"""LSP position <-> offset conversion in utf-8 / utf-16 / utf-32, with LSP line rules."""

from __future__ import annotations

import time

import pytest
from lsprotocol.types import Position, PositionEncodingKind, Range

from complex_edit.server.lsp.bridge import offset_at, position_at, range_of, range_offsets
from complex_edit.server.text.positions import (
    ENCODINGS,
    Encoding,
    LineIndex,
    code_units,
    normalize_encoding,
)

# (text, offset of the character of interest, its width in utf-8 / utf-16 / utf-32)
WIDE = {
    "ascii": ("a", {"utf-8": 1, "utf-16": 1, "utf-32": 1}),
    "latin": ("é", {"utf-8": 2, "utf-16": 1, "utf-32": 1}),
    "cjk": ("中", {"utf-8": 3, "utf-16": 1, "utf-32": 1}),
    "emoji": ("😀", {"utf-8": 4, "utf-16": 2, "utf-32": 1}),
    "zwj": ("👨\u200d👩", {"utf-8": 11, "utf-16": 5, "utf-32": 3}),
    "combining": ("e\u0301", {"utf-8": 3, "utf-16": 2, "utf-32": 2}),
}


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("name", sorted(WIDE))
def test_character_after_wide_text_round_trips(name: str, encoding: Encoding) -> None:
    wide, widths = WIDE[name]
    text = f"x{wide}y\nsecond"
    index = LineIndex(text)
    y_offset = 1 + len(wide)
    expected_character = 1 + widths[encoding]
    assert position_at(index, y_offset, encoding) == Position(line=0, character=expected_character)
    assert offset_at(index, Position(line=0, character=expected_character), encoding) == y_offset
    assert code_units(wide, encoding) == widths[encoding]


def test_character_inside_surrogate_pair_rounds_down() -> None:
    index = LineIndex("a😀b")
    assert index.offset_of(0, 2, "utf-16") == 1  # between the two halves: before the emoji
    assert index.offset_of(0, 3, "utf-16") == 2
    assert range_offsets(
        index,
        Range(start=Position(line=0, character=2), end=Position(line=0, character=2)),
        "utf-16",
    ) == (1, 1)


@pytest.mark.parametrize(("character", "offset"), [(1, 1), (2, 1), (3, 1), (4, 1), (5, 2)])
def test_character_inside_utf8_sequence_rounds_down(character: int, offset: int) -> None:
    assert LineIndex("a😀b").offset_of(0, character, "utf-8") == offset


def test_offsets_in_utf8_for_cjk_line() -> None:
    index = LineIndex("中文\n字")
    assert index.offset_of(0, 3, "utf-8") == 1
    assert index.offset_of(0, 4, "utf-8") == 1  # inside 文
    assert index.offset_of(1, 3, "utf-8") == 4
    assert position_at(index, 4, "utf-8") == Position(line=1, character=3)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\r\nb", ["a", "b"]),
        ("a\rb", ["a", "b"]),
        ("a\nb", ["a", "b"]),
        ("a\r\rb", ["a", "", "b"]),
        ("a\n\rb", ["a", "", "b"]),
        ("a\r\n\nb\rc", ["a", "", "b", "c"]),
        ("a\n", ["a", ""]),
        ("a\r\n", ["a", ""]),
        ("", [""]),
    ],
)
def test_lines_break_on_crlf_cr_and_lf_only(text: str, lines: list[str]) -> None:
    index = LineIndex(text)
    assert index.line_count == len(lines)
    assert [_line_text(index, line) for line in range(index.line_count)] == lines


@pytest.mark.parametrize("char", ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_unicode_separators_do_not_break_lines(char: str) -> None:
    # str.splitlines (and so pygls) would see two lines in "a{char}b".
    text = f"a{char}b\nc"
    index = LineIndex(text)
    assert index.line_count == 2
    assert _line_text(index, 0) == f"a{char}b"
    assert index.offset_of(1, 0) == 4
    assert position_at(index, 2) == Position(line=0, character=2)


def test_character_past_line_end_clamps_before_terminator() -> None:
    index = LineIndex("ab\r\ncd")
    assert index.offset_of(0, 99) == 2
    assert index.offset_of(1, 99) == 6


def test_line_past_end_clamps_to_document_end() -> None:
    index = LineIndex("ab\ncd")
    assert index.offset_of(2, 0) == 5
    assert index.offset_of(50, 3) == 5


def test_negative_values_clamp_to_start() -> None:
    index = LineIndex("ab\ncd")
    assert index.offset_of(-1, 5) == 0
    assert index.offset_of(1, -3) == 3


def test_offset_between_cr_and_lf_maps_to_line_end() -> None:
    index = LineIndex("ab\r\ncd")
    assert position_at(index, 3) == Position(line=0, character=2)
    assert index.line_character_of(3)[0] == 0


def test_offsets_out_of_range_are_clamped() -> None:
    index = LineIndex("ab\ncd")
    assert position_at(index, -5) == Position(line=0, character=0)
    assert position_at(index, 99) == Position(line=1, character=2)


def test_empty_document() -> None:
    index = LineIndex("")
    assert index.line_count == 1
    assert index.offset_of(0, 0) == 0
    assert index.offset_of(3, 3) == 0
    assert position_at(index, 0) == Position(line=0, character=0)


def test_final_newline_gives_an_empty_last_line() -> None:
    with_newline = LineIndex("ab\n")
    without = LineIndex("ab")
    assert with_newline.line_count == 2
    assert position_at(with_newline, 3) == Position(line=1, character=0)
    assert without.line_count == 1
    assert position_at(without, 2) == Position(line=0, character=2)


def test_given_positions_are_not_mutated() -> None:
    index = LineIndex("ab\n😀")
    position = Position(line=0, character=40)
    inside = Position(line=1, character=1)
    offset_at(index, position)
    offset_at(index, inside, "utf-16")
    range_offsets(index, Range(start=inside, end=position))
    assert position == Position(line=0, character=40)
    assert inside == Position(line=1, character=1)


def test_reversed_range_is_put_in_order() -> None:
    index = LineIndex("abc\ndef")
    reversed_range = Range(start=Position(line=1, character=1), end=Position(line=0, character=1))
    assert range_offsets(index, reversed_range) == (1, 5)


def test_range_of_builds_a_range_in_the_encoding() -> None:
    index = LineIndex("😀a\nb")
    assert range_of(index, 1, 3, "utf-16") == Range(
        start=Position(line=0, character=2), end=Position(line=1, character=0)
    )
    assert range_of(index, 1, 2, "utf-8") == Range(
        start=Position(line=0, character=4), end=Position(line=0, character=5)
    )


def test_lone_surrogates_do_not_crash() -> None:
    text = "a\ud83d\ude00b\ud800c"  # two lone halves that must not be paired, one alone
    index = LineIndex(text)
    for encoding in ENCODINGS:
        for offset in range(len(text) + 1):
            position = position_at(index, offset, encoding)
            assert offset_at(index, position, encoding) == offset
    assert index.offset_of(0, 3, "utf-16") == 3  # each lone half is one UTF-16 unit


@pytest.mark.parametrize(
    ("text", "start", "end", "new_text"),
    [
        ("a\r", 2, 2, "\nb"),  # CR + inserted LF become one CRLF
        ("a\r\nb", 2, 3, ""),  # LF removed: lone CR stays a break
        ("a\r\nb", 1, 2, ""),  # CR removed
        ("a\rb\nc\nd\ne", 2, 2, "\n"),
        ("x\ny\nz", 0, 5, ""),
        ("x\ny\nz\nw\nv", 4, 4, "1\r2\r\n3"),
        ("abc", 0, 3, "\n\n\n"),
    ],
)
def test_replaced_index_matches_a_fresh_one(text: str, start: int, end: int, new_text: str) -> None:
    derived = LineIndex(text).replaced(start, end, new_text)
    fresh = LineIndex(text[:start] + new_text + text[end:])
    assert derived.text == fresh.text
    assert [derived.line_start(i) for i in range(derived.line_count)] == [
        fresh.line_start(i) for i in range(fresh.line_count)
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("utf-8", "utf-8"),
        ("UTF-16", "utf-16"),
        ("utf-32", "utf-32"),
        (PositionEncodingKind.Utf8, "utf-8"),
        (PositionEncodingKind.Utf16, "utf-16"),
    ],
)
def test_normalize_encoding(value: object, expected: str) -> None:
    assert normalize_encoding(value) == expected


@pytest.mark.parametrize("value", ["utf-7", "", None, 16])
def test_unknown_encoding_is_rejected(value: object) -> None:
    with pytest.raises(ValueError, match="unsupported position encoding"):
        normalize_encoding(value)


def test_one_megabyte_line_converts_quickly() -> None:
    text = "é" * 1_000_000 + "😀" + "x\nnext"
    index = LineIndex(text)
    started = time.perf_counter()
    for encoding in ENCODINGS:
        position = position_at(index, 1_000_001, encoding)
        assert offset_at(index, position, encoding) == 1_000_001
    assert position_at(index, 1_000_001, "utf-16").character == 1_000_002
    assert position_at(index, 1_000_001, "utf-8").character == 2_000_004
    assert time.perf_counter() - started < 1.0


def test_large_document_index_is_built_without_per_character_work() -> None:
    text = "line with some text é\r\n" * 400_000  # ~9 MB, CRLF
    started = time.perf_counter()
    index = LineIndex(text)
    elapsed = time.perf_counter() - started
    assert index.line_count == 400_001
    assert index.offset_of(399_999, 5) == 399_999 * 23 + 5
    assert elapsed < 2.0


@pytest.mark.parametrize("text", ["a\r\nb\rc\nd", "one\ntwo\n", "", "x\r\n\r\ny"])
def test_an_index_built_on_first_use_answers_like_one_built_up_front(text: str) -> None:
    lazy, eager = LineIndex(text), LineIndex(text)
    eager.build()
    eager.build()  # a second call keeps the table
    assert lazy.line_count == eager.line_count
    for offset in range(len(text) + 1):
        assert lazy.line_character_of(offset) == eager.line_character_of(offset)
    changed = [(0, min(1, len(text)), "z\n")]
    assert (
        LineIndex(text).replaced_many(changed).line_count == eager.replaced_many(changed).line_count
    )


@pytest.mark.parametrize("separator", ["\n", "\r\n", "\r"])
def test_line_starts_of_a_text_longer_than_one_scan_window(separator: str) -> None:
    lines = [f"line {n} " + "x" * (n % 700) for n in range(400)]
    lines[200] = "y" * 70_000  # one line longer than a whole window
    text = separator.join(lines) + separator + "last"
    index = LineIndex(text)
    assert index.line_count == len(lines) + 1
    for number in (0, 199, 200, 201, 399, 400):
        expected = [*lines, "last"][number]
        assert _line_text(index, number) == expected


def _line_text(index: LineIndex, line: int) -> str:
    """The content of `line` without its terminator."""
    return index.text[index.line_start(line) : index.line_end(line)]
