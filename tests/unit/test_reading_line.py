"""Issue 30: every replace_text result says, in one line, which reading of the call was taken
(exact, or what was set aside or adapted), so the model and the user can tell."""

from __future__ import annotations

from typing import Any

import pytest

from complex_edit.edit_tools.registry import Toolbox


def result_lines(text: str, **args: Any) -> list[str]:
    outcome = Toolbox(text).execute("replace_text", args)
    assert outcome.ok, outcome.response
    return str(outcome.response["result"]).split("\n")


@pytest.mark.parametrize(
    ("text", "args", "reading"),
    [
        ("a = 1\n", {"old_text": "a = 1", "new_text": "a = 2"}, "Reading: exact."),
        (
            "if x:\n    a()\n    b()\n",
            {"old_text": "a()\nb()", "new_text": "a()\nc()"},
            "Reading: indentation.",
        ),
        (
            "a = 1  \nb = 2\n",
            {"old_text": "a = 1\nb = 2", "new_text": "a = 1\nb = 3"},
            "Reading: spaces at line ends.",
        ),
        (
            "x = 1\ny = 2\n",
            {"old_text": "x = 1\n\n", "new_text": "x = 3\n\n"},
            "Reading: blank lines.",
        ),
        (
            "one\ntwo\nthree\nfour\n",
            {
                "old_text": "one\ntwo\nthree\nfour\n",
                "new_text": "one\n# ... existing code ...\nfour\nfive\n",
            },
            "Reading: exact; elision expanded.",
        ),
        (
            "x\nx\n",
            {"old_text": "x", "new_text": "y", "replace_all": True},
            "Reading: exact.",
        ),
    ],
)
def test_the_reading_taken_is_said_in_one_line(
    text: str, args: dict[str, Any], reading: str
) -> None:
    lines = result_lines(text, **args)
    assert lines[1] == reading
    assert sum(line.startswith("Reading: ") for line in lines) == 1
