"""The one edit flow every front end uses: checks → snapshot → session → diff → rebase → apply
→ what landed → the answer.

Editor details (LSP capabilities and versions, files on disk) stay behind `EditorPort`; sessions
run behind `SessionRunner`; this module decides what happens and in which order; the apply
tail is one object (`server/edit/apply.py` `ApplyStep`). Each way ends with a `Verdict`;
`build_result` (`server/edit/answer.py`) makes the one answer from it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from complex_edit.edit_tools.syntax import grammar_for, language_for_path
from complex_edit.server.edit.answer import Shown, Verdict, build_result, combine
from complex_edit.server.edit.apply import ApplyStep, FlowSink, changes
from complex_edit.server.edit.checks import check_before_model
from complex_edit.server.edit.place import (
    DISK_VERSION,
    DocumentChange,
    proposed_hunks,
    wire_hunks,
)
from complex_edit.server.edit.port import EditorPort
from complex_edit.server.edit.recording import Recording
from complex_edit.server.edit.review import Proposal, Proposals
from complex_edit.server.outcome import EditRefused, EditResult, SessionOutcome
from complex_edit.server.session.changed import DocumentResult
from complex_edit.server.session.request import (
    EditRequest,
    LineRange,
    OpenDocument,
    OtherFiles,
    WorkspaceRoot,
)
from complex_edit.server.session.result import FinishedSession, SessionRunner
from complex_edit.server.settings import Settings
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import make_hunks


@dataclass(frozen=True)
class EditOrder:
    """What a front end asks for: `prompt` on the document `uri` (`label` names it to the
    model and in messages, and in the diff where there is no workspace: `diff_label`), with
    settings already resolved from every layer."""

    uri: str
    prompt: str
    settings: Settings
    label: str
    selection: LineRange | None = None
    dry_run: bool = False
    # A dry run's answer carries the change's hunks too (positions an editor can use).
    dry_run_hunks: bool = False
    # Whether the session may read ("read") or also change ("edit") other files: the
    # command's argument over the setting `otherFiles` (a front end whose argument is a
    # settings layer passes `settings.other_files`).
    other_files: OtherFiles = "off"
    # The workspace the session may read (LSP: the client's folders; CLI: --root; MCP: roots).
    roots: tuple[WorkspaceRoot, ...] = ()
    # The documents open in the editor besides `uri`: read from their buffers, not the disk.
    open_documents: tuple[OpenDocument, ...] = ()
    # The file-system path of `uri`'s document, when it is a file.
    document_path: str | None = None

    @property
    def reviewing(self) -> bool:
        return self.settings.review and not self.dry_run


def check(order: EditOrder, text: str) -> None:
    """Raises EditRefused when `order` on a document holding `text` cannot go to the model
    (the instruction, the selection, the document: `server/edit/checks.py`)."""
    check_before_model(order.prompt, order.selection, text, order.settings)


async def perform(
    order: EditOrder,
    editor: EditorPort,
    runner: SessionRunner,
    on_event: FlowSink,
    proposals: Proposals | None = None,
) -> EditResult:
    """Run `order` to its answer. Raises EditRefused before any model call. A change proposed
    for review is kept in `proposals` (none: its answer has no `proposalId`)."""
    snapshot = editor.snapshot(order.uri)
    check(order, snapshot.text)
    if not order.dry_run and not order.reviewing and not editor.can_apply_edits():
        raise EditRefused(
            "invalid_request",
            "This editor does not support workspace/applyEdit; run the command with "
            "dryRun: true to get the change as a diff.",
        )
    if order.other_files == "edit" and not order.dry_run and not editor.can_edit_several():
        raise EditRefused(
            "invalid_request",
            "This editor cannot take one edit of several documents (its client does not "
            "support documentChanges), so other files cannot be edited; run the command with "
            'otherFiles "read" or "off".',
        )
    finished = await runner.run_session(_request(order, snapshot), on_event)
    recording = Recording(editor, order.prompt, order.settings, order.roots)
    step = ApplyStep(
        recording,
        _document_changes(editor, snapshot, finished),
        title="Complex Edit: " + one_line(order.prompt, 60),
        review=order.settings.review,
        limit_seconds=order.settings.apply_timeout_seconds,
        message=finished.outcome.message,
        report=on_event,
    )
    verdict = await _verdict(order, step, finished.outcome, proposals)
    return recording.answer(build_result(finished.outcome, verdict))


def _request(order: EditOrder, snapshot: Snapshot) -> EditRequest:
    return EditRequest(
        instruction=order.prompt,
        text=snapshot.text,
        settings=order.settings,
        selection=order.selection,
        path_label=order.label,
        diff_label=diff_label(order),
        language=_language(snapshot.language_id, order.uri),
        other_files=order.other_files,
        roots=order.roots if order.other_files != "off" else (),
        open_documents=order.open_documents if order.other_files != "off" else (),
        document_path=order.document_path,
    )


def _language(language_id: str, uri: str) -> str | None:
    """The editor's language id when a grammar knows it, else the one the file name implies
    (files on disk have no language id; an editor may send an empty or unusual one)."""
    if grammar_for(language_id) is not None:
        return language_id
    return language_for_path(uri) or language_id or None


async def _verdict(
    order: EditOrder, step: ApplyStep, outcome: SessionOutcome, proposals: Proposals | None
) -> Verdict:
    if not outcome.success:
        return Verdict.failed(outcome.reason or "model_error", outcome.error or "")
    if not any(document.changes for document in step.documents):
        return Verdict(message=(outcome.message or "") + " (no changes)")
    if order.dry_run:
        return _dry_run(order, step)
    if order.reviewing and not step.editor.can_review():
        return _proposed(step, outcome, proposals)
    return await step.land()


def _document_changes(
    editor: EditorPort, snapshot: Snapshot, finished: FinishedSession
) -> tuple[DocumentChange, ...]:
    """The session's documents as the apply step takes them: the command's own on the
    snapshot the session started from; another from the editor's buffer it was read from
    (its version), or from disk (no version: the file must still hold it)."""
    return tuple(
        _document_change(editor, snapshot if number == 0 else None, document)
        for number, document in enumerate(finished.documents)
    )


def _document_change(
    editor: EditorPort, snapshot: Snapshot | None, document: DocumentResult
) -> DocumentChange:
    on_disk = snapshot is None and document.version is None
    if snapshot is None:
        uri = editor.uri_for(document.path or "")
        version = DISK_VERSION if document.version is None else document.version
        snapshot = Snapshot(uri, version, document.original, "")
    return DocumentChange(snapshot, document.label, document.changes, document.diff, on_disk)


def diff_label(order: EditOrder) -> str:
    """How the answer's diff heads the command's document: its path from the workspace root
    that holds it (prefixed by the folder's name when there are several), so the diff applies
    with `git apply` there; else the path as the order gives it."""
    path = order.document_path
    if path is not None:
        real = os.path.realpath(path)
        for root in order.roots:
            folder = os.path.realpath(root.path)
            if real.startswith(folder.rstrip(os.sep) + os.sep):
                rel = Path(os.path.relpath(real, folder)).as_posix()
                return rel if len(order.roots) == 1 else f"{root.name}/{rel}"
    return order.label


def _dry_run(order: EditOrder, step: ApplyStep) -> Verdict:
    """The change, applied nowhere; with its hunks (against the snapshot) when asked. Several
    documents: one diff section per file, and each in `documents`."""
    change = step.documents[0]
    hunks = None
    if order.dry_run_hunks:
        made = make_hunks(change.base.text, change.changes, change.label)
        hunks = wire_hunks(change.base.text, made, step.editor.encoding())
    version = change.base.version if hunks is not None else None
    diff, documents = combine(
        [Shown(document.base.uri, document.computed()) for document in step.documents]
    )
    return Verdict(diff=diff, hunks=hunks, version=version, documents=documents)


def _proposed(step: ApplyStep, outcome: SessionOutcome, proposals: Proposals | None) -> Verdict:
    """Review without an editor that can ask: nothing applied, the hunks of every document
    proposed against the live documents (each result rebased over the user's typing
    meanwhile; with several documents each hunk names its `uri`), kept in `proposals` for the
    reviewer's answer (`review.land_review`). Its message keeps what the checkers said (the
    answer's `diagnostics` are the session's)."""
    every = step.propose()
    if isinstance(every, Verdict):
        return every
    proposal = Proposal(step, tuple(every), outcome)
    kept = proposals.keep(proposal) if proposals is not None else None
    diff, _ = combine([Shown(placed.live.uri, placed.proposed()) for placed in every])
    return Verdict(
        diff=diff,
        hunks=proposed_hunks(every, step.editor.encoding()),
        version=every[0].live.version,
        message=f"{changes(proposal.count)} proposed for review; nothing was applied."
        + outcome.check_note,
        proposal_id=kept,
    )


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed and cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
