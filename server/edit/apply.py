"""The flow's apply step, as one object: `ApplyStep` holds what is applied (each document's
change and the snapshot it was made on: `DocumentChange`), where (the editor) and how (the
settings, the edit's title), puts it on the live document over the user's typing (`Placed`,
the one "live snapshot if open → rebase → else document_changed"), sends it, reads what
landed, and ends with the `Verdict`. It also proposes the change for review instead
(`propose`), or lands the hunks a reviewer kept (`kept`).

`documents` is a tuple, the command's own first: a set of documents lands as one edit, all or
nothing, each document's change report read back (`documents` in the answer).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from complex_edit.server.edit.answer import Diff, Verdict, changed_lines_in, changed_lines_of
from complex_edit.server.edit.port import (
    Delivery,
    EditorPort,
    Landing,
    OtherEdit,
    Review,
    StaleEdit,
)
from complex_edit.server.outcome import (
    ChangedDocument,
    EditRefused,
    ProposedHunk,
    WirePosition,
    WireRange,
)
from complex_edit.server.session.events import SessionEvent
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk, apply_hunks, landed_hunks, make_hunks
from complex_edit.server.text.positions import Encoding, LineIndex
from complex_edit.server.text.rebase import Conflict, compose_changes, rebase
from complex_edit.server.text.unified import unified_diff

log = logging.getLogger("complex_edit.flow")
ECHO_SECONDS = 5.0
# After a reviewed edit of several documents: how long the others' reports may trail the
# command's document's (a client sends them together).
SETTLE_OTHERS_SECONDS = 0.5
# The version of a snapshot read from disk: no editor version, and none the change log has
# (rebasing it onto a buffer opened since works from the texts).
DISK_VERSION = -1
# Why a change could not be put on the live document, by step: (closed, conflict).
_MOVED = {
    "apply": (
        "The document was closed while the edit was running.",
        "The document changed where the edit applies while the sub-agent worked; nothing "
        "was applied. Run the command again.",
    ),
    "resend": (
        "The document changed where the edit applies while the edit was on its way, and the "
        "editor refused it; nothing was applied. Run the command again.",
    )
    * 2,
    "propose": (
        "The document changed where the edit applies (or was closed) while the sub-agent "
        "worked; nothing was proposed. Run the command again.",
    )
    * 2,
}


@dataclass(frozen=True)
class Sending:
    """The flow hands the result to the editor (`EditorPort.apply`): from here on it lands or
    is refused as a whole, and nothing may cancel it."""

    uri: str


# What the flow reports while it runs: the session's events, then `Sending`.
FlowEvent = SessionEvent | Sending
FlowSink = Callable[[FlowEvent], None]


@dataclass(frozen=True)
class DocumentChange:
    """What is applied to one document: `changes`, offsets into `base.text` (the snapshot the
    session started from, or the live text a review proposed them on), shown as `diff`."""

    base: Snapshot
    label: str
    changes: tuple[TextChange, ...]
    diff: str
    on_disk: bool = False
    """The session read `base.text` from the file on disk (another document, not open in the
    editor then): it lands only if the file still holds it."""

    def computed(self) -> Diff:
        return Diff.of(self.diff, self.base.text, self.changes)

    def placed(self, editor: EditorPort) -> Placed | Literal["closed", "conflict"]:
        """The change on the live document: the live snapshot when the document is open, the
        change rebased onto it; a file not open: as it is, if its disk text is still `base`;
        else why not."""
        uri = self.base.uri
        if not editor.is_open(uri):
            if not self.on_disk:
                return "closed"
            if editor.disk_text(uri) != self.base.text:
                return "conflict"
            as_read = list(self.changes)
            return Placed(self, self.base, as_read, make_hunks(self.base.text, as_read, self.label))
        live = editor.snapshot(uri)
        changes = onto_live(editor, self.base, live, self.changes)
        if changes is None:
            return "conflict"
        if live.version != self.base.version or live.text != self.base.text:
            log.info(
                "rebased the result over concurrent changes (v%s→v%s)",
                self.base.version,
                live.version,
            )
        return Placed(self, live, changes, make_hunks(live.text, changes, self.label))


@dataclass(frozen=True)
class Placed:
    """A document's change on its live text: `changes` against `live`, grouped as `hunks`."""

    document: DocumentChange
    live: Snapshot
    changes: list[TextChange]
    hunks: list[Hunk]

    @property
    def versioned(self) -> bool:
        """Open in the editor (not a file on disk): sent for the version `live` has."""
        return self.live is not self.document.base or not self.document.on_disk

    def other_edit(self) -> OtherEdit:
        return OtherEdit(self.live, self.changes, self.versioned, self.hunks)

    def shown(self, editor: EditorPort) -> list[int] | None:
        """Which of `hunks` the editor's copy of the document shows landed now (a file
        not open: none), or None when its changes do not read as any of them."""
        uri = self.live.uri
        if not editor.is_open(uri):
            return []
        now = editor.snapshot(uri).text
        reported = editor.changes_since(uri, self.live.version) if self.versioned else None
        return landed_hunks(self.live.text, self.hunks, reported, now)

    def landed(self) -> Diff:
        """Every hunk landed: the change's diff, its new lines read where they landed."""
        change = self.document
        return Diff.of(
            change.diff, change.base.text, change.changes, (self.live.text, self.changes)
        )

    def kept(self, kept: Sequence[int]) -> Diff:
        """The diff of the hunks `kept` (indexes), against the live text."""
        text, chosen = self.live.text, [self.hunks[i] for i in kept]
        diff = unified_diff(text, apply_hunks(text, chosen), self.document.label)
        return Diff.of(diff, text, [change for hunk in chosen for change in hunk.changes])

    def proposed(self) -> Diff:
        """The diff a review proposes: the change's own, unless the document moved."""
        if self.live.text == self.document.base.text:
            return self.document.computed()
        return self.kept(range(len(self.hunks)))

    def wire_hunks(self, encoding: Encoding) -> list[ProposedHunk]:
        return wire_hunks(self.live.text, self.hunks, encoding)


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

    @property
    def document(self) -> DocumentChange:
        return self.documents[0]

    def kept(self, every: Sequence[Placed], keep: Sequence[int]) -> ApplyStep:
        """The step that lands the hunks `keep` of `every` (a review's proposal: the documents'
        hunks numbered in order, the command's own first) and no others, as a plain edit
        against the texts they were proposed on. The command's document stays first even with
        none of its hunks kept (an empty edit of it)."""
        wanted, first, documents, total = set(keep), 0, [], 0
        for number, placed in enumerate(every):
            ids = range(first, first + len(placed.hunks))
            first += len(placed.hunks)
            total += len(placed.hunks)
            chosen = [placed.hunks[i - ids.start] for i in ids if i in wanted]
            if chosen or number == 0:
                documents.append(_kept_change(placed, chosen))
        return replace(
            self,
            documents=tuple(documents),
            review=False,
            declined=total - len(wanted),
        )

    def place(self, step: Literal["apply", "resend", "propose"]) -> Placed | Verdict:
        """The change on the live document, or the `document_changed` verdict of `step`."""
        placed = self.document.placed(self.editor)
        if isinstance(placed, Placed):
            return placed
        closed, conflict = _MOVED[step]
        return Verdict.failed("document_changed", closed if placed == "closed" else conflict)

    def propose(self) -> Placed | Verdict:
        """Review without an editor that can ask: the hunks proposed against the live
        document, nothing applied."""
        return self.place("propose")

    def propose_every(self) -> list[Placed] | Verdict:
        """`propose` for each document (the command's own first): all or none."""
        return self._place_all("propose")

    async def land(self) -> Verdict:
        """Apply the change to the live document, rebased over what changed meanwhile, and
        read what landed. A plain edit is a review whose hunks must all land."""
        every = self._place_all("apply")
        if isinstance(every, Verdict):
            return every
        computed = self.document.computed()
        self.report(Sending(every[0].live.uri))
        try:
            sent = await self._send_rebasing_once(every)
        except EditRefused as exc:
            return Verdict.failed(exc.reason, exc.message, diff=computed if exc.keep_diff else None)
        (placed, *others), delivery = sent.placed, sent.delivery
        echo_seconds = min(ECHO_SECONDS, self.limit_seconds)
        if sent.review is not None and (delivery.applied or not delivery.failure_reason):
            landing = await _landing(delivery, placed.hunks, echo_seconds, settle=True)
            if others and delivery.applied:
                # their reports come with the command's document's; those kept in full first
                await delivery.others_landed(min(SETTLE_OTHERS_SECONDS, echo_seconds))
            return self._reviewed(placed, landing, others, computed)
        if not delivery.applied:
            why = delivery.failure_reason or "no reason given"
            return Verdict.failed("client_rejected", f"The editor rejected the edit: {why}")
        if placed.hunks:
            landing = await _landing(delivery, placed.hunks, echo_seconds, settle=False)
        else:  # a reviewer kept only other documents' hunks: this one's edit is empty
            landing = Landing(kept=[])
        if landing.closed or landing.kept == list(range(len(placed.hunks))) or landing.pending:
            # (an editor that reports only after the answer: unconfirmed, like its own)
            if not others or landing.pending or await delivery.others_landed(echo_seconds):
                return self._landed(placed, others, confirmed=not landing.pending)
            return self._unshown(placed, others, computed)
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

    def _landed(self, placed: Placed, others: Sequence[Placed], *, confirmed: bool) -> Verdict:
        """Every hunk sent landed (after a review through the server: the kept ones)."""
        reviewed = self.declined is not None
        sent = len(placed.hunks) + sum(len(other.hunks) for other in others)
        total = sent + (self.declined or 0)
        landed = placed.landed()
        if others:  # one diff section per file; changedLines: the command's document
            text = "".join([landed.text, *(other.document.diff for other in others)])
            landed = Diff(text, landed.regions)
        return Verdict(
            applied=True,
            diff=landed,
            confirmed=confirmed,
            declined=self.declined,
            message=f"Kept {sent} of {changes(total)}." if reviewed else None,
            documents=[_changed(p) for p in [placed, *others]] if others else None,
        )

    def _unshown(self, placed: Placed, others: Sequence[Placed], computed: Diff) -> Verdict:
        """The editor applied an edit of several documents and its own document shows it,
        but not every other one does (a file it loaded without telling the server, or changes
        that are not the edit): applied, not confirmed; each document says whether it shows."""
        shown = [placed, *others]
        shows = [True, *(self._shows(other) for other in others)]
        missing = [p.document.label for p, ok in zip(shown, shows, strict=True) if not ok]
        text = "".join([computed.text, *(other.document.diff for other in others)])
        return Verdict(
            reason="client_rejected",
            error=(
                "The editor reported the edit as applied, but never reported the change to "
                f"{', '.join(missing)} (an editor may load a file it edits without telling the "
                "server); check those files."
            ),
            applied=True,
            diff=Diff(text, computed.regions),
            documents=[_changed(p, applied=ok) for p, ok in zip(shown, shows, strict=True)],
        )

    def _shows(self, placed: Placed) -> bool:
        """Does the editor's copy of `placed`'s document hold its change now?"""
        uri, editor = placed.live.uri, self.editor
        result = apply_changes(placed.live.text, placed.changes)
        return editor.is_open(uri) and editor.snapshot(uri).text == result

    def _place_all(self, step: Literal["apply", "resend", "propose"]) -> list[Placed] | Verdict:
        """Every document's change placed (the command's own first), or the verdict of the
        first that cannot take it: all or nothing."""
        own = self.place(step)
        if isinstance(own, Verdict):
            return own
        placed = [own]
        for change in self.documents[1:]:
            other = change.placed(self.editor)
            if not isinstance(other, Placed):
                done = "proposed" if step == "propose" else "applied to any file"
                return Verdict.failed(
                    "document_changed",
                    f"{change.label} changed where the edit applies (or was closed) while the "
                    f"sub-agent worked; nothing was {done}. Run the command again.",
                )
            placed.append(other)
        return placed

    async def _send_rebasing_once(self, placed: list[Placed]) -> _Sent:
        """Send the change as `placed` on the live documents. When the editor refuses it
        because a document had moved on (`StaleEdit`), put it on the documents the editor
        now has and send it once more; never more than once. Raises EditRefused."""
        try:
            try:
                return await self._send(placed)
            except StaleEdit as stale:
                log.info("the editor refused a stale edit (%s); rebasing it once", stale.message)
            moved = self._place_all("resend")
            if isinstance(moved, Verdict):
                raise EditRefused("document_changed", moved.error)
            return await self._send(moved)
        except TimeoutError:
            raise EditRefused(
                "client_rejected",
                f"The editor did not answer the edit within {self.limit_seconds:g} s (setting "
                "applyTimeoutSeconds); it was not confirmed, and the editor may still apply it: "
                "check the document.",
            ) from None

    async def _send(self, placed: list[Placed]) -> _Sent:
        own, limit = placed[0], self.limit_seconds
        review = Review(own.hunks, self.message or "") if self.review else None
        if len(placed) == 1:
            delivery = await self.editor.apply(own.live, own.changes, self.title, limit, review)
        else:
            others = [other.other_edit() for other in placed[1:]]
            delivery = await self.editor.apply(
                own.live, own.changes, self.title, limit, review, others
            )
        return _Sent(placed, review, delivery)

    def _reviewed(
        self, placed: Placed, landing: Landing, others: Sequence[Placed], computed: Diff
    ) -> Verdict:
        """The verdict once the user has reviewed the hunks (of every document) in the
        editor: what landed (in each: `documents`), the hunks kept and declined over all."""
        every = [placed, *others]
        kept = [landing.kept if not landing.closed else None]
        kept += [other.shown(self.editor) for other in others]
        if any(found is None for found in kept):
            return Verdict.failed(
                "client_rejected",
                "The editor reported the reviewed edit as applied, but the changes it then "
                "reported are not the proposed changes (dropped or applied differently); check "
                f"the {'documents' if others else 'document'}.",
                applied=True,
                diff=computed,
            )
        chosen = [found or [] for found in kept]
        total = sum(len(p.hunks) for p in every)
        count = sum(len(found) for found in chosen)
        diffs = [p.kept(found) for p, found in zip(every, chosen, strict=True)]
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
        documents = [
            _changed(p, applied=bool(found), diff=d)
            for p, found, d in zip(every, chosen, diffs, strict=True)
        ]
        return Verdict(
            applied=count > 0,
            diff=Diff("".join(d.text for d in diffs), diffs[0].regions),
            declined=total - count,
            message=said,
            documents=documents if others else None,
        )


