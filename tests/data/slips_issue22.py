"""The slip kinds of issue 22 (and issue 20 item 3) for `make_slips.py`, on the same real
source, each with the expected result worked out here without the project's code:
- `crlf_new_text` / `cr_new_text`: an exact old_text in an LF document, new_text written with
  CRLF / CR line breaks;
- `one_line_grows`: one line's text found after its indentation, new_text adding a line at
  column 0 (it belongs under the line);
- `uneven_indent`: a nested block re-flowed with two spaces per level and no base indentation,
  so the offset differs between levels;
- `stray_blank_line`: a blank line the document does not have there, at the end of old_text
  and new_text, or (indented) at their start;
- `over_escaped`: old_text and new_text escaped one time too many (`\\n`, `\\"`, `\\\\`);
- `elision_pinned`: two lines edited around a blank-line-separated group the model replaced
  with `# ... unchanged ...`;
- `ambiguous_escaped` / `ambiguous_elision`: the same slips where two readings are possible
  (the read-back text occurs at several places; in a whole-document set_document, the edited
  line reads as an edit of several lines): must be refused, with nothing changed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from difflib import SequenceMatcher
from keyword import iskeyword

from make_slips import WORD, Block, Source, blank, blocks, edit, indent_of, windows_matching

Case = dict[str, object]
PLACEHOLDER = "# ... unchanged ..."
_PINNING_RATIO = 0.6


def escape(text: str) -> str:
    """As a model escaping its arguments one time too many writes the text."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace('"', '\\"')


def case(source: Source, block: Block, kind: str, lines: list[str], **fields: object) -> Case:
    return {
        "kind": kind,
        "source": f"{source.name} lines {block.start + 1}-{block.end}",
        "document": "\n".join(lines),
        **fields,
    }


def replaced(lines: list[str], block: Block, result: list[str]) -> str:
    return "\n".join([*lines[: block.start], *result, *lines[block.end :]])


def edited_blocks(
    lines: list[str], rng: random.Random, *, nested: bool
) -> Iterator[tuple[Block, list[str], list[str]]]:
    """Blocks whose text occurs once in the document, with their edited version."""
    document = "\n".join(lines)
    for block in blocks(lines, rng, nested=nested):
        run = lines[block.start : block.end]
        edited = edit(run, rng)
        if edited is not None and document.count("\n".join(run)) == 1:
            yield block, run, edited


def other_endings(ending: str, kind: str) -> Callable[[Source, random.Random], Case | None]:
    def make(source: Source, rng: random.Random) -> Case | None:
        lines = source.lines
        for block, run, edited in edited_blocks(lines, rng, nested=False):
            return case(
                source,
                block,
                kind,
                lines,
                old_text="\n".join(run),
                new_text=ending.join(edited),
                expected=replaced(lines, block, edited),
            )
        return None

    return make


def one_line_grows(source: Source, rng: random.Random) -> Case | None:
    lines = source.lines
    document = "\n".join(lines)
    order = list(range(len(lines)))
    rng.shuffle(order)
    for index in order:
        line = lines[index]
        text = line.strip()
        indent = indent_of(line)
        if not indent or len(text) < 8 or line != line.rstrip() or text.endswith((":", ",", "(")):
            continue
        if text.startswith(('"', "'", "#")) or document.count(text) != 1:
            continue
        block = Block(index, index + 1)
        return case(
            source,
            block,
            "one_line_grows",
            lines,
            old_text=text,
            new_text=text + "\ncheckpoint()",
            expected=replaced(lines, block, [line, indent + "checkpoint()"]),
        )
    return None


