"""The one edit flow every front end uses: checks → snapshot → session → diff → rebase → apply
→ what landed → the answer.

Editor details (LSP capabilities and versions, files on disk) stay behind `EditorPort`; sessions
run behind `SessionRunner`; this module decides what happens and in which order. Each step ends
with a `Verdict`; `build_result` (`server/edit/answer.py`) makes the one answer from it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from complex_edit.edit_tools.syntax import grammar_for, language_for_path
from complex_edit.server.edit.answer import Diff, Verdict, build_result
from complex_edit.server.edit.checks import check_before_model
from complex_edit.server.edit.port import Delivery, EditorPort, Landing, Review, StaleEdit
from complex_edit.server.outcome import (
    EditRefused,
    EditResult,
    ProposedHunk,
    WirePosition,
    WireRange,
)
from complex_edit.server.session.events import SessionEvent
from complex_edit.server.session.request import EditRequest, LineRange
from complex_edit.server.session.result import FinishedSession, SessionRunner
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
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

    @property
    def reviewing(self) -> bool:
        return self.settings.review and not self.dry_run


@dataclass(frozen=True)
class Sending:
    """The flow hands the result to the editor (`EditorPort.apply`): from here on it lands or
    is refused as a whole, and nothing may cancel it."""

    uri: str


# What the flow reports while it runs: the session's events, then `Sending`.
FlowEvent = SessionEvent | Sending
FlowSink = Callable[[FlowEvent], None]


def check(order: EditOrder, text: str) -> None:
    """Raises EditRefused when `order` on a document holding `text` cannot go to the model
    (the instruction, the selection, the document: `server/edit/checks.py`)."""
    check_before_model(order.prompt, order.selection, text, order.settings)


async def perform(
    order: EditOrder, editor: EditorPort, runner: SessionRunner, on_event: FlowSink
) -> EditResult:
    """Run `order` to its answer. Raises EditRefused before any model call."""
    snapshot = editor.snapshot(order.uri)
    check(order, snapshot.text)
    if not order.dry_run and not order.reviewing and not editor.can_apply_edits():
        raise EditRefused(
            "invalid_request",
            "This editor does not support workspace/applyEdit; run the command with "
            "dryRun: true to get the change as a diff.",
        )
    finished = await runner.run_session(_request(order, snapshot), on_event)
    verdict = await _verdict(order, editor, snapshot, finished, on_event)
    return build_result(finished.outcome, verdict)


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


async def _verdict(
    order: EditOrder,
    editor: EditorPort,
    snapshot: Snapshot,
    finished: FinishedSession,
    on_event: FlowSink,
) -> Verdict:
    outcome = finished.outcome
    if not outcome.success:
        return Verdict.failed(outcome.reason or "model_error", outcome.error or "")
    if not finished.changes:
        return Verdict(message=(outcome.message or "") + " (no changes)")
    computed = Diff.of(finished.diff, snapshot.text, finished.changes)
    if order.dry_run:
        return Verdict(diff=computed)
    if order.reviewing and not editor.can_review():
        return _proposed(order, editor, snapshot, finished, computed)
    on_event(Sending(order.uri))
    return await _apply(order, editor, snapshot, finished, computed)


async def _apply(
    order: EditOrder,
    editor: EditorPort,
    snapshot: Snapshot,
    finished: FinishedSession,
    computed: Diff,
) -> Verdict:
    """Apply the result to the live document, rebased over what changed meanwhile, and read
    what landed. A plain edit is a review whose hunks must all land. (Nothing awaits before
    the edit is sent.)"""
    if not editor.is_open(order.uri):
        return Verdict.failed(
            "document_changed", "The document was closed while the edit was running."
        )
    live = editor.snapshot(order.uri)
    changes = _onto_live(editor, snapshot, live, finished)
    if changes is None:
        return Verdict.failed(
            "document_changed",
            "The document changed where the edit applies while the sub-agent worked; "
            "nothing was applied. Run the command again.",
        )
    limit = order.settings.apply_timeout_seconds
    message = finished.outcome.message
    try:
        sent = await _send_rebasing_once(order, editor, snapshot, finished, live, changes)
    except EditRefused as exc:
        return Verdict.failed(exc.reason, exc.message, diff=computed if exc.keep_diff else None)
    except TimeoutError:
        return Verdict.failed(
            "client_rejected",
            f"The editor did not answer the edit within {limit:g} s (setting "
            "applyTimeoutSeconds); it was not confirmed, and the editor may still apply it: "
            "check the document.",
        )
    delivery, hunks = sent.delivery, sent.hunks
    echo_seconds = min(ECHO_SECONDS, limit)
    if sent.review is not None and (delivery.applied or not delivery.failure_reason):
        landing = await _landing(delivery, hunks, echo_seconds, settle=True)
        return _reviewed(order.label, sent.live, hunks, landing, computed, message)
    if not delivery.applied:
        why = delivery.failure_reason or "no reason given"
        return Verdict.failed("client_rejected", f"The editor rejected the edit: {why}")
    landing = await _landing(delivery, hunks, echo_seconds, settle=False)
    if landing.closed or landing.kept == list(range(len(hunks))) or landing.pending:
        landed = Diff.of(
            finished.diff, snapshot.text, finished.changes, (sent.live.text, sent.changes)
        )
        return Verdict(applied=True, diff=landed, confirmed=not landing.pending)
    if landing.heard:
        mismatch = (
            "The editor reported the edit as applied, but the changes it then reported are "
            "not that edit (it was dropped or applied differently); check the document."
        )
    else:
        mismatch = (
            "The editor reported the edit as applied but never reported the change to its "
            "document; check the document."
        )
    return Verdict.failed("client_rejected", mismatch, applied=True, diff=computed)


@dataclass(frozen=True)
class _Sent:
    """The result as it was sent: against `live`, as `changes` and `hunks`."""

    live: Snapshot
    changes: list[TextChange]
    hunks: list[Hunk]
    review: Review | None
    delivery: Delivery


async def _send_rebasing_once(
    order: EditOrder,
    editor: EditorPort,
    snapshot: Snapshot,
    finished: FinishedSession,
    live: Snapshot,
    changes: list[TextChange],
) -> _Sent:
    """Send the result's `changes` (against `live`). When the editor refuses them because its
    document had moved on (`StaleEdit`), rebase the result onto the document it now has and
    send it once more; never more than once."""
    try:
        return await _send(order, editor, live, changes, finished.outcome.message)
    except StaleEdit as stale:
        log.info("the editor refused a stale edit (%s); rebasing it once", stale.message)
    moved = editor.snapshot(order.uri) if editor.is_open(order.uri) else None
    rebased = _onto_live(editor, snapshot, moved, finished) if moved is not None else None
    if moved is None or rebased is None:
        raise EditRefused(
            "document_changed",
            "The document changed where the edit applies while the edit was on its way, and "
            "the editor refused it; nothing was applied. Run the command again.",
        )
    return await _send(order, editor, moved, rebased, finished.outcome.message)


async def _send(
    order: EditOrder,
    editor: EditorPort,
    live: Snapshot,
    changes: list[TextChange],
    message: str | None,
) -> _Sent:
    hunks = make_hunks(live.text, changes, order.label)
    review = Review(hunks, message or "") if order.settings.review else None
    label = "Complex Edit: " + one_line(order.prompt, 60)
    limit = order.settings.apply_timeout_seconds
    delivery = await editor.apply(live, changes, label, limit, review)
    return _Sent(live, changes, hunks, review, delivery)


async def _landing(
    delivery: Delivery, hunks: Sequence[Hunk], limit_seconds: float, *, settle: bool
) -> Landing:
    """What landed of an edit the editor answered (a declined review: nothing)."""
    if not delivery.applied:
        return Landing(kept=[])
    return await delivery.landed(hunks, limit_seconds, settle=settle)


def _reviewed(
    label: str,
    live: Snapshot,
    hunks: Sequence[Hunk],
    landing: Landing,
    computed: Diff,
    message: str | None,
) -> Verdict:
    """The verdict once the user has reviewed `hunks` (against `live.text`): what landed."""
    if landing.closed or landing.kept is None:
        return Verdict.failed(
            "client_rejected",
            "The editor reported the reviewed edit as applied, but the changes it then "
            "reported are not the proposed changes (dropped or applied differently); check "
            "the document.",
            applied=True,
            diff=computed,
        )
    total, kept = len(hunks), len(landing.kept)
    if kept == 0:
        said = (
            "You declined the change; nothing was applied."
            if total == 1
            else f"You declined all {total} changes; nothing was applied."
        )
    elif kept < total:
        said = f"Applied {kept} of {total} changes; you declined {total - kept}."
    else:
        said = message or "Applied."
    chosen = [hunks[i] for i in landing.kept]
    landed_changes = [change for hunk in chosen for change in hunk.changes]
    diff = unified_diff(live.text, apply_hunks(live.text, chosen), label)
    return Verdict(
        applied=kept > 0,
        diff=Diff.of(diff, live.text, landed_changes),
        declined=total - kept,
        message=said,
    )


def _proposed(
    order: EditOrder,
    editor: EditorPort,
    snapshot: Snapshot,
    finished: FinishedSession,
    computed: Diff,
) -> Verdict:
    """Review without an editor that can ask: nothing applied, the hunks proposed against
    the live document (the result rebased over the user's typing meanwhile)."""
    live = editor.snapshot(order.uri) if editor.is_open(order.uri) else None
    changes = _onto_live(editor, snapshot, live, finished) if live is not None else None
    if live is None or changes is None:
        return Verdict.failed(
            "document_changed",
            "The document changed where the edit applies (or was closed) while the sub-agent "
            "worked; nothing was proposed. Run the command again.",
        )
    hunks = make_hunks(live.text, changes, order.label)
    encoding = editor.encoding()
    index = LineIndex(live.text)
    proposed = [_proposed_hunk(hunk, index, encoding) for hunk in hunks]
    diff = (
        computed
        if live.text == snapshot.text
        else Diff.of(
            unified_diff(live.text, apply_hunks(live.text, hunks), order.label),
            live.text,
            changes,
        )
    )
    count = len(hunks)
    noun = "1 change" if count == 1 else f"{count} changes"
    return Verdict(
        diff=diff,
        hunks=proposed,
        version=live.version,
        message=f"{noun} proposed for review; nothing was applied.",
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
    editor: EditorPort, snapshot: Snapshot, live: Snapshot, finished: FinishedSession
) -> list[TextChange] | None:
    """The result's changes against the live document (`onto_live`); None on a conflict."""
    changes = onto_live(editor, snapshot, live, finished.changes)
    moved = live.version != snapshot.version or live.text != snapshot.text
    if changes is not None and moved:
        log.info(
            "rebased the result over concurrent changes (v%s→v%s)", snapshot.version, live.version
        )
    return changes


def onto_live(
    editor: EditorPort, snapshot: Snapshot, live: Snapshot, changes: Sequence[TextChange]
) -> list[TextChange] | None:
    """`changes` (against `snapshot`) against the live document: as they are when nothing
    changed meanwhile, else rebased over the user's changes; None on a conflict. The final
    edit and the live preview both put a session's change on the document this way."""
    if live.version == snapshot.version and live.text == snapshot.text:
        return list(changes)
    target = apply_changes(snapshot.text, changes)
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


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed and cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
