"""The record of landed edits: one JSON file per edit, the texts it changed content-addressed.

Where: the user's state directory (`platformdirs`: `$XDG_STATE_HOME/complex-edit` on Linux),
or the setting `historyDir` (`COMPLEX_EDIT_HISTORY_DIR`); never inside the edited workspace
and never in a `.git` folder (`HistoryStore.for_root` refuses both).

Layout: `blobs/<2 hex>/<sha256>` (a text, UTF-8, stored once whatever how many records name
it), `roots/<hash of the root>/<id>.json` (one record per edit), `.lock`. Every file is
written to a temporary name and renamed, and every write (blobs, record, pruning) holds the
lock, so two servers recording at once lose nothing. On each write the root's records past
`historyMax` (newest kept) or older than `historyDays` go, with the blobs no record names.
"""

from __future__ import annotations

import calendar
import contextlib
import hashlib
import json
import os
import secrets
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock between processes
    fcntl = None  # type: ignore[assignment]

import platformdirs

from complex_edit.server.history.record import Change, Record, RecordedDocument
from complex_edit.server.text.changed_lines import changed_lines
from complex_edit.server.text.diff import TextChange, compute_edits

APP_NAME = "complex-edit"
DAY_SECONDS = 86_400.0


class HistoryError(Exception):
    """The history cannot answer: `code` "unknown_edit" (no such record), "corrupt" (a record
    or a text that cannot be read back), "unsafe" (the store would be inside the workspace or
    a `.git` folder), "io" (the file system refused)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class HistoryStore:
    """The history kept under `directory`, for the workspace `root`."""

    directory: Path
    root: Path
    max_records: int = 100
    max_days: float = 30.0
    clock: Any = field(default=time.time)

    @classmethod
    def for_root(
        cls, root: Path, directory: str | None = None, max_records: int = 100, days: float = 30.0
    ) -> HistoryStore:
        """The store of the workspace `root`: in `directory`, else the user's state directory.
        Raises HistoryError ("unsafe") when that is inside `root` or a `.git` folder."""
        where = Path(directory) if directory else Path(platformdirs.user_state_dir(APP_NAME))
        where, root = where.expanduser().resolve(), root.resolve()
        check_outside(where, root)
        return cls(where, root, max_records, days)

    @property
    def records_dir(self) -> Path:
        digest = hashlib.sha256(str(self.root).encode("utf-8", "surrogatepass")).hexdigest()
        return self.directory / "roots" / digest[:24]

    def record(
        self, instruction: str, changes: Sequence[Change], revert_of: str | None = None
    ) -> Record:
        """Write one record of an edit that changed `changes` (each document's texts); its id.
        Prunes the root's old records. Raises HistoryError."""
        now = float(self.clock())
        record_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now)) + "-" + secrets.token_hex(3)
        try:
            with self._locked():
                documents = tuple(self._document(change) for change in changes)
                record = Record(
                    record_id, now, instruction, str(self.root), documents, revert_of=revert_of
                )
                body = json.dumps(record.to_json(), ensure_ascii=False).encode("utf-8")
                self.records_dir.mkdir(parents=True, exist_ok=True)
                _write_atomic(self.records_dir / f"{record_id}.json", body)
                self._prune(now)
        except OSError as exc:
            raise HistoryError("io", f"The edit history could not be written: {exc}") from exc
        return record

    def records(self, limit: int | None = None) -> list[Record]:
        """The root's records, newest first (records that cannot be read are skipped)."""
        found = []
        for path in self._record_files():
            with contextlib.suppress(HistoryError):
                found.append(_read_record(path))
        found.sort(key=lambda record: (record.time, record.id), reverse=True)
        return found[:limit] if limit is not None else found

    def get(self, record_id: str | None) -> Record:
        """The record `record_id` (a unique prefix of it will do; None: the latest). Raises
        HistoryError ("unknown_edit" or "corrupt")."""
        if record_id is None:
            latest = self.records(1)
            if not latest:
                raise HistoryError("unknown_edit", f"No edit is recorded for {self.root}.")
            return latest[0]
        if not record_id or "/" in record_id or "\\" in record_id or record_id.startswith("."):
            raise HistoryError("unknown_edit", f"{record_id!r} is not an edit id.")
        names = [path for path in self._record_files() if path.stem.startswith(record_id)]
        exact = [path for path in names if path.stem == record_id]
        if exact:
            names = exact
        if not names:
            raise HistoryError(
                "unknown_edit",
                f"No edit {record_id!r} is recorded for {self.root} (it may have been pruned: "
                "settings historyMax and historyDays); `complex-edit log` lists them.",
            )
        if len(names) > 1:
            raise HistoryError(
                "unknown_edit", f"{record_id!r} names {len(names)} edits; give more of the id."
            )
        return _read_record(names[0])

    def text(self, digest: str | None) -> str | None:
        """The text stored under `digest` (None: no text, the file did not exist). Raises
        HistoryError ("corrupt") when it is missing or does not match its hash."""
        if digest is None:
            return None
        try:
            data = self._blob_path(digest).read_bytes()
        except OSError:
            raise HistoryError(
                "corrupt", f"A text of this edit is missing from the history ({digest[:12]})."
            ) from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise HistoryError(
                "corrupt", f"A text of this edit is damaged in the history ({digest[:12]})."
            )
        return data.decode("utf-8", "surrogatepass")

    # -- writing ---------------------------------------------------------------------------

    def _document(self, change: Change) -> RecordedDocument:
        added, removed = _lines_changed(change.before or "", change.after or "", change.changes)
        return RecordedDocument(
            path=change.path,
            uri=change.uri,
            label=change.label,
            before=self._blob(change.before),
            after=self._blob(change.after),
            added=added,
            removed=removed,
        )

    def _blob(self, text: str | None) -> str | None:
        if text is None:
            return None
        data = text.encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(data).hexdigest()
        path = self._blob_path(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(path, data)
        return digest

    def _blob_path(self, digest: str) -> Path:
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise HistoryError("corrupt", f"{digest[:64]!r} is not the hash of a text.")
        return self.directory / "blobs" / digest[:2] / digest

    def _prune(self, now: float) -> None:
        """Drop the root's records past `max_records` or older than `max_days`, then the
        blobs no record of any root names (only when a record went). Records are ordered and
        dated by their ids (`YYYYmmdd-HHMMSS-…`, UTC): nothing is read."""
        oldest = now - self.max_days * DAY_SECONDS
        files = sorted(self._record_files(), key=lambda path: path.stem, reverse=True)
        dropped = False
        for number, path in enumerate(files):
            if number >= self.max_records or _time_of(path.stem) < oldest:
                path.unlink(missing_ok=True)
                dropped = True
        if dropped:
            self._collect_blobs()

    def _collect_blobs(self) -> None:
        named: set[str] = set()
        for path in (self.directory / "roots").glob("*/*.json"):
            try:
                record = _read_record(path)
            except HistoryError:
                continue
            for document in record.documents:
                named.update(d for d in (document.before, document.after) if d)
        for blob in (self.directory / "blobs").glob("*/*"):
            if blob.name not in named and not blob.name.endswith(".tmp"):
                blob.unlink(missing_ok=True)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.directory / ".lock", "a+b") as handle:
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                if fcntl is not None:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _record_files(self) -> list[Path]:
        try:
            return [p for p in self.records_dir.iterdir() if p.suffix == ".json"]
        except OSError:
            return []


