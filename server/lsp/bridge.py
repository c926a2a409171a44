"""LSP types ↔ the text modules' plain values, in one place: positions and ranges ↔ offsets,
`TextChange`s → `TextEdit`s (annotated ones too), didChange's content changes →
`ContentChange`s.

Positions count characters in the negotiated encoding (see `server/text/positions.py` for the
rules of positions that do not name a character boundary). The `Position` objects passed in are
never mutated (pygls' own codec does mutate them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from lsprotocol.types import (
    AnnotatedTextEdit,
    Position,
    Range,
    TextDocumentContentChangeEvent,
    TextDocumentContentChangePartial,
    TextDocumentContentChangeWholeDocument,
    TextEdit,
)

from complex_edit.server.text.diff import TextChange
from complex_edit.server.text.documents import ContentChange
from complex_edit.server.text.positions import Encoding, LineIndex, Point, normalize_encoding


def point(position: Position) -> Point:
    return (position.line, position.character)


def offset_at(index: LineIndex, position: Position, encoding: Encoding = "utf-16") -> int:
    """Offset of an LSP `Position`."""
    return index.offset_of(position.line, position.character, encoding)


def position_at(index: LineIndex, offset: int, encoding: Encoding = "utf-16") -> Position:
    """A new LSP `Position` for `offset`."""
    line, character = index.line_character_of(offset, encoding)
    return Position(line=line, character=character)


def range_offsets(
    index: LineIndex, range_: Range, encoding: Encoding = "utf-16"
) -> tuple[int, int]:
    """(start, end) offsets of an LSP `Range`; a reversed range is put in order."""
    return index.span_offsets(point(range_.start), point(range_.end), encoding)


def range_of(index: LineIndex, start: int, end: int, encoding: Encoding = "utf-16") -> Range:
    """A new LSP `Range` for the offsets `start`..`end`."""
    return Range(start=position_at(index, start, encoding), end=position_at(index, end, encoding))


def to_text_edits(
    old_text: str,
    changes: Sequence[TextChange],
    encoding: Encoding | str = "utf-16",
    *,
    line_index: LineIndex | None = None,
) -> list[TextEdit]:
    """LSP `TextEdit`s for `changes` against `old_text`, in `encoding`.

    Pass the `LineIndex` of `old_text` when you have it, to avoid building one.
    """
    kind = normalize_encoding(encoding)
    if line_index is None:
        line_index = LineIndex(old_text)
    elif line_index.text is not old_text and line_index.text != old_text:
        raise ValueError("line_index was built for a different text")
    return [
        TextEdit(
            range=range_of(line_index, change.start, change.end, kind), new_text=change.new_text
        )
        for change in changes
    ]


def annotated(edits: Sequence[TextEdit], annotation_id: str) -> list[TextEdit | AnnotatedTextEdit]:
    """`edits`, each carrying the change annotation `annotation_id`."""
    return [
        AnnotatedTextEdit(range=edit.range, new_text=edit.new_text, annotation_id=annotation_id)
        for edit in edits
    ]


def content_changes(events: Iterable[TextDocumentContentChangeEvent]) -> list[ContentChange]:
    """didChange's `contentChanges` as the document store reads them."""
    changes = []
    for event in events:
        if isinstance(event, TextDocumentContentChangePartial):
            changes.append(
                ContentChange(event.text, (point(event.range.start), point(event.range.end)))
            )
        elif isinstance(event, TextDocumentContentChangeWholeDocument):
            changes.append(ContentChange(event.text))
        else:
            raise TypeError(f"not a TextDocumentContentChangeEvent: {type(event).__name__}")
    return changes


def label_for_uri(uri: str) -> str:
    """The last path segment of a URI, for labels and logs."""
    return uri.rsplit("/", 1)[-1] or uri


def path_of(uri: str) -> str | None:
    """The file-system path a `file:` URI names (None for other schemes)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return url2pathname(unquote(parsed.path))


def uri_of(path: str) -> str:
    """The `file:` URI of an absolute path."""
    return Path(path).as_uri()
