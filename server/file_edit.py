"""Edit one file on disk with the sub-agent: the flow shared by the CLI and the MCP tool.

read (refuse binary / too large) → session → diff → (dry run: stop) → atomic checked write.
Problems found before any model call raise `EditRefused`; everything after is an `EditResult`.
The write is the last step and has no await inside it, so a cancelled task writes nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from edit_tools.lines import line_count
from server.events import EventSink, SessionEvent
from server.files import FileChanged, FileRefused, check_writable, read_text_file, write_atomic
from server.outcome import Reason
from server.providers.base import Provider
from server.providers.select import ProviderHub
from server.result import EditResult
from server.session import EditRequest, LineRange, run_session
from server.settings import Settings


class EditRefused(Exception):
    """The request cannot run (bad file, bad range, bad prompt); no model call was made."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = reason
        self.message = message

    def result(self) -> EditResult:
        return EditResult.failure(self.reason, self.message)


def _ignore(_: SessionEvent) -> None:
    return None


async def edit_file(
    path: Path,
    prompt: str,
    settings: Settings,
    provider: Provider,
    on_event: EventSink = _ignore,
    *,
    dry_run: bool = False,
    selection: LineRange | None = None,
    label: str | None = None,
) -> EditResult:
    """Run the instruction on the file at `path` (already resolved and allowed by the caller).

    Raises EditRefused before any model call. Cancellation propagates; nothing is written
    after it.
    """
    _check_prompt(prompt, settings)
    shown = label or path.name
    try:
        document = read_text_file(path, settings.max_document_bytes, shown)
        if not dry_run:
            check_writable(path, shown)
    except FileRefused as exc:
        raise EditRefused(exc.reason, exc.message) from None
    if selection is not None:
        _check_selection(selection, document.text)

    request = EditRequest(
        instruction=prompt,
        text=document.text,
        settings=settings,
        selection=selection,
        path_label=shown,
    )
    outcome = await run_session(request, provider, on_event)
    if not outcome.success or outcome.final_text is None:
        return EditResult.from_outcome(outcome)

    target = document.conform(outcome.final_text)
    result = EditResult.from_outcome(outcome)
    try:
        data = document.encode(target)
    except UnicodeEncodeError:
        return EditResult.failure(
            "model_error",
            "The result contains invalid Unicode (a lone surrogate); nothing was written.",
            outcome,
        )
    if data == document.raw:
        return result.model_copy(update={"message": (outcome.message or "") + " (no changes)"})
    # server.edits imports lsprotocol (~0.8 s): load it only once there is a diff to make, so
    # refusals and failures of the CLI stay fast.
    from server.edits import unified_diff

    diff = unified_diff(document.text, target, shown)
    result = result.model_copy(update={"diff": diff})
    if dry_run:
        return result

    # Let a cancellation that is already on its way land now; from here on nothing awaits.
    await asyncio.sleep(0)
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
    try:
        write_atomic(path, data, document.raw, document.mode)
    except FileChanged:
        return EditResult.failure(
            "document_changed",
            f"{shown} changed on disk while the sub-agent worked; nothing was written. "
            "Run the edit again.",
            outcome,
        ).model_copy(update={"diff": diff})
    except OSError as exc:
        return EditResult.failure(
            "client_rejected",
            f"{shown} could not be written ({exc.strerror or exc}); it is unchanged.",
            outcome,
        ).model_copy(update={"diff": diff})
    return result.model_copy(update={"applied": True})


def make_provider(settings: Settings, env: Mapping[str, str]) -> Provider:
    """The provider hub; it opens the provider `settings.provider` names, per run."""
    return ProviderHub(env)


def _check_prompt(prompt: str, settings: Settings) -> None:
    if not prompt.strip():
        raise EditRefused("invalid_request", "The instruction is empty.")
    size = len(prompt.encode("utf-8", "surrogatepass"))
    if size > settings.max_prompt_bytes:
        raise EditRefused(
            "invalid_request",
            f"The instruction is {size} bytes, over the limit of {settings.max_prompt_bytes} "
            "bytes (setting maxPromptBytes).",
        )


def _check_selection(selection: LineRange, text: str) -> None:
    total = line_count(text)
    start, end = selection.start_line, selection.end_line
    if start < 1 or end < start:
        raise EditRefused(
            "invalid_request", f"The line range {start}:{end} is not a valid range (1-based)."
        )
    if end > total:
        raise EditRefused(
            "invalid_request",
            f"The line range {start}:{end} is past the end of the file ({total} lines).",
        )
