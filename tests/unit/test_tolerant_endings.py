"""Issue 22 item 1: the line breaks of new_text and of set_document's content are written as
the document writes its own at that place (CRLF or CR into an LF document, LF into a CRLF
one); the document's existing line breaks are never rewritten; the result says what was
converted when the model sent breaks that are not the document's."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome

ENDINGS = ["\n", "\r\n", "\r"]


def call(text: str, name: str, **args: Any) -> tuple[str, ToolOutcome]:
    toolbox = Toolbox(text)
    outcome = toolbox.execute(name, args)
    assert outcome.ok, outcome.response
    return toolbox.text, outcome


class TestReplaceText:
    def test_crlf_new_text_in_an_lf_document_is_written_with_lf(self) -> None:
        text, outcome = call("a\nb\nc\n", "replace_text", old_text="b", new_text="B\r\nC")
        assert text == "a\nB\nC\nc\n"
        assert "new_text's CRLF line breaks were written as LF" in outcome.response["result"]
        assert outcome.adjustments == ("line_endings",)

    def test_cr_only_new_text_in_an_lf_document(self) -> None:
        text, outcome = call("a\nb\n", "replace_text", old_text="a\nb", new_text="x\ry\rz")
        assert text == "x\ny\nz\n"
        assert "CR line breaks" in outcome.response["result"]

    def test_lf_new_text_in_a_crlf_document_is_converted_without_a_word(self) -> None:
        text, outcome = call("a\r\nb\r\n", "replace_text", old_text="a", new_text="a\nx")
        assert text == "a\r\nx\r\nb\r\n"
        assert outcome.adjustments == ()
        assert "line breaks" not in outcome.response["result"]

    def test_mixed_new_text_in_a_crlf_document(self) -> None:
        text, _ = call("a\r\nb\r\n", "replace_text", old_text="b", new_text="b\nc\r\nd\re")
        assert text == "a\r\nb\r\nc\r\nd\r\ne\r\n"

    def test_a_mixed_document_takes_the_ending_of_the_matched_lines(self) -> None:
        doc = "one\r\ntwo\r\nthree\nfour\n"
        text, _ = call(doc, "replace_text", old_text="two", new_text="two\nmore")
        assert text == "one\r\ntwo\r\nmore\r\nthree\nfour\n"
        text, outcome = call(doc, "replace_text", old_text="four", new_text="four\r\nfive")
        assert text == "one\r\ntwo\r\nthree\nfour\nfive\n"
        assert outcome.adjustments == ("line_endings",)

    def test_a_match_spanning_both_kinds_keeps_new_text_as_sent(self) -> None:
        doc = "one\r\ntwo\nthree\n"
        text, outcome = call(doc, "replace_text", old_text="one\r\ntwo", new_text="1\r\n2\n2b")
        assert text == "1\r\n2\n2b\nthree\n"
        assert outcome.adjustments == ()

    def test_the_last_line_without_a_break_takes_the_documents_ending(self) -> None:
        text, _ = call("a\r\nb\r\nlast", "replace_text", old_text="last", new_text="last\nmore")
        assert text == "a\r\nb\r\nlast\r\nmore"

    def test_replace_all_writes_every_copy_with_the_documents_ending(self) -> None:
        text, _ = call("x\nx\n", "replace_text", old_text="x", new_text="y\r\nz", replace_all=True)
        assert text == "y\nz\ny\nz\n"

    def test_a_document_without_line_breaks_takes_new_text_as_sent(self) -> None:
        text, outcome = call("one line", "replace_text", old_text="one", new_text="1\r\n2")
        assert text == "1\r\n2 line"
        assert outcome.adjustments == ()


class TestSetDocument:
    def test_crlf_content_in_an_lf_document_is_written_with_lf(self) -> None:
        text, outcome = call("a\nb\n", "set_document", content="x\r\ny\r\n")
        assert text == "x\ny\n"
        assert "written as LF" in outcome.response["result"]
        assert outcome.adjustments == ("line_endings",)

    def test_cr_content_in_a_crlf_document(self) -> None:
        text, outcome = call("a\r\nb\r\n", "set_document", content="x\ry\r")
        assert text == "x\r\ny\r\n"
        assert outcome.adjustments == ("line_endings",)

    def test_lf_content_in_a_crlf_document_counts_no_slip(self) -> None:
        text, outcome = call("a\r\nb\r\n", "set_document", content="x\ny\n")
        assert text == "x\r\ny\r\n"
        assert outcome.adjustments == ()


# ------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------


@st.composite
def documents(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Distinct lines and their terminators (any kind; the last line may have none)."""
    size = draw(st.integers(1, 12))
    terminators = draw(st.lists(st.sampled_from(ENDINGS), min_size=size, max_size=size))
    if draw(st.booleans()):
        terminators[-1] = ""
    return [f"line<{i}>" for i in range(size)], terminators


