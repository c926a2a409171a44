"""Every landed edit into the history (`server/history/`), from whichever front end.

`Recording` stands in for the editor in an apply step: it passes everything on, and keeps what
each `apply` sent (each document's text as it was sent on, and its changes). Once the answer says
the edit was applied, `answer` records each document's text before and after and gives the
answer its `editId`. A history that cannot be written never fails the edit: the answer then has
no `editId`, and the log says why.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from complex_edit.server.edit.port import Delivery, DocumentEdit, EditorPort, Review
from complex_edit.server.edit.roots import file_path, record_root
from complex_edit.server.history.record import Change
from complex_edit.server.history.store import HistoryError, HistoryStore
from complex_edit.server.outcome import EditResult
from complex_edit.server.session.request import WorkspaceRoot
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange, apply_changes
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.positions import Encoding

log = logging.getLogger("complex_edit.history")


@dataclass(frozen=True)
class _Sent:
    base: Snapshot
    changes: Sequence[TextChange]
    reviewed: bool


class Recording:
    """`EditorPort` over `editor` that records what lands (`answer`) as the edit
    `instruction` (`revert_of`: the edit a revert takes back)."""

    def __init__(
        self,
        editor: EditorPort,
        instruction: str,
        settings: Settings,
        roots: Sequence[WorkspaceRoot] = (),
        revert_of: str | None = None,
    ) -> None:
        self.editor = editor
        self._instruction = instruction
        self._settings = settings
        self._roots = tuple(Path(root.path) for root in roots)
        self._revert_of = revert_of
        self._sent: list[_Sent] = []

    def answer(self, result: EditResult) -> EditResult:
        """`result`, with the `editId` of its record when it says the edit was applied."""
        if not result.applied or not self._sent or self._settings.history_max == 0:
            return result
        try:
            changes = [change for sent in self._sent if (change := self._change(sent))]
            if not changes:
                return result
            store = self.store_for(Path(changes[0].path))
            record = store.record(self._instruction, changes, revert_of=self._revert_of)
        except HistoryError as exc:
            log.warning("the edit was not recorded: %s", exc.message)
            return result
        return result.model_copy(update={"edit_id": record.id})

    def store_for(self, path: Path) -> HistoryStore:
        """The history of the workspace holding `path`. Raises HistoryError."""
        return history_store(self._settings, self.root_of(path))

    def root_of(self, path: Path) -> Path:
        """The workspace root holding `path`: the deepest root given, else its git top level,
        else its folder."""
        holding = [root for root in self._roots if path.is_relative_to(root)]
        if holding:
            return max(holding, key=lambda root: len(root.parts))
        return record_root(path)

    def _change(self, sent: _Sent) -> Change | None:
        uri = sent.base.uri
        if "://" in uri and not uri.startswith("file:"):
            return None  # not a file (an untitled buffer): nothing to take back later
        path = Path(file_path(uri))
        before = sent.base.text
        after = self._now(uri) if sent.reviewed else apply_changes(before, sent.changes)
        if after is None or after == before:
            return None
        root = self.root_of(path)
        label = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        changes = None if sent.reviewed else sent.changes
        return Change(str(path), uri, label, before, after, changes)

    def _now(self, uri: str) -> str | None:
        """What a reviewed document holds now (what its reviewer kept)."""
        editor = self.editor
        return editor.snapshot(uri).text if editor.is_open(uri) else editor.disk_text(uri)

    # -- EditorPort, passed on -------------------------------------------------------------

    def is_open(self, uri: str) -> bool:
        return self.editor.is_open(uri)

    def snapshot(self, uri: str) -> Snapshot:
        return self.editor.snapshot(uri)

    def can_apply_edits(self) -> bool:
        return self.editor.can_apply_edits()

    def can_edit_several(self) -> bool:
        return self.editor.can_edit_several()

    def can_review(self) -> bool:
        return self.editor.can_review()

    def encoding(self) -> Encoding:
        return self.editor.encoding()

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        return self.editor.changes_since(uri, version)

    def uri_for(self, path: str) -> str:
        return self.editor.uri_for(path)

    def disk_text(self, uri: str) -> str | None:
        return self.editor.disk_text(uri)

    async def apply(
        self,
        edits: Sequence[DocumentEdit],
        label: str,
        limit_seconds: float,
        review: Review | None = None,
    ) -> Delivery:
        delivery = await self.editor.apply(edits, label, limit_seconds, review)
        reviewed = review is not None and self.editor.can_review()
        self._sent = [_Sent(edit.base, edit.changes, reviewed) for edit in edits]
        return delivery


def history_store(settings: Settings, root: Path) -> HistoryStore:
    """The history of the workspace `root` as the settings place and bound it. Raises
    HistoryError."""
    return HistoryStore.for_root(
        root, settings.history_dir, settings.history_max, settings.history_days
    )
