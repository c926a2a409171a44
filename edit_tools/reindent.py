"""Applying a whitespace-tolerant match (`tolerant.py`): `new_text` re-indented by the
relation found between old_text's indentation and the document's, in the document's style,
with its line endings; lines new_text repeats unchanged written exactly as the document has
them; and a note telling the model what was adapted.

new_text is shifted only when it is indented like old_text. When it already carries the
document's indentation where old_text did not (the lines it shares with old_text, or rewrites
in place, are indented as the document has them, none as old_text has them), it is written as
sent: shifting it again would indent it twice. Decided for the whole of new_text, never line
by line: when its first line carries the document's indentation but later lines old_text's,
the call is refused rather than half shifted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from complex_edit.edit_tools import errors
from complex_edit.edit_tools.endings import write_breaks
from complex_edit.edit_tools.indent import columns, is_blank, leading, render
from complex_edit.edit_tools.lines import LF, ends_with_break, line_contents, line_endings
from complex_edit.edit_tools.tolerant import (
    FINAL_NEWLINE,
    INDENTATION,
    LINE_ENDINGS,
    LINE_NUMBERS,
    TABS,
    TRAILING,
    Candidate,
    Relation,
    Window,
    document_style,
)
from complex_edit.edit_tools.uneven import uneven_indents


@dataclass(frozen=True)
class Tolerated:
    """A tolerant replacement: `text[start:end]` becomes `new`."""

    start: int
    end: int
    new: str
    first_line: int
    tolerated: tuple[str, ...]
    note: str


def _reindent(indent: str, relation: Relation, tabs: bool) -> str | None:
    if relation.kind == "prefix":
        return relation.prefix + indent
    if relation.kind == "extra":
        return indent[len(relation.prefix) :] if indent.startswith(relation.prefix) else None
    if relation.kind == "columns":
        width = columns(indent, relation.tab) + relation.shift
        return None if width < 0 else render(width, tabs=tabs, tab=relation.tab)
    return indent


def _writes_tabs(text: str, window: Window) -> bool:
    indents = "".join(leading(line) for line in window.contents)
    if indents:
        return "\t" in indents
    return document_style(text).tabs


def _ending(text: str, window: Window) -> str:
    own = next((t for t in window.terminators if t), "")
    return own or next(iter(line_endings(text)), LF)


def apply_candidate(text: str, candidate: Candidate, matched: str | None = None) -> Tolerated:
    """The replacement for one tolerant match; its note says old_text matched `matched`
    (default: the candidate's lines). Raises `ToolError` when a line of `new` would need less
    indentation than none."""
    window, relation = candidate.window, candidate.relation
    old_lines = candidate.old_lines
    new_lines = line_contents(candidate.new)
    new_ends = ends_with_break(candidate.new)
    old_ends = candidate.old_ends_with_break
    final_newline = old_ends and not window.terminators[-1]
    if final_newline:  # the document's last line has no line break: neither will the result
        old_ends, new_ends = False, False
    tabs = _writes_tabs(text, window)
    ending = _ending(text, window)
    if relation.kind in ("prefix", "extra", "columns") and _carries_documents_indentation(
        candidate, new_lines
    ):
        relation = Relation("same", tab=relation.tab)
    kept = _kept_lines(old_lines, new_lines)
    uneven = (
        uneven_indents(old_lines, window.contents, new_lines, tab=relation.tab, tabs=tabs)
        if relation.kind == "uneven"
        else None
    )
    pieces: list[str] = []
    for index, line in enumerate(new_lines):
        terminator = ending
        if index in kept:
            doc_index = kept[index]
            content = window.contents[doc_index]
            terminator = window.terminators[doc_index] or ending
        elif is_blank(line):
            content = ""
        else:
            indent = (
                uneven[index] if uneven is not None else _reindent(leading(line), relation, tabs)
            )
            if indent is None:
                raise errors.cannot_reindent(index + 1, candidate.first_line, candidate.last_line)
            content = indent + line[len(leading(line)) :]
        pieces.append(content)
        if index < len(new_lines) - 1 or new_ends:
            pieces.append(terminator)
    end = window.end
    if not old_ends:
        end -= len(window.terminators[-1])
    tolerated = _tolerated(candidate, final_newline)
    where = matched or candidate.span
    note = _note(candidate, tolerated, tabs, where, as_sent=relation is not candidate.relation)
    written = write_breaks(candidate.new, ending)  # only to say what became of its breaks
    if written.converted:
        note += written.note("new_text")
        tolerated += () if LINE_ENDINGS in tolerated else (LINE_ENDINGS,)
    return Tolerated(window.start, end, "".join(pieces), candidate.first_line, tolerated, note)


def _carries_documents_indentation(candidate: Candidate, new_lines: Sequence[str]) -> bool:
    """Whether new_text is already indented as the document is at the match (see the module
    docstring), and no line of it is shallower than the matched lines. Raises `ToolError`
    when its lines disagree."""
    old_lines, doc_lines = candidate.old_lines, candidate.window.contents
    votes: list[tuple[int, str]] = []
    matcher = SequenceMatcher(
        None,
        [line.strip(" \t") for line in old_lines],
        [line.strip(" \t") for line in new_lines],
        autojunk=False,
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                if is_blank(old_lines[i]) or is_blank(new_lines[j]):
                    continue
                own, old, doc = leading(new_lines[j]), leading(old_lines[i]), leading(doc_lines[i])
                if own == doc != old:
                    votes.append((j, "document"))
                elif own == old != doc:
                    votes.append((j, "old_text"))
    said = {vote for _, vote in votes}
    if said == {"document"}:
        return _fits(new_lines, doc_lines, candidate.relation.tab)
    first = next((j for j, line in enumerate(new_lines) if not is_blank(line)), -1)
    if "document" in said and (first, "document") in votes:
        late = next(j for j, vote in votes if vote == "old_text")
        raise errors.half_reindented(first + 1, late + 1, candidate.first_line, candidate.last_line)
    return False


def _fits(new_lines: Sequence[str], doc_lines: Sequence[str], tab: int) -> bool:
    """Whether no line of new_text is shallower than the matched lines' shallowest."""

    def shallowest(lines: Sequence[str]) -> int:
        return min((columns(leading(line), tab) for line in lines if not is_blank(line)), default=0)

    return shallowest(new_lines) >= shallowest(doc_lines)


def _kept_lines(old_lines: Sequence[str], new_lines: Sequence[str]) -> dict[int, int]:
    """new line index -> old line index, for the lines new_text repeats unchanged."""
    kept: dict[int, int] = {}
    matcher = SequenceMatcher(None, list(old_lines), list(new_lines), autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            kept[block.b + offset] = block.a + offset
    return kept


def _tolerated(candidate: Candidate, final_newline: bool) -> tuple[str, ...]:
    kinds: list[str] = []
    kind = candidate.relation.kind
    if kind in ("prefix", "extra", "uneven") or (kind == "columns" and candidate.relation.shift):
        kinds.append(INDENTATION)
    if kind == "columns":
        kinds.append(TABS)
    if candidate.trailing:
        kinds.append(TRAILING)
    if final_newline:
        kinds.append(FINAL_NEWLINE)
    if candidate.numbered:
        kinds.append(LINE_NUMBERS)
    if any(
        ours != theirs
        for ours, theirs in zip(candidate.old_breaks, candidate.window.terminators, strict=False)
    ):
        kinds.append(LINE_ENDINGS)
    return tuple(kinds)


def describe_indent(indent: str) -> str:
    tabs, spaces = indent.count("\t"), indent.count(" ")
    parts = [errors.plural(tabs, "tab")] if tabs else []
    if spaces:
        parts.append(errors.plural(spaces, "space"))
    return " and ".join(parts)


def _note(
    candidate: Candidate, tolerated: Sequence[str], tabs: bool, where: str, *, as_sent: bool
) -> str:
    relation = candidate.relation
    said: list[str] = []
    if relation.kind == "prefix":
        said.append(
            f"it lacked the {describe_indent(relation.prefix)} of indentation the "
            "document has there"
        )
    elif relation.kind == "extra":
        said.append(f"it had {describe_indent(relation.prefix)} more indentation than the document")
    elif relation.kind == "columns":
        style = "tabs" if tabs else "spaces"
        other = "spaces" if tabs else "tabs"
        said.append(
            f"it indented with {other} where the document uses {style} (a tab counted "
            f"as {relation.tab} columns)"
        )
        if relation.shift:
            said.append(
                f"its indentation was {abs(relation.shift)} columns "
                f"{'shallower' if relation.shift > 0 else 'deeper'} than the document's"
            )
    elif relation.kind == "uneven":
        said.append(
            "its indentation differed from the document's by a different amount on different "
            "lines, and no other place has these lines"
        )
    if TRAILING in tolerated:
        said.append("spaces or tabs at the ends of lines differed")
    if FINAL_NEWLINE in tolerated:
        said.append("it ended with a line break where the document's last line has none")
    if LINE_ENDINGS in tolerated:
        said.append("its line breaks were not the document's")
    if LINE_NUMBERS in tolerated:
        said.append("it held get_document's line numbers, removed from new_text too")
    reindented = relation.kind != "same"
    how = "line by line from the matched lines" if relation.kind == "uneven" else "the same way"
    if as_sent:
        done = (
            ". new_text already had the document's indentation there, so it was written as "
            "sent, not shifted again;"
        )
    else:
        done = f". new_text was re-indented {how}, in the document's style;" if reindented else "."
    return (
        f"old_text did not match exactly; it matched {where} once whitespace was set aside: "
        + "; ".join(said)
        + done
        + " lines you repeated unchanged were kept exactly as the document has them. Check the "
        "lines below, and next time copy old_text exactly."
    )
