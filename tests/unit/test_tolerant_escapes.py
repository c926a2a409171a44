"""Issue 20 item 3: text escaped one time too many (Gemini's `\\n`, `\\t`, `\\"` where the text
has a line break, a tab or a quote) is read back when, and only when, the text as written
matches nothing and the read-back old_text matches exactly one place; new_text is read back the
same way, and the result says so. Text that matches as written (LaTeX, C escapes, regular
expressions) stays byte-exact. A set_document that is one line of escaped text standing for a
document of many lines is read back too."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from complex_edit.edit_tools.escapes import unescape
from complex_edit.edit_tools.registry import Toolbox, ToolOutcome

DOC = 'def greet(name):\n    print("hello", name)\n    return name\n'


def run(text: str, name: str, **args: Any) -> tuple[Toolbox, ToolOutcome]:
    toolbox = Toolbox(text)
    return toolbox, toolbox.execute(name, args)


def escape(text: str) -> str:
    """As an over-escaping model writes it."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace('"', '\\"')


class TestReplaceText:
    def test_an_over_escaped_call_is_read_back(self) -> None:
        old = 'def greet(name):\n    print("hello", name)'
        new = 'def greet(name):\n    print("hi", name)\n    log(name)'
        toolbox, outcome = run(DOC, "replace_text", old_text=escape(old), new_text=escape(new))
        assert outcome.ok, outcome.response
        assert toolbox.text == DOC.replace(old, new)
        result = outcome.response["result"]
        assert 'escape sequences (\\", \\n) were read as the characters' in result
        assert outcome.adjustments == ("escapes",)
        assert outcome.summary.endswith("(escapes read back)")

    def test_escaped_backslashes_and_tabs(self) -> None:
        doc = 'path = "C:\\\\temp"\n\tindent()\n'
        old = 'path = "C:\\\\temp"\n\tindent()'
        toolbox, outcome = run(
            doc, "replace_text", old_text=escape(old), new_text=escape(old.replace("temp", "t"))
        )
        assert outcome.ok, outcome.response
        assert toolbox.text == doc.replace("temp", "t")

    def test_latex_that_matches_as_written_stays_byte_exact(self) -> None:
        doc = "\\title{A}\n\\newline\n"
        toolbox, outcome = run(doc, "replace_text", old_text="\\title{A}", new_text="\\title{B}\\n")
        assert outcome.ok
        assert toolbox.text == "\\title{B}\\n\n\\newline\n"
        assert outcome.adjustments == ()

    def test_c_escapes_that_match_as_written_stay_byte_exact(self) -> None:
        doc = 'printf("a\\n");\nprintf("b\\t");\n'
        toolbox, outcome = run(
            doc, "replace_text", old_text='printf("a\\n");', new_text='printf("a\\n\\n");'
        )
        assert outcome.ok
        assert toolbox.text == 'printf("a\\n\\n");\nprintf("b\\t");\n'

    def test_a_regex_matched_as_written(self) -> None:
        doc = 'PATTERN = re.compile(r"\\s+\\n")\n'
        toolbox, outcome = run(doc, "replace_text", old_text="\\s+\\n", new_text="\\s*\\n")
        assert outcome.ok
        assert toolbox.text == 'PATTERN = re.compile(r"\\s*\\n")\n'

    def test_quotes_escaped_and_written_raw_in_one_call_are_refused(self) -> None:
        toolbox, outcome = run(
            DOC, "replace_text", old_text='print(\\"hello\\", name)', new_text='print("hi", name)'
        )
        assert not outcome.ok
        assert "which backslashes belong to the text is unclear" in outcome.response["error"]
        assert toolbox.text == DOC

    def test_read_back_at_two_places_is_refused(self) -> None:
        doc = 'a = "x"\nb = 1\na = "x"\n'
        toolbox, outcome = run(doc, "replace_text", old_text='a = \\"x\\"', new_text='a = \\"y\\"')
        assert not outcome.ok
        assert toolbox.text == doc
        assert "as the characters they stand for, it occurs 2 times" in outcome.response["error"]

    def test_nothing_matches_even_read_back(self) -> None:
        _, outcome = run(DOC, "replace_text", old_text="missing\\nlines", new_text="x")
        assert outcome.response["error"].startswith("No match")


