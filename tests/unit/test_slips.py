"""The scripted slip suite (`tests/data/slips.jsonl`, made by `tests/data/make_slips.py`):
every slipped replace_text call on real source is absorbed in one call with the expected
result, and every ambiguous one is refused without a change. 100%, no wrong-place edit.
The kinds of issue 22 say in the result what they adapted, each in its own words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from complex_edit.edit_tools.registry import Toolbox

SLIPS = Path(__file__).resolve().parent.parent / "data" / "slips.jsonl"


def load_cases() -> list[dict[str, Any]]:
    with SLIPS.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


CASES = load_cases()
# What the result says for the kinds of issues 22 and 30 (the earlier kinds: "did not match
# exactly").
SAID = {
    "crlf_new_text": "line breaks were written as LF",
    "cr_new_text": "line breaks were written as LF",
    "one_line_grows": "matched after the indentation of line",
    "uneven_indent": "by a different amount on different lines",
    "stray_blank_line": "which the document does not have there",
    "over_escaped": "escaped one time too many",
    "elision_pinned": "stood for",
    "reindented_twice": "written as sent, not shifted again",
    "grows_inside_indent": "matched inside the indentation of line",
    "placeholder_form": "stood for",
    "lazy_rewrite": "stood for",
    "replace_all_indented": "it matched 2 places once whitespace was set aside",
}
# What the refusal says for the ambiguous kinds of issues 22 and 30 (the earlier kind: "places").
REFUSED = {
    "ambiguous_escaped": "it occurs",
    "ambiguous_elision": "which lines it stands for is unclear",
    "ambiguous_half_shifted": "indented two ways",
    "ambiguous_inside_indent": "occurs",
    "ambiguous_placeholder_form": "which lines it stands for is unclear",
    "ambiguous_lazy_rewrite": "unclear",
    "ambiguous_replace_all_mixed": "places",
    "ambiguous_overlapping": "overlapping others",
}


def test_the_suite_is_large_and_varied() -> None:
    kinds = {case["kind"] for case in CASES}
    assert len(CASES) >= 40
    assert {"missing_base_indent", "tabs_for_spaces", "spaces_for_tabs", "ambiguous"} <= kinds
    assert "missing_trailing_whitespace" in kinds
    assert "crlf_missing_base_indent" in kinds
    assert set(SAID) | set(REFUSED) <= kinds


def call_of(case: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool call a case makes: replace_text, or set_document when it says so."""
    if case.get("tool") == "set_document":
        return "set_document", {"content": case["content"]}
    args = {"old_text": case["old_text"], "new_text": case["new_text"]}
    if case.get("replace_all"):
        args["replace_all"] = True
    return "replace_text", args


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_slip(case: dict[str, Any]) -> None:
    toolbox = Toolbox(case["document"])
    outcome = toolbox.execute(*call_of(case))
    if case["expected"] is None:
        assert not outcome.ok, f"{case['source']}: applied an ambiguous slip"
        assert toolbox.text == case["document"]
        assert REFUSED.get(case["kind"], "places") in outcome.response["error"]
    else:
        assert outcome.ok, outcome.response
        assert toolbox.text == case["expected"], f"{case['source']}: wrong result"
        assert SAID.get(case["kind"], "did not match exactly") in outcome.response["result"]
