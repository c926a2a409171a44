"""The flow's apply step, as one object: `ApplyStep` holds what is applied (an ordered list of
document changes, the command's document first: `DocumentChange`, placed on the live documents
by `server/edit/place.py`), where (the editor) and how (the settings, the edit's title), sends
it as one edit, confirms what landed in each document, and ends with the `Verdict`. It also
proposes the change for review instead (`propose`), or lands the hunks a reviewer kept
(`kept`).

A set of documents lands as one edit, all or nothing, each document's change report read
back (`documents` in the answer).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from complex_edit.server.edit.answer import Diff, Verdict, combine
from complex_edit.server.edit.place import (
    DISK_VERSION,
    DocumentChange,
    Placed,
    onto_live,
    place_all,
    proposed_hunks,
    wire_hunks,
)
from complex_edit.server.edit.port import Delivery, EditorPort, Landing, Review, StaleEdit
from complex_edit.server.outcome import EditRefused
from complex_edit.server.session.events import SessionEvent
from complex_edit.server.text.hunks import Hunk

__all__ = [
    "DISK_VERSION",
    "ApplyStep",
    "DocumentChange",
    "FlowEvent",
    "FlowSink",
    "Placed",
    "Sending",
    "changes",
    "onto_live",
    "proposed_hunks",
    "wire_hunks",
]

log = logging.getLogger("complex_edit.flow")
ECHO_SECONDS = 5.0
# After a reviewed edit of several documents: how long the others' reports may trail the
# command's document's (a client sends them together).
SETTLE_OTHERS_SECONDS = 0.5


@dataclass(frozen=True)
class Sending:
    """The flow hands the result to the editor (`EditorPort.apply`): from here on it lands or
    is refused as a whole, and nothing may cancel it."""

    uri: str


# The change as it was sent (placed on the live documents, the command's first), and the
# editor's answer.
_Sent = tuple[list[Placed], Delivery]
# What the flow reports while it runs: the session's events, then `Sending`.
FlowEvent = SessionEvent | Sending
FlowSink = Callable[[FlowEvent], None]


@dataclass(frozen=True)
class ApplyStep:
    """The flow's apply tail: `documents` (the command's own first) go to `editor` as one edit
    titled `title`, for the editor's own review when `review`, waiting up to `limit_seconds`
    for its answer; `message` is the session's summary; `report` hears `Sending`. `declined`:
    how many hunks a reviewer already dropped (a review landed through the server: what is left
    is a plain edit that must all land)."""

    editor: EditorPort
    documents: tuple[DocumentChange, ...]
    title: str
    review: bool
    limit_seconds: float
    message: str | None
    report: FlowSink
    declined: int | None = None

    def kept(self, every: Sequence[Placed], keep: Sequence[int]) -> ApplyStep:
        """The step that lands the hunks `keep` of `every` (a review's proposal: the documents'
        hunks numbered in order, the command's own first) and no others, as a plain edit
        against the texts they were proposed on. The command's document stays first even with
        none of its hunks kept (an empty edit of it)."""
        wanted, first, documents = set(keep), 0, []
        for number, placed in enumerate(every):
            ids = range(first, first + len(placed.hunks))
            first += len(placed.hunks)
            chosen = [placed.hunks[i - ids.start] for i in ids if i in wanted]
            if chosen or number == 0:
                documents.append(placed.kept_change(chosen))
        return replace(self, documents=tuple(documents), review=False, declined=first - len(wanted))

    def propose(self) -> list[Placed] | Verdict:
        """Review without an editor that can ask: every document's hunks proposed against
        the live documents, nothing applied; all or none."""
        return place_all(self.editor, self.documents, "propose")

    async def land(self) -> Verdict:
        """Apply the change to the live documents, rebased over what changed meanwhile, and
        read what landed. A plain edit is a review whose hunks must all land."""
        every = place_all(self.editor, self.documents, "apply")
        if isinstance(every, Verdict):
            return every
        computed = self.documents[0].computed()
        self.report(Sending(every[0].live.uri))
        sent = await self._send_rebasing_once(every)
        if isinstance(sent, Verdict):
            return sent
        placed, delivery = sent
        first, *rest = placed
        echo_seconds = min(ECHO_SECONDS, self.limit_seconds)
        if self.review and (delivery.applied or not delivery.failure_reason):
            landing = await _landing(delivery, first.hunks, echo_seconds, settle=True)
            if rest and delivery.applied:
                # their reports come with the command's document's; those kept in full first
                await delivery.others_landed(min(SETTLE_OTHERS_SECONDS, echo_seconds))
            return self._reviewed(placed, landing, computed)
        if not delivery.applied:
            why = delivery.failure_reason or "no reason given"
            return Verdict.failed("client_rejected", f"The editor rejected the edit: {why}")
        if first.hunks:
            landing = await _landing(delivery, first.hunks, echo_seconds, settle=False)
        else:  # a reviewer kept only other documents' hunks: this one's edit is empty
            landing = Landing(kept=[])
        if landing.closed or landing.kept == list(range(len(first.hunks))) or landing.pending:
            # (an editor that reports only after the answer: unconfirmed, like its own)
            if not rest or landing.pending or await delivery.others_landed(echo_seconds):
                return self._landed(placed, confirmed=not landing.pending)
            return self._unshown(placed)
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

    def _landed(self, every: Sequence[Placed], *, confirmed: bool) -> Verdict:
        """Every hunk sent landed (after a review through the server: the kept ones)."""
        reviewed = self.declined is not None
        sent = sum(len(placed.hunks) for placed in every)
        total = sent + (self.declined or 0)
        diff, documents = combine([placed.answered() for placed in every])
        return Verdict(
            applied=True,
            diff=diff,
            confirmed=confirmed,
            declined=self.declined,
            message=f"Kept {sent} of {changes(total)}." if reviewed else None,
            documents=documents,
        )

    def _unshown(self, every: Sequence[Placed]) -> Verdict:
        """The editor applied an edit of several documents and its own document shows it,
        but not every other one does (a file it loaded without telling the server, or changes
        that are not the edit): applied, not confirmed; each document says whether it shows."""
        shows = [n == 0 or placed.shows_all(self.editor) for n, placed in enumerate(every)]
        missing = [p.document.label for p, ok in zip(every, shows, strict=True) if not ok]
        diff, documents = combine(
            [placed.answered(applied=ok) for placed, ok in zip(every, shows, strict=True)]
        )
        return Verdict.failed(
            "client_rejected",
            "The editor reported the edit as applied, but never reported the change to "
            f"{', '.join(missing)} (an editor may load a file it edits without telling the "
            "server); check those files.",
            applied=True,
            diff=diff,
            documents=documents,
        )

    async def _send_rebasing_once(self, placed: list[Placed]) -> _Sent | Verdict:
        """Send the change as `placed` on the live documents. When the editor refuses it
        because a document had moved on (`StaleEdit`), put it on the documents the editor
        now has and send it once more; never more than once. A refusal: its verdict."""
        try:
            try:
                return await self._send(placed)
            except StaleEdit as stale:
                log.info("the editor refused a stale edit (%s); rebasing it once", stale.message)
            moved = place_all(self.editor, self.documents, "resend")
            if isinstance(moved, Verdict):
                return moved
            return await self._send(moved)
        except TimeoutError:
            return Verdict.failed(
                "client_rejected",
                f"The editor did not answer the edit within {self.limit_seconds:g} s (setting "
                "applyTimeoutSeconds); it was not confirmed, and the editor may still apply it: "
                "check the document.",
            )
        except EditRefused as exc:
            kept = self.documents[0].computed() if exc.keep_diff else None
            return Verdict.failed(exc.reason, exc.message, diff=kept)

    async def _send(self, placed: list[Placed]) -> _Sent:
        review = Review(self.message or "") if self.review else None
        edits = [one.edit() for one in placed]
        return placed, await self.editor.apply(edits, self.title, self.limit_seconds, review)

    def _reviewed(self, every: Sequence[Placed], landing: Landing, computed: Diff) -> Verdict:
        """The verdict once the user has reviewed the hunks (of every document) in the
        editor: what landed (in each: `documents`), the hunks kept and declined over all."""
        kept = [landing.kept if not landing.closed else None]
        kept += [other.shown(self.editor) for other in every[1:]]
        if any(found is None for found in kept):
            return Verdict.failed(
                "client_rejected",
                "The editor reported the reviewed edit as applied, but the changes it then "
                "reported are not the proposed changes (dropped or applied differently); check "
                f"the {'documents' if len(every) > 1 else 'document'}.",
                applied=True,
                diff=computed,
            )
        chosen = [found or [] for found in kept]
        total = sum(len(p.hunks) for p in every)
        count = sum(len(found) for found in chosen)
        if count == 0:
            said = (
                "You declined the change; nothing was applied."
                if total == 1
                else f"You declined all {total} changes; nothing was applied."
            )
        elif count < total:
            said = f"Applied {count} of {total} changes; you declined {total - count}."
        else:
            said = self.message or "Applied."
        diff, documents = combine(
            [
                placed.answered(placed.kept(found), applied=bool(found))
                for placed, found in zip(every, chosen, strict=True)
            ]
        )
        return Verdict(
            applied=count > 0,
            diff=diff,
            declined=total - count,
            message=said,
            documents=documents,
        )


async def _landing(
    delivery: Delivery, hunks: Sequence[Hunk], limit_seconds: float, *, settle: bool
) -> Landing:
    """What landed of an edit the editor answered (a declined review: nothing)."""
    if not delivery.applied:
        return Landing(kept=[])
    return await delivery.landed(hunks, limit_seconds, settle=settle)


def changes(count: int) -> str:
    return "1 change" if count == 1 else f"{count} changes"