class TestSetDocument:
    def test_one_line_of_escaped_text_is_read_back(self) -> None:
        content = escape(DOC.replace("hello", "hi"))
        toolbox, outcome = run(DOC, "set_document", content=content)
        assert outcome.ok, outcome.response
        assert toolbox.text == DOC.replace("hello", "hi")
        assert "one line of escaped text" in outcome.response["result"]
        assert outcome.adjustments == ("escapes",)

    def test_crlf_document(self) -> None:
        doc = DOC.replace("\n", "\r\n")
        toolbox, outcome = run(doc, "set_document", content=escape(DOC.replace("name)", "n)")))
        assert outcome.ok
        assert toolbox.text == doc.replace("name)", "n)")

    def test_a_one_line_program_is_written_as_sent(self) -> None:
        content = 'printf("a\\nb\\nc\\n");'
        toolbox, outcome = run(DOC, "set_document", content=content)
        assert outcome.ok
        assert toolbox.text == content
        assert outcome.adjustments == ()

    def test_a_small_document_is_written_as_sent(self) -> None:
        toolbox, _ = run("x = 1\n", "set_document", content="a\\nb\\nc")
        assert toolbox.text == "a\\nb\\nc"

    def test_escaped_and_raw_quotes_are_refused(self) -> None:
        content = 'a = 1\\nb = "x\\"y"\\nc = 3\\n'
        toolbox, outcome = run("a = 1\nb = 2\nc = 3\n", "set_document", content=content)
        assert not outcome.ok
        assert "cannot be read back safely" in outcome.response["error"]
        assert toolbox.text == "a = 1\nb = 2\nc = 3\n"


# ------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------

PIECES = ["\\n", "\\t", '\\"', "\\\\", "\\title", "a", "b", " ", '"', "\n", "x"]
pieces = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join)


@given(before=pieces, middle=pieces, after=pieces, new=pieces)
def test_text_that_matches_as_written_is_never_read_back(
    before: str, middle: str, after: str, new: str
) -> None:
    """Whenever old_text occurs once as written, it is what gets replaced, and new_text is
    written byte for byte (its line breaks aside, which take the document's)."""
    text = before + middle + after
    # Once, overlapping places counted too: the tool, like str.count, takes the leftmost of
    # two overlapping ones, which need not be the one at len(before).
    places = sum(text.startswith(middle, i) for i in range(len(text)))
    assume(places == 1 and middle.strip() and middle != new)
    assume("\r" not in new)
    toolbox = Toolbox(text)
    outcome = toolbox.execute("replace_text", {"old_text": middle, "new_text": new})
    assert "escapes" not in outcome.adjustments
    if outcome.ok and not outcome.adjustments:
        assert toolbox.text == before + new + after


@given(lines=st.lists(st.sampled_from(['x = "a"', "\ty()", "z = 'b'", "w"]), min_size=2))
def test_an_escaped_copy_reads_back_to_the_text(lines: list[str]) -> None:
    text = "\n".join(lines)
    escaped = escape(text)
    read = unescape(escaped)
    assert read is not None
    assert read.text == text


@given(
    size=st.integers(2, 12),
    data=st.data(),
    quoted=st.booleans(),
)
def test_a_read_back_call_edits_only_its_lines(
    size: int, data: st.DataObject, quoted: bool
) -> None:
    """An over-escaped run of lines is replaced where it stands; every other line stays
    byte-identical."""
    lines = [f'    call_{i}("{i}")' if quoted else f"\tcall_{i}()" for i in range(size)]
    start = data.draw(st.integers(0, size - 1))
    end = data.draw(st.integers(start + 1, size))
    run_text = "\n".join(lines[start:end])
    edited = [line.replace("call_", "edited_") for line in lines[start:end]]
    text = "\n".join(lines) + "\n"
    old, new = escape(run_text), escape("\n".join(edited))
    assume(old not in text)
    toolbox, outcome = run(text, "replace_text", old_text=old, new_text=new)
    assert outcome.ok, outcome.response
    assert outcome.adjustments == ("escapes",)
    assert toolbox.text == "\n".join([*lines[:start], *edited, *lines[end:]]) + "\n"
