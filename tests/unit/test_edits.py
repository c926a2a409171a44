"""Minimal edits, their LSP form and the unified diff."""

from __future__ import annotations

import difflib
import itertools
import random
import time

import pytest
from lsprotocol.types import Position, Range, TextEdit

from complex_edit.edit_tools.lines import split_lines
from complex_edit.server.lsp.bridge import to_text_edits
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.positions import LineIndex
from complex_edit.server.text.unified import diff_headers, unified_diff


def check(old: str, new: str) -> list[TextChange]:
    changes = compute_edits(old, new)
    assert apply_changes(old, changes) == new
    for before, after in itertools.pairwise(changes):
        assert before.end < after.start
    return changes


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("abc\n", "abc\n", []),
        ("", "", []),
        ("abc\n", "xabc\n", [TextChange(0, 0, "x")]),
        ("abc\n", "abc\nx", [TextChange(4, 4, "x")]),
        ("abc\ndef\n", "", [TextChange(0, 8, "")]),
        ("", "abc\n", [TextChange(0, 0, "abc\n")]),
        ("a\nb\nc\n", "a\nc\n", [TextChange(2, 4, "")]),
        ("one two three\n", "one 2 three\n", [TextChange(4, 7, "2")]),
        ("x = 1\n", "x = 1  \n", [TextChange(5, 5, "  ")]),
        ("\tindent\n", "    indent\n", [TextChange(0, 1, "    ")]),
        ("no newline", "no newline\n", [TextChange(10, 10, "\n")]),
    ],
)
def test_exact_cases(old: str, new: str, expected: list[TextChange]) -> None:
    assert check(old, new) == expected


def test_crlf_document_keeps_its_line_endings() -> None:
    old = "first\r\nsecond\r\nthird\r\n"
    new = "first\r\nSECOND\r\nthird\r\n"
    assert check(old, new) == [TextChange(7, 13, "SECOND")]


def test_crlf_pair_is_never_split() -> None:
    # Turning CRLF into a lone CR: the edit covers the whole pair, not just the LF.
    assert check("a\r\nb", "a\rb") == [TextChange(1, 3, "\r")]
    # Turning a lone CR into CRLF: replace the CR rather than insert a LF after it.
    assert check("a\rb", "a\r\nb") == [TextChange(1, 2, "\r\n")]
    assert check("a\nb", "a\r\nb") == [TextChange(1, 2, "\r\n")]


def test_inserted_line_in_crlf_document() -> None:
    old = "a\r\nb\r\n"
    changes = check(old, "a\r\nnew\r\nb\r\n")
    assert len(changes) == 1
    assert sum(change.end - change.start for change in changes) == 0


def test_combining_mark_is_kept_with_its_base() -> None:
    assert check("cafe\u0301!", "cafe\u0300!") == [TextChange(3, 5, "e\u0300")]
    assert check("e\u0301", "e") == [TextChange(0, 2, "e")]


def test_zwj_sequence_is_replaced_whole() -> None:
    family = "👨\u200d👩\u200d👧"
    changes = check(f"[{family}]", "[👨\u200d👩\u200d👦]")
    assert changes == [TextChange(1, 6, "👨\u200d👩\u200d👦")]


def test_astral_character_change() -> None:
    assert check("x😀y", "x😁y") == [TextChange(1, 2, "😁")]


def test_one_changed_character_in_a_one_megabyte_line() -> None:
    old = "a" * 500_000 + "b" + "a" * 500_000 + "\nnext\n"
    new = "a" * 500_000 + "c" + "a" * 500_000 + "\nnext\n"
    assert check(old, new) == [TextChange(500_000, 500_001, "c")]


