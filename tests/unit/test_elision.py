"""The elision guard of set_document and replace_text: a new placeholder line standing where
original lines were dropped is expanded from the original when the lines around it pin it
down, refused otherwise; legitimate `...` (Python Ellipsis, spreads, variadics, strings,
placeholders the original already had) is left alone."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from complex_edit.edit_tools.elision import check
from complex_edit.edit_tools.placeholders import is_placeholder
from complex_edit.edit_tools.registry import Toolbox, ToolOutcome

ORIGINAL = """import os


def a():
    x = 1
    y = 2
    return x + y


def b():
    return 3


def c():
    return 4
"""


def run(text: str, name: str, **args: Any) -> tuple[Toolbox, ToolOutcome]:
    toolbox = Toolbox(text)
    return toolbox, toolbox.execute(name, args)


def refused(text: str, name: str, **args: Any) -> str:
    toolbox, outcome = run(text, name, **args)
    assert not outcome.ok, outcome.response
    assert toolbox.text == text
    assert outcome.summary == f"{name}: error: elision placeholder"
    message = outcome.response["error"]
    assert isinstance(message, str)
    return message


def accepted(text: str, name: str, **args: Any) -> tuple[str, ToolOutcome]:
    toolbox, outcome = run(text, name, **args)
    assert outcome.ok, outcome.response
    return toolbox.text, outcome


class TestSetDocument:
    def test_a_placeholder_for_a_body_is_expanded(self) -> None:
        content = ORIGINAL.replace(
            "    x = 1\n    y = 2\n    return x + y\n", "    # ... existing code ...\n"
        ).replace("return 3", "return 30")
        text, outcome = accepted(ORIGINAL, "set_document", content=content)
        assert text == ORIGINAL.replace("return 3", "return 30")
        result = outcome.response["result"]
        assert "'# ... existing code ...' (line 5 of `content`) stood for lines 5-7" in result
        assert outcome.adjustments == ("elision_expanded",)

    def test_placeholders_at_the_start_and_the_end_are_anchored_by_the_text_ends(self) -> None:
        content = (
            "// ... existing code ...\ndef b():\n    return 30\n\n\ndef c():\n"
            "    // rest of the function unchanged\n"
        )
        text, _ = accepted(ORIGINAL, "set_document", content=content)
        assert text == ORIGINAL.replace("return 3", "return 30")

    def test_a_placeholder_right_beside_a_changed_line_is_refused(self) -> None:
        content = "def b():\n    return 30\n// rest of the file unchanged\n"
        assert "among new or changed lines" in refused(ORIGINAL, "set_document", content=content)

    def test_expanded_to_nothing_new_says_no_change(self) -> None:
        text, outcome = accepted(ORIGINAL, "set_document", content="import os\n# ...\n")
        assert text == ORIGINAL
        assert outcome.response["result"].startswith("No change")
        assert "stood for" in outcome.response["result"]

    def test_dots_in_place_of_lines_with_dots_are_still_a_placeholder(self) -> None:
        original = "const a = {\n  ...base,\n  b: 1,\n};\n"
        text, _ = accepted(original, "set_document", content="const a = {\n  ...\n};\n")
        assert text == original

    def test_a_placeholder_among_changed_lines_is_refused(self) -> None:
        content = ORIGINAL.replace(
            "    x = 1\n    y = 2\n    return x + y\n",
            "    # ... existing code ...\n    return x * y\n",
        )
        message = refused(ORIGINAL, "set_document", content=content)
        assert "line 5 of `content`, '# ... existing code ...'" in message
        assert "3 lines of the document (lines 5-7)" in message
        assert "replace_text" in message
        assert "complete text" in message

    def test_a_placeholder_whose_surroundings_repeat_is_refused(self) -> None:
        original = "if a:\n    go()\n    x = 1\n    y = 2\nif a:\n    go()\n    x = 1\n"
        content = "if a:\n    go()\n    # ...\nif a:\n    go()\n    x = 1\n"
        message = refused(original, "set_document", content=content)
        assert "occur more than once" in message

    def test_dropped_lines_found_elsewhere_are_not_restored(self) -> None:
        content = "def c():\n    return 4\n\n\n" + ORIGINAL.replace(
            "def c():\n    return 4\n", "# ... rest unchanged\n"
        )
        assert "moved" in refused(ORIGINAL, "set_document", content=content)

    def test_undo_reverts_an_expanded_change(self) -> None:
        toolbox, outcome = run(
            ORIGINAL, "set_document", content=ORIGINAL.replace("    y = 2\n", "    # ...\n") + "#\n"
        )
        assert outcome.ok
        assert toolbox.execute("undo", {}).ok
        assert toolbox.text == ORIGINAL

    def test_crlf_bom_and_no_final_newline_survive_an_expansion(self) -> None:
        original = "\ufeffa\r\nb\r\nc\r\nd\r\ne"
        text, _ = accepted(original, "set_document", content="a\n// ...\nd\nE")
        assert text == "\ufeffa\r\nb\r\nc\r\nd\r\nE"

    def test_a_full_copy_is_not_assumed_after_an_expansion(self) -> None:
        toolbox = Toolbox(ORIGINAL, elide_repeated_views=True)
        content = ORIGINAL.replace("    y = 2\n", "    # ...\n") + "# end\n"
        assert toolbox.execute("set_document", {"content": content}).ok
        shown = toolbox.execute("get_document", {}).response["result"]
        assert "y = 2" in shown


class TestReplaceText:
    def test_a_placeholder_in_new_text_is_expanded_from_old_text(self) -> None:
        text, outcome = accepted(
            ORIGINAL,
            "replace_text",
            old_text="def a():\n    x = 1\n    y = 2\n    return x + y\n",
            new_text="def a():\n    # ... existing code ...\n    return x + y\n    # done\n",
        )
        assert text == ORIGINAL.replace("return x + y\n", "return x + y\n    # done\n")
        assert "stood for lines 5-6" in outcome.response["result"]

    def test_a_placeholder_next_to_a_change_is_refused(self) -> None:
        message = refused(
            ORIGINAL,
            "replace_text",
            old_text="def a():\n    x = 1\n    y = 2\n    return x + y\n",
            new_text="def a():\n    ...\n    return x * y\n",
        )
        assert "line 2 of `new_text`, '...'" in message
        assert "old_text and new_text" in message

    def test_new_text_that_is_only_a_placeholder_changes_nothing(self) -> None:
        toolbox, outcome = run("a\nfoo\nb\n", "replace_text", old_text="foo", new_text="// ...")
        assert not outcome.ok
        assert toolbox.text == "a\nfoo\nb\n"
        assert outcome.response["error"].startswith("Nothing to change")

    def test_tolerant_match_and_expansion_together(self) -> None:
        text, outcome = accepted(
            ORIGINAL,
            "replace_text",
            old_text="x = 1\ny = 2\nreturn x + y",
            new_text="x = 1\n// ...\nreturn x + y\nlog()",
        )
        assert text == ORIGINAL.replace("return x + y\n", "return x + y\n    log()\n")
        assert outcome.adjustments == ("indentation", "elision_expanded")


PINNED = """def f():
    a = compute(1)

    b = 2
    c = 3

    return a + b + c


