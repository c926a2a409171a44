"""`SyntaxCheck`: the snapshot parsed once, then each working text checked incrementally.

    check = SyntaxCheck.start(snapshot, language_id)   # slow (a full parse): off the critical path
    ...
    validation = check.check(working_text, changes)     # fast: tree.edit + incremental parse

A check only blocks for errors the snapshot did not have. When the incremental parse finds
new errors, they are confirmed by a full parse of the same text before being reported, so an
incremental-parsing quirk can never refuse a result.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import cast

from tree_sitter import Parser, Point, Tree
from tree_sitter_language_pack import SupportedLanguage, get_language

from complex_edit.edit_tools.syntax.languages import NOT_CHECKED, grammar_for, parser_grammar
from complex_edit.edit_tools.syntax.models import Validation
from complex_edit.edit_tools.syntax.offsets import (
    ByteEdit,
    TextChange,
    edit_from_diff,
    edits_from_changes,
)
from complex_edit.edit_tools.syntax.offsets import encode as encode_text
from complex_edit.edit_tools.syntax.problems import (
    Found,
    Span,
    Tolerate,
    collect,
    describe,
    json_quirk,
    jsonc_quirk,
    moved,
    new_errors,
)

# An original text with more errors than this does not fit its grammar: not checked.
MAX_ORIGINAL_ERRORS = 50
# New errors described in a `Validation` (the count says how many there were).
MAX_REPORTED = 20
# Current errors looked at beyond the original's count.
_MAX_EXTRA_ERRORS = 1000
# Errors of a grammar on valid text, by language (measured: bench/validation_false_positives.py).
_QUIRKS: Mapping[str, Tolerate] = MappingProxyType({"json": json_quirk, "jsonc": jsonc_quirk})
# Texts longer than this are handed to tree-sitter in blocks through a callback: between
# blocks the GIL can pass to other threads (py-tree-sitter holds it for a whole parse).
_READ_BLOCK = 1 << 14


class Feeder:
    """Hands a text to tree-sitter block by block, always in the same buffer.

    py-tree-sitter 0.26.1 keeps one reference to every object a read callback returns:
    returning slices of the text would keep the whole text alive after each parse. Returning
    this one buffer (refilled on each call: tree-sitter needs a block only until the next
    call) leaks a reference count, and one small view for a last, shorter block."""

    def __init__(self) -> None:
        self._block = bytearray(_READ_BLOCK)
        self._view = memoryview(self._block)

    def parse(self, parser: Parser, data: bytes, old_tree: Tree | None) -> Tree:
        source = memoryview(data)
        view = self._view

        def read(offset: int, _point: Point) -> memoryview | bytes:
            size = min(_READ_BLOCK, len(data) - offset)
            if size <= 0:
                return b""
            view[:size] = source[offset : offset + size]
            return view if size == _READ_BLOCK else view[:size]

        return parser.parse(read) if old_tree is None else parser.parse(read, old_tree)


def parse(
    parser: Parser, data: bytes, old_tree: Tree | None = None, feeder: Feeder | None = None
) -> Tree:
    """`data` parsed from scratch, or incrementally from an edited `old_tree`; through
    `feeder` (letting other threads run) when it is given and `data` is long."""
    if feeder is not None and len(data) > _READ_BLOCK:
        return feeder.parse(parser, data, old_tree)
    return parser.parse(data) if old_tree is None else parser.parse(data, old_tree)


@dataclass(slots=True)
class _Parsed:
    """The last text checked, as tree-sitter sees it: its UTF-8 bytes and tree."""

    parser: Parser
    data: bytes
    ascii: bool
    tree: Tree | None
    feeder: Feeder


class SyntaxCheck:
    """Syntax validation of one document against its snapshot. Thread-safe; `start` and
    `check` may run in a worker thread (see `parse` for the GIL)."""

    def __init__(
        self,
        language: str | None,
        parsed: _Parsed | None,
        original: list[Found],
        skipped: Validation | None,
        keep_tree: bool = True,
    ) -> None:
        self._language = language
        self._parsed = parsed
        self._keep_tree = keep_tree
        self._original = original
        # Where each original error is in the last text checked (None once unknown).
        self._regions: list[Span] | None = [(item.start, item.end) for item in original]
        self._skipped = skipped
        self._lock = threading.Lock()

    @classmethod
    def start(cls, text: str, language: str | None, *, keep_tree: bool = True) -> SyntaxCheck:
        """Parse the snapshot `text`. `language`: an LSP languageId, a Neovim filetype or a
        grammar name (see `languages.language_for_path` for files); None or one without a
        grammar gives a check that always answers "skipped".

        `keep_tree=False` keeps neither the tree nor the text's bytes (a tree takes ~20 bytes
        per byte of text): every check is then a full parse."""
        checked = grammar_for(language)
        if checked is None:
            what = f"no grammar for {language!r}" if language else "the language is unknown"
            return cls.skipping(language, f"{what}: syntax not checked")
        if checked in NOT_CHECKED:
            return cls.skipping(checked, NOT_CHECKED[checked])
        parser = Parser(get_language(cast("SupportedLanguage", parser_grammar(checked))))
        feeder = Feeder()
        data = encode_text(text)
        tree = parse(parser, data, None, feeder)
        original = _errors(checked, tree, data, MAX_ORIGINAL_ERRORS + 1)
        if len(original) > MAX_ORIGINAL_ERRORS:
            detail = (
                f"the original text has more than {MAX_ORIGINAL_ERRORS} syntax errors for the "
                f"{checked} grammar: syntax not checked"
            )
            return cls.skipping(checked, detail)
        parsed = (
            _Parsed(parser, data, text.isascii(), tree, feeder)
            if keep_tree
            else _Parsed(parser, b"", False, None, feeder)
        )
        return cls(checked, parsed, original, None, keep_tree)

    @classmethod
    def skipping(cls, language: str | None, detail: str) -> SyntaxCheck:
        """A check that answers "skipped" with `detail` (e.g. validation turned off)."""
        skipped = Validation(language=language, syntax="skipped", detail=detail)
        return cls(language, None, [], skipped)

    @property
    def language(self) -> str | None:
        return self._language

    @property
    def original_errors(self) -> int:
        """Errors the snapshot had (they never block)."""
        return len(self._original)

    def check(
        self,
        new_text: str,
        changes: Sequence[TextChange] | None = None,
        *,
        incremental: bool = True,
    ) -> Validation:
        """Validate `new_text`. `changes`: (start, end, new_text) code-point ranges of the
        previous text (the last one checked, else the snapshot), ascending and not
        overlapping, that turn it into `new_text`; None finds the changed span itself.
        Raises ValueError when `changes` do not produce `new_text`. `incremental=False`
        parses `new_text` from scratch (`changes` are then ignored)."""
        if self._skipped is not None:
            return self._skipped
        with self._lock:
            return self._check(new_text, changes, incremental)

    def _check(
        self, new_text: str, changes: Sequence[TextChange] | None, incremental: bool
    ) -> Validation:
        parsed = self._parsed
        assert parsed is not None
        data = encode_text(new_text)
        edits = _edits(parsed, new_text, data, changes)
        self._move_regions(edits)
        tree = parsed.tree if incremental else None
        if tree is not None and edits is not None:
            if not edits and data == parsed.data:
                return self._verdict(tree, data)
            for edit in edits:
                _apply(tree, edit)
        # Until the parse below succeeds, the state is "parse the next text in full"; and the
        # old bytes go first: one copy of the text at a time.
        old_tree, parsed.tree, parsed.data = tree, None, b""
        tree = parse(parsed.parser, data, old_tree, parsed.feeder)
        parsed.data, parsed.ascii, parsed.tree = data, new_text.isascii(), tree
        try:
            return self._verdict(tree, data, confirmed=old_tree is None)
        finally:
            if not self._keep_tree:
                parsed.data, parsed.tree = b"", None

    def _move_regions(self, edits: list[ByteEdit] | None) -> None:
        if edits is None or self._regions is None:
            self._regions = None
            return
        for edit in edits:
            self._regions = [moved(region, edit) for region in self._regions]

    def _verdict(self, tree: Tree, data: bytes, confirmed: bool = False) -> Validation:
        if not tree.root_node.has_error:
            return Validation(language=self._language, syntax="ok")
        limit = len(self._original) + _MAX_EXTRA_ERRORS
        found = _errors(self._language, tree, data, limit)
        fresh = new_errors(self._original, found, data, self._regions)
        if fresh and not confirmed:  # confirmed by a full parse before anything is refused
            parsed = self._parsed
            assert parsed is not None
            tree = parsed.tree = parse(parsed.parser, data, None, parsed.feeder)
            found = _errors(self._language, tree, data, limit)
            fresh = new_errors(self._original, found, data, self._regions)
        root = tree.root_node.type
        preexisting = len(found) - len(fresh)
        detail = f"{preexisting} syntax errors the original had are not counted"
        return Validation(
            language=self._language,
            syntax="errors" if fresh else "ok",
            errors=[describe(item, data, root) for item in fresh[:MAX_REPORTED]],
            count=len(fresh),
            preexisting=preexisting,
            detail=detail if preexisting else None,
        )


def _edits(
    parsed: _Parsed, new_text: str, data: bytes, changes: Sequence[TextChange] | None
) -> list[ByteEdit] | None:
    """The edits from the last text checked to `new_text`, or None when that text is gone
    (`keep_tree=False`, or a failed parse)."""
    if parsed.tree is None:
        return None
    if changes is None:
        edit = edit_from_diff(parsed.data, data)
        return [edit] if edit is not None else []
    return edits_from_changes(parsed.data, parsed.ascii, new_text, data, changes)


def _errors(language: str | None, tree: Tree, data: bytes, limit: int) -> list[Found]:
    return collect(tree.root_node, data, limit, _QUIRKS.get(language or ""))


def _apply(tree: Tree, edit: ByteEdit) -> None:
    tree.edit(
        start_byte=edit.start_byte,
        old_end_byte=edit.old_end_byte,
        new_end_byte=edit.new_end_byte,
        start_point=edit.start_point,
        old_end_point=edit.old_end_point,
        new_end_point=edit.new_end_point,
    )