def test_whitespace_only_changes() -> None:
    assert check("a  b\n", "a b\n") == [TextChange(2, 3, "")]
    assert check("x\n  y\n", "x\n    y\n") == [TextChange(4, 4, "  ")]
    assert check("x\n\n\ny\n", "x\n\ny\n") == [TextChange(3, 4, "")]
    # A changed line next to a deleted one: one edit, confined to those two lines.
    old = "def f():\n    return 1\n\n\n"
    new = "def f():\n\treturn 1\n\n"
    assert check(old, new) == [TextChange(9, 22, "\treturn 1")]


def test_repeated_lines_give_a_small_edit() -> None:
    old = "}\n" * 50 + "x\n" + "}\n" * 50
    new = "}\n" * 50 + "y\n" + "}\n" * 50
    assert check(old, new) == [TextChange(100, 101, "y")]


def test_changed_lines_among_identical_lines_are_replacements() -> None:
    # Inserting "{" at the first change and deleting a "}" further down would be as short a
    # line diff; each change must stay where it happened.
    old_lines = ["}\n"] * 300
    new_lines = list(old_lines)
    new_lines[50] = "{\n"
    new_lines[200] = "{\n"
    assert check("".join(old_lines), "".join(new_lines)) == [
        TextChange(100, 101, "{"),
        TextChange(400, 401, "{"),
    ]


def test_large_insertion_and_deletion_blocks() -> None:
    lines = [f"line {i}\n" for i in range(5_000)]
    inserted = [f"new {i}\n" for i in range(3_000)]
    old = "".join(lines)
    new = "".join(lines[:1000] + inserted + lines[1000:2000] + lines[4000:])
    changes = check(old, new)
    assert len(changes) == 2
    assert changes[0].start == changes[0].end  # pure insertion
    assert changes[1].new_text == ""  # pure deletion of 2000 lines
    assert changes[1].end - changes[1].start == len("".join(lines[2000:4000]))


def test_moved_block_is_still_correct() -> None:
    lines = [f"item {i}\n" for i in range(2_000)]
    new_lines = lines[1000:] + lines[:1000]
    check("".join(lines), "".join(new_lines))


def test_completely_different_texts() -> None:
    old = "".join(f"a{i}\n" for i in range(3_000))
    new = "".join(f"b{i}\n" for i in range(2_000))
    changes = check(old, new)
    assert sum(len(change.new_text) for change in changes) <= len(new)


def test_scattered_changes_in_two_megabytes_stay_small() -> None:
    rng = random.Random(7)
    lines = [f"    value_{i} = compute(alpha, beta, {i})  # é {i}\n" for i in range(40_000)]
    old = "".join(lines)
    assert len(old) > 2_000_000
    touched = sorted(rng.sample(range(len(lines)), 20))
    new_lines = list(lines)
    for i in touched:
        new_lines[i] = new_lines[i].replace("compute", "COMPUTE_NOW")
    new = "".join(new_lines)
    started = time.perf_counter()
    changes = compute_edits(old, new)
    elapsed = time.perf_counter() - started
    assert apply_changes(old, changes) == new
    assert len(changes) == 20
    changed_lines = sum(len(lines[i]) for i in touched)
    assert sum(change.end - change.start for change in changes) <= changed_lines
    assert all(change.end - change.start <= len("compute") for change in changes)
    assert elapsed < 1.0


def test_scattered_line_insertions_and_deletions() -> None:
    rng = random.Random(3)
    lines = [f"row {i} " + "x" * (i % 13) + "\n" for i in range(30_000)]
    touched = sorted(rng.sample(range(len(lines)), 20), reverse=True)
    new_lines = list(lines)
    for number, i in enumerate(touched):
        if number % 2:
            del new_lines[i]
        else:
            new_lines.insert(i, "inserted\n")
    changes = check("".join(lines), "".join(new_lines))
    assert len(changes) == 20
    assert sum(change.end - change.start for change in changes) <= sum(
        len(lines[i]) for i in touched
    )


