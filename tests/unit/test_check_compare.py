"""The comparison of a checker's diagnostics before and after an edit (`server/check/compare.py`):
a line that moved is the same line, a rewritten line's diagnostic is new only when its
message is, matching is one for one, and the lines the model reads."""

from __future__ import annotations

from complex_edit.server.check.compare import (
    MAX_LINES_PER_FILE,
    Found,
    LineMap,
    compare,
    report_lines,
)

BEFORE = "import os\n\ndef f():\n    return undefined_a\n\nx = 1\n"


def f821(line: int, name: str, character: int = 11) -> Found:
    return Found(
        line, character, line, character + len(name), 1, f"Undefined name `{name}`", "Ruff", "F821"
    )


def test_an_error_that_moved_down_is_not_introduced() -> None:
    after = "# a header\n# two lines\n" + BEFORE
    compared = compare(BEFORE, after, [f821(3, "undefined_a")], [f821(5, "undefined_a")])
    assert compared.introduced == ()
    assert compared.fixed == ()


def test_the_same_message_on_an_unchanged_line_elsewhere_is_introduced() -> None:
    after = BEFORE + "y = undefined_a\n"
    before = [f821(3, "undefined_a")]
    new = f821(6, "undefined_a", 4)
    compared = compare(BEFORE, after, before, [f821(3, "undefined_a"), new])
    assert compared.introduced == (new,)


def test_a_rewritten_line_counts_only_a_new_message() -> None:
    after = BEFORE.replace("return undefined_a", "return   undefined_a + 0")
    moved_column = f821(3, "undefined_a", 13)
    assert compare(BEFORE, after, [f821(3, "undefined_a")], [moved_column]).introduced == ()
    other = f821(3, "undefined_b", 13)
    after_b = BEFORE.replace("undefined_a", "undefined_b")
    compared = compare(BEFORE, after_b, [f821(3, "undefined_a")], [other])
    assert compared.introduced == (other,)
    assert compared.fixed == (f821(3, "undefined_a"),)


def test_matching_is_one_for_one() -> None:
    after = BEFORE + "z = undefined_a\n"
    one = f821(3, "undefined_a")
    twin = f821(6, "undefined_a", 4)
    compared = compare(BEFORE, after, [one], [one, twin])
    assert compared.introduced == (twin,)


def test_a_removed_error_is_fixed_and_warnings_count_only_when_asked() -> None:
    after = BEFORE.replace("undefined_a", "1")
    warning = Found(5, 0, 5, 1, 2, "unused", "basedpyright", "reportUnused")
    compared = compare(BEFORE, after, [f821(3, "undefined_a")], [warning])
    assert compared.fixed == (f821(3, "undefined_a"),)
    assert compared.introduced == ()
    assert compare(BEFORE, after, [], [warning], threshold=2).introduced == (warning,)


def test_the_same_errors_twice_compare_the_same() -> None:
    after = BEFORE.replace("x = 1", "x = total")
    error = f821(5, "total", 4)
    first = compare(BEFORE, after, [f821(3, "undefined_a")], [f821(3, "undefined_a"), error])
    second = compare(BEFORE, after, [f821(3, "undefined_a")], [error, f821(3, "undefined_a")])
    assert first == second
    assert first.introduced == (error,)


def test_the_line_map_carries_moved_lines_and_marks_rewritten_ones() -> None:
    before = "a\nb\nc\nd\n"
    after = "a\nB\nB2\nc\nd\n"
    lines = LineMap(before, after)
    assert [lines.line(n) for n in range(4)] == [0, None, 3, 4]
    assert [lines.rewritten(n) for n in range(5)] == [False, True, True, False, False]
    assert LineMap(before, before).line(2) == 2


def test_report_lines_name_path_line_column_severity_source_and_code() -> None:
    found = Found(11, 4, 11, 9, 1, 'Type of "x"\n  is unknown', "basedpyright", "reportX")
    assert report_lines([("caller.py", [found])]) == [
        'caller.py:12:5: error: Type of "x" is unknown (basedpyright reportX)'
    ]
    many = [f821(n, "v", 0) for n in range(MAX_LINES_PER_FILE + 3)]
    lines = report_lines([("a.py", many), ("b.py", [f821(0, "w", 0)])])
    assert len(lines) == MAX_LINES_PER_FILE + 2
    assert lines[MAX_LINES_PER_FILE] == "a.py: … and 3 more"
    assert lines[-1].startswith("b.py:1:1: error: Undefined name `w` (Ruff F821)")