def reflow(line: str, base: int) -> str:
    width = len(indent_of(line)) - base
    return " " * (max(0, width) // 2) + line.lstrip(" \t") if line.strip() else ""


def uneven_indent(source: Source, rng: random.Random) -> Case | None:
    lines = source.lines
    document = "\n".join(lines)
    for block, run, edited in edited_blocks(lines, rng, nested=True):
        base = len(indent_of(run[0]))
        old_lines = [reflow(line, base) for line in run]
        offsets = {
            len(indent_of(doc)) - len(indent_of(old))
            for doc, old in zip(run, old_lines, strict=True)
            if doc.strip()
        }
        old = "\n".join(old_lines)
        if len(offsets) < 2 or old in document or windows_matching(lines, run) != [block.start]:
            continue
        return case(
            source,
            block,
            "uneven_indent",
            lines,
            old_text=old,
            new_text="\n".join(reflow(line, base) for line in edited),
            expected=replaced(lines, block, edited),
        )
    return None


def stray_blank_line(source: Source, rng: random.Random) -> Case | None:
    lines = source.lines
    document = "\n".join(lines)
    for block, run, edited in edited_blocks(lines, rng, nested=False):
        if rng.random() < 0.5:  # at the end: the line after the block is not blank
            if block.end >= len(lines) or blank(lines[block.end]):
                continue
            old, new = "\n".join(run) + "\n\n", "\n".join(edited) + "\n\n"
        else:  # at the start, carrying the block's indentation
            indent = indent_of(run[0])
            if not indent or block.start == 0 or blank(lines[block.start - 1]):
                continue
            old, new = indent + "\n" + "\n".join(run), indent + "\n" + "\n".join(edited)
        if old in document:
            continue
        return case(
            source,
            block,
            "stray_blank_line",
            lines,
            old_text=old,
            new_text=new,
            expected=replaced(lines, block, edited),
        )
    return None


def over_escaped(source: Source, rng: random.Random) -> Case | None:
    lines = source.lines
    document = "\n".join(lines)
    for block, run, edited in edited_blocks(lines, rng, nested=False):
        old = escape("\n".join(run))
        if old in document:
            continue
        return case(
            source,
            block,
            "over_escaped",
            lines,
            old_text=old,
            new_text=escape("\n".join(edited)),
            expected=replaced(lines, block, edited),
        )
    return None


def rename(line: str, rng: random.Random) -> str | None:
    names = [word for word in WORD.findall(line) if not iskeyword(word)]
    if not names:
        return None
    word = rng.choice(names)
    return re.sub(rf"\b{word}\b", word + "_renamed", line, count=1)


def close(a: str, b: str) -> bool:
    return SequenceMatcher(None, a.strip(), b.strip(), autojunk=False).ratio() >= _PINNING_RATIO


def edits_one_line(edited: str, original: str, lines: list[str]) -> bool:
    """`edited` reads as an edit of `original` (which occurs once) and of no other line."""
    if lines.count(original) != 1:
        return False
    return [line for line in lines if line.strip() and close(edited, line)] == [original]


def _blank_separated_groups(
    lines: list[str], rng: random.Random
) -> Iterator[tuple[int, int, list[str]]]:
    """(x, y, group) in a random order: line x, a blank line, a group of 1-6 lines, a blank
    line, line y, none of x, the group and y blank."""
    starts = list(range(len(lines) - 4))
    rng.shuffle(starts)
    for x in starts:
        if blank(lines[x]) or lines[x + 1] != "" or blank(lines[x + 2]):
            continue
        end = x + 2
        while end < len(lines) and not blank(lines[end]):
            end += 1
        y = end + 1
        if end - (x + 2) > 6 or y >= len(lines) or blank(lines[y]) or lines[end] != "":
            continue
        yield x, y, lines[x + 2 : end]


def elision_pinned(source: Source, rng: random.Random) -> Case | None:
    """x, blank, a group of 1-6 lines, blank, y: x and y edited, the group elided."""
    return pinned_elision(source, rng, "elision_pinned", lambda _rng: PLACEHOLDER)


def pinned_elision(
    source: Source, rng: random.Random, kind: str, placeholder: Callable[[random.Random], str]
) -> Case | None:
    """As `elision_pinned`, the placeholder's text drawn by `placeholder`."""
    lines = source.lines
    document = "\n".join(lines)
    for x, y, group in _blank_separated_groups(lines, rng):
        if any(line.strip().startswith(('"""', "'''", "@")) for line in group):
            continue
        new_x, new_y = rename(lines[x], rng), rename(lines[y], rng)
        if new_x is None or new_y is None:
            continue
        if not (edits_one_line(new_x, lines[x], lines) and edits_one_line(new_y, lines[y], lines)):
            continue
        old = "\n".join(lines[x : y + 1])
        if document.count(old) != 1:
            continue
        line = indent_of(group[0]) + placeholder(rng)
        block = Block(x, y + 1)
        return case(
            source,
            block,
            kind,
            lines,
            old_text=old,
            new_text="\n".join([new_x, "", line, "", new_y]),
            expected=replaced(lines, block, [new_x, "", *group, "", new_y]),
        )
    return None


def ambiguous_escaped(source: Source, rng: random.Random) -> Case | None:
    """One or two lines that occur at several places, sent escaped: must be refused."""
    lines = source.lines
    document = "\n".join(lines)
    order = list(range(len(lines) - 1))
    rng.shuffle(order)
    for start in order:
        run = lines[start : start + rng.choice([1, 2])]
        text = "\n".join(run)
        if len(text.strip()) < 8 or document.count(text) < 2 or escape(text) in document:
            continue
        if escape(text) == text:
            continue
        block = Block(start, start + len(run))
        return case(
            source,
            block,
            "ambiguous_escaped",
            lines,
            old_text=escape(text),
            new_text=escape(text + "  # edited"),
            expected=None,
            error="ambiguous",
        )
    return None


def ambiguous_elision(source: Source, rng: random.Random) -> Case | None:
    """As `elision_pinned`, but as a whole-document set_document, and the edited line before
    the group reads as an edit of several lines of the document (or of a line it has twice),
    so which lines the placeholder stands for is unclear: must be refused."""
    return unpinned_elision(source, rng, "ambiguous_elision", lambda _rng: PLACEHOLDER)


def unpinned_elision(
    source: Source, rng: random.Random, kind: str, placeholder: Callable[[random.Random], str]
) -> Case | None:
    """As `ambiguous_elision`, the placeholder's text drawn by `placeholder`."""
    lines = source.lines
    for x, y, group in _blank_separated_groups(lines, rng):
        new_x, new_y = rename(lines[x], rng), rename(lines[y], rng)
        if new_x is None or new_y is None or edits_one_line(new_x, lines[x], lines):
            continue
        if not edits_one_line(new_y, lines[y], lines):
            continue  # only one side unclear
        line = indent_of(group[0]) + placeholder(rng)
        content = [*lines[:x], new_x, "", line, "", new_y, *lines[y + 1 :]]
        return case(
            source,
            Block(x, y + 1),
            kind,
            lines,
            tool="set_document",
            content="\n".join(content),
            expected=None,
            error="ambiguous",
        )
    return None


KINDS: list[tuple[str, Callable[[Source, random.Random], Case | None]]] = [
    ("crlf_new_text", other_endings("\r\n", "crlf_new_text")),
    ("cr_new_text", other_endings("\r", "cr_new_text")),
    ("one_line_grows", one_line_grows),
    ("uneven_indent", uneven_indent),
    ("stray_blank_line", stray_blank_line),
    ("over_escaped", over_escaped),
    ("elision_pinned", elision_pinned),
    ("ambiguous_escaped", ambiguous_escaped),
    ("ambiguous_elision", ambiguous_elision),
]


def issue22_cases(sources: list[Source], per_kind: int) -> Iterator[Case]:
    """Up to `per_kind` cases of each kind, from a generator of its own (seed 22): the cases
    of the earlier kinds stay as they were."""
    return cases_of(KINDS, sources, per_kind, random.Random(22))


def cases_of(
    kinds: list[tuple[str, Callable[[Source, random.Random], Case | None]]],
    sources: list[Source],
    per_kind: int,
    rng: random.Random,
) -> Iterator[Case]:
    """Up to `per_kind` cases of each of `kinds`, the sources tried in turn, drawn from `rng`."""
    for kind, make in kinds:
        made = 0
        for source in sources:
            if made == per_kind:
                break
            found = make(source, rng)
            if found is not None:
                made += 1
                yield {**found, "kind": kind}