def check_outside(store: Path, root: Path) -> None:
    """Raise HistoryError ("unsafe") when `store` is inside `root` or in a `.git` folder."""
    if ".git" in store.parts:
        raise HistoryError(
            "unsafe", f"The edit history may not be kept in a .git folder ({store})."
        )
    if store == root or store.is_relative_to(root):
        raise HistoryError(
            "unsafe",
            f"The edit history ({store}) may not be kept inside the workspace {root}; set "
            "historyDir (COMPLEX_EDIT_HISTORY_DIR) elsewhere.",
        )


def _read_record(path: Path) -> Record:
    try:
        data = json.loads(path.read_bytes())
        return Record.from_json(data)
    except FileNotFoundError:
        raise HistoryError(
            "unknown_edit", f"The record {path.stem} is no longer in the history."
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise HistoryError(
            "corrupt",
            f"The record {path.stem} of the edit history cannot be read ({type(exc).__name__}); "
            f"it is {path}.",
        ) from None


def _time_of(record_id: str) -> float:
    """When the record `record_id` was made, from its id (to the second)."""
    try:
        return float(calendar.timegm(time.strptime(record_id[:15], "%Y%m%d-%H%M%S")))
    except ValueError:
        return float("inf")  # not one of ours: never pruned by age


def _write_atomic(path: Path, data: bytes) -> None:
    """`data` under a temporary name, then renamed: a reader sees the old file or the new one.
    Not fsynced (it would cost an edit ~10 ms on a disk): after a power cut the last records
    may be missing or unreadable, and are then skipped (`records`) or named (`get`)."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _lines_changed(
    before: str, after: str, changes: Sequence[TextChange] | None
) -> tuple[int, int]:
    """Lines added and removed from `before` to `after` (a line diff's counts)."""
    added = removed = 0
    if changes is None:
        changes = compute_edits(before, after)
    for region in changed_lines(before, changes):
        removed += region.old_end - region.old_start
        added += region.new_end - region.new_start
    return added, removed
