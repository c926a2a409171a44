"""The live preview of one command (contract: "Live preview"): `complexEdit/preview`
notifications to a client that opted in, each the change so far on the live document.

Each `WorkingChanged` of the session is put on the live document as the final edit is
(`server.edit.apply.onto_live`, over the user's typing meanwhile) and sent as line hunks in the
negotiated position encoding, coalesced: at most one per interval, the latest state wins and
is always sent. A change the user's typing conflicts with is sent as no hunks, never as wrong
ranges. The last notification of a command that ran is `{done: true, hunks: []}`. Nothing here
edits the document.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

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
from complex_edit.server.session.events import WorkingChanged
from complex_edit.server.text.diff import TextChange
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import make_hunks

log = logging.getLogger("complex_edit.preview")
# At most one preview per interval; the latest state wins and is always sent.
PREVIEW_INTERVAL_SECONDS = 0.05


class LivePreview:
    """The previews of one command on `uri`, or nothing when the client did not opt in."""

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
        self._snapshot: Snapshot | None = None
        self._previews = Latest(self._send_changes, interval)
        self._ended = False

    def begin(self) -> None:
        """The session is about to be given the document as it is now: its changes are
        against this text."""
        if self._on:
            self._snapshot = self._ls.documents.get(self._uri)

    def show(self, event: WorkingChanged) -> None:
        """The change so far is `event.changes`: send it now, or when the interval is up."""
        if self._snapshot is None or self._ended:
            return
        self._previews.offer(event.changes)

    def end(self) -> None:
        """The command is over (whatever its end): the latest state if it is still waiting,
        then the clearing notification. Once only."""
        if self._snapshot is None or self._ended:
            return
        self._previews.flush()
        self._ended = True
        live = self._ls.documents.get(self._uri)
        document = PreviewDocument(uri=self._uri, version=(live or self._snapshot).version)
        self._send(PreviewParams(text_document=document, hunks=[], done=True))

    def _send_changes(self, changes: tuple[TextChange, ...]) -> None:
        snapshot = self._snapshot
        live = self._ls.documents.get(self._uri)
        if snapshot is None or live is None or self._ended:
            return
        document = PreviewDocument(uri=self._uri, version=live.version)
        self._send(
            PreviewParams(text_document=document, hunks=self._hunks(snapshot, live, changes))
        )

    def _hunks(
        self, snapshot: Snapshot, live: Snapshot, changes: Sequence[TextChange]
    ) -> list[PreviewHunk]:
        """`changes` as hunks on `live` (none when the user's typing conflicts with them)."""
        try:
            on_live = onto_live(self._editor, snapshot, live, changes)
            if on_live is None:
                return []
            index = self._ls.documents.line_index(self._uri)
            encoding = self._editor.encoding()
            return [
                PreviewHunk(
                    range=_range(range_of(index, hunk.start, hunk.end, encoding)),
                    new_text=hunk.new_text,
                    old_text=hunk.old_text,
                )
                for hunk in make_hunks(live.text, on_live)
            ]
        except Exception:  # a bug here must not end the command: no hunks, never wrong ones
            log.exception("could not place the preview on the document")
            return []

    def _send(self, params: PreviewParams) -> None:
        try:
            self._ls.protocol.notify(PREVIEW_METHOD, params.to_wire())
        except Exception as exc:  # the editor is gone: the command ends on its own
            log.debug("could not send a preview: %s", type(exc).__name__)


def _range(range_: Range) -> WireRange:
    return WireRange(
        start=WirePosition(line=range_.start.line, character=range_.start.character),
        end=WirePosition(line=range_.end.line, character=range_.end.character),
    )
