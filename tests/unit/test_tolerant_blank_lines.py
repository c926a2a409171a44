"""Issue 22 item 4: blank lines at the start or end of old_text that the document does not
have there are set aside when the rest matches exactly one place (and as many are taken from
the same end of new_text when it has them); the result says so. Otherwise nothing changes."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome

DOC = "def f():\n    x = 1\n    return x\n\n\ndef g():\n    return 2\n"


def run(text: str, old: str, new: str) -> tuple[Toolbox, ToolOutcome]:
    toolbox = Toolbox(text)
    return toolbox, toolbox.execute("replace_text", {"old_text": old, "new_text": new})


def test_a_blank_line_before_the_first_line_of_the_document() -> None:
    toolbox, outcome = run(DOC, "\ndef f():\n    x = 1", "\ndef f():\n    x = 10")
    assert outcome.ok, outcome.response
    assert toolbox.text == DOC.replace("x = 1", "x = 10")
    assert "the 1 blank line at its start" in outcome.response["result"]
    assert outcome.adjustments == ("blank_lines",)
    assert outcome.summary == "replace_text: 1 replacement at line 1 (blank lines set aside)"


def test_blank_lines_at_the_end_the_document_does_not_have() -> None:
    old = "    return 2\n\n\n"
    toolbox, outcome = run(DOC, old, "    return 3\n\n\n")
    assert outcome.ok, outcome.response
    assert toolbox.text == DOC.replace("return 2", "return 3")
    assert "the 2 blank lines at its end" in outcome.response["result"]


def test_new_text_without_the_blank_line_is_used_as_sent() -> None:
    toolbox, outcome = run(DOC, "\n\n\n\ndef g():", "def h():")
    assert outcome.ok, outcome.response
    assert toolbox.text == DOC.replace("def g():", "def h():")


def test_whitespace_only_lines_count_as_blank() -> None:
    toolbox, outcome = run(DOC, "  \n    x = 1\n \t", "  \n    x = 5\n \t")
    assert outcome.ok, outcome.response
    assert toolbox.text == DOC.replace("x = 1", "x = 5")


def test_with_a_whitespace_slip_too() -> None:
    toolbox, outcome = run(DOC, "\nx = 1\nreturn x\n\n\n\n", "\nx = 1\nreturn x + 1\n\n\n\n")
    assert outcome.ok, outcome.response
    assert toolbox.text == DOC.replace("return x\n", "return x + 1\n")
    assert outcome.adjustments[0] == "blank_lines"


def test_the_rest_at_two_places_is_refused() -> None:
    doc = "a()\nb()\n\nc()\nb()\n"
    toolbox, outcome = run(doc, "b()\n\n\n", "B()\n")
    assert not outcome.ok
    assert toolbox.text == doc
    message = outcome.response["error"]
    assert "once the 2 blank lines at its end are set aside, it occurs 2 times" in message
    assert "on lines 2 and 5" in message


def test_only_blank_lines_never_match() -> None:
    toolbox, outcome = run(DOC, "\n\n\n\n\n", "x")
    assert not outcome.ok
    assert toolbox.text == DOC


@given(
    size=st.integers(2, 10),
    data=st.data(),
    lead=st.integers(0, 2),
    trail=st.integers(0, 2),
)
def test_stray_blank_lines_never_edit_outside_the_matched_lines(
    size: int, data: st.DataObject, lead: int, trail: int
) -> None:
    """A run of distinct lines with blank lines added around it where the document has
    other lines (or its ends): the run alone is replaced, nothing else changes."""
    lines = [f"line_{i}()" for i in range(size)]
    start = data.draw(st.integers(0, size - 1))
    end = data.draw(st.integers(start + 1, size))
    run_text = "\n".join(lines[start:end])
    old = "\n" * lead + run_text + "\n" * trail
    assume(lead or trail)
    text = "\n".join(lines) + "\n"
    assume(old not in text)
    new = "\n" * lead + run_text.replace("line_", "edited_") + "\n" * trail
    toolbox, outcome = run(text, old, new)
    assert outcome.ok, outcome.response
    edited = lines[:start] + [line.replace("line_", "edited_") for line in lines[start:end]]
    assert toolbox.text == "\n".join(edited + lines[end:]) + "\n"


def test_spaces_on_a_blank_line_the_document_has_empty_are_a_whitespace_slip() -> None:
    toolbox, outcome = run(DOC, "    \n    b = g()", "")
    assert not outcome.ok  # nothing like it: no tolerance invents lines
    toolbox, outcome = run(DOC, "    return x\n    \n\ndef g():", "    return x\n\n\ndef h():")
    assert outcome.ok, outcome.response
    assert toolbox.text == DOC.replace("def g", "def h")
    assert "spaces or tabs at the ends of lines differed" in outcome.response["result"]
    assert outcome.adjustments == ("trailing_whitespace",)


def test_blank_lines_the_document_has_there_are_not_set_aside() -> None:
    # old_text is the document's own text from after the form feed (not a line break in LSP)
    # up to the "\r" of a "\r\n": it cuts that line break, so it matches nowhere; its blank
    # lines stand right there in the document, so setting them aside (and deleting the emoji
    # line alone) would be a guess, not a reading.
    family = "👨\u200d👩\u200d👧"
    doc = "\n\f" + "\n" * 10 + "\r\n" + family * 2 + "\r\n"
    toolbox, outcome = run(doc, doc[2:25], "")
    assert not outcome.ok, outcome.response
    assert toolbox.text == doc


def test_a_reading_that_rewrites_line_breaks_says_both() -> None:
    toolbox, outcome = run("a\r\nb\r\nc\r\n", "\n\n\nb\r", "\n\n\nB\r")
    assert outcome.ok, outcome.response
    assert toolbox.text == "a\r\nB\r\nc\r\n"
    assert outcome.adjustments == ("blank_lines", "line_endings")
    assert "Reading: line breaks, blank lines." in outcome.response["result"]
