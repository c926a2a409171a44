"""One record of the edit history: the edit (`Record`), each document it changed
(`RecordedDocument`, texts by hash), and what a front end hands in to record (`Change`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from complex_edit.server.text.diff import TextChange

RECORD_VERSION = 1


@dataclass(frozen=True)
class RecordedDocument:
    """One document an edit changed: its file `path`, the `uri` the editor knew it by, its
    `label` (the path from the root), the hashes of its text `before` and `after` the edit
    (None: the file did not exist then: `created`, or `deleted`), and its lines ±."""

    path: str
    uri: str
    label: str
    before: str | None
    after: str | None
    added: int = 0
    removed: int = 0

    @property
    def created(self) -> bool:
        return self.before is None

    @property
    def deleted(self) -> bool:
        return self.after is None


@dataclass(frozen=True)
class Record:
    """One landed edit. `revert_of`: the edit this one took back."""

    id: str
    time: float
    instruction: str
    root: str
    documents: tuple[RecordedDocument, ...]
    revert_of: str | None = None

    def entry(self) -> dict[str, Any]:
        """The record as `complexEdit.history` and `complex-edit log --json` list it."""
        return {
            "id": self.id,
            "time": datetime.fromtimestamp(self.time, UTC).isoformat(timespec="seconds"),
            "instruction": self.instruction,
            "files": [document.label for document in self.documents],
            "added": sum(document.added for document in self.documents),
            "removed": sum(document.removed for document in self.documents),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "version": RECORD_VERSION,
            "id": self.id,
            "time": self.time,
            "instruction": self.instruction,
            "root": self.root,
            "revertOf": self.revert_of,
            "documents": [
                {
                    "path": d.path,
                    "uri": d.uri,
                    "label": d.label,
                    "before": d.before,
                    "after": d.after,
                    "created": d.created,
                    "added": d.added,
                    "removed": d.removed,
                }
                for d in self.documents
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> Record:
        """Raises KeyError, TypeError or ValueError for anything that is not a record."""
        if not isinstance(data, dict) or data.get("version") != RECORD_VERSION:
            raise ValueError("not a record of this version")
        documents = tuple(
            RecordedDocument(
                path=str(d["path"]),
                uri=str(d["uri"]),
                label=str(d["label"]),
                before=_hash_or_none(d["before"]),
                after=_hash_or_none(d["after"]),
                added=int(d.get("added", 0)),
                removed=int(d.get("removed", 0)),
            )
            for d in data["documents"]
        )
        revert_of = data.get("revertOf")
        return cls(
            id=str(data["id"]),
            time=float(data["time"]),
            instruction=str(data["instruction"]),
            root=str(data["root"]),
            documents=documents,
            revert_of=str(revert_of) if revert_of is not None else None,
        )


@dataclass(frozen=True)
class Change:
    """A document's texts to record: `before` / `after` None when the file did not exist."""

    path: str
    uri: str
    label: str
    before: str | None
    after: str | None
    changes: Sequence[TextChange] | None = None
    """The changes from `before` to `after`, when known (else worked out: a line diff)."""


def _hash_or_none(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError("a text hash must be a string")
    return value
