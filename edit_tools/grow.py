"""A one-line exact match (with or without its line break, then given back at new_text's end)
that grows into several lines: `old_text="x = 1"` found after the indentation of `    x = 1`,
`new_text="x = 1\\ny = 2"`.
The model wrote the added lines relative to the match, which it saw at column 0; written as
sent they would land at column 0. They take the indentation of the line the match starts in
(the document's own characters), unless new_text already carries some: when its shallowest
added line is indented at all, it is written as sent.

A match that starts inside its line's indentation (`old_text="  item"` in `    item`) is read
as if it had been the whole line: old_text's own indentation says the model saw that line
indented, so every line after the first keeps its indentation relative to the first (siblings
stay siblings, whitespace-only lines included) and takes the indentation before the match."""

from __future__ import annotations

from dataclasses import dataclass

from complex_edit.edit_tools.indent import columns, is_blank, leading, render, space_unit
from complex_edit.edit_tools.lines import (
    line_contents,
    line_start,
    split_lines,
    strip_terminator,
)

_DEFAULT_TAB = 4


@dataclass(frozen=True)
class Grown:
    new: str
    indent: str  # the indentation given to the added lines
    added: int  # how many added lines were indented
    inside: bool = False  # the match started inside its line's indentation


def indent_added_lines(text: str, start: int, old: str, new: str) -> Grown | None:
    """`new` with its added lines indented like the line holding `text[start:]`, or None
    when the rule does not apply (see the module docstring)."""
    if len(split_lines(old)) != 1 or is_blank(strip_terminator(old)):
        return None  # not one line (with or without its break) of text
    if strip_terminator(old) != old and strip_terminator(new) == new:
        # old_text takes its line break but new_text gives none back: the model moved where
        # its lines end (`"return x;\n"` -> `"return y;\n}"`), and its last line joins what
        # follows as written (a closing brace at column 0 stays there).
        return None
    lines = split_lines(new)
    if len(lines) < 2:
        return None
    indent = text[line_start(text, start) : start]
    if not indent or not is_blank(indent):
        return None
    inside = bool(leading(strip_terminator(old)))
    added = [strip_terminator(line) for line in lines[1:]]
    filled = [line for line in added if not is_blank(line)]
    if not inside and (not filled or all(leading(line) for line in filled)):
        return None
    tabs = "\t" in indent
    unit = space_unit(line_contents(new)) or _DEFAULT_TAB
    out = [lines[0]]
    for line in lines[1:]:
        content = strip_terminator(line)
        if not is_blank(content) or (inside and content):
            own = leading(content)
            if own and ("\t" in own) != tabs:
                own = render(columns(own, unit), tabs=tabs, tab=unit)
            line = indent + own + line[len(leading(content)) :]
        out.append(line)
    return Grown(
        "".join(out),
        indent,
        len([line for line in added if line]) if inside else len(filled),
        inside,
    )
