"""The live preview of one command (contract: "Live preview"): `complexEdit/preview`
notifications to a client that opted in, each the change so far on the live document.

Each `WorkingChanged` of the session (and each `OtherChanged` of another document open in
the editor, on that document) is put on the live document as the final edit is
(`server.edit.apply.onto_live`, over the user's typing meanwhile) and sent as line hunks in the
negotiated position encoding, coalesced: at most one per interval, the latest state wins and
is always sent. A change the user's typing conflicts with is sent as no hunks, never as wrong
ranges. A file the session read from disk (its first `OtherChanged` carries the text read) is
previewed with `version: null`, its hunks on that text. The last notification of a command
that ran is `{done: true, hunks: []}`, for each document it previewed. Nothing here edits a
document.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol.types import Range

from complex_edit.server.edit.apply import onto_live
from complex_edit.server.edit.port import EditorPort
from complex_edit.server.lsp.bridge import range_of
from complex_edit.server.lsp.notifications import (
    PREVIEW_METHOD,
    PreviewDocument,
    PreviewHunk,
    PreviewParams,
)
from complex_edit.server.lsp.pacing import Latest
from complex_edit.server.lsp.server import ComplexEditServer
from complex_edit.server.outcome import WirePosition, WireRange
from complex_edit.server.session.events import OtherChanged, WorkingChanged
from complex_edit.server.session.request import OpenDocument
from complex_edit.server.text.diff import TextChange
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import make_hunks
from complex_edit.server.text.positions import LineIndex

log = logging.getLogger("complex_edit.preview")
# At most one preview per interval; the latest state wins and is always sent.
PREVIEW_INTERVAL_SECONDS = 0.05


class LivePreview:
    """The previews of one command on `uri` and on each other document its session changes
    (open or not), or nothing when the client did not opt in."""

    def __init__(
        self,
        ls: ComplexEditServer,
        editor: EditorPort,
        uri: str,
        interval: float = PREVIEW_INTERVAL_SECONDS,
    ) -> None:
        self._ls = ls
        self._editor = editor
        self._uri = uri
        self._on = ls.abilities.live_preview
        self._interval = interval
        self._shown: dict[str, _Shown] = {}  # by URI, the command's own first
        self._others: dict[str, Snapshot] = {}  # other open documents, by real path
        self._disk: dict[str, Snapshot] = {}  # files read from disk, by real path
        self._ended = False

    def begin(self, others: Sequence[OpenDocument] = ()) -> None:
        """The session is about to be given the document as it is now (its changes are
        against this text), and `others` as the editor had them (theirs against those)."""
        if not self._on:
            return
        own = self._ls.documents.get(self._uri)
        if own is not None:
            self._shown[self._uri] = self._shown_for(own)
        for other in others:
            uri = self._editor.uri_for(other.path)
            version = other.version if other.version is not None else 0
            self._others[os.path.realpath(other.path)] = Snapshot(uri, version, other.text, "")

    def show(self, event: WorkingChanged | OtherChanged) -> None:
        """The change so far is `event.changes` (of the command's document, or of another
        open one): send it now, or when the interval is up."""
        if self._ended or not self._on:
            return
        shown: _Shown | None
        if isinstance(event, WorkingChanged):
            shown = self._shown.get(self._uri)
        else:
            shown = self._other(event)
        if shown is not None:
            shown.previews.offer(event.changes)

    def end(self) -> None:
        """The command is over (whatever its end): the latest state of each document if it is
        still waiting, then each one's clearing notification. Once only."""
        if self._ended or not self._shown:
            self._ended = True
            return
        for shown in self._shown.values():
            shown.previews.flush()
        self._ended = True
        for uri, shown in self._shown.items():
            version = None
            if not shown.disk:
                version = (self._ls.documents.get(uri) or shown.snapshot).version
            document = PreviewDocument(uri=uri, version=version)
            self._send(PreviewParams(text_document=document, hunks=[], done=True))

    def _other(self, event: OtherChanged) -> _Shown | None:
        """The previews of the other document `event` changed: on the text read from disk
        when it was read from there, else on the editor's buffer, when it was open as the
        session started and still is."""
        real = os.path.realpath(event.path)
        disk = self._disk.get(real)
        if disk is None and event.disk_text is not None:
            uri = self._editor.uri_for(event.path)
            disk = self._disk[real] = Snapshot(uri, 0, event.disk_text, "")
        if disk is not None:
            snapshot, from_disk = disk, True
        else:
            open_snapshot = self._others.get(real)
            if open_snapshot is None or not self._editor.is_open(open_snapshot.uri):
                return None
            snapshot, from_disk = open_snapshot, False
        shown = self._shown.get(snapshot.uri)
        if shown is None:
            shown = self._shown[snapshot.uri] = self._shown_for(snapshot, from_disk)
        return shown

    def _shown_for(self, snapshot: Snapshot, disk: bool = False) -> _Shown:
        send = self._send_disk if disk else self._send_changes
        return _Shown(snapshot, Latest(functools.partial(send, snapshot), self._interval), disk)

    def _send_changes(self, snapshot: Snapshot, changes: tuple[TextChange, ...]) -> None:
        live = self._ls.documents.get(snapshot.uri)
        if live is None or self._ended:
            return
        document = PreviewDocument(uri=snapshot.uri, version=live.version)
        self._send(
            PreviewParams(text_document=document, hunks=self._hunks(snapshot, live, changes))
        )

    def _send_disk(self, snapshot: Snapshot, changes: tuple[TextChange, ...]) -> None:
        """A file not open: `changes` on the text read from disk, `version: null`."""
        if self._ended:
            return
        try:
            hunks = self._wire_hunks(snapshot.text, LineIndex(snapshot.text), changes)
        except Exception:  # as in `_hunks`: no hunks, never wrong ones
            log.exception("could not place the preview on the file")
            hunks = []
        document = PreviewDocument(uri=snapshot.uri, version=None)
        self._send(PreviewParams(text_document=document, hunks=hunks))

    def _hunks(
        self, snapshot: Snapshot, live: Snapshot, changes: Sequence[TextChange]
    ) -> list[PreviewHunk]:
        """`changes` as hunks on `live` (none when the user's typing conflicts with them)."""
        try:
            on_live = onto_live(self._editor, snapshot, live, changes)
            if on_live is None:
                return []
            return self._wire_hunks(live.text, self._ls.documents.line_index(live.uri), on_live)
        except Exception:  # a bug here must not end the command: no hunks, never wrong ones
            log.exception("could not place the preview on the document")
            return []

    def _wire_hunks(
        self, text: str, index: LineIndex, changes: Sequence[TextChange]
    ) -> list[PreviewHunk]:
        """`changes` of `text` (whose line index is `index`) as line hunks in the negotiated
        position encoding."""
        encoding = self._editor.encoding()
        return [
            PreviewHunk(
                range=_range(range_of(index, hunk.start, hunk.end, encoding)),
                new_text=hunk.new_text,
                old_text=hunk.old_text,
            )
            for hunk in make_hunks(text, changes)
        ]

    def _send(self, params: PreviewParams) -> None:
        try:
            self._ls.protocol.notify(PREVIEW_METHOD, params.to_wire())
        except Exception as exc:  # the editor is gone: the command ends on its own
            log.debug("could not send a preview: %s", type(exc).__name__)


@dataclass(frozen=True)
class _Shown:
    """One document's previews: the text the session's changes are against, and their pace."""

    snapshot: Snapshot
    previews: Latest[tuple[TextChange, ...]]
    disk: bool = False  # read from disk: `version: null`, hunks on the text read


def _range(range_: Range) -> WireRange:
    return WireRange(
        start=WirePosition(line=range_.start.line, character=range_.start.character),
        end=WirePosition(line=range_.end.line, character=range_.end.character),
    )
