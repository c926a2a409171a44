"""The `performComplexEdit` flow: snapshot → session → rebase → one versioned applyEdit.

Editor-protocol details (pygls, capabilities, progress tokens) stay behind `EditorPort`; this
module decides what happens and in which order.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from server.arguments import PerformArgs
from server.documents import Snapshot
from server.edits import TextChange, apply_changes, compute_edits, unified_diff
from server.events import EventSink
from server.outcome import SessionOutcome
from server.providers.base import Provider
from server.rebase import Conflict, compose_changes, rebase
from server.result import EditResult
from server.session import EditRequest, LineRange, run_session
from server.settings import Settings

log = logging.getLogger("complex_edit.command")
ECHO_SECONDS = 5.0
Echo = Literal["matches", "differs", "silent", "closed"]


class ApplyRefused(Exception):
    """The editor did not apply the edit; the message says why."""


@dataclass(frozen=True)
class ApplyAnswer:
    applied: bool
    failure_reason: str | None = None


class EditorPort(Protocol):
    """What the flow needs from the editor connection."""

    def is_open(self, uri: str) -> bool: ...

    def snapshot(self, uri: str) -> Snapshot: ...

    def can_apply_edits(self) -> bool: ...

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        """The user's changes after `version`, in order, or None when unknown."""
        ...

    async def settings_layers(self, uri: str) -> list[Mapping[str, Any] | None]:
        """The editor's settings layers, least specific first (`SettingsLayer`s name their
        origin in error messages)."""
        ...

    async def apply(
        self, base: Snapshot, changes: Sequence[TextChange], label: str, limit_seconds: float
    ) -> ApplyAnswer:
        """Send one versioned applyEdit of `changes` (offsets into `base.text`).

        Must re-check, synchronously right before sending, that the live document is still
        `base`; raises `StaleDocument` otherwise."""
        ...

    async def confirm(
        self, base: Snapshot, changes: Sequence[TextChange], limit_seconds: float
    ) -> Echo:
        """After an accepted edit of `changes` (offsets into `base.text`), read what the editor
        reports: `matches` once its changes since `base` show the edit landing (the user's own
        keystrokes may come before and after it), `differs` when changes came but never the
        edit, `silent` when no change came in time, `closed` when the document was closed."""
        ...


class StaleDocument(Exception):
    """The live document moved on between the last check and the send."""


@dataclass(frozen=True)
class SessionResult:
    """A finished session and, for a success, what applying it needs: the diff and the edits
    from the session's text to the result, computed where the session ran (off the server's
    event loop). The outcome's `final_text` is dropped: `changes` carry the result, so a
    multi-megabyte text does not travel back from the session process."""

    outcome: SessionOutcome
    diff: str = ""
    changes: tuple[TextChange, ...] = ()

    def target(self, text: str) -> str:
        """The result: `changes` applied to `text`, the text the session was given."""
        return apply_changes(text, self.changes)


async def run_and_diff(
    request: EditRequest, provider: Provider, on_event: EventSink
) -> SessionResult:
    outcome = await run_session(request, provider, on_event)
    target = outcome.final_text
    if not outcome.success or target is None:
        return SessionResult(outcome)
    return SessionResult(
        outcome.model_copy(update={"final_text": None}),
        unified_diff(request.text, target, request.path_label or ""),
        tuple(compute_edits(request.text, target)),
    )


SessionRunner = Callable[[EditRequest, Provider, EventSink], Awaitable[SessionResult]]


@dataclass(frozen=True)
class CommandEnv:
    env: Mapping[str, str]
    provider: Provider
    run_session: SessionRunner = field(default=run_and_diff)


async def command_settings(
    args: PerformArgs, editor: EditorPort, env: Mapping[str, str]
) -> Settings:
    """The command's settings, resolved once from every layer: the environment, the editor's
    layers (`EditorPort.settings_layers`), then the command's own arguments. Raises
    SettingsError naming each bad setting and the layer it came from."""
    layers = await editor.settings_layers(args.text_document.uri)
    return Settings.from_layers(env, *layers, args.overrides())


