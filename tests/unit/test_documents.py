"""The document store: didOpen / didChange / didClose with LSP line rules and encodings."""

from __future__ import annotations

import dataclasses

import pytest
from lsprotocol.types import (
    Position,
    PositionEncodingKind,
    Range,
    TextDocumentContentChangePartial,
    TextDocumentContentChangeWholeDocument,
)

from complex_edit.server.lsp.bridge import content_changes
from complex_edit.server.text.diff import TextChange, apply_changes
from complex_edit.server.text.documents import DocumentNotOpenError, DocumentStore, Snapshot
from complex_edit.server.text.positions import ENCODINGS, Encoding

URI = "file:///work/doc.py"


def edit(
    start_line: int, start_char: int, end_line: int, end_char: int, text: str
) -> TextDocumentContentChangePartial:
    return TextDocumentContentChangePartial(
        range=Range(
            start=Position(line=start_line, character=start_char),
            end=Position(line=end_line, character=end_char),
        ),
        text=text,
    )


def did_change(
    store: DocumentStore,
    uri: str,
    version: int,
    events: list[TextDocumentContentChangePartial | TextDocumentContentChangeWholeDocument],
) -> None:
    """didChange as the server feeds it: the editor's changes through the LSP bridge."""
    store.change(uri, version, content_changes(events))


def store_with(text: str, encoding: str = "utf-16", version: int = 1) -> DocumentStore:
    store = DocumentStore(encoding)
    store.open(URI, text, version, "python")
    return store


def test_open_snapshot_and_close() -> None:
    store = store_with("hello\n")
    assert store.is_open(URI)
    snapshot = store.snapshot(URI)
    assert snapshot == Snapshot(URI, 1, "hello\n", "python", snapshot.generation)
    assert store.get(URI) == snapshot
    assert store.close(URI) is True
    assert not store.is_open(URI)
    assert store.get(URI) is None
    assert store.close(URI) is False


def test_snapshot_is_immutable_and_keeps_its_version() -> None:
    store = store_with("abc")
    before = store.snapshot(URI)
    did_change(store, URI, 2, [edit(0, 0, 0, 1, "X")])
    assert before.text == "abc"
    assert before.version == 1
    assert store.snapshot(URI).text == "Xbc"
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.text = "changed"  # type: ignore[misc]


def test_unknown_uri_is_a_clear_error() -> None:
    store = DocumentStore()
    with pytest.raises(DocumentNotOpenError, match="not open: file:///nope"):
        did_change(store, "file:///nope", 2, [edit(0, 0, 0, 0, "x")])
    with pytest.raises(DocumentNotOpenError):
        store.snapshot("file:///nope")
    with pytest.raises(DocumentNotOpenError):
        store.line_index("file:///nope")
    assert store.get("file:///nope") is None
    assert store.changes_since("file:///nope", 1) is None


# (start text, change, expected text) per encoding; positions differ by encoding.
EMOJI_CASES: dict[Encoding, tuple[int, int]] = {
    "utf-16": (2, 3),  # after "😀" then after "a"
    "utf-8": (4, 5),
    "utf-32": (1, 2),
}


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_insert_after_emoji_in_each_encoding(encoding: Encoding) -> None:
    after_emoji, after_a = EMOJI_CASES[encoding]
    store = store_with("😀ab\n", encoding)
    did_change(store, URI, 2, [edit(0, after_emoji, 0, after_emoji, "X")])
    assert store.snapshot(URI).text == "😀Xab\n"
    did_change(store, URI, 3, [edit(0, after_a + 0, 0, after_a + 1, "")])  # deletes "a" (after X)
    assert store.snapshot(URI).text == "😀Xb\n"


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_replace_spanning_lines_in_crlf_document(encoding: Encoding) -> None:
    store = store_with("one\r\ntwo\r\nthree\r\n", encoding)
    did_change(store, URI, 2, [edit(0, 2, 2, 1, "E\r\nT")])
    assert store.snapshot(URI).text == "onE\r\nThree\r\n"


