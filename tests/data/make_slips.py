"""Generates `slips.jsonl`: replace_text calls with the whitespace slips models make, on real
source (EditEval inputs, excerpts of the Python standard library), each with the expected
result worked out here, line by line, without the project's code.

    .venv/bin/python tests/data/make_slips.py     # rewrites tests/data/slips.jsonl

A case: `id`, `kind`, `source`, `document`, `old_text`, `new_text` (or `tool: "set_document"`
and `content`), and either `expected` (the document after the call) or `expected: null` with
`error: "ambiguous"` (two readings are possible, e.g. several places match once whitespace is
set aside: the call must fail and change nothing).

The intended edit is made on the exact lines of the document (one word renamed, and a line
inserted after another at its indentation); `old_text`/`new_text` are those lines and their
edited version with a slip applied to both, as a model copying them would:
- `missing_base_indent`: the block's common indentation left out;
- `tabs_for_spaces` / `spaces_for_tabs`: the other indentation style (4 columns per tab),
  on a document indented with spaces / the same source indented with tabs;
- `missing_trailing_whitespace`: spaces at line ends (which the document has) left out; lines
  repeated unchanged keep them in the result;
- `crlf_missing_base_indent`: a CRLF document, `\\n` in the call, base indentation left out;
- `tabs_missing_base_indent`: a tabbed document, spaces and no base indentation.

Then the kinds of issue 22 (`slips_issue22.py`): line endings of new_text, a one-line match
that grows, uneven indentation, stray blank lines, over-escaped text, pinned elisions; and
those of issue 30 (`slips_issue30.py`): new_text already indented for the place, a match
inside a line's indentation that grows, reworded placeholders, a lazy rewrite, replace_all over
places indented alike, comments that merely mention "rest", overlapping places; a case may
carry `replace_all: true`.
"""

from __future__ import annotations

import json
import random
import re
import sysconfig
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from keyword import iskeyword
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = HERE / "slips.jsonl"
EDITEVAL = ROOT / "server" / "eval" / "data" / "editeval.jsonl"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_FILES = [
    "json/decoder.py",
    "json/encoder.py",
    "textwrap.py",
    "shlex.py",
    "fnmatch.py",
    "glob.py",
    "bisect.py",
    "heapq.py",
    "string.py",
    "queue.py",
    "sched.py",
    "netrc.py",
    "graphlib.py",
    "colorsys.py",
    "keyword.py",
    "quopri.py",
]
EXCERPT_LINES = 120
WORD = re.compile(r"\b[a-z_][a-z0-9_]{3,}\b")


@dataclass(frozen=True)
class Source:
    name: str
    lines: list[str]  # without terminators


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def blank(line: str) -> bool:
    return not line.strip()


def editeval_sources() -> Iterator[Source]:
    with EDITEVAL.open(encoding="utf-8") as handle:
        for row in map(json.loads, handle):
            text = row["input"]
            if "\t" not in text and "\r" not in text:
                yield Source(f"EditEval:{row['task_id']}", text.split("\n"))


