"""The slip kinds of issue 30 for `make_slips.py`, on the same real source, each with the
expected result worked out here without the project's code:
- `reindented_twice`: old_text without the block's base indentation, new_text written with the
  document's own indentation (it must not be shifted again);
- `grows_inside_indent`: one line's text found inside its indentation (part of it kept), new_text
  adding a whitespace-only line and a line indented like the first (siblings stay siblings);
- `placeholder_form`: as `elision_pinned`, with the parenthesised and reworded placeholders of
  issue 30 (`# (rest of code ...)`, `(rest of methods ...)`, `# (same as before)` ...);
- `lazy_rewrite`: the whole text rewritten keeping a line, one placeholder for the block after
  it (up to a blank line), then every later line restated with small changes;
- `replace_all_indented`: a block and a copy of it at the same indentation, replace_all with
  old_text and new_text lacking that indentation: both replaced;
and the near misses that must be refused, with nothing changed:
- `ambiguous_half_shifted`: as `reindented_twice`, but only new_text's first line carries the
  document's indentation;
- `ambiguous_inside_indent`: a line's text with part of its indentation that occurs at several
  places;
- `ambiguous_placeholder_form`: as `ambiguous_elision`, with issue 30's placeholders;
- `ambiguous_lazy_rewrite`: as `lazy_rewrite`, but the first restated line reads as an edit of
  several lines;
- `ambiguous_replace_all_mixed`: as `replace_all_indented`, the copy indented deeper;
- `ambiguous_overlapping`: part of a run of one repeated character that occurs at two
  overlapping places (`====` in `=====`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator

from make_slips import Block, Source, blank, drop_base, indent_of, windows_matching
from slips_issue22 import (
    case,
    cases_of,
    edited_blocks,
    edits_one_line,
    pinned_elision,
    rename,
    replaced,
    unpinned_elision,
)

Case = dict[str, object]
FORMS = [
    "# (rest of code ...)",
    "(rest of methods ...)",
    "# (unchanged code ...)",
    "# ... same as before ...",
    "# rest of the implementation omitted for brevity",
    "# (same as before)",
]
RUN = re.compile(r"(\S)\1{3,}")


def _rebased(
    source: Source, rng: random.Random
) -> Iterator[tuple[Block, list[str], list[str], str]]:
    """Nested blocks occurring once, with their edited version and the block without its base
    indentation (found nowhere as it is)."""
    lines = source.lines
    document = "\n".join(lines)
    for block, run, edited in edited_blocks(lines, rng, nested=True):
        base = indent_of(run[0])
        old = "\n".join(drop_base(line, base) for line in run)
        if old not in document and windows_matching(lines, run) == [block.start]:
            yield block, run, edited, old


def reindented_twice(source: Source, rng: random.Random) -> Case | None:
    for block, _, edited, old in _rebased(source, rng):
        return case(
            source,
            block,
            "reindented_twice",
            source.lines,
            old_text=old,
            new_text="\n".join(edited),
            expected=replaced(source.lines, block, edited),
        )
    return None


def ambiguous_half_shifted(source: Source, rng: random.Random) -> Case | None:
    for block, run, edited, old in _rebased(source, rng):
        # The first line as the document has it, the rest without the base indentation; the
        # lines after it are kept as they were so that they say old_text's indentation.
        if edited[0] != run[0] or not any(line.strip() and line in edited[1:] for line in run[1:]):
            continue
        base = indent_of(run[0])
        new = "\n".join([edited[0], *(drop_base(line, base) for line in edited[1:])])
        return case(
            source,
            block,
            "ambiguous_half_shifted",
            source.lines,
            old_text=old,
            new_text=new,
            expected=None,
            error="ambiguous",
        )
    return None


def _inside_indent(
    source: Source, rng: random.Random, *, unique: bool
) -> tuple[Block, str, str, str] | None:
    """A line indented 4 columns or more whose text with part of its indentation (`old`)
    occurs once (`unique`) or several times in the document."""
    lines = source.lines
    document = "\n".join(lines)
    order = list(range(len(lines)))
    rng.shuffle(order)
    for index in order:
        line = lines[index]
        indent = indent_of(line)
        text = line.strip()
        if len(indent) < 4 or "\t" in indent or len(text) < 6 or line != line.rstrip():
            continue
        if text.endswith((":", ",", "(", "[", "{", "\\")) or text.startswith(("#", '"', "'")):
            continue
        kept = len(indent) // 2
        old = " " * (len(indent) - kept) + text
        if (document.count(old) == 1) != unique:
            continue
        if unique and document.count(text) != 1:
            continue
        return Block(index, index + 1), line, indent, old
    return None


def grows_inside_indent(source: Source, rng: random.Random) -> Case | None:
    found = _inside_indent(source, rng, unique=True)
    if found is None:
        return None
    block, line, indent, old = found
    own = indent_of(old)
    before = indent[: len(indent) - len(own)]
    new = "\n".join([old, own, own + "checkpoint()"])
    return case(
        source,
        block,
        "grows_inside_indent",
        source.lines,
        old_text=old,
        new_text=new,
        expected=replaced(source.lines, block, [line, before + own, indent + "checkpoint()"]),
    )


def ambiguous_inside_indent(source: Source, rng: random.Random) -> Case | None:
    found = _inside_indent(source, rng, unique=False)
    if found is None:
        return None
    block, _, _, old = found
    own = indent_of(old)
    return case(
        source,
        block,
        "ambiguous_inside_indent",
        source.lines,
        old_text=old,
        new_text="\n".join([old, own + "checkpoint()"]),
        expected=None,
        error="ambiguous",
    )


def placeholder_form(source: Source, rng: random.Random) -> Case | None:
    return pinned_elision(source, rng, "placeholder_form", lambda rng: rng.choice(FORMS))


def ambiguous_placeholder_form(source: Source, rng: random.Random) -> Case | None:
    return unpinned_elision(
        source, rng, "ambiguous_placeholder_form", lambda rng: rng.choice(FORMS)
    )


def _lazy_spans(lines: list[str], rng: random.Random) -> Iterator[tuple[int, int]]:
    """(x, e): line x kept (occurring once), lines x+1..e-1 the block (2 non-blank lines at
    least, 15 lines at most), line e blank, line e+1 not blank."""
    starts = list(range(len(lines) - 3))
    rng.shuffle(starts)
    for x in starts:
        if blank(lines[x]) or lines.count(lines[x]) != 1 or blank(lines[x + 1]):
            continue
        for e in range(x + 2, min(len(lines) - 1, x + 16)):
            if lines[e] == "" and not blank(lines[e + 1]):
                if sum(1 for line in lines[x + 1 : e] if line.strip()) >= 2:
                    yield x, e
                break


def _restated(lines: list[str], start: int, rng: random.Random) -> list[str]:
    """Lines from `start` on, with a word renamed in about one line in five."""
    out = []
    for line in lines[start:]:
        renamed = rename(line, rng) if line.strip() and rng.random() < 0.2 else None
        out.append(renamed or line)
    return out


def _lazy(source: Source, rng: random.Random, *, ambiguous: bool) -> Case | None:
    lines = source.lines
    for x, e in _lazy_spans(lines, rng):
        first = rename(lines[e + 1], rng)
        if first is None or edits_one_line(first, lines[e + 1], lines) == ambiguous:
            continue
        rest = _restated(lines, e + 2, rng)
        restated = [first, *rest]
        span = lines[x + 1 : e]
        kept_elsewhere = set(lines[: x + 1]) | set(restated)
        if any(line.strip() and lines.count(line) == 1 and line in kept_elsewhere for line in span):
            continue
        placeholder = indent_of(lines[x + 1]) + "# ... existing code ..."
        new = [*lines[: x + 1], placeholder, "", *restated]
        document = "\n".join(lines)
        block = Block(x, len(lines))
        if ambiguous:
            return case(
                source,
                block,
                "ambiguous_lazy_rewrite",
                lines,
                old_text=document,
                new_text="\n".join(new),
                expected=None,
                error="ambiguous",
            )
        return case(
            source,
            block,
            "lazy_rewrite",
            lines,
            old_text=document,
            new_text="\n".join(new),
            expected="\n".join([*lines[: e + 1], *restated]),
        )
    return None


def lazy_rewrite(source: Source, rng: random.Random) -> Case | None:
    return _lazy(source, rng, ambiguous=False)


def ambiguous_lazy_rewrite(source: Source, rng: random.Random) -> Case | None:
    return _lazy(source, rng, ambiguous=True)


def _replace_all(source: Source, rng: random.Random, *, deeper: bool) -> Case | None:
    """A nested block and a copy of it after a blank line right after it (indented 4 more
    when `deeper`), replace_all sent without their base indentation: both replaced, or (the
    places differing in kind) refused."""
    lines = source.lines
    for block, run, edited in edited_blocks(lines, rng, nested=True):
        copy = ["    " + line if deeper and line.strip() else line for line in run]
        doc = [*lines[: block.end], "", *copy, *lines[block.end :]]
        base = indent_of(run[0])
        old = "\n".join(drop_base(line, base) for line in run)
        if old in "\n".join(doc) or windows_matching(doc, run) != [block.start, block.end + 1]:
            continue
        rest = doc[block.end + 1 + len(run) :]
        return case(
            source,
            block,
            "ambiguous_replace_all_mixed" if deeper else "replace_all_indented",
            doc,
            old_text=old,
            new_text="\n".join(drop_base(line, base) for line in edited),
            replace_all=True,
            expected=None
            if deeper
            else "\n".join([*doc[: block.start], *edited, "", *edited, *rest]),
            **({"error": "ambiguous"} if deeper else {}),
        )
    return None


def replace_all_indented(source: Source, rng: random.Random) -> Case | None:
    return _replace_all(source, rng, deeper=False)


def ambiguous_replace_all_mixed(source: Source, rng: random.Random) -> Case | None:
    return _replace_all(source, rng, deeper=True)


def _runs(source: Source) -> Iterator[tuple[int, str]]:
    """(line, run) for each run of 4 or more of one character whose shortened form (one
    character less) occurs nowhere else in the document."""
    document = "\n".join(source.lines)
    for index, line in enumerate(source.lines):
        for match in RUN.finditer(line):
            run = match.group()
            if document.count(run[:-1]) == 1:
                yield index, run


def ambiguous_overlapping(source: Source, rng: random.Random) -> Case | None:
    for index, run in _runs(source):
        return case(
            source,
            Block(index, index + 1),
            "ambiguous_overlapping",
            source.lines,
            old_text=run[:-1],
            new_text="+" * (len(run) - 1),
            expected=None,
            error="ambiguous",
        )
    return None


KINDS: list[tuple[str, Callable[[Source, random.Random], Case | None]]] = [
    ("reindented_twice", reindented_twice),
    ("grows_inside_indent", grows_inside_indent),
    ("placeholder_form", placeholder_form),
    ("lazy_rewrite", lazy_rewrite),
    ("replace_all_indented", replace_all_indented),
    ("ambiguous_half_shifted", ambiguous_half_shifted),
    ("ambiguous_inside_indent", ambiguous_inside_indent),
    ("ambiguous_placeholder_form", ambiguous_placeholder_form),
    ("ambiguous_lazy_rewrite", ambiguous_lazy_rewrite),
    ("ambiguous_replace_all_mixed", ambiguous_replace_all_mixed),
    ("ambiguous_overlapping", ambiguous_overlapping),
]


def issue30_cases(sources: list[Source], per_kind: int) -> Iterator[Case]:
    """Up to `per_kind` cases of each kind, from a generator of its own (seed 30): the cases
    of the earlier kinds stay as they were."""
    return cases_of(KINDS, sources, per_kind, random.Random(30))
