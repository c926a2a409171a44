"""One command's life, owned by one object: `CommandLife` holds its phase (starting, running,
sending, cancelled, done), hears what cancels it (its request, its progress, its document
closing) and what the flow reports (its events, then `Sending`), and is the only one that ends
its progress and answers, once (`end`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Literal

from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcRequestCancelled

from complex_edit.server.edit.apply import FlowEvent, Sending
from complex_edit.server.lsp.preview import LivePreview
from complex_edit.server.lsp.progress import Progress
from complex_edit.server.lsp.requests import Request
from complex_edit.server.lsp.server import ComplexEditServer
from complex_edit.server.outcome import EditResult
from complex_edit.server.session.events import OtherChanged, WorkingChanged

log = logging.getLogger("complex_edit")
Phase = Literal["starting", "running", "sending", "cancelled", "done"]


@dataclass(frozen=True)
class Ending:
    """How a command ends: the last message of its progress, and its answer (a result, or a
    JSON-RPC error; neither: the request was cancelled and pygls has answered it). `logged`:
    the result is the flow's, and the log says how it went."""

    progress: str
    result: EditResult | None = None
    error: JsonRpcException | None = None
    logged: bool = False

    @classmethod
    def of(cls, result: EditResult, *, logged: bool = False) -> Ending:
        done = (result.message or "Done") if result.success else f"Failed ({result.reason})"
        return cls(done, result, logged=logged)

    @classmethod
    def failed(cls, reason: str, error: JsonRpcException) -> Ending:
        return cls(f"Failed ({reason})", error=error)


class CommandLife:
    """The life of the command on `uri` answering `request`."""

    def __init__(
        self,
        ls: ComplexEditServer,
        request: Request,
        uri: str,
        label: str,
        preview: LivePreview,
        name: str = "performComplexEdit",
    ) -> None:
        self.phase: Phase = "starting"
        self._name = name
        self.task: asyncio.Task[EditResult] | None = None
        self._ls = ls
        self._request = request
        self._uri = uri
        self._label = label
        self._preview = preview
        self._progress = Progress(ls, None)  # none yet: reports and its end go nowhere

    def hold(self) -> bool:
        """Hold the document, unless another command does (False: busy). From here on a
        cancel of the request frees it at once: the client has its -32800 and may send the
        next command straight away."""
        commands = self._ls.state.commands
        if commands.busy(self._uri):
            return False
        commands.hold(self._uri, self)
        self._request.on_cancel(self._cancel)
        return True

    async def show_progress(self, title: str) -> None:
        """Create the progress (waiting for the client, the document held meanwhile)."""
        self._progress = await Progress.start(self._ls, title)
        cancels = self._progress.cancel_future()
        if cancels is not None:
            cancels.add_done_callback(self._progress_cancelled)

    def stopped(self) -> Ending | None:
        """How the command ends when it was cancelled or its document closed before it could
        run; None when it may run."""
        if self._request.cancelled():
            return self._cancelled("Cancelled")
        if not self._ls.state.documents.is_open(self._uri):
            return closed_before_start()
        return None

    def run(self, flow: Coroutine[Any, Any, EditResult]) -> asyncio.Task[EditResult]:
        self.phase = "running"
        self.task = asyncio.create_task(flow)
        return self.task

    def report(self, event: FlowEvent) -> None:
        """What the flow reports: its session's events, then that its edit is on its way
        (nothing cancels it any more, and a late cancel of the request must not answer -32800
        for an edit that lands; the live preview ends before the edit is sent)."""
        if isinstance(event, Sending):
            if self.phase == "running":
                self.phase = "sending"
                self._preview.end()
                self._request.forget()
            return
        self._progress.report(event)
        if isinstance(event, WorkingChanged | OtherChanged):
            self._preview.show(event)
        # The session is under way in its own process: meanwhile, scan the lines that turning
        # its result into edits and reading their echo will need.
        self._ls.state.documents.prepare(self._uri)

    def closed(self) -> None:
        """The document was closed: a running command is cancelled (not one sending)."""
        if self.phase == "running" and self.task is not None and not self.task.done():
            self.task.cancel("closed")

    def after_cancel(self) -> Ending:
        """How a command whose run was cancelled ends."""
        closed = not self._ls.state.documents.is_open(self._uri)
        if closed and not self._request.cancelled():
            return _closed("while the edit was running")
        return self._cancelled("Document closed" if closed else "Cancelled")

    def end(self, ending: Ending) -> dict[str, Any]:
        """The one end: the preview cleared, the request out of pygls' cancellable set, the
        document let go, the progress ended; then the answer."""
        self.phase = "done"
        self._preview.end()
        self._request.forget()
        self._ls.state.commands.release(self._uri, self)
        self._progress.end(ending.progress)
        if ending.error is not None:
            raise ending.error from None
        if ending.result is None:
            return {}  # never sent: pygls has answered the cancelled request
        result = ending.result
        if ending.logged:
            log.info(
                "%s %s: %s%s (turns=%d, toolCalls=%d)",
                self._name,
                self._label,
                "success" if result.success else "failed",
                "" if result.success else f" [{result.reason}]",
                result.turns,
                result.tool_calls,
            )
        return result.scrubbed_wire(self._ls.env)

    def internal_error(self, exc: Exception) -> Ending:
        """A bug, not a fault of the model or the editor. pygls would answer with the exception
        text and a traceback; answer with the type only (no document text)."""
        log.error("%s %s failed unexpectedly", self._name, self._label, exc_info=exc)
        return Ending.failed(
            "internal error",
            JsonRpcInternalError(
                f"complex-edit hit an internal error ({type(exc).__name__}); the server log "
                "has the details. Check the document before running the command again."
            ),
        )

    def _progress_cancelled(self, future: Future[Any]) -> None:
        if future.cancelled():
            self._cancel()

    def _cancel(self) -> None:
        """The request or the progress was cancelled: cancel the run, unless its edit is on
        its way. The client may already have its -32800 and send the next command before the
        task has unwound; it can no longer apply anything, so it no longer holds the
        document."""
        if self.phase not in ("starting", "running"):
            return
        if self.task is not None:
            if self.task.done():
                return
            self.task.cancel()
        self.phase = "cancelled"
        self._ls.state.commands.release(self._uri, self)

    def _cancelled(self, progress: str) -> Ending:
        """A request the editor cancelled ($/cancelRequest, or `shutdown`) has had its -32800
        from pygls, which then drops whatever the command returns or raises: an exception
        raised then is never retrieved, and asyncio logs it as an error with its traceback.
        Only a cancel pygls did not answer (the progress was cancelled) is answered here, by
        raising."""
        if self._request.answered_cancelled:
            return Ending(progress)
        return Ending(progress, error=JsonRpcRequestCancelled("The complex edit was cancelled."))


def closed_before_start() -> Ending:
    return _closed("before the edit started")


def _closed(when: str) -> Ending:
    problem = f"The document was closed {when}; nothing was applied."
    return Ending("Document closed", EditResult.failure("document_changed", problem))