def test_apply_changes_rejects_overlaps_and_out_of_range() -> None:
    with pytest.raises(ValueError, match="overlap"):
        apply_changes("abcdef", [TextChange(2, 4, ""), TextChange(3, 5, "")])
    with pytest.raises(ValueError, match="past the end"):
        apply_changes("abc", [TextChange(2, 9, "")])
    with pytest.raises(ValueError, match="invalid change range"):
        TextChange(3, 2, "")


def test_to_text_edits_in_each_encoding() -> None:
    old = "😀é\nline two\n"
    changes = [TextChange(1, 2, "e"), TextChange(3, 7, "LINE")]
    expected_start = {"utf-16": 2, "utf-8": 4, "utf-32": 1}
    for encoding, character in expected_start.items():
        edits = to_text_edits(old, changes, encoding)
        assert edits == [
            TextEdit(
                range=Range(
                    start=Position(line=0, character=character),
                    end=Position(line=0, character=character + (2 if encoding == "utf-8" else 1)),
                ),
                new_text="e",
            ),
            TextEdit(
                range=Range(start=Position(line=1, character=0), end=Position(line=1, character=4)),
                new_text="LINE",
            ),
        ]


def test_to_text_edits_with_form_feed_and_line_separator() -> None:
    old = "a\fb\u2028c\nd"
    edits = to_text_edits(old, [TextChange(6, 7, "D")], "utf-16")
    assert edits[0].range == Range(
        start=Position(line=1, character=0), end=Position(line=1, character=1)
    )


def test_to_text_edits_checks_the_line_index() -> None:
    with pytest.raises(ValueError, match="different text"):
        to_text_edits("abc", [], line_index=LineIndex("abd"))
    index = LineIndex("abc")
    assert to_text_edits("abc", [TextChange(0, 1, "x")], line_index=index)[0].new_text == "x"


def difflib_diff(old: str, new: str, label: str) -> str:
    return "".join(
        difflib.unified_diff(split_lines(old), split_lines(new), f"a/{label}", f"b/{label}")
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("".join(f"{i}\n" for i in range(30)), "".join(f"{i}\n" for i in range(30) if i != 15)),
        (
            "".join(f"{i}\n" for i in range(40)),
            "".join(f"{i}\n" if i not in (3, 9, 30) else f"<{i}>\n" for i in range(40)),
        ),
        ("x\n", "y\nx\n"),
        ("x\ny\n", "x\n"),
        ("", "new\n"),
        ("old\n", ""),
        ("a\r\nb\r\nc\r\n", "a\r\nb2\r\nc\r\n"),
    ],
)
def test_unified_diff_matches_difflib(old: str, new: str) -> None:
    assert unified_diff(old, new, "file.py") == difflib_diff(old, new, "file.py")


def test_unified_diff_marks_missing_final_newline() -> None:
    assert unified_diff("a\nb", "a\nc", "f") == (
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
        "+c\n\\ No newline at end of file\n"
    )
    assert unified_diff("a", "a\n", "f") == (
        "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"
    )


def test_unified_diff_of_equal_texts_is_empty() -> None:
    assert unified_diff("same\n", "same\n", "f") == ""


def test_unified_diff_on_a_large_document_is_local() -> None:
    lines = [f"line {i}\n" for i in range(200_000)]
    new_lines = list(lines)
    new_lines[100_000] = "changed\n"
    started = time.perf_counter()
    diff = unified_diff("".join(lines), "".join(new_lines), "big.txt")
    assert time.perf_counter() - started < 1.0
    assert diff == (
        "--- a/big.txt\n+++ b/big.txt\n@@ -99998,7 +99998,7 @@\n"
        " line 99997\n line 99998\n line 99999\n-line 100000\n+changed\n"
        " line 100001\n line 100002\n line 100003\n"
    )


def test_unified_diff_headers_are_git_s_a_and_b() -> None:
    assert unified_diff("a\n", "b\n", "pkg/m.py").startswith("--- a/pkg/m.py\n+++ b/pkg/m.py\n@@")
    assert diff_headers("/tmp/x.py") == "--- a/tmp/x.py\n+++ b/tmp/x.py\n"
