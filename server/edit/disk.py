"""Edit a file on disk with the shared flow (`server.edit.flow`): the CLI's and the MCP
tool's editor.

read (refuse binary / too large / read-only) → the flow (its checks, session, diff; dry run:
stop) → atomic, change-checked write. Problems found before any model call raise
`EditRefused`; everything after is an `EditResult`. The write is the last step and has no
await inside it, so a cancelled task writes nothing.

With `other_files` "read" or "edit" the session sees the workspace `root` (one folder: the
CLI's `--root`, the MCP root holding the file); the other files it changed are written with
the file, every file or none (`files.write_all`), each only if it still holds what the
session read.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from complex_edit.server.edit.apply import FlowEvent, Sending
from complex_edit.server.edit.files import (
    BOM,
    FileChanged,
    FileRefused,
    FileWrite,
    TextFile,
    WriteFailed,
    check_writable,
    read_text_file,
    write_all,
)
from complex_edit.server.edit.flow import EditOrder, perform
from complex_edit.server.edit.port import DocumentEdit, Landing, Review
from complex_edit.server.edit.review import Proposals
from complex_edit.server.outcome import EditRefused, EditResult, SessionOutcome
from complex_edit.server.session.changed import DocumentResult
from complex_edit.server.session.events import EventSink, SessionEvent
from complex_edit.server.session.request import EditRequest, LineRange, OtherFiles, WorkspaceRoot
from complex_edit.server.session.result import FinishedSession, SessionRunner
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange, apply_changes
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk
from complex_edit.server.text.positions import Encoding


def _ignore(_: SessionEvent) -> None:
    return None


async def edit_file(
    path: Path,
    prompt: str,
    settings: Settings,
    runner: SessionRunner,
    on_event: EventSink = _ignore,
    *,
    dry_run: bool = False,
    selection: LineRange | None = None,
    label: str | None = None,
    proposals: Proposals | None = None,
    other_files: OtherFiles = "off",
    root: Path | None = None,
) -> EditResult:
    """Run the instruction on the file at `path` (already resolved and allowed by the caller).
    A change proposed for review is kept in `proposals`, to land the kept hunks later. With
    `other_files` "read" or "edit", `root` (resolved, holding `path`) is the workspace.

    Raises EditRefused before any model call. Cancellation propagates; nothing is written
    after it.
    """
    shown = label or path.name
    document = _open(path, settings, shown, dry_run=dry_run)
    workspace = root if other_files != "off" else None
    order = EditOrder(
        uri=str(path),
        prompt=prompt,
        settings=settings,
        label=shown,
        selection=selection,
        dry_run=dry_run,
        other_files=other_files,
        roots=(WorkspaceRoot(workspace.name, str(workspace)),) if workspace else (),
        document_path=str(path),
    )

    def report(event: FlowEvent) -> None:
        if not isinstance(event, Sending):  # a write cannot be cancelled half-way anyway
            on_event(event)

    editor = DiskEditor(document, shown, workspace, settings.max_document_bytes)
    result = await perform(order, editor, _FitTheFile(runner, document), report, proposals)
    return from_root(result, workspace)


def from_root(result: EditResult, root: Path | None) -> EditResult:
    """An answer of several files with each document's `uri` (and each proposed hunk's) a
    file URI, as the other front ends name documents. (Every diff section is already headed
    by its path from the root: the flow's `diff_label`.)"""
    if root is None:
        return result
    update: dict[str, object] = {}
    if result.hunks and any(hunk.uri for hunk in result.hunks):
        update["hunks"] = [
            hunk.model_copy(update={"uri": Path(hunk.uri).as_uri()}) if hunk.uri else hunk
            for hunk in result.hunks
        ]
    if result.documents:
        update["documents"] = [
            document.model_copy(update={"uri": Path(document.uri).as_uri()})
            for document in result.documents
        ]
    return result.model_copy(update=update) if update else result


def _open(path: Path, settings: Settings, shown: str, *, dry_run: bool) -> TextFile:
    """The file, read, when it is a text file that can be edited (and written)."""
    try:
        document = read_text_file(path, settings.max_document_bytes, shown)
        if not dry_run:
            check_writable(path, shown)
    except FileRefused as exc:
        raise EditRefused(exc.reason, exc.message) from None
    return document


@dataclass(frozen=True)
class _Written:
    """A write that happened: every hunk landed."""

    applied: bool = True
    failure_reason: str | None = None

    async def others_landed(self, limit_seconds: float) -> bool:
        return True

    async def landed(self, hunks: Sequence[Hunk], limit_seconds: float, *, settle: bool) -> Landing:
        return Landing(kept=list(range(len(hunks))), heard=True)


class DiskEditor:
    """`EditorPort` over a file as it was read, and the other files of its workspace `root`
    on disk (none open anywhere): the documents do not move while the session runs (a change
    on disk is found by the write, which then refuses)."""

    def __init__(
        self, document: TextFile, label: str, root: Path | None = None, max_bytes: int = 0
    ) -> None:
        self._document = document
        self._label = label
        self._root = root
        self._max_bytes = max_bytes
        self._snapshot = Snapshot(str(document.path), 0, document.text, "")

    def is_open(self, uri: str) -> bool:
        return uri == self._snapshot.uri

    def snapshot(self, uri: str) -> Snapshot:
        return self._snapshot

    def can_apply_edits(self) -> bool:
        return True

    def can_edit_several(self) -> bool:
        return True

    def uri_for(self, path: str) -> str:
        return path

    def disk_text(self, uri: str) -> str | None:
        if uri == self._snapshot.uri:
            return self._document.text
        try:
            return read_text_file(Path(uri), self._max_bytes).text
        except FileRefused:
            return None

    def can_review(self) -> bool:
        """A file has no one to ask: review answers with the hunks, writing nothing."""
        return False

    def encoding(self) -> Encoding:
        return "utf-16"

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        return []

    async def apply(
        self,
        edits: Sequence[DocumentEdit],
        label: str,
        limit_seconds: float,
        review: Review | None = None,
    ) -> _Written:
        """The atomic, change-checked write of the result: every file or none (the file
        itself may be unchanged when the edit reached only other files)."""
        writes = [
            self._write(edit)
            for number, edit in enumerate(edits)
            if number > 0 or edit.changes or len(edits) == 1
        ]
        # Let a cancellation that is already on its way land now; from here on nothing awaits.
        await asyncio.sleep(0)
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise asyncio.CancelledError
        try:
            write_all(writes)
        except FileChanged as exc:
            raise EditRefused(
                "document_changed",
                f"{self._name(exc.path)} changed on disk after it was read; nothing was "
                f"written{_anywhere(writes)}. Run the edit again.",
                keep_diff=True,
            ) from None
        except WriteFailed as exc:
            raise EditRefused(
                "client_rejected", self._failed(exc, len(writes)), keep_diff=True
            ) from None
        return _Written()

    def _write(self, edit: DocumentEdit) -> FileWrite:
        """A document's write: the file as read (its byte-order mark, its mode), or another
        file, which must still hold, byte for byte, the text the session read."""
        document, target = self._document, apply_changes(edit.base.text, edit.changes)
        if edit.base.uri == self._snapshot.uri:
            return FileWrite(document.path, document.encode(target), document.raw, document.mode)
        path = Path(edit.base.uri)
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o644  # gone: the write finds it changed and writes nothing
        return FileWrite(path, target.encode("utf-8"), edit.base.text.encode("utf-8"), mode)

    def _name(self, path: Path | None) -> str:
        """How messages call the file at `path`: its label, or its path from the root."""
        if path is None or path == self._document.path:
            return self._label
        if self._root is not None and path.is_relative_to(self._root):
            return path.relative_to(self._root).as_posix()
        return str(path)

    def _failed(self, failed: WriteFailed, count: int) -> str:
        why = failed.cause.strerror or failed.cause
        said = f"{self._name(failed.path)} could not be written ({why})"
        if count == 1:
            return f"{said}; it is unchanged."
        if not failed.renamed:
            return f"{said}; nothing was written to any file."
        if not failed.lost:
            return f"{said}; the files replaced before it were put back: all {count} unchanged."
        lost = ", ".join(
            f"{self._name(path)} (its old content is in {kept})"
            for path, kept in zip(failed.lost, failed.kept, strict=True)
        )
        return f"{said}, and these files could not be put back: {lost}."


def _anywhere(writes: Sequence[FileWrite]) -> str:
    return " to any file" if len(writes) > 1 else ""


class _FitTheFile:
    """The session's result as the files will hold it: with a byte-order mark exactly when
    the file has one (what `TextFile.encode` writes). A result a file cannot hold (a lone
    surrogate) fails as a model error, before any dry run shows it."""

    def __init__(self, runner: SessionRunner, document: TextFile) -> None:
        self._runner = runner
        self._document = document

    async def run_session(self, request: EditRequest, on_event: EventSink) -> FinishedSession:
        finished = await self._runner.run_session(request, on_event)
        if not finished.outcome.success:
            return finished
        fitted = tuple(self._fitted(number, one) for number, one in enumerate(finished.documents))
        try:
            for one in fitted:
                one.target().encode("utf-8")
        except UnicodeEncodeError:
            return FinishedSession(_unwritable(finished.outcome))
        return replace(finished, documents=fitted) if fitted != finished.documents else finished

    def _fitted(self, number: int, document: DocumentResult) -> DocumentResult:
        """A document's result as its file will hold it: the command's file as `conform` makes
        it, another with a byte-order mark exactly when the file had one."""
        target = document.target()
        if number == 0:
            fitted = self._document.conform(target)
        else:
            body = target.removeprefix(BOM)
            fitted = BOM + body if document.original.startswith(BOM) else body
        if fitted == target:
            return document
        return DocumentResult.to(
            document.original, fitted, document.label, document.path, document.version
        )


def _unwritable(outcome: SessionOutcome) -> SessionOutcome:
    """The session's outcome when its result cannot be written: a model error, with the
    session's counts."""
    return SessionOutcome(
        success=False,
        reason="model_error",
        error="The result contains invalid Unicode (a lone surrogate); nothing was written.",
        turns=outcome.turns,
        tool_calls=outcome.tool_calls,
        usage=outcome.usage,
        validation=outcome.validation,
        integrity=outcome.integrity,
    )