async def perform(
    args: PerformArgs,
    settings: Settings,
    editor: EditorPort,
    command_env: CommandEnv,
    on_event: EventSink,
) -> EditResult:
    """Run the command with its resolved settings (`command_settings`)."""
    uri = args.text_document.uri
    snapshot = editor.snapshot(uri)
    problem = _check_document(snapshot.text, settings)
    if problem is not None:
        return problem
    if not args.dry_run and not editor.can_apply_edits():
        return EditResult.failure(
            "invalid_request",
            "This editor does not support workspace/applyEdit; run the command with "
            "dryRun: true to get the change as a diff.",
        )

    request = EditRequest(
        instruction=args.prompt,
        text=snapshot.text,
        settings=settings,
        selection=_selection(args),
        path_label=label_for_uri(uri),
    )
    finished = await command_env.run_session(request, command_env.provider, on_event)
    outcome = finished.outcome
    if not outcome.success:
        return EditResult.from_outcome(outcome)

    target = finished.target(snapshot.text)
    diff = finished.diff
    result = EditResult.from_outcome(outcome).model_copy(update={"diff": diff})
    if target == snapshot.text:
        return result.model_copy(update={"message": (outcome.message or "") + " (no changes)"})
    if args.dry_run:
        return result

    if not editor.is_open(uri):
        return EditResult.failure(
            "document_changed", "The document was closed while the edit was running.", outcome
        )
    live = editor.snapshot(uri)
    if live.version == snapshot.version and live.text == snapshot.text:
        changes = list(finished.changes)
    else:
        # A client that changed the text without a new version (or went backwards) leaves
        # the change log unusable: the changes are then worked out from the texts.
        user = (
            editor.changes_since(uri, snapshot.version)
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
            return EditResult.failure(
                "document_changed",
                "The document changed where the edit applies while the sub-agent worked; "
                "nothing was applied. Run the command again.",
                outcome,
            )
        changes = _nameable(live.text, rebased.changes, rebased.text)
        log.info(
            "rebased the result over concurrent changes (v%s→v%s)",
            snapshot.version,
            live.version,
        )

    label = "Complex Edit: " + one_line(args.prompt, 60)
    try:
        answer = await editor.apply(live, changes, label, settings.apply_timeout_seconds)
    except StaleDocument:
        return EditResult.failure(
            "document_changed",
            "The document changed just before the edit could be sent; nothing was applied.",
            outcome,
        )
    except ApplyRefused as exc:
        return EditResult.failure("client_rejected", str(exc), outcome)
    except TimeoutError:
        return EditResult.failure(
            "client_rejected",
            f"The editor did not answer the edit within {settings.apply_timeout_seconds:g} s "
            "(setting applyTimeoutSeconds); it was not confirmed, and the editor may still "
            "apply it: check the document.",
            outcome,
        )
    if not answer.applied:
        why = answer.failure_reason or "no reason given"
        return EditResult.failure(
            "client_rejected", f"The editor rejected the edit: {why}", outcome
        )
    echo = await editor.confirm(live, changes, min(ECHO_SECONDS, settings.apply_timeout_seconds))
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
    return EditResult.failure("client_rejected", mismatch, outcome).model_copy(
        update={"applied": True, "diff": diff}
    )


def _nameable(text: str, changes: Sequence[TextChange], target: str) -> list[TextChange]:
    """`changes` if every end falls where an LSP position can point, else the same result
    computed afresh. A rebased change can end between a CR the user typed and the LF after
    it; no position names that offset, and the editor would apply another range."""
    for change in changes:
        for cut in (change.start, change.end):
            if 0 < cut < len(text) and text[cut - 1] == "\r" and text[cut] == "\n":
                return compute_edits(text, target)
    return list(changes)


def _check_document(text: str, settings: Settings) -> EditResult | None:
    try:
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return EditResult.failure(
            "invalid_request", "The document contains invalid Unicode (a lone surrogate)."
        )
    if size > settings.max_document_bytes:
        return EditResult.failure(
            "too_large",
            f"The document is {size} bytes, over the limit of {settings.max_document_bytes} "
            "bytes (setting maxDocumentBytes).",
        )
    if "\x00" in text:
        return EditResult.failure(
            "invalid_request", "The document contains NUL bytes; binary content is not edited."
        )
    return None


def _selection(args: PerformArgs) -> LineRange | None:
    if args.range is None:
        return None
    start = args.range.start.line
    end = args.range.end.line
    if args.range.end.character == 0 and end > start:
        end -= 1
    start, end = sorted((start, end))
    return LineRange(start_line=start + 1, end_line=end + 1)


def label_for_uri(uri: str) -> str:
    """The last path segment of a URI, for labels and logs."""
    return uri.rsplit("/", 1)[-1] or uri


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed and cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
