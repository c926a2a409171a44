"""Taking back a recorded edit, every file of it or none, through the flow's apply step.

`plan` reads the record and its texts from the history, and each document's text now (the
editor's buffer when open, else the file), and works out the revert (`server/history/plan.py`).
`land` then lands the documents' changes as one edit through `ApplyStep` (the editor's
`workspace/applyEdit`, versioned for open documents and `version: null` for files, or the disk
writer: every file or none) recorded in the history as an edit of its own. The answer has an
edit's shape; a refusal says `conflict` (naming files and lines), `unknown_edit` or, from the
apply step, `document_changed`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from complex_edit.server.edit.answer import Shown, Verdict, build_result, combine
from complex_edit.server.edit.apply import ApplyStep, FlowEvent
from complex_edit.server.edit.disk import DiskEditor
from complex_edit.server.edit.files import FileRefused, read_text_file
from complex_edit.server.edit.flow import one_line
from complex_edit.server.edit.place import DISK_VERSION, DocumentChange
from complex_edit.server.edit.port import EditorPort
from complex_edit.server.edit.recording import Recording
from complex_edit.server.history.plan import DocumentRevert, RevertPlan, plan_revert
from complex_edit.server.history.record import Record
from complex_edit.server.history.store import HistoryError, HistoryStore
from complex_edit.server.outcome import EditResult, Reason, SessionOutcome
from complex_edit.server.session.request import WorkspaceRoot
from complex_edit.server.settings import Settings
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.unified import unified_diff

_REASONS: dict[str, Reason] = {"unknown_edit": "unknown_edit", "corrupt": "unknown_edit"}


@dataclass(frozen=True)
class RevertOrder:
    """Take back the edit `edit_id` (None: the latest) of the history `store`."""

    store: HistoryStore
    edit_id: str | None
    settings: Settings
    force: bool = False
    dry_run: bool = False
    roots: tuple[WorkspaceRoot, ...] = ()
    review: bool = False
    """The editor asks its user to confirm each change (VS Code: the refactor preview), when it
    can; the answer says what landed."""


def history_failure(error: HistoryError) -> EditResult:
    """The answer for a history that cannot answer."""
    return EditResult.failure(_REASONS.get(error.code, "config"), error.message)


def find_record(
    stores: Sequence[HistoryStore], edit_id: str | None
) -> tuple[HistoryStore, Record] | EditResult:
    """The record `edit_id` (None: the newest) in one of `stores` (a workspace's roots), or
    the answer that says why there is none."""
    found: list[tuple[HistoryStore, Record]] = []
    failure: HistoryError | None = None
    for store in stores:
        try:
            found.append((store, store.get(edit_id)))
        except HistoryError as exc:
            if failure is None or exc.code != "unknown_edit":
                failure = exc
    if not found:
        if failure is None:
            failure = HistoryError("unknown_edit", "No edit is recorded for this workspace.")
        return history_failure(failure)
    return max(found, key=lambda pair: (pair[1].time, pair[1].id))


def plan(order: RevertOrder, editor: EditorPort) -> RevertPlan | EditResult:
    """The revert of the order's edit against what `editor` holds now, or the answer that
    refuses it (an unknown or corrupt record)."""
    store = order.store
    try:
        record = store.get(order.edit_id)
        texts = {d.path: (store.text(d.before), store.text(d.after)) for d in record.documents}
    except HistoryError as exc:
        return history_failure(exc)
    current = {d.path: _now(editor, editor.uri_for(d.path)) for d in record.documents}
    return plan_revert(record, texts, current)


async def land(
    order: RevertOrder,
    planned: RevertPlan,
    editor: EditorPort,
    report: Callable[[FlowEvent], None] | None = None,
) -> EditResult:
    """Land `planned` through `editor` (a dry run: only the answer), all or nothing."""
    record = planned.record
    said = f"edit {record.id} ({one_line(record.instruction, 60)})"
    if planned.conflicts and not order.force:
        where = "; ".join(conflict.describe() for conflict in planned.conflicts)
        return EditResult.failure(
            "conflict",
            f"Nothing was reverted: the lines {said} changed were changed again since in "
            f"{where}. With force, the other files are reverted and these left alone.",
        )
    if not planned.documents:
        return EditResult(success=True, message=f"Nothing to take back: {said} is undone already.")
    files = [d for d in planned.documents if d.current is None or d.result is None]
    if files:
        return EditResult.failure(
            "invalid_request",
            f"Reverting {said} would create or delete {', '.join(d.label for d in files)}; this "
            "front end cannot do that yet, so nothing was reverted.",
        )
    message = f"Reverted {said} in {_files(len(planned.documents))}."
    if planned.conflicts:
        left = "; ".join(conflict.describe() for conflict in planned.conflicts)
        message += f" Left alone (changed again since): {left}."
    documents = tuple(_change(editor, d) for d in _open_first(editor, planned.documents))
    outcome = SessionOutcome(success=True, message=message)
    recording = Recording(
        editor, f"Revert {record.id}: {record.instruction}", order.settings, order.roots, record.id
    )
    if order.dry_run:
        return build_result(outcome, _dry_run(documents))
    step = ApplyStep(
        recording,
        documents,
        title="Complex Edit: revert " + one_line(record.instruction, 50),
        review=order.review and editor.can_review(),
        limit_seconds=order.settings.apply_timeout_seconds,
        message=message,
        report=report or _ignore,
    )
    return recording.answer(build_result(outcome, await step.land()))


async def on_disk(order: RevertOrder) -> EditResult:
    """The order's revert written to the files (the CLI, the MCP tool, and an editor that
    has none of them open): every file or none."""
    planned = plan_on_disk(order)
    if isinstance(planned, EditResult):
        return planned
    return await land(order, *planned)


def plan_on_disk(order: RevertOrder) -> tuple[RevertPlan, DiskEditor] | EditResult:
    """The order's revert planned against the files on disk, and their editor."""
    store, settings = order.store, order.settings
    try:
        record = store.get(order.edit_id)
    except HistoryError as exc:
        return history_failure(exc)
    present = [Path(d.path) for d in record.documents if Path(d.path).is_file()]
    if not present:
        return EditResult.failure(
            "conflict", f"Nothing was reverted: no file of edit {record.id} exists any more."
        )
    try:
        first = read_text_file(present[0], settings.max_document_bytes)
    except FileRefused as exc:
        return EditResult.failure(exc.reason, exc.message)
    root, limit = store.root, settings.max_document_bytes
    label = first.path.relative_to(root).as_posix() if first.path.is_relative_to(root) else None
    editor = DiskEditor(first, label or str(first.path), root, limit)
    planned = plan(replace(order, edit_id=record.id), editor)
    return planned if isinstance(planned, EditResult) else (planned, editor)