def test_delete_line_terminator_at_line_end() -> None:
    store = store_with("ab\r\ncd\n")
    did_change(store, URI, 2, [edit(0, 2, 1, 0, "")])
    assert store.snapshot(URI).text == "abcd\n"


def test_character_past_line_end_is_clamped() -> None:
    store = store_with("ab\ncd")
    did_change(store, URI, 2, [edit(0, 99, 0, 99, "!")])
    assert store.snapshot(URI).text == "ab!\ncd"


def test_insert_at_end_of_file() -> None:
    store = store_with("ab\n")
    did_change(store, URI, 2, [edit(1, 0, 1, 0, "cd")])
    did_change(store, URI, 3, [edit(5, 0, 5, 0, "!")])  # a line past the end means the end
    assert store.snapshot(URI).text == "ab\ncd!"


def test_form_feed_and_unicode_separators_are_not_line_breaks() -> None:
    store = store_with("a\fb\u2028c\x85d\ne")
    did_change(store, URI, 2, [edit(1, 0, 1, 1, "E")])  # line 1 is "e", not "b..."
    assert store.snapshot(URI).text == "a\fb\u2028c\x85d\nE"
    did_change(store, URI, 3, [edit(0, 6, 0, 7, "D")])
    assert store.snapshot(URI).text == "a\fb\u2028c\x85D\nE"


def test_lone_cr_lines() -> None:
    store = store_with("a\rb\rc")
    did_change(store, URI, 2, [edit(2, 0, 2, 1, "C")])
    assert store.snapshot(URI).text == "a\rb\rC"


def test_inserting_lf_after_cr_joins_the_lines() -> None:
    store = store_with("a\rb")
    did_change(store, URI, 2, [edit(1, 0, 1, 0, "\n")])
    assert store.snapshot(URI).text == "a\r\nb"
    assert store.line_index(URI).line_count == 2
    did_change(store, URI, 3, [edit(1, 0, 1, 1, "B")])
    assert store.snapshot(URI).text == "a\r\nB"


def test_several_changes_apply_in_order() -> None:
    store = store_with("abc\ndef\n")
    did_change(
        store,
        URI,
        2,
        [edit(0, 0, 0, 0, "1\n"), edit(1, 0, 1, 1, "A"), edit(3, 0, 3, 0, "end")],
    )
    assert store.snapshot(URI).text == "1\nAbc\ndef\nend"


def test_full_document_change() -> None:
    store = store_with("abc\ndef\n")
    did_change(store, URI, 2, [TextDocumentContentChangeWholeDocument(text="abc\nDEF\n")])
    assert store.snapshot(URI).text == "abc\nDEF\n"
    assert store.changes_since(URI, 1) == [TextChange(4, 7, "DEF")]
    did_change(store, URI, 3, [edit(0, 0, 0, 1, "A")])
    assert store.snapshot(URI).text == "Abc\nDEF\n"


def test_a_whole_document_change_is_logged_one_change_after_another() -> None:
    # Two separate differences: each logged change reads against the text the previous left.
    store = store_with("a\r\nb\r\n")
    did_change(store, URI, 2, [TextDocumentContentChangeWholeDocument(text="A1\r\nb\r\nc\r\n")])
    logged = store.changes_since(URI, 1)
    assert logged == [TextChange(6, 6, "c\r\n"), TextChange(0, 1, "A1")]
    text = "a\r\nb\r\n"
    for change in logged:
        text = apply_changes(text, [change])
    assert text == store.snapshot(URI).text


def test_changes_since_lists_the_changes_after_a_version() -> None:
    store = store_with("abc\n")
    did_change(store, URI, 2, [edit(0, 3, 0, 3, "d")])
    did_change(store, URI, 3, [edit(0, 0, 0, 1, ""), edit(0, 0, 0, 0, "AA")])
    assert store.changes_since(URI, 3) == []
    assert store.changes_since(URI, 2) == [TextChange(0, 1, ""), TextChange(0, 0, "AA")]
    since_open = store.changes_since(URI, 1)
    assert since_open == [TextChange(3, 3, "d"), TextChange(0, 1, ""), TextChange(0, 0, "AA")]
    text = "abc\n"
    for change in since_open:
        text = apply_changes(text, [change])
    assert text == store.snapshot(URI).text
    assert store.changes_since(URI, 0) is None  # never seen