def most_frequent(terminators: list[str]) -> str | None:
    present = [t for t in terminators if t]
    if not present:
        return None
    order = {"\r\n": 0, "\n": 1, "\r": 2}
    return min(set(present), key=lambda kind: (-present.count(kind), order[kind]))


@given(doc=documents(), data=st.data())
def test_new_lines_take_their_lines_ending_and_no_existing_break_changes(
    doc: tuple[list[str], list[str]], data: st.DataObject
) -> None:
    """One line grown into three with breaks of any kind: the added breaks are that line's
    own ending (the document's most frequent when it has none), and every break the document
    had is still there, unchanged, in the same order."""
    lines, terminators = doc
    index = data.draw(st.integers(0, len(lines) - 1))
    sent = data.draw(st.lists(st.sampled_from(ENDINGS), min_size=2, max_size=2))
    new = lines[index] + sent[0] + "added_a" + sent[1] + "added_b"
    text = "".join(line + end for line, end in zip(lines, terminators, strict=True))
    toolbox = Toolbox(text)
    outcome = toolbox.execute("replace_text", {"old_text": lines[index], "new_text": new})
    assert outcome.ok, outcome.response
    ending = terminators[index] or most_frequent(terminators)
    if ending is None:  # no break anywhere: the text as sent
        ending_a, ending_b = sent
    else:
        ending_a = ending_b = ending
    grown = lines[index] + ending_a + "added_a" + ending_b + "added_b"
    expected = list(zip(lines, terminators, strict=True))
    expected[index] = (grown, terminators[index])
    assert toolbox.text == "".join(line + end for line, end in expected)


@given(doc=documents(), data=st.data())
def test_repeated_lines_keep_their_exact_breaks(
    doc: tuple[list[str], list[str]], data: st.DataObject
) -> None:
    """new_text repeating old_text (the document's own bytes) and adding a line: the repeated
    part is byte-identical in the result, whatever kinds of break it mixes."""
    lines, terminators = doc
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start + 1, len(lines)))
    pairs = zip(lines[start:end], terminators[start:end], strict=True)
    old = "".join(line + t for line, t in pairs)
    old = old.rstrip("\r\n") if end == len(lines) else old
    sent = data.draw(st.sampled_from(ENDINGS))
    new = old + ("" if old.endswith(("\n", "\r")) else sent) + "added" + sent
    text = "".join(line + t for line, t in zip(lines, terminators, strict=True))
    toolbox = Toolbox(text)
    outcome = toolbox.execute("replace_text", {"old_text": old, "new_text": new})
    assert outcome.ok, outcome.response
    position = text.index(old)
    assert toolbox.text[: position + len(old)] == text[: position + len(old)]
    assert toolbox.text.endswith(text[position + len(old) :])


def test_a_whitespace_tolerant_match_says_what_became_of_crlf_new_text() -> None:
    text, outcome = call(
        "def f():\n    a = 1\n    b = 2\n",
        "replace_text",
        old_text="a = 1\nb = 2",
        new_text="a = 1\r\nc = 3\r\nb = 2",
    )
    assert text == "def f():\n    a = 1\n    c = 3\n    b = 2\n"
    result = outcome.response["result"]
    assert "new_text's CRLF line breaks were written as LF" in result
    assert "its line breaks were not the document's" not in result
    assert outcome.adjustments == ("indentation", "line_endings")
