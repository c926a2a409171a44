"""Slips absorbed in one call (issues 14 and 22): the scripted slip suite
`tests/data/slips.jsonl` (real source with the slips models make in replace_text: whitespace
in old_text, and since issue 22 line endings of new_text, a one-line match that grows, uneven
indentation, stray blank lines, over-escaped text, elisions pinned by edited lines) run
through the Toolbox. Goal: ≥ 95% absorbed in the same call, 0 wrong-place edits, every
ambiguous case refused.

    .venv/bin/python bench/bench_slips.py

Prints a Markdown table per slip kind: cases, absorbed (the expected result in one call),
wrong results, refused, and how many of the calls the exact matcher alone finds (it finds the
calls of issue 22's line-ending, growing and elision kinds, and wrote a wrong text or refused
them before issue 22).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from complex_edit.edit_tools.matching import find_match  # noqa: E402
from complex_edit.edit_tools.registry import Toolbox  # noqa: E402

SLIPS = ROOT / "tests" / "data" / "slips.jsonl"


def call_of(case: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool call a case makes: replace_text, or set_document when it says so."""
    if case.get("tool") == "set_document":
        return "set_document", {"content": case["content"]}
    args = {"old_text": case["old_text"], "new_text": case["new_text"]}
    if case.get("replace_all"):
        args["replace_all"] = True
    return "replace_text", args


def _texts(args: dict[str, str]) -> dict[str, str]:
    return {"old": args["old_text"], "new": args["new_text"]}


def main() -> None:
    with SLIPS.open(encoding="utf-8") as handle:
        cases = [json.loads(line) for line in handle if line.strip()]
    totals: Counter[tuple[str, str]] = Counter()
    kinds: list[str] = []
    elapsed = 0.0
    for case in cases:
        kind = case["kind"]
        if kind not in kinds:
            kinds.append(kind)
        totals[kind, "cases"] += 1
        document = case["document"]
        tool, args = call_of(case)
        if tool == "replace_text" and find_match(document, **_texts(args)) is not None:
            totals[kind, "exact"] += 1
        toolbox = Toolbox(document)
        started = time.perf_counter()
        outcome = toolbox.execute(tool, args)
        elapsed += time.perf_counter() - started
        if case["expected"] is None:
            totals[kind, "right" if not outcome.ok and toolbox.text == document else "wrong"] += 1
        elif not outcome.ok:
            totals[kind, "refused"] += 1
        else:
            totals[kind, "right" if toolbox.text == case["expected"] else "wrong"] += 1

    print("## Slip suite: absorbed in one call\n")
    print(
        "| kind | cases | absorbed (or refused when ambiguous) | wrong result | refused "
        "| exact matcher alone matched |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for kind in [*kinds, None]:
        keys = kinds if kind is None else [kind]

        def total(what: str, keys: list[str] = keys) -> int:
            return sum(totals[k, what] for k in keys)

        name = "**all**" if kind is None else kind
        cases_n = total("cases")
        print(
            f"| {name} | {cases_n} | {total('right')} ({100 * total('right') / cases_n:.0f}%) | "
            f"{total('wrong')} | {total('refused')} | {total('exact')} |"
        )
    slips = [k for k in kinds if not k.startswith("ambiguous")]
    absorbed = sum(totals[k, "right"] for k in slips)
    count = sum(totals[k, "cases"] for k in slips)
    wrong = sum(totals[k, "wrong"] for k in kinds)
    verdict = "PASS" if absorbed / count >= 0.95 and wrong == 0 else "MISS"
    print(
        f"\nSlips absorbed: {absorbed}/{count} = {100 * absorbed / count:.1f}% (goal ≥ 95%), "
        f"wrong-place or wrong results: {wrong} (goal 0): {verdict}. "
        f"{1000 * elapsed / len(cases):.2f} ms per call on average."
    )


if __name__ == "__main__":
    main()
