"""Syntax errors in a tree: finding them, telling new ones from those the original text
already had, and describing them for people and the model.

An error is matched to one of the original's by a fingerprint that survives line shifts and
edits elsewhere (what kind it is, the node types around it: never identifiers or absolute
positions) and the text of its line near it, or by the lines the original's covered, followed
through the edits (see `new_errors`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from complex_edit.edit_tools.syntax.models import SyntaxProblem
from complex_edit.edit_tools.syntax.offsets import ByteEdit, decode

# Node types of an error node's first children kept in its fingerprint.
_FINGERPRINT_CHILDREN = 4
# Bytes either side of an error kept to pair it with the original's, and shown of long lines.
_CONTEXT_BYTES = 120
_LINE_CHARS = 200
_SNIPPET_CHARS = 40
_SPACE = b" \t\r\n\f\v"


@dataclass(frozen=True, slots=True)
class Found:
    """One error node (`missing` false) or missing node, as byte offsets into its text.
    `anchor` is where tree-sitter put it (a missing node's `start` is moved back to the
    previous token)."""

    start: int
    end: int
    anchor: int
    missing: bool
    symbol: str
    named: bool
    parent: str
    fingerprint: tuple[str, ...]
    context: bytes


def collect(root: Node, data: bytes, limit: int, tolerate: Tolerate | None = None) -> list[Found]:
    """The error and missing nodes under `root` in text order, at most `limit`, except those
    `tolerate` accepts (a grammar's quirks); subtrees without errors are never entered. An
    error node is one error, whatever it contains."""
    found: list[Found] = []
    stack = [root]
    while stack and len(found) < limit:
        node = stack.pop()
        if node.is_error or node.is_missing:
            if tolerate is None or not tolerate(node, data):
                found.append(_found(node, data))
        elif node.has_error:
            stack.extend(reversed([child for child in node.children if child.has_error]))
    return found


def _found(node: Node, data: bytes) -> Found:
    start = node.start_byte
    if node.is_missing:
        # Tree-sitter puts a missing token before the next one, often lines below (or past
        # the final line break): report it where it belongs, after the previous token.
        while start and data[start - 1] in _SPACE:
            start -= 1
    parent = node.parent
    parent_type = parent.type if parent is not None else ""
    if node.is_missing:
        symbol = node.type
        fingerprint: tuple[str, ...] = ("missing", symbol, parent_type)
    else:
        symbol = ""
        count = min(node.child_count, _FINGERPRINT_CHILDREN)
        children = tuple(node.child(index).type for index in range(count))
        fingerprint = ("error", parent_type, *children)
    return Found(
        start=start,
        end=start if node.is_missing else node.end_byte,
        anchor=node.start_byte,
        missing=node.is_missing,
        symbol=symbol,
        named=node.is_named,
        parent=parent_type,
        fingerprint=fingerprint,
        context=_context(data, start),
    )


def _context(data: bytes, offset: int) -> bytes:
    start, end = line_bounds(data, offset)
    return data[max(start, offset - _CONTEXT_BYTES) : min(end, offset + _CONTEXT_BYTES)].strip()


Span = tuple[int, int]


def new_errors(
    original: Sequence[Found],
    current: Sequence[Found],
    data: bytes,
    regions: Sequence[Span] | None = None,
) -> list[Found]:
    """The errors of `current` (in `data`) that `original` did not have:
    1. each original error absorbs one current error with its fingerprint on an identical line;
    2. errors starting on the lines an original error covered (`regions`: their spans, moved
       by the edits since, when known) are that broken region's, reshaped by an edit there;
    3. each original error left absorbs one current error with its fingerprint."""
    unused = set(range(len(original)))
    by_line: dict[tuple[tuple[str, ...], bytes], list[int]] = {}
    for index, found in enumerate(original):
        by_line.setdefault((found.fingerprint, found.context), []).append(index)
    unpaired: list[Found] = []
    for found in current:
        same = by_line.get((found.fingerprint, found.context))
        if same:
            unused.discard(same.pop())
        else:
            unpaired.append(found)
    if regions is not None:
        unpaired = _outside_regions(unpaired, data, regions)
    by_kind: dict[tuple[str, ...], list[int]] = {}
    for index in sorted(unused, reverse=True):
        by_kind.setdefault(original[index].fingerprint, []).append(index)
    fresh: list[Found] = []
    for found in unpaired:
        same_kind = by_kind.get(found.fingerprint)
        if same_kind:
            same_kind.pop()
        else:
            fresh.append(found)
    return fresh


def _outside_regions(unpaired: list[Found], data: bytes, regions: Sequence[Span]) -> list[Found]:
    """`unpaired` minus the errors starting on the lines of a region."""
    lines = [_lines_of(data, region) for region in regions]
    return [
        found
        for found in unpaired
        if not any(low <= found.start <= high or low <= found.anchor <= high for low, high in lines)
    ]


def _lines_of(data: bytes, span: Span) -> Span:
    start = min(span[0], len(data))
    end = min(max(span[1], start), len(data))
    return line_bounds(data, start)[0], line_bounds(data, end)[1]


def moved(span: Span, edit: ByteEdit) -> Span:
    """`span` of the text before `edit`, in the text after it; a span the edit touches
    grows to cover what the edit inserted."""
    start, end = span
    delta = edit.new_end_byte - edit.old_end_byte
    if end < edit.start_byte:
        return span
    if start > edit.old_end_byte:
        return (start + delta, end + delta)
    new_start = min(start, edit.start_byte)
    new_end = end + delta if end > edit.old_end_byte else edit.new_end_byte
    return (new_start, max(new_end, edit.new_end_byte))


Tolerate = Callable[[Node, bytes], bool]

_JSON_EXPONENT = re.compile(rb"[eE]\+[0-9]+")


def json_quirk(node: Node, data: bytes) -> bool:
    """An error of the JSON grammar on valid JSON: an exponent with a `+` (`1e+5`)."""
    start = node.start_byte
    return (
        node.is_error
        and start > 0
        and data[start - 1 : start].isdigit()
        and _JSON_EXPONENT.fullmatch(data, start, node.end_byte) is not None
    )


def jsonc_quirk(node: Node, data: bytes) -> bool:
    """`json_quirk`, or a trailing comma (allowed in JSON with comments): a `,` before a
    closing `]` or `}`, comments between them aside."""
    if json_quirk(node, data):
        return True
    after = _sibling(node, forward=True)
    if after is None or after.type not in ("]", "}"):
        return False
    if node.is_missing:
        before = _sibling(node, forward=False)
        return before is not None and before.type == ","
    return node.is_error and data[node.start_byte : node.end_byte] == b","


def _sibling(node: Node, forward: bool) -> Node | None:
    """The nearest sibling that is not a comment."""
    sibling = node.next_sibling if forward else node.prev_sibling
    while sibling is not None and sibling.type == "comment":
        sibling = sibling.next_sibling if forward else sibling.prev_sibling
    return sibling


# ------------------------------------------------------------------------------------------
# Lines and descriptions
# ------------------------------------------------------------------------------------------


def _breaks(data: bytes, start: int, end: int) -> int:
    """LSP line breaks in `data[start:end]`: `\\n`, `\\r\\n` (once) and `\\r`."""
    lf = data.count(b"\n", start, end)
    if data.find(b"\r", start, end) == -1:
        return lf
    return lf + data.count(b"\r", start, end) - data.count(b"\r\n", start, end)


def _outside_crlf(data: bytes, offset: int) -> int:
    if 0 < offset < len(data) and data[offset] == 0x0A and data[offset - 1] == 0x0D:
        return offset - 1
    return offset


def line_bounds(data: bytes, offset: int) -> tuple[int, int]:
    """Start and end (before its terminator) of the LSP line holding byte `offset`."""
    offset = _outside_crlf(data, offset)
    start = max(data.rfind(b"\n", 0, offset), data.rfind(b"\r", 0, offset)) + 1
    ends = [end for end in (data.find(b"\n", offset), data.find(b"\r", offset)) if end != -1]
    return start, min(ends, default=len(data))


def line_number(data: bytes, offset: int) -> int:
    """1-based LSP line of byte `offset`."""
    return _breaks(data, 0, _outside_crlf(data, offset)) + 1


def describe(found: Found, data: bytes, root_type: str) -> SyntaxProblem:
    start, end = line_bounds(data, found.start)
    offset = _outside_crlf(data, found.start)
    column = len(decode(data[start:offset])) + 1
    return SyntaxProblem(
        line=line_number(data, found.start),
        column=column,
        text=_line_text(data, start, end, offset),
        problem=_problem(found, data, root_type),
    )


def _line_text(data: bytes, start: int, end: int, offset: int) -> str:
    if end - start <= _LINE_CHARS:
        return decode(data[start:end])
    # A long line (minified code): a window around the error, cut on character boundaries.
    low = max(start, offset - _LINE_CHARS // 2)
    high = min(end, low + _LINE_CHARS)
    text = data[low:high].decode("utf-8", "ignore")
    return ("…" if low > start else "") + text + ("…" if high < end else "")


def _problem(found: Found, data: bytes, root_type: str) -> str:
    where = f" in {found.parent}" if found.parent and found.parent != root_type else ""
    if found.missing:
        what = found.symbol if found.named else f'"{found.symbol}"'
        return f"missing {what}{where}"
    covered = data[found.start : found.end].rstrip(_SPACE)
    if not covered.strip(_SPACE):
        return f"unexpected end of text{where}" if found.end >= len(data) else f"error{where}"
    snippet = covered.strip(_SPACE).splitlines()[0].decode("utf-8", "ignore")
    if len(snippet) > _SNIPPET_CHARS:
        snippet = snippet[:_SNIPPET_CHARS] + "…"
    first, last = line_number(data, found.start), line_number(data, found.start + len(covered))
    through = f" (through line {last})" if last > first else ""
    return f'unexpected "{snippet}"{where}{through}'