@dataclass(frozen=True)
class _Sent:
    """The change as it was sent (`placed`, the command's document first), and the editor's
    answer."""

    placed: list[Placed]
    review: Review | None
    delivery: Delivery


async def _landing(
    delivery: Delivery, hunks: Sequence[Hunk], limit_seconds: float, *, settle: bool
) -> Landing:
    """What landed of an edit the editor answered (a declined review: nothing)."""
    if not delivery.applied:
        return Landing(kept=[])
    return await delivery.landed(hunks, limit_seconds, settle=settle)


def _kept_change(placed: Placed, chosen: Sequence[Hunk]) -> DocumentChange:
    """The `chosen` hunks of `placed` as a change of the text they were proposed on."""
    text, label = placed.live.text, placed.document.label
    return DocumentChange(
        placed.live,
        label,
        tuple(change for hunk in chosen for change in hunk.changes),
        unified_diff(text, apply_hunks(text, chosen), label) if chosen else "",
        on_disk=not placed.versioned,
    )


def proposed_hunks(every: Sequence[Placed], encoding: Encoding) -> list[ProposedHunk]:
    """The hunks of `every` (one document's, or several documents' each with its `uri`)
    as the answer's `hunks`, numbered in order."""
    hunks: list[ProposedHunk] = []
    for placed in every:
        for hunk in placed.wire_hunks(encoding):
            uri = placed.live.uri if len(every) > 1 else None
            hunks.append(hunk.model_copy(update={"id": len(hunks), "uri": uri}))
    return hunks


def _changed(placed: Placed, *, applied: bool = True, diff: Diff | None = None) -> ChangedDocument:
    landed = diff or placed.landed()
    return ChangedDocument(
        uri=placed.live.uri,
        applied=applied and bool(placed.changes),
        diff=landed.text,
        changed_lines=changed_lines_in(diff)
        if diff is not None
        else changed_lines_of(placed.document.base.text, placed.document.changes),
        version=placed.live.version if placed.versioned else None,
    )


def changes(count: int) -> str:
    return "1 change" if count == 1 else f"{count} changes"


def wire_hunks(text: str, hunks: Sequence[Hunk], encoding: Encoding) -> list[ProposedHunk]:
    """`hunks` of `text` as the answer's `hunks` (ids: their indexes)."""
    index = LineIndex(text)

    def position(offset: int) -> WirePosition:
        line, character = index.line_character_of(offset, encoding)
        return WirePosition(line=line, character=character)

    return [
        ProposedHunk(
            id=number,
            range=WireRange(start=position(hunk.start), end=position(hunk.end)),
            new_text=hunk.new_text,
            old_text=hunk.old_text,
            label=hunk.label,
            diff=hunk.diff,
        )
        for number, hunk in enumerate(hunks)
    ]


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