def g():
    return 4
"""


class TestPinnedByEditedLines:
    """Issue 22 item 5: blank neighbours anchor nothing, but the edited lines beyond them do."""

    def test_set_document_between_two_edited_lines(self) -> None:
        content = PINNED.replace("compute(1)", "compute(10)").replace(
            "    b = 2\n    c = 3\n", "    # ... unchanged ...\n"
        )
        content = content.replace("return a + b + c", "return a + b + c + 1")
        text, outcome = accepted(PINNED, "set_document", content=content)
        expected = PINNED.replace("compute(1)", "compute(10)")
        assert text == expected.replace("return a + b + c", "return a + b + c + 1")
        assert "stood for lines 4-5" in outcome.response["result"]
        assert outcome.adjustments == ("elision_expanded",)

    def test_replace_text_pinned_by_the_start_and_an_edited_line(self) -> None:
        old = "\n    b = 2\n    c = 3\n\n    return a + b + c\n"
        new = "\n    # ...\n\n    return a + b + c + 1\n"
        text, _ = accepted(PINNED, "replace_text", old_text=old, new_text=new)
        assert text == PINNED.replace("return a + b + c", "return a + b + c + 1")

    def test_an_edited_line_like_two_original_lines_pins_nothing(self) -> None:
        original = PINNED.replace("    b = 2\n", "    a = compute(2)\n")
        content = original.replace("compute(1)", "compute(10)").replace(
            "    a = compute(2)\n    c = 3\n", "    # ... unchanged ...\n"
        )
        content = content.replace("return a + b + c", "return a + b + c + 1")
        assert "occur more than once" in refused(original, "set_document", content=content)

    def test_an_inserted_line_beyond_the_blank_lines_pins_nothing(self) -> None:
        content = PINNED.replace("    a = compute(1)\n", "    a = compute(1)\n    log()\n")
        content = content.replace("    b = 2\n    c = 3\n", "    # ... unchanged ...\n")
        content = content.replace("return a + b + c", "return a + b + c + 1")
        assert "occur more than once" in refused(PINNED, "set_document", content=content)


class TestLeftAlone:
    @pytest.mark.parametrize(
        ("original", "content"),
        [
            # Python stubs: a body replaced by the Ellipsis, a one-line stub, a new stub.
            ("def f():\n    return 1\n", "def f():\n    ...\n"),
            ('def f():\n    """Doc."""\n    return 1\n', 'def f():\n    """Doc."""\n    ...\n'),
            ("class P:\n    x: int\n    y: int\n", "class P:\n    ...\n"),
            ("def f():\n    return 1\n", "def f(): ...\n"),
            ("x = 1\n", "x = 1\n\ndef g():\n    ...\n"),
            # Spreads, variadics, Ellipsis in expressions and strings.
            ("f(a, b)\n", "f(\n  ...args,\n)\n"),
            ("const o = {\n  a: 1,\n  b: 2,\n};\n", "const o = {\n  ...rest,\n};\n"),
            ("func f(a int) {\n}\n", "func f(args ...int) {\n}\n"),
            ("x = compute()\n", "x = ...\n"),
            ("print('a')\nprint('b')\n", "print('Loading...')\n"),
            ("a[1, 2]\nb\n", "a[..., 2]\n"),
            # A placeholder the original already had, and one in a docstring kept as it was.
            ("# ... existing code ...\nx = 1\ny = 2\n", "# ... existing code ...\nx = 3\n"),
            ('"""Usage:\n...\n"""\nx = 1\ny = 2\n', '"""Usage:\n...\n"""\nx = 3\n'),
            # New lines that merely mention dots or the rest, dropping nothing.
            ("a = 1\nb = 2\n", "a = 1\n# ... existing code ...\nb = 2\n"),
            # A changed comment that keeps most of its words.
            ("# wait for the rest of them\nx = 1\n", "# wait for the rest... of them\nx = 1\n"),
            # Real comments that are not placeholders, replacing code.
            ("a()\nb()\nc()\n", "a()\n# Process the remaining items...\nc()\n"),
            ("a()\nb()\nc()\n", "a()\n# Leave x unchanged if it is missing\nc()\n"),
        ],
    )
    def test_legitimate_text_is_written_as_sent(self, original: str, content: str) -> None:
        text, outcome = accepted(original, "set_document", content=content)
        assert text == content
        assert outcome.adjustments == ()
        assert not check(original, content).elisions

    def test_a_placeholder_the_snapshot_had_is_not_new(self) -> None:
        toolbox = Toolbox("# ...\nx = 1\ny = 2\n")
        assert toolbox.execute("set_document", {"content": "x = 1\ny = 2\n"}).ok
        assert toolbox.execute("set_document", {"content": "# ...\nx = 1\n"}).ok
        assert toolbox.text == "# ...\nx = 1\n"


@pytest.mark.parametrize(
    "line",
    [
        "# ... existing code ...",
        "// ... existing code ...",
        "/* ... */",
        "<!-- ... -->",
        "{/* ... existing code ... */}",
        "-- rest of the function unchanged",
        "; ...",
        "# ... (unchanged)",
        "// keep the rest",
        "...",
        "…",
        "... existing code ...",
        "...  # unchanged",
        "# existing code here",
        "// code omitted for brevity",
    ],
)
def test_every_comment_style_is_a_placeholder(line: str) -> None:
    assert is_placeholder(line)
    original = "start()\none()\ntwo()\nend()\n"
    text, outcome = accepted(original, "set_document", content=f"start()\n{line}\nend()\n")
    assert text == original
    assert outcome.adjustments == ("elision_expanded",)


@pytest.mark.parametrize(
    "line",
    ["...args", "...rest,", "  ...existing", "def f(): ...", "x = ...", "# TODO ...", "foo(...)"],
)
def test_code_with_dots_is_no_placeholder(line: str) -> None:
    assert not is_placeholder(line)


# ------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------

PLACEHOLDERS = st.sampled_from(
    ["# ... existing code ...", "// rest of the function unchanged", "/* ... */", "…", "..."]
)


@st.composite
def programs(draw: st.DrawFn) -> list[str]:
    """Lines of distinct statements at random depths, with blank lines."""
    size = draw(st.integers(3, 30))
    lines: list[str] = []
    depth = 0
    for index in range(size):
        if draw(st.integers(0, 5)) == 0:
            lines.append("")
            continue
        depth = max(0, depth + draw(st.integers(-1, 1)))
        lines.append("    " * depth + f"call_{index}(x)")
    return lines


@given(lines=programs(), placeholder=PLACEHOLDERS, data=st.data())
def test_a_synthetic_elision_is_always_caught(
    lines: list[str], placeholder: str, data: st.DataObject
) -> None:
    """A span with a non-blank line replaced by a placeholder is expanded back into exactly the
    original, or refused; never written."""
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start + 1, len(lines)))
    assume(any(line.strip() for line in lines[start:end]))
    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
    new_lines = [*lines[:start], indent + placeholder, *lines[end:]]
    # A bare `...` as the whole body of a def is a stub, and these lines have no def.
    original = "\n".join(lines) + "\n"
    new = "\n".join(new_lines) + "\n"
    checked = check(original, new)
    assert checked.elisions
    if not checked.refused:
        assert checked.text == original
    toolbox = Toolbox(original)
    outcome = toolbox.execute("set_document", {"content": new})
    assert toolbox.text == original
    assert outcome.ok == (not checked.refused)


NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=6, max_size=12)


@given(names=st.lists(NAMES, min_size=6, max_size=14, unique=True), data=st.data())
def test_an_elision_pinned_by_edited_lines_is_the_original_or_refused(
    names: list[str], data: st.DataObject
) -> None:
    """Statements in blank-line-separated groups; the model edits a line, keeps a blank line,
    writes a placeholder for the next group, keeps a blank line and edits the following line.
    The result is the original with the two edits, or a refusal; never anything else."""
    groups: list[list[str]] = []
    rest = list(names)
    while rest:
        size = data.draw(st.integers(1, 3))
        groups.append([f"    {name} = {name}_value()" for name in rest[:size]])
        rest = rest[size:]
    assume(len(groups) >= 3)
    at = data.draw(st.integers(1, len(groups) - 2))
    lines = [line for group in groups for line in [*group, ""]]
    first = sum(len(group) + 1 for group in groups[:at])  # the placeholder's group
    before, after = first - 2, first + len(groups[at]) + 1  # the edited lines
    new = list(lines)
    new[before] = new[before].replace("_value()", "_value(1)")
    new[after] = new[after].replace("_value()", "_value(2)")
    new[first : first + len(groups[at])] = ["    # ... unchanged ..."]
    original = "\n".join(lines) + "\n"
    checked = check(original, "\n".join(new) + "\n")
    assert checked.elisions
    if not checked.refused:
        edited = list(lines)
        edited[before], edited[after] = new[before], new[after + 1 - len(groups[at])]
        assert checked.text == "\n".join(edited) + "\n"


@given(lines=programs(), data=st.data())
def test_legitimate_ellipsis_edits_never_fire(lines: list[str], data: st.DataObject) -> None:
    """Edits that write `...` as code (a stub body, a spread, a variadic, an Ellipsis value) or
    delete lines never fire the guard."""
    original = "\n".join(lines) + "\n"
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start, len(lines)))
    kind = data.draw(st.sampled_from(["stub", "spread", "variadic", "value", "delete"]))
    if kind == "stub":  # a def's body ends where the next line is indented less
        assume(all(not line.startswith(" ") for line in lines[end:]))
    inserted = {
        "stub": ["def stubbed(x):", "    ..."],
        "spread": ["f(", "    ...args,", ")"],
        "variadic": ["func g(values ...int) {", "}"],
        "value": ["x = ..."],
        "delete": [],
    }[kind]
    new = "\n".join([*lines[:start], *inserted, *lines[end:]]) + "\n"
    assert not check(original, new).elisions
    toolbox = Toolbox(original)
    assert toolbox.execute("set_document", {"content": new}).ok
    assert toolbox.text == new
