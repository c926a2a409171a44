"""The whitespace-tolerant fallback of replace_text: a unique match that differs only in
indentation (a uniform offset), tabs versus spaces or spaces at line ends is applied, with
new_text re-indented in the document's style; several candidate places are an error; text
outside the matched lines never changes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from complex_edit.edit_tools.matching import find_match
from complex_edit.edit_tools.registry import Toolbox, ToolOutcome


def replace(toolbox: Toolbox, old: str, new: str, **extra: Any) -> ToolOutcome:
    return toolbox.execute("replace_text", {"old_text": old, "new_text": new, **extra})


def applied(text: str, old: str, new: str, **extra: Any) -> tuple[str, ToolOutcome]:
    toolbox = Toolbox(text)
    outcome = replace(toolbox, old, new, **extra)
    assert outcome.ok, outcome.response
    return toolbox.text, outcome


def refused(text: str, old: str, new: str, **extra: Any) -> str:
    toolbox = Toolbox(text)
    outcome = replace(toolbox, old, new, **extra)
    assert not outcome.ok, outcome.response
    assert toolbox.text == text
    message = outcome.response["error"]
    assert isinstance(message, str)
    return message


NESTED = "class A:\n    def f(self):\n        if x:\n            return 1\n        return 2\n"
TABBED = NESTED.replace("    ", "\t")


class TestIndentation:
    def test_missing_base_indentation_is_added_back_to_every_line(self) -> None:
        text, outcome = applied(
            NESTED, "if x:\n    return 1\nreturn 2", "if x:\n    return 10\nlog()\nreturn 2"
        )
        assert text == (
            "class A:\n    def f(self):\n        if x:\n            return 10\n"
            "        log()\n        return 2\n"
        )
        result = outcome.response["result"]
        assert "did not match exactly" in result
        assert "8 spaces of indentation" in result
        assert outcome.adjustments == ("indentation",)
        assert outcome.summary == "replace_text: 1 replacement at line 3 (whitespace tolerated)"

    def test_too_much_indentation_is_taken_off(self) -> None:
        text, outcome = applied(
            "def f():\n    a = 1\n    b = 2\n", "        a = 1\n        b = 2\n", "        a = 3\n"
        )
        assert text == "def f():\n    a = 3\n"
        assert "more indentation" in outcome.response["result"]

    def test_spaces_for_tabs_are_written_as_tabs(self) -> None:
        text, outcome = applied(
            TABBED,
            "        if x:\n            return 1",
            "        if x:\n            y = 3\n            return 1",
        )
        assert (
            text
            == "class A:\n\tdef f(self):\n\t\tif x:\n\t\t\ty = 3\n\t\t\treturn 1\n\t\treturn 2\n"
        )
        assert outcome.adjustments == ("tabs",)
        assert "where the document uses tabs" in outcome.response["result"]

    def test_spaces_without_base_indentation_in_a_tabbed_document(self) -> None:
        text, outcome = applied(TABBED, "if x:\n  return 1", "if y:\n  return 1")
        assert text == TABBED.replace("if x:", "if y:")
        assert outcome.adjustments == ("indentation", "tabs")

    def test_tabs_for_spaces_are_written_as_spaces_of_the_documents_unit(self) -> None:
        text, _ = applied(
            NESTED, "\t\tif x:\n\t\t\treturn 1", "\t\tif x:\n\t\t\tlog()\n\t\t\treturn 1"
        )
        assert "            log()\n" in text
        assert "\t" not in text

    def test_alignment_spaces_after_tabs_survive_a_base_shift(self) -> None:
        doc = "f(\n\t\tfirst,\n\t\t    second)\n"
        text, _ = applied(doc, "\tfirst,\n\t    second)", "\tfirst,\n\t    second,\n\t    third)")
        assert text == "f(\n\t\tfirst,\n\t\t    second,\n\t\t    third)\n"

    def test_a_line_that_would_need_negative_indentation_is_an_error(self) -> None:
        message = refused(
            "def f():\n    a = 1\n    b = 2\n", "        a = 1\n        b = 2", "    a = 1\nb = 2"
        )
        assert "less than no indentation" in message
        assert "lines 2-3" in message


class TestLineEnds:
    def test_trailing_whitespace_is_tolerated_and_kept_on_unchanged_lines(self) -> None:
        text, outcome = applied("a = 1   \nb = 2\t\nc = 3\n", "a = 1\nb = 2\n", "a = 1\nb = 20\n")
        assert text == "a = 1   \nb = 20\nc = 3\n"
        assert outcome.adjustments == ("trailing_whitespace",)

    def test_trailing_whitespace_in_old_text_the_document_lacks(self) -> None:
        text, _ = applied("x = 1\ny = 2\n", "x = 1  \ny = 2 ", "x = 1\ny = 3")
        assert text == "x = 1\ny = 3\n"

    def test_crlf_document_with_lf_text_and_missing_indentation(self) -> None:
        doc = "x:\r\n    y = 1\r\n    z = 2\r\n"
        text, _ = applied(doc, "y = 1\nz = 2\n", "y = 1\nw = 5\nz = 2\n")
        assert text == "x:\r\n    y = 1\r\n    w = 5\r\n    z = 2\r\n"

    def test_final_line_break_the_document_lacks(self) -> None:
        text, outcome = applied("def f():\n    return 1", "return 1\n", "return 2\n")
        assert text == "def f():\n    return 2"
        assert "final_newline" in outcome.adjustments

    def test_lone_cr_document(self) -> None:
        text, _ = applied("if a:\r    b()\r    c()\r", "b()\nc()", "b()\nd()")
        assert text == "if a:\r    b()\r    d()\r"

    def test_byte_order_mark_stays_in_front(self) -> None:
        text, _ = applied("\ufeffif a:\n    b()\n", "  if a:\n      b()", "  if a:\n      c()")
        assert text == "\ufeffif a:\n    c()\n"

    def test_pasted_line_numbers_and_missing_indentation(self) -> None:
        pasted = "     3\tif x:\n     4\t    return 1"
        text, _ = applied(NESTED, pasted, "     3\tif x:\n     4\t    return 3")
        assert text == NESTED.replace("return 1", "return 3")


class TestNeverAGuess:
    AMBIGUOUS = (
        "def f():\n    if x:\n        return None\n\n"
        "def g():\n        if x:\n            return None\n"
    )

    def test_several_places_are_an_error_listing_them(self) -> None:
        message = refused(self.AMBIGUOUS, "if x:\n    return None", "if y:\n    return None")
        assert "matches 2 places" in message
        assert "At lines 2-3:\n     2\t    if x:\n     3\t        return None" in message
        assert "At lines 6-7:" in message
        assert "no guessing" in message

    def test_replace_all_does_not_replace_tolerant_matches_everywhere(self) -> None:
        message = refused(
            self.AMBIGUOUS, "if x:\n    return None", "if y:\n    return None", replace_all=True
        )
        assert "replace_all replaces several places only when they match exactly" in message

    def test_replace_all_with_one_tolerant_match_applies_it(self) -> None:
        text, _ = applied(NESTED, "if x:\n    return 1", "if x:\n    return 5", replace_all=True)
        assert text == NESTED.replace("return 1", "return 5")

    def test_an_exact_match_wins_over_tolerant_ones(self) -> None:
        doc = "if x:\n    go()\nclass A:\n    if x:\n        go()\n"
        text, outcome = applied(doc, "if x:\n    go()", "if y:\n    go()")
        assert text == "if y:\n    go()\nclass A:\n    if x:\n        go()\n"
        assert outcome.adjustments == ()

    def test_thousands_of_look_alikes_are_refused_without_a_guess(self) -> None:
        doc = "def f(x):\n    if x:\n        return x\n" * 2500 + "    if y:\n      return x\n"
        message = refused(doc, "if x:\n  return x", "if x:\n  return -x")
        assert "more than 2,000 places" in message

    def test_spaces_inside_a_line_are_not_tolerated(self) -> None:
        message = refused(NESTED, "if  x:\n    return 1", "pass")
        assert message.startswith("No match")

    def test_part_of_a_line_is_not_a_tolerant_match(self) -> None:
        refused("value = compute(a)\nother = 1\n", "compute(a)\n  other = 1", "x")

    def test_whitespace_only_old_text_never_matches_tolerantly(self) -> None:
        refused("a\n\n\nb\n", "  \n \n", "x")

    def test_a_change_that_adapts_to_nothing_is_identical(self) -> None:
        # Only the spaces at a line end differ, and the document has none there already.
        message = refused(NESTED, "if x:\n    return 1  ", "if x:\n    return 1")
        assert "identical" in message

    def test_undo_restores_the_text(self) -> None:
        toolbox = Toolbox(TABBED)
        assert replace(toolbox, "if x:\n    return 1", "if y:\n    return 1").ok
        assert toolbox.execute("undo", {}).ok
        assert toolbox.text == TABBED


# ------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Doc:
    levels: list[int | None]  # None: a blank line
    tabs: bool
    unit: int
    ending: str
    trailing: list[str]
    bom: bool
    final_break: bool

    def indent(self, level: int) -> str:
        return "\t" * level if self.tabs else " " * (self.unit * level)

    def line(self, index: int) -> str:
        level = self.levels[index]
        if level is None:
            return ""
        return self.indent(level) + f"stmt_{index}(x)" + self.trailing[index]

    def text(self) -> str:
        body = self.ending.join(self.line(i) for i in range(len(self.levels)))
        return ("\ufeff" if self.bom else "") + body + (self.ending if self.final_break else "")


@st.composite
def documents(draw: st.DrawFn) -> Doc:
    size = draw(st.integers(3, 20))
    levels: list[int | None] = []
    level = 0
    for _ in range(size):
        if levels and draw(st.integers(0, 6)) == 0:
            levels.append(None)
            continue
        level = max(0, level + draw(st.integers(-2, 1)))
        levels.append(level)
    assume(any(lv for lv in levels))
    trailing = draw(
        st.lists(st.sampled_from(["", "", "", " ", "\t", "  "]), min_size=size, max_size=size)
    )
    return Doc(
        levels=levels,
        tabs=draw(st.booleans()),
        unit=draw(st.sampled_from([2, 4])),
        ending=draw(st.sampled_from(["\n", "\r\n"])),
        trailing=trailing,
        bom=draw(st.booleans()),
        final_break=draw(st.booleans()),
    )


@dataclass(frozen=True)
class Slip:
    drop_base: bool
    other_style: bool
    width: int  # spaces per level when writing spaces for a tabbed document
    strip_trailing: bool


def slipped_indent(doc: Doc, level: int, base: int, slip: Slip) -> str:
    relative = level - base if slip.drop_base else level
    if slip.other_style:
        return " " * (slip.width * relative) if doc.tabs else "\t" * relative
    return doc.indent(relative)


@given(doc=documents(), data=st.data())
def test_a_slipped_snippet_is_replaced_exactly_where_it_was(doc: Doc, data: st.DataObject) -> None:
    """The slipped old_text matches its lines only; the result is the document with those
    lines replaced by new_text in the document's style (repeated lines kept byte for byte),
    and nothing outside them changes."""
    text = doc.text()
    start = data.draw(st.integers(0, len(doc.levels) - 1))
    end = data.draw(st.integers(start + 1, min(len(doc.levels), start + 5)))
    window = list(range(start, end))
    filled = [i for i in window if doc.levels[i] is not None]
    assume(filled)
    base = min(doc.levels[i] or 0 for i in filled)
    slip = Slip(
        drop_base=data.draw(st.booleans()),
        other_style=data.draw(st.booleans()),
        width=data.draw(st.sampled_from([2, 4, 8])) if doc.tabs else doc.unit,
        strip_trailing=data.draw(st.booleans()),
    )

    def old_line(i: int) -> str:
        level = doc.levels[i]
        if level is None:
            return ""
        trailing = "" if slip.strip_trailing else doc.trailing[i]
        return slipped_indent(doc, level, base, slip) + f"stmt_{i}(x)" + trailing

    old_lines = [old_line(i) for i in window]
    changed = data.draw(st.sampled_from(filled))
    inserted_level = doc.levels[changed] or 0
    new_lines = list(old_lines)
    new_lines[changed - start] = slipped_indent(doc, inserted_level, base, slip) + "changed(x)"
    new_lines.insert(
        changed - start + 1, slipped_indent(doc, inserted_level, base, slip) + "added(y)"
    )
    with_break = end < len(doc.levels) and data.draw(st.booleans())
    old = "\n".join(old_lines) + ("\n" if with_break else "")
    new = "\n".join(new_lines) + ("\n" if with_break else "")
    assume(find_match(text, old, new) is None)

    toolbox = Toolbox(text)
    outcome = replace(toolbox, old, new)
    assert outcome.ok, outcome.response

    expected_lines = [doc.line(i) for i in range(len(doc.levels))]
    styled = doc.indent(inserted_level)
    expected_lines[changed] = styled + "changed(x)"
    expected_lines.insert(changed + 1, styled + "added(y)")
    expected = ("\ufeff" if doc.bom else "") + doc.ending.join(expected_lines)
    expected += doc.ending if doc.final_break else ""
    assert toolbox.text == expected
    if doc.tabs:
        for line in toolbox.text.split(doc.ending):
            indent = line[: len(line) - len(line.lstrip(" \t"))].lstrip("\ufeff")
            assert " " not in indent
    if doc.ending == "\r\n":
        assert "\n" not in toolbox.text.replace("\r\n", "")


@given(doc=documents(), data=st.data())
def test_the_same_lines_at_two_places_are_always_an_error(doc: Doc, data: st.DataObject) -> None:
    """A block and a copy of it indented deeper: old_text taken from the first without its
    base indentation matches both once indentation is set aside, and is refused."""
    first = [None if lv is None else lv + 1 for lv in doc.levels]
    shift = data.draw(st.integers(1, 2))
    copy = [None if lv is None else lv + shift for lv in first]
    twice = Doc(
        [*first, None, *copy],
        doc.tabs,
        doc.unit,
        doc.ending,
        [""] * (2 * len(first) + 1),
        False,
        True,
    )
    text = twice.text()
    for i in range(len(first)):  # the copy holds the same statements
        text = text.replace(f"stmt_{len(first) + 1 + i}(x)", f"stmt_{i}(x)")
    filled_lines = [i for i, lv in enumerate(first) if lv is not None]
    assume(len(filled_lines) >= 2)
    # Two non-blank lines at least: one line without its indentation is found exactly.
    start = data.draw(st.sampled_from(filled_lines[:-1]))
    end = data.draw(st.sampled_from([i + 1 for i in filled_lines if i > start]))
    filled = [i for i in range(start, end) if first[i] is not None]
    base = min(first[i] or 0 for i in filled)
    old = "\n".join(
        "" if first[i] is None else doc.indent((first[i] or 0) - base) + f"stmt_{i}(x)"
        for i in range(start, end)
    )
    assume(find_match(text, old, "NEW") is None)
    toolbox = Toolbox(text)
    outcome = replace(toolbox, old, "NEW", replace_all=data.draw(st.booleans()))
    assert not outcome.ok, outcome.response
    assert toolbox.text == text
    message = outcome.response["error"]
    assert "matches 2 places" in message
    plural = "s" if end - start > 1 else ""
    assert f"At line{plural} {start + 1}" in message
    assert f"At line{plural} {start + 1 + len(first) + 1}" in message
