"""Issue 30 item 3: placeholder lines in parenthesised and reworded forms, in any language's
comment syntax, are recognised: expanded back into the lines they stood for when that is
unambiguous, refused otherwise, never written. Comments that merely mention "rest" or
"unchanged" are not placeholders."""

from __future__ import annotations

import pytest

from complex_edit.edit_tools.placeholders import is_placeholder
from complex_edit.edit_tools.registry import Toolbox

FORMS = [
    "(rest of methods ...)",
    "// (unchanged code ...)",
    "# (rest of code ...)",
    "/* ... same as before ... */",
    "<!-- rest unchanged -->",
    "-- remaining cases omitted",
    "% rest of the proof unchanged",
    "(* ... existing code ... *)",
    "{- rest unchanged -}",
    "' ... existing code ...",
    "REM rest unchanged",
    '" rest of config unchanged',
    "# (same as before)",
    "# Rest of the implementation omitted for brevity",
    "{# ... existing blocks ... #}",
    "<%-- rest unchanged --%>",
    "// (rest unchanged)",
]

MENTIONS = [
    "# the rest of the arguments are passed to the callback",
    "// unchanged since the 2.0 release",
    "# rest: the remaining positional arguments",
    "/* rest parameters are collected into an array */",
    "-- remaining cases fall through to the default",
    "% the rest of the proof follows from Lemma 2",
    "# (the rest of the fields are optional)",
    "# (see the rest of the docs)",
    "(unchanged)",
    "(more ...)",
    "[...]",
    '"..."',
    'print("rest unchanged")',
    "x = (rest ...)",
    "(...rest)",
]


@pytest.mark.parametrize("line", FORMS)
def test_placeholder_forms_are_recognised(line: str) -> None:
    assert is_placeholder(line)
    assert is_placeholder("    " + line)


@pytest.mark.parametrize("line", MENTIONS)
def test_near_miss_lines_that_merely_mention_rest_are_not_placeholders(line: str) -> None:
    assert not is_placeholder(line)


CLASS = "class A:\n    def f(self):\n        return 1\n    def g(self):\n        return 2\n"


@pytest.mark.parametrize("form", ["# (rest of methods ...)", "# (unchanged code ...)"])
def test_a_parenthesised_placeholder_is_expanded_when_pinned(form: str) -> None:
    doc = CLASS + "\nx = 1\n"
    toolbox = Toolbox(doc)
    new = f"class A:\n    {form}\n\nx = 2\n"
    outcome = toolbox.execute("replace_text", {"old_text": doc, "new_text": new})
    assert outcome.ok, outcome.response
    assert toolbox.text == CLASS + "\nx = 2\n"
    assert "elision_expanded" in outcome.adjustments


def test_an_sql_placeholder_is_expanded() -> None:
    doc = "CASE x\n  WHEN 1 THEN a\n  WHEN 2 THEN b\n  WHEN 3 THEN c\nEND\n"
    toolbox = Toolbox(doc)
    new = "CASE y\n  WHEN 1 THEN a\n  -- remaining cases omitted\nEND\n"
    outcome = toolbox.execute("replace_text", {"old_text": doc, "new_text": new})
    assert outcome.ok, outcome.response
    assert toolbox.text == doc.replace("CASE x", "CASE y")


def test_a_placeholder_among_changed_lines_is_refused() -> None:
    doc = "<ul>\n  <li>one</li>\n  <li>two</li>\n  <li>three</li>\n</ul>\n"
    toolbox = Toolbox(doc)
    outcome = toolbox.execute(
        "replace_text",
        {
            "old_text": "  <li>one</li>\n  <li>two</li>\n  <li>three</li>",
            "new_text": "  <li>ONE</li>\n  <!-- (rest unchanged ...) -->",
        },
    )
    assert not outcome.ok
    assert outcome.refusal == "elision_refused"
    assert toolbox.text == doc


def test_near_miss_a_comment_mentioning_rest_is_written() -> None:
    doc = "def f(*rest):\n    return g(*rest)\n"
    toolbox = Toolbox(doc)
    new = "    # the rest of the arguments are passed on\n    return g(*rest)"
    outcome = toolbox.execute("replace_text", {"old_text": "    return g(*rest)", "new_text": new})
    assert outcome.ok, outcome.response
    assert toolbox.text == "def f(*rest):\n" + new + "\n"