def _now(editor: EditorPort, uri: str) -> str | None:
    return editor.snapshot(uri).text if editor.is_open(uri) else editor.disk_text(uri)


def _open_first(editor: EditorPort, documents: Sequence[DocumentRevert]) -> list[DocumentRevert]:
    """The documents open in the editor first: the edit's first document must be one (a file
    not open goes as another document, `version: null`)."""
    return sorted(documents, key=lambda d: not editor.is_open(editor.uri_for(d.document.path)))


def _change(editor: EditorPort, revert: DocumentRevert) -> DocumentChange:
    uri = editor.uri_for(revert.document.path)
    current, result = revert.current or "", revert.result or ""
    on_disk = not editor.is_open(uri)
    base = editor.snapshot(uri) if not on_disk else Snapshot(uri, DISK_VERSION, current, "")
    diff = unified_diff(current, result, revert.label)
    return DocumentChange(base, revert.label, revert.changes, diff, on_disk=on_disk)


def _dry_run(documents: Sequence[DocumentChange]) -> Verdict:
    diff, changed = combine([Shown(d.base.uri, d.computed()) for d in documents])
    return Verdict(diff=diff, documents=changed)


def _files(count: int) -> str:
    return "1 file" if count == 1 else f"{count} files"


def _ignore(_: FlowEvent) -> None:
    return None