def test_changes_since_is_none_after_reopen_or_trimming() -> None:
    store = DocumentStore(max_log_entries=2)
    store.open(URI, "x", 1)
    for version in range(2, 6):
        did_change(store, URI, version, [edit(0, 0, 0, 0, str(version))])
    assert store.changes_since(URI, 1) is None  # trimmed
    assert store.changes_since(URI, 3) == [TextChange(0, 0, "4"), TextChange(0, 0, "5")]
    store.close(URI)
    assert store.changes_since(URI, 3) is None
    store.open(URI, "x", 5)
    assert store.changes_since(URI, 3) is None
    assert store.changes_since(URI, 5) == []


def test_log_is_bounded_by_size() -> None:
    store = DocumentStore(max_log_chars=100)
    store.open(URI, "", 1)
    did_change(store, URI, 2, [edit(0, 0, 0, 0, "a" * 80)])
    did_change(store, URI, 3, [edit(0, 0, 0, 0, "b" * 80)])
    assert store.changes_since(URI, 1) is None
    assert store.changes_since(URI, 2) == [TextChange(0, 0, "b" * 80)]


def test_non_increasing_version_drops_the_history() -> None:
    store = store_with("a")
    did_change(store, URI, 2, [edit(0, 1, 0, 1, "b")])
    did_change(store, URI, 2, [edit(0, 2, 0, 2, "c")])
    assert store.snapshot(URI).text == "abc"
    assert store.changes_since(URI, 1) is None
    assert store.changes_since(URI, 2) == []


def test_generation_changes_on_every_event_and_tells_reopen_apart() -> None:
    store = store_with("a")
    first = store.generation(URI)
    assert first is not None
    did_change(store, URI, 2, [edit(0, 0, 0, 0, "b")])
    second = store.generation(URI)
    assert second is not None
    assert second > first
    before_close = store.snapshot(URI)
    store.close(URI)
    assert store.generation(URI) is None
    store.open(URI, before_close.text, before_close.version, "python")
    reopened = store.snapshot(URI)
    assert (reopened.text, reopened.version) == (before_close.text, before_close.version)
    assert reopened.generation > before_close.generation


def test_encoding_can_be_changed_after_initialize() -> None:
    store = store_with("😀a")
    store.encoding = PositionEncodingKind.Utf8
    assert store.encoding == "utf-8"
    did_change(store, URI, 2, [edit(0, 4, 0, 5, "b")])
    assert store.snapshot(URI).text == "😀b"
    with pytest.raises(ValueError, match="unsupported"):
        store.encoding = "latin-1"
    assert store.encoding == "utf-8"


def test_reopening_replaces_the_document() -> None:
    store = store_with("old")
    store.open(URI, "new", 7, "text")
    snapshot = store.snapshot(URI)
    assert (snapshot.text, snapshot.version, snapshot.language_id) == ("new", 7, "text")
    assert store.uris() == [URI]


def test_line_index_follows_the_text() -> None:
    store = store_with("a\nb\n")
    did_change(store, URI, 2, [edit(1, 0, 1, 0, "x\r\ny\rz")])
    index = store.line_index(URI)
    assert index.text == store.snapshot(URI).text == "a\nx\r\ny\rzb\n"
    assert index.line_count == 5
    assert index.text[index.line_start(3) : index.line_end(3)] == "zb"


def test_prepare_builds_the_line_index_of_open_documents_only() -> None:
    store = DocumentStore()
    store.open("file:///a.py", "one\ntwo\n", 1)
    store.prepare("file:///a.py")
    store.prepare("file:///closed.py")  # not open: nothing to do, no error
    assert store.line_index("file:///a.py").line_count == 3
