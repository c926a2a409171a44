"""The wire shape of `complexEdit/preview` (contract: "Live preview"): a file not open is sent
with `version: null` (not left out), an absent `oldText` is left out."""

from __future__ import annotations

from complex_edit.server.lsp.notifications import PreviewDocument, PreviewHunk, PreviewParams
from complex_edit.server.outcome import WirePosition, WireRange
from complex_edit.server.schema import protocol_schema

AT = WireRange(start=WirePosition(line=0, character=0), end=WirePosition(line=1, character=0))


def test_a_file_not_open_has_version_null_on_the_wire() -> None:
    params = PreviewParams(
        text_document=PreviewDocument(uri="file:///p/cli.py", version=None),
        hunks=[PreviewHunk(range=AT, new_text="fill\n")],
    )
    wire = params.to_wire()
    assert wire["textDocument"] == {"uri": "file:///p/cli.py", "version": None}
    assert wire["hunks"] == [
        {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}},
            "newText": "fill\n",
        }
    ]
    assert wire["done"] is False


def test_an_open_document_keeps_its_version_and_the_schema_allows_null() -> None:
    document = PreviewDocument(uri="file:///p/a.py", version=4)
    wire = PreviewParams(text_document=document, hunks=[], done=True).to_wire()
    expected = {"textDocument": {"uri": "file:///p/a.py", "version": 4}, "hunks": [], "done": True}
    assert wire == expected
    version = protocol_schema()["$defs"]["PreviewDocument"]["properties"]["version"]
    assert {"type": "null"} in version["anyOf"], version
