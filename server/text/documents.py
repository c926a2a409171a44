"""The server's own store of open documents, fed by didOpen / didChange / didClose.

It follows LSP line rules (lines break only on ``\\r\\n``, ``\\r``, ``\\n``) and the negotiated
position encoding, unlike pygls' ``TextDocument``. It hands out immutable ``Snapshot``s, keeps
a bounded log of the changes each document received (``changes_since``), and a store-wide
``generation`` counter that moves on every open, change and close (so a document closed and
reopened at the same version is told apart). Changes arrive as ``ContentChange``s (plain
positions: ``server/lsp/bridge.py`` converts the editor's).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from complex_edit.server.text.diff import TextChange, compute_edits
from complex_edit.server.text.positions import Encoding, LineIndex, Point, normalize_encoding

__all__ = [
    "ContentChange",
    "DocumentNotOpenError",
    "DocumentStore",
    "Snapshot",
]


class DocumentNotOpenError(LookupError):
    """The URI is not an open document of this store."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"document is not open: {uri}")
        self.uri = uri


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One version of one open document. ``generation`` tells reopenings apart."""

    uri: str
    version: int
    text: str
    language_id: str
    generation: int = 0


@dataclass(frozen=True, slots=True)
class ContentChange:
    """One entry of a didChange: ``text`` replaces the range ``start``..``end`` (positions in
    the store's encoding), or the whole document when ``range`` is None."""

    text: str
    range: tuple[Point, Point] | None = None


@dataclass(slots=True)
class _LogEntry:
    from_version: int
    changes: list[TextChange]
    size: int


@dataclass(slots=True)
class _Document:
    uri: str
    language_id: str
    version: int
    generation: int
    index: LineIndex
    log: deque[_LogEntry] = field(default_factory=deque)
    log_size: int = 0

    def snapshot(self) -> Snapshot:
        return Snapshot(self.uri, self.version, self.index.text, self.language_id, self.generation)


class DocumentStore:
    """Open documents by URI. Not thread-safe: use it from the server's event loop."""

    def __init__(
        self,
        encoding: str = "utf-16",
        *,
        max_log_entries: int = 1000,
        max_log_chars: int = 4_000_000,
    ) -> None:
        self._encoding: Encoding = normalize_encoding(encoding)
        self._documents: dict[str, _Document] = {}
        self._generation = 0
        self._max_log_entries = max_log_entries
        self._max_log_chars = max_log_chars

    # -- configuration ---------------------------------------------------------------------

    @property
    def encoding(self) -> Encoding:
        """The negotiated position encoding used to read incremental changes."""
        return self._encoding

    @encoding.setter
    def encoding(self, value: str) -> None:
        self._encoding = normalize_encoding(value)

    # -- notifications ---------------------------------------------------------------------

    def open(self, uri: str, text: str, version: int, language_id: str = "") -> None:
        """didOpen. Opening an open URI again replaces it (new generation, log dropped)."""
        document = _Document(uri, language_id, version, self._next_generation(), LineIndex(text))
        self._documents[uri] = document

    def change(self, uri: str, version: int, changes: Sequence[ContentChange]) -> None:
        """didChange: apply ``changes`` in order, each against the text the previous one left.

        Ranges are read in the store's encoding and clamped (see ``server.text.positions``). All
        changes are applied or none (an unknown URI raises ``DocumentNotOpenError``).
        """
        document = self._documents.get(uri)
        if document is None:
            raise DocumentNotOpenError(uri)
        index = document.index
        applied: list[TextChange] = []
        events = list(changes)
        position = 0
        while position < len(events):
            event = events[position]
            if event.range is not None:
                run = _descending_run(index, events, position, self._encoding)
                applied.extend(run)
                # Applied in arrival order, each against the text the previous one left; a
                # run whose changes go backwards through the text (what editors send for a
                # multi-range edit) reads the same against the first text: one pass.
                index = index.replaced_many([(c.start, c.end, c.new_text) for c in reversed(run)])
                position += len(run)
            else:
                # Log a whole-document replacement as the minimal edits, so that a full-sync
                # client still lets changes be rebased; descending, so each one reads against
                # the text the previous ones left.
                applied.extend(reversed(compute_edits(index.text, event.text)))
                index = LineIndex(event.text)
                position += 1
        previous = document.version
        document.index = index
        document.version = version
        document.generation = self._next_generation()
        if version <= previous:
            # Versions must increase; when they do not, old versions are ambiguous.
            document.log.clear()
            document.log_size = 0
        else:
            self._record(document, _LogEntry(previous, applied, _size(applied)))

    def close(self, uri: str) -> bool:
        """didClose: forget the document and its log. False if it was not open."""
        document = self._documents.pop(uri, None)
        if document is None:
            return False
        self._next_generation()
        return True

    # -- queries ---------------------------------------------------------------------------

    def is_open(self, uri: str) -> bool:
        return uri in self._documents

    def uris(self) -> list[str]:
        return list(self._documents)

    def snapshot(self, uri: str) -> Snapshot:
        """The current version of ``uri``; ``DocumentNotOpenError`` if it is not open."""
        document = self._documents.get(uri)
        if document is None:
            raise DocumentNotOpenError(uri)
        return document.snapshot()

    def get(self, uri: str) -> Snapshot | None:
        document = self._documents.get(uri)
        return None if document is None else document.snapshot()

    def generation(self, uri: str) -> int | None:
        """The generation of ``uri`` (changes on every change and reopen), None if closed."""
        document = self._documents.get(uri)
        return None if document is None else document.generation

    def line_index(self, uri: str) -> LineIndex:
        """The ``LineIndex`` of the current text (kept up to date, no rebuild)."""
        document = self._documents.get(uri)
        if document is None:
            raise DocumentNotOpenError(uri)
        return document.index

    def prepare(self, uri: str) -> None:
        """Build the line index of ``uri`` now, if it is open (otherwise its first use does)."""
        document = self._documents.get(uri)
        if document is not None:
            document.index.build()

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        """The changes received after the document was at ``version``, oldest first.

        Each change is offset-based against the text the previous one left (compose them with
        ``server.text.rebase.compose_changes``). ``[]`` if ``version`` is current; None if the
        document is not open or ``version`` is not in the (bounded) log.
        """
        document = self._documents.get(uri)
        if document is None:
            return None
        if version == document.version:
            return []
        entries = list(document.log)
        for position in range(len(entries) - 1, -1, -1):
            if entries[position].from_version == version:
                return [change for entry in entries[position:] for change in entry.changes]
        return None

    # -- internals -------------------------------------------------------------------------

    def _next_generation(self) -> int:
        self._generation += 1
        return self._generation

    def _record(self, document: _Document, entry: _LogEntry) -> None:
        document.log.append(entry)
        document.log_size += entry.size
        while document.log and (
            len(document.log) > self._max_log_entries or document.log_size > self._max_log_chars
        ):
            document.log_size -= document.log.popleft().size


def _exact(index: LineIndex, position: Point, encoding: Encoding) -> bool:
    """Does ``position`` name an offset itself (no clamping, no rounding)?"""
    offset = index.offset_of(*position, encoding)
    return index.line_character_of(offset, encoding) == position


def _descending_run(
    index: LineIndex, events: Sequence[ContentChange], first: int, encoding: Encoding
) -> list[TextChange]:
    """The range change at ``first`` and the ones after it that each lie wholly before the
    previous one, all as offsets into ``index.text`` (at least one change).

    Such a change reads the same in the text the previous changes left, provided its
    positions are exact (not clamped past a line end) and it does not end where the previous
    one starts right after a CR (a LF inserted there would join that CR and move the line).
    """
    event = events[first]
    assert event.range is not None
    start, end = index.span_offsets(*event.range, encoding)
    run = [TextChange(start, end, event.text)]
    text = index.text
    for event in events[first + 1 :]:
        if event.range is None:
            break
        later = run[-1]
        start, end = index.span_offsets(*event.range, encoding)
        if end > later.start or (end == later.start and text[end - 1 : end] == "\r"):
            break
        if not (
            _exact(index, event.range[0], encoding) and _exact(index, event.range[1], encoding)
        ):
            break
        run.append(TextChange(start, end, event.text))
    return run


def _size(changes: list[TextChange]) -> int:
    return sum(len(change.new_text) for change in changes) + len(changes)