def stdlib_sources() -> Iterator[Source]:
    for name in STDLIB_FILES:
        lines = (STDLIB / name).read_text(encoding="utf-8").split("\n")
        starts = [i for i, line in enumerate(lines) if line.startswith(("def ", "class "))]
        start = starts[len(starts) // 3] if starts else 0
        yield Source(f"stdlib:{name}:{start + 1}", lines[start : start + EXCERPT_LINES])


def to_tabs(line: str) -> str:
    spaces = len(line) - len(line.lstrip(" "))
    return "\t" * (spaces // 4) + " " * (spaces % 4) + line[spaces:]


def with_tabs_as_spaces(indent: str) -> str:
    return indent.replace("\t", "    ")


def with_spaces_as_tabs(indent: str) -> str:
    return "\t" * (len(indent) // 4) + " " * (len(indent) % 4)


@dataclass(frozen=True)
class Block:
    start: int
    end: int  # exclusive


def blocks(lines: list[str], rng: random.Random, *, nested: bool) -> Iterator[Block]:
    """Runs of 2-5 lines inside an indented body: the first non-blank, all indented at least
    as much as the first (so the run has a base indentation)."""
    order = list(range(len(lines)))
    rng.shuffle(order)
    for start in order:
        first = lines[start]
        if blank(first) or (nested and not indent_of(first)):
            continue
        size = rng.randrange(2, 6)
        end = min(len(lines), start + size)
        run = lines[start:end]
        base = len(indent_of(first))
        filled = [line for line in run if not blank(line)]
        if len(filled) < 2 or any(len(indent_of(line)) < base for line in filled):
            continue
        if any(line.strip().startswith(('"""', "'''")) for line in run):
            continue
        yield Block(start, end)


def edit(run: list[str], rng: random.Random) -> list[str] | None:
    """The run with one word renamed and a line inserted after a non-blank one."""
    names = {i: [w for w in WORD.findall(line) if not iskeyword(w)] for i, line in enumerate(run)}
    filled = [i for i, line in enumerate(run) if not blank(line) and names[i]]
    if not filled:
        return None
    target = rng.choice(filled)
    word = rng.choice(names[target])
    edited = list(run)
    edited[target] = re.sub(rf"\b{word}\b", word + "_renamed", run[target], count=1)
    after = rng.choice(filled)
    edited.insert(after + 1, indent_of(run[after]) + "checkpoint()")
    return edited


Slip = Callable[[str, str], str]  # (line, base indentation of the block) -> slipped line


def drop_base(line: str, base: str) -> str:
    return line[len(base) :] if line.startswith(base) else line.lstrip(" \t")


def spaces_style(line: str, _base: str) -> str:
    return with_tabs_as_spaces(indent_of(line)) + line.lstrip(" \t")


def tabs_style(line: str, _base: str) -> str:
    return with_spaces_as_tabs(indent_of(line)) + line.lstrip(" \t")


def strip_trailing(line: str, _base: str) -> str:
    return line.rstrip(" \t")


def tabs_no_base(line: str, base: str) -> str:
    return spaces_style(drop_base(line, base), base)


def windows_matching(lines: list[str], wanted: list[str]) -> list[int]:
    """Start lines of every run whose lines equal `wanted` once stripped (blank = blank)."""
    target = [line.strip() for line in wanted]
    return [
        start
        for start in range(len(lines) - len(wanted) + 1)
        if [line.strip() for line in lines[start : start + len(wanted)]] == target
    ]


def make_case(
    source: Source,
    kind: str,
    rng: random.Random,
    *,
    document_lines: list[str],
    slip: Slip,
    ending: str = "\n",
    nested: bool = True,
) -> dict[str, object] | None:
    for block in blocks(document_lines, rng, nested=nested):
        run = document_lines[block.start : block.end]
        edited = edit(run, rng)
        if edited is None:
            continue
        base = indent_of(run[0])
        old_lines = [slip(line, base) for line in run]
        new_lines = [slip(line, base) for line in edited]
        document = ending.join(document_lines)
        old, new = "\n".join(old_lines), "\n".join(new_lines)
        if old == ending.join(run) or old in document or old.replace("\n", ending) in document:
            continue  # no slip, or an exact match somewhere: not this suite's business
        if windows_matching(document_lines, run) != [block.start]:
            continue
        if kind == "missing_trailing_whitespace":
            # Lines repeated unchanged keep their spaces; the edited ones are as written.
            result = [line if line in run else line.rstrip(" \t") for line in edited]
        else:
            result = edited
        expected_lines = [*document_lines[: block.start], *result, *document_lines[block.end :]]
        return {
            "kind": kind,
            "source": f"{source.name} lines {block.start + 1}-{block.end}",
            "document": document,
            "old_text": old,
            "new_text": new,
            "expected": ending.join(expected_lines),
        }
    return None


def with_trailing(lines: list[str], rng: random.Random) -> list[str]:
    return [
        line + rng.choice(["  ", " ", "\t"]) if line.strip() and rng.random() < 0.5 else line
        for line in lines
    ]


def ambiguous_cases(sources: list[Source]) -> Iterator[dict[str, object]]:
    """Two-to-three-line runs whose text occurs at several places at different indentations,
    sent without their indentation (and not occurring so anywhere): must be refused."""
    for source in sources:
        lines = source.lines
        for start in range(len(lines) - 2):
            run = lines[start : start + 2]
            if any(blank(line) or len(line.strip()) < 6 for line in run):
                continue
            base = indent_of(run[0])
            relative = [drop_base(line, base) for line in run]
            places = [
                place
                for place in windows_matching(lines, run)
                if [drop_base(line, indent_of(lines[place])) for line in lines[place : place + 2]]
                == relative
            ]
            if len(places) < 2:
                continue
            old = "\n".join(relative)
            document = "\n".join(lines)
            if not base or old in document:
                continue
            new = old.replace(run[0].strip(), run[0].strip() + "  # edited", 1)
            yield {
                "kind": "ambiguous",
                "source": f"{source.name} lines {', '.join(str(p + 1) for p in places)}",
                "document": document,
                "old_text": old,
                "new_text": new,
                "expected": None,
                "error": "ambiguous",
            }
            break


def main() -> None:
    rng = random.Random(14)
    sources = list(editeval_sources())
    rng.shuffle(sources)
    stdlib = list(stdlib_sources())
    cases: list[dict[str, object]] = []

    def add(case: dict[str, object] | None, limit: int, kind: str) -> None:
        if case is not None and sum(1 for c in cases if c["kind"] == kind) < limit:
            cases.append(case)

    mixed = [source for pair in zip(sources, stdlib, strict=False) for source in pair]
    for source in mixed:
        lines = source.lines
        tabbed = [to_tabs(line) for line in lines]
        plans = [
            ("missing_base_indent", lines, drop_base, "\n"),
            ("tabs_for_spaces", lines, tabs_style, "\n"),
            ("spaces_for_tabs", tabbed, spaces_style, "\n"),
            ("missing_trailing_whitespace", with_trailing(lines, rng), strip_trailing, "\n"),
            ("crlf_missing_base_indent", lines, drop_base, "\r\n"),
            ("tabs_missing_base_indent", tabbed, tabs_no_base, "\n"),
        ]
        for kind, document_lines, slip, ending in plans:
            case = make_case(
                source,
                kind,
                rng,
                document_lines=document_lines,
                slip=slip,
                ending=ending,
                nested=kind != "missing_trailing_whitespace",
            )
            add(case, 9, kind)
    for case in ambiguous_cases([*stdlib, *sources]):
        add(case, 8, "ambiguous")
    from slips_issue22 import issue22_cases

    cases.extend(issue22_cases(mixed, 8))
    from slips_issue30 import issue30_cases

    cases.extend(issue30_cases(mixed, 8))
    with OUT.open("w", encoding="utf-8", newline="\n") as handle:
        for number, case in enumerate(cases, start=1):
            handle.write(
                json.dumps({"id": f"slip-{number:03d}", **case}, ensure_ascii=False) + "\n"
            )
    kinds: dict[str, int] = {}
    for case in cases:
        kinds[str(case["kind"])] = kinds.get(str(case["kind"]), 0) + 1
    print(f"{len(cases)} cases written to {OUT.relative_to(ROOT)}: {kinds}")


if __name__ == "__main__":
    main()
