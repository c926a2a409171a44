"""The flow's apply step landing several documents as one edit (`server/edit/apply.py`): every
document placed first (open ones rebased over typing, files checked against their disk text),
all or nothing, then one `apply` carrying the others; the answer lists each document."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from complex_edit.server.edit.answer import Verdict
from complex_edit.server.edit.apply import DISK_VERSION, ApplyStep, DocumentChange
from complex_edit.server.edit.port import DocumentEdit, Landing, Review
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk
from complex_edit.server.text.positions import Encoding

OWN, OPEN, FILE = "file:///w/own.py", "file:///w/open.py", "file:///w/file.py"


@dataclass
class _Delivery:
    applied: bool = True
    failure_reason: str | None = None

    async def others_landed(self, limit_seconds: float) -> bool:
        return True

    async def landed(self, hunks: Sequence[Hunk], limit_seconds: float, *, settle: bool) -> Landing:
        return Landing(list(range(len(hunks))), heard=True)


@dataclass
class _Editor:
    """Open buffers (uri → text, version 1) and files on disk; records what it was sent."""

    buffers: dict[str, str]
    disk: dict[str, str]
    sent: list[tuple[Snapshot, list[DocumentEdit]]] = field(default_factory=list)

    def is_open(self, uri: str) -> bool:
        return uri in self.buffers

    def snapshot(self, uri: str) -> Snapshot:
        return Snapshot(uri, 1, self.buffers[uri], "python")

    def can_apply_edits(self) -> bool:
        return True

    def can_edit_several(self) -> bool:
        return True

    def can_review(self) -> bool:
        return False

    def encoding(self) -> Encoding:
        return "utf-16"

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        return None

    def uri_for(self, path: str) -> str:
        return "file://" + path

    def disk_text(self, uri: str) -> str | None:
        return self.disk.get(uri)

    async def apply(
        self,
        edits: Sequence[DocumentEdit],
        label: str,
        limit_seconds: float,
        review: Review | None = None,
    ) -> _Delivery:
        self.sent.append((edits[0].base, list(edits[1:])))
        return _Delivery()


def _change(uri: str, before: str, after: str, *, version: int = 1) -> DocumentChange:
    base = Snapshot(uri, version, before, "python")
    edits = tuple(compute_edits(before, after))
    label = uri.rsplit("/", 1)[-1]
    return DocumentChange(base, label, edits, f"--- a/{label}\n", on_disk=version == DISK_VERSION)


def _step(editor: _Editor, *documents: DocumentChange) -> ApplyStep:
    return ApplyStep(editor, documents, "t", False, 5.0, "done", lambda _: None)


def _documents() -> tuple[DocumentChange, ...]:
    return (
        _change(OWN, "a = 1\n", "a = 2\n"),
        _change(OPEN, "b = 1\n", "b = 2\n"),
        _change(FILE, "c = 1\n", "c = 2\n", version=DISK_VERSION),
    )


def _land(step: ApplyStep) -> Verdict:
    return asyncio.run(step.land())


def test_every_document_lands_in_one_edit() -> None:
    editor = _Editor({OWN: "a = 1\n", OPEN: "# typed\nb = 1\n"}, {FILE: "c = 1\n"})
    verdict = _land(_step(editor, *_documents()))
    assert verdict.reason is None, verdict
    assert verdict.applied is True
    ((own, others),) = editor.sent
    assert own.uri == OWN
    assert [(o.base.uri, o.versioned) for o in others] == [(OPEN, True), (FILE, False)]
    opened, on_disk = others
    assert apply_changes(opened.base.text, opened.changes) == "# typed\nb = 2\n"
    assert apply_changes(on_disk.base.text, on_disk.changes) == "c = 2\n"
    assert [d.uri for d in verdict.documents or []] == [OWN, OPEN, FILE]
    assert [d.version for d in verdict.documents or []] == [1, 1, None]


def test_a_file_changed_on_disk_stops_every_document() -> None:
    editor = _Editor({OWN: "a = 1\n", OPEN: "b = 1\n"}, {FILE: "c = 100\n"})
    verdict = _land(_step(editor, *_documents()))
    assert verdict.reason == "document_changed"
    assert verdict.error.startswith("file.py changed")
    assert editor.sent == []


def test_typing_over_another_document_stops_every_document() -> None:
    editor = _Editor({OWN: "a = 1\n", OPEN: "b = 7\n"}, {FILE: "c = 1\n"})
    verdict = _land(_step(editor, *_documents()))
    assert verdict.reason == "document_changed"
    assert editor.sent == []
