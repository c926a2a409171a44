"""Issue 22 item 3: a block that differs from old_text only in leading whitespace, by a
different amount on different lines, is replaced when it is the one place with these lines;
new_text is re-indented line by line from the matched lines, and the lines it repeats keep the
document's exact text. Several such places are refused."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import assume, given
from hypothesis import strategies as st

from complex_edit.edit_tools.registry import Toolbox

DOC = (
    "class A:\n"
    "    def f(self):\n"
    "        if x:\n"
    "            y = 1\n"
    "            z = 2\n"
    "        return y\n"
)
# Nested two spaces deep instead of four: the offset grows with the depth.
OLD = "def f(self):\n  if x:\n    y = 1\n    z = 2\n  return y"


def test_a_reflowed_block_is_replaced_and_reindented_line_by_line() -> None:
    toolbox = Toolbox(DOC)
    new = "def f(self):\n  if x:\n    y = 1\n    w = 3\n    z = 2\n  log()\n  return y"
    outcome = toolbox.execute("replace_text", {"old_text": OLD, "new_text": new})
    assert outcome.ok, outcome.response
    assert toolbox.text == (
        "class A:\n    def f(self):\n        if x:\n            y = 1\n            w = 3\n"
        "            z = 2\n        log()\n        return y\n"
    )
    result = outcome.response["result"]
    assert "by a different amount on different lines" in result
    assert "re-indented line by line from the matched lines" in result
    assert outcome.adjustments == ("indentation",)


def test_a_new_nesting_level_is_shifted_from_the_nearest_line() -> None:
    toolbox = Toolbox(DOC)
    new = "def f(self):\n  if x:\n    y = 1\n    if y:\n      z = 2\n  return y"
    assert toolbox.execute("replace_text", {"old_text": OLD, "new_text": new}).ok
    assert "            if y:\n              z = 2\n" in toolbox.text


def test_tabs_in_the_document_stay_tabs() -> None:
    tabbed = DOC.replace("    ", "\t")
    toolbox = Toolbox(tabbed)
    new = OLD.replace("z = 2", "z = 3")
    assert toolbox.execute("replace_text", {"old_text": OLD, "new_text": new}).ok
    assert toolbox.text == tabbed.replace("z = 2", "z = 3")


def test_two_places_with_these_lines_are_refused() -> None:
    doc = DOC + "\n\ndef g():\n    if x:\n        y = 1\n        z = 2\n    return y\n"
    old = "if x:\n  y = 1\n  z = 2\nreturn y"  # uneven against both places
    toolbox = Toolbox(doc.replace("def f(self)", "def h(self)"))
    outcome = toolbox.execute("replace_text", {"old_text": "  " + old, "new_text": "pass"})
    assert not outcome.ok
    assert "matches 2 places" in outcome.response["error"]
    assert toolbox.text == doc.replace("def f(self)", "def h(self)")


def test_a_uniform_match_elsewhere_is_preferred_to_an_uneven_one() -> None:
    doc = "if a:\n    b()\n    c()\n\nif a:\n  b()\n    c()\n"
    toolbox = Toolbox(doc)
    old = "  if a:\n      b()\n      c()"  # two more columns than the first, uneven for the second
    outcome = toolbox.execute("replace_text", {"old_text": old, "new_text": "  x()"})
    assert outcome.ok, outcome.response
    assert toolbox.text == "x()\n\nif a:\n  b()\n    c()\n"


# ------------------------------------------------------------------------------------------
# Properties
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Program:
    levels: list[int | None]  # None: a blank line
    tabs: bool

    def line(self, index: int, unit: str | None = None) -> str:
        level = self.levels[index]
        if level is None:
            return ""
        return (unit or ("\t" if self.tabs else "    ")) * level + f"stmt_{index}()"


@st.composite
def programs(draw: st.DrawFn) -> Program:
    size = draw(st.integers(3, 16))
    levels: list[int | None] = []
    level = 0
    for _ in range(size):
        if levels and draw(st.integers(0, 5)) == 0:
            levels.append(None)
            continue
        level = max(0, level + draw(st.integers(-1, 1)))
        levels.append(level)
    return Program(levels, draw(st.booleans()))


@given(program=programs(), data=st.data())
def test_an_uneven_slip_edits_only_its_lines_and_keeps_repeated_lines_exact(
    program: Program, data: st.DataObject
) -> None:
    """old_text: a run of lines re-indented with a random number of spaces per level (so the
    offset differs between levels); new_text: the same with one line changed and one added.
    The result: the document outside the run byte-identical; the run replaced by as many lines
    as new_text has, the repeated ones exactly the document's."""
    count = len(program.levels)
    start = data.draw(st.integers(0, count - 2))
    end = data.draw(st.integers(start + 2, min(count, start + 6)))
    filled = [i for i in range(start, end) if program.levels[i] is not None]
    assume(len({program.levels[i] for i in filled}) >= 2)  # two depths: an uneven offset
    unit = " " * data.draw(st.sampled_from([1, 2, 3]))
    old_lines = [program.line(i, unit) for i in range(start, end)]
    changed = data.draw(st.sampled_from(filled))
    new_lines = list(old_lines)
    new_lines[changed - start] = old_lines[changed - start].replace("stmt_", "changed_")
    new_lines.insert(changed - start + 1, old_lines[changed - start].replace("stmt_", "added_"))
    doc_lines = [program.line(i) for i in range(count)]
    text = "\n".join(doc_lines) + "\n"
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    assume(old not in text)
    toolbox = Toolbox(text)
    outcome = toolbox.execute("replace_text", {"old_text": old, "new_text": new})
    assert outcome.ok, outcome.response
    result = toolbox.text.split("\n")[:-1]
    size = len(new_lines)
    assert result[:start] == doc_lines[:start]
    assert result[start + size :] == doc_lines[end:]
    middle = result[start : start + size]
    for j, line in enumerate(new_lines):
        if line in old_lines:  # a repeated line: the document's own text
            assert middle[j] == doc_lines[start + old_lines.index(line)]
        else:
            assert middle[j].strip() == line.strip()
    edited = middle[changed - start]
    assert edited == doc_lines[changed].replace("stmt_", "changed_")
