"""The one edit flow every front end uses: snapshot → session → diff → rebase → apply → confirm.

Editor details (LSP capabilities and versions, files on disk) stay behind `EditorPort`; sessions
run behind `SessionRunner`; this module decides what happens and in which order.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from complex_edit.edit_tools.syntax import grammar_for, language_for_path
from complex_edit.server.edit.checks import document_problem
from complex_edit.server.edit.port import ApplyFailed, EditorPort, Review, StaleDocument
from complex_edit.server.outcome import (
    EditResult,
    ProposedHunk,
    Reason,
    SessionOutcome,
    WirePosition,
    WireRange,
)
from complex_edit.server.session.events import EventSink
from complex_edit.server.session.loop import EditRequest, LineRange
from complex_edit.server.session.result import SessionResult, SessionRunner
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange, compute_edits
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk, apply_hunks, make_hunks
from complex_edit.server.text.positions import Encoding, LineIndex
from complex_edit.server.text.rebase import Conflict, compose_changes, rebase
from complex_edit.server.text.unified import unified_diff

log = logging.getLogger("complex_edit.flow")
ECHO_SECONDS = 5.0


@dataclass(frozen=True)
class EditOrder:
    """What a front end asks for: `prompt` on the document `uri` (`label` names it in the
    diff and in messages), with settings already resolved from every layer."""

    uri: str
    prompt: str
    settings: Settings
    label: str
    selection: LineRange | None = None
    dry_run: bool = False


async def perform(
    order: EditOrder, editor: EditorPort, runner: SessionRunner, on_event: EventSink
) -> EditResult:
    snapshot = editor.snapshot(order.uri)
    problem = document_problem(snapshot.text, order.settings)
    if problem is not None:
        return problem
    reviewing = order.settings.review and not order.dry_run
    if not order.dry_run and not reviewing and not editor.can_apply_edits():
        return EditResult.failure(
            "invalid_request",
            "This editor does not support workspace/applyEdit; run the command with "
            "dryRun: true to get the change as a diff.",
        )
    finished = await runner.run_session(_request(order, snapshot), on_event)
    outcome = finished.outcome
    if not outcome.success:
        return EditResult.from_outcome(outcome)
    result = EditResult.from_outcome(outcome).model_copy(update={"diff": finished.diff})
    if finished.target(snapshot.text) == snapshot.text:
        return result.model_copy(update={"message": (outcome.message or "") + " (no changes)"})
    if order.dry_run:
        return result
    if reviewing and not editor.can_review():
        return _proposed(order, editor, snapshot, finished, result)
    return await _apply(order, editor, snapshot, finished, result)


def _request(order: EditOrder, snapshot: Snapshot) -> EditRequest:
    return EditRequest(
        instruction=order.prompt,
        text=snapshot.text,
        settings=order.settings,
        selection=order.selection,
        path_label=order.label,
        language=_language(snapshot.language_id, order.uri),
    )


def _language(language_id: str, uri: str) -> str | None:
    """The editor's language id when a grammar knows it, else the one the file name implies
    (files on disk have no language id; an editor may send an empty or unusual one)."""
    if grammar_for(language_id) is not None:
        return language_id
    return language_for_path(uri) or language_id or None


async def _apply(
    order: EditOrder,
    editor: EditorPort,
    snapshot: Snapshot,
    finished: SessionResult,
    result: EditResult,
) -> EditResult:
    """Apply the result to the live document, rebased over what changed meanwhile."""
    outcome = finished.outcome
    if not editor.is_open(order.uri):
        return EditResult.failure(
            "document_changed", "The document was closed while the edit was running.", outcome
        )
    live = editor.snapshot(order.uri)
    changes = _onto_live(editor, snapshot, live, finished)
    if changes is None:
        return EditResult.failure(
            "document_changed",
            "The document changed where the edit applies while the sub-agent worked; "
            "nothing was applied. Run the command again.",
            outcome,
        )
    limit = order.settings.apply_timeout_seconds
    review = (
        Review(make_hunks(live.text, changes, order.label), outcome.message or "")
        if order.settings.review
        else None
    )
    try:
        answer = await editor.apply(
            live, changes, "Complex Edit: " + one_line(order.prompt, 60), limit, review
        )
    except ApplyFailed as exc:
        return _not_applied(exc, result, outcome)
    except TimeoutError:
        return EditResult.failure(
            "client_rejected",
            f"The editor did not answer the edit within {limit:g} s (setting "
            "applyTimeoutSeconds); it was not confirmed, and the editor may still apply it: "
            "check the document.",
            outcome,
        )
    if review is not None and (answer.applied or not answer.failure_reason):
        landed = (
            await editor.landed(live, review.hunks, min(ECHO_SECONDS, limit))
            if answer.applied
            else []
        )
        return _reviewed(order.label, live, review.hunks, landed, result, outcome)
    if not answer.applied:
        why = answer.failure_reason or "no reason given"
        return EditResult.failure(
            "client_rejected", f"The editor rejected the edit: {why}", outcome
        )
    return await _confirm(order, editor, (live, changes), result, outcome)


def _reviewed(
    label: str,
    live: Snapshot,
    hunks: Sequence[Hunk],
    landed: list[int] | None,
    result: EditResult,
    outcome: SessionOutcome,
) -> EditResult:
    """The answer once the user has reviewed `hunks` (against `live.text`): what landed."""
    if landed is None:
        failure = EditResult.failure(
            "client_rejected",
            "The editor reported the reviewed edit as applied, but the changes it then "
            "reported are not the proposed changes (dropped or applied differently); check "
            "the document.",
            outcome,
        )
        return failure.model_copy(update={"applied": True, "diff": result.diff})
    total, kept = len(hunks), len(landed)
    if kept == 0:
        message = (
            "You declined the change; nothing was applied."
            if total == 1
            else f"You declined all {total} changes; nothing was applied."
        )
    elif kept < total:
        message = f"Applied {kept} of {total} changes; you declined {total - kept}."
    else:
        message = outcome.message or "Applied."
    landed_text = apply_hunks(live.text, [hunks[i] for i in landed])
    return result.model_copy(
        update={
            "applied": kept > 0,
            "diff": unified_diff(live.text, landed_text, label),
            "declined": total - kept,
            "message": message,
        }
    )


def _proposed(
    order: EditOrder,
    editor: EditorPort,
    snapshot: Snapshot,
    finished: SessionResult,
    result: EditResult,
) -> EditResult:
    """Review without an editor that can ask: nothing applied, the hunks proposed against
    the live document (the result rebased over the user's typing meanwhile)."""
    outcome = finished.outcome
    live = editor.snapshot(order.uri) if editor.is_open(order.uri) else None
    changes = _onto_live(editor, snapshot, live, finished) if live is not None else None
    if live is None or changes is None:
        return EditResult.failure(
            "document_changed",
            "The document changed where the edit applies (or was closed) while the sub-agent "
            "worked; nothing was proposed. Run the command again.",
            outcome,
        )
    hunks = make_hunks(live.text, changes, order.label)
    encoding = editor.encoding()
    index = LineIndex(live.text)
    proposed = [_proposed_hunk(hunk, index, encoding) for hunk in hunks]
    diff = (
        result.diff
        if live.text == snapshot.text
        else unified_diff(live.text, apply_hunks(live.text, hunks), order.label)
    )
    count = len(hunks)
    noun = "1 change" if count == 1 else f"{count} changes"
    return result.model_copy(
        update={
            "applied": False,
            "diff": diff,
            "hunks": proposed,
            "version": live.version,
            "message": f"{noun} proposed for review; nothing was applied.",
        }
    )


def _proposed_hunk(hunk: Hunk, index: LineIndex, encoding: Encoding) -> ProposedHunk:
    def position(offset: int) -> WirePosition:
        line, character = index.line_character_of(offset, encoding)
        return WirePosition(line=line, character=character)

    return ProposedHunk(
        range=WireRange(start=position(hunk.start), end=position(hunk.end)),
        new_text=hunk.new_text,
        old_text=hunk.old_text,
        label=hunk.label,
        diff=hunk.diff,
    )


def _onto_live(
    editor: EditorPort, snapshot: Snapshot, live: Snapshot, finished: SessionResult
) -> list[TextChange] | None:
    """The result's changes against the live document: as the session computed them when
    nothing changed meanwhile, else rebased over the user's changes; None on a conflict."""
    if live.version == snapshot.version and live.text == snapshot.text:
        return list(finished.changes)
    target = finished.target(snapshot.text)
    # A client that changed the text without a new version (or went backwards) leaves the
    # change log unusable: the changes are then worked out from the texts.
    user = (
        editor.changes_since(snapshot.uri, snapshot.version)
        if live.version != snapshot.version
        else None
    )
    try:
        rebased = rebase(
            snapshot.text,
            target,
            live.text,
            user=compose_changes(user) if user is not None else None,
        )
    except ValueError:
        log.warning("the change log does not match the document; rebasing from the texts")
        rebased = rebase(snapshot.text, target, live.text, user=None)
    if isinstance(rebased, Conflict):
        return None
    log.info("rebased the result over concurrent changes (v%s→v%s)", snapshot.version, live.version)
    return _nameable(live.text, rebased.changes, rebased.text)


def _nameable(text: str, changes: Sequence[TextChange], target: str) -> list[TextChange]:
    """`changes` if every end falls where an LSP position can point, else the same result
    computed afresh. A rebased change can end between a CR the user typed and the LF after
    it; no position names that offset, and the editor would apply another range."""
    for change in changes:
        for cut in (change.start, change.end):
            if 0 < cut < len(text) and text[cut - 1] == "\r" and text[cut] == "\n":
                return compute_edits(text, target)
    return list(changes)


def _not_applied(failed: ApplyFailed, result: EditResult, outcome: SessionOutcome) -> EditResult:
    reason: Reason
    if isinstance(failed, StaleDocument):
        reason, message = (
            "document_changed",
            failed.message
            or ("The document changed just before the edit could be sent; nothing was applied."),
        )
    else:
        reason, message = "client_rejected", failed.message
    failure = EditResult.failure(reason, message, outcome)
    return failure.model_copy(update={"diff": result.diff}) if failed.keep_diff else failure


async def _confirm(
    order: EditOrder,
    editor: EditorPort,
    applied: tuple[Snapshot, Sequence[TextChange]],
    result: EditResult,
    outcome: SessionOutcome,
) -> EditResult:
    """The applied result, or `client_rejected` (still `applied`) when what the editor then
    reports is not the edit."""
    live, changes = applied
    limit = min(ECHO_SECONDS, order.settings.apply_timeout_seconds)
    echo = await editor.confirm(live, changes, limit)
    if echo == "differs":
        mismatch = (
            "The editor reported the edit as applied, but the changes it then reported are "
            "not that edit (it was dropped or applied differently); check the document."
        )
    elif echo == "silent":
        mismatch = (
            "The editor reported the edit as applied but never reported the change to its "
            "document; check the document."
        )
    else:
        return result.model_copy(update={"applied": True})
    failure = EditResult.failure("client_rejected", mismatch, outcome)
    return failure.model_copy(update={"applied": True, "diff": result.diff})


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed and cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
