"""One `performComplexEdit`, from its arguments to its answer: `EditCommand`.

It reads its arguments and settings, refuses what the edit flow's checks refuse (arguments as
invalid params), holds its document (a second command on it is `busy`), creates its progress,
runs the flow (`server.edit.flow.perform`) as a task that cancelling its request or its
progress cancels until its edit is on its way, and maps what ends it to the contract's answer.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future
from typing import Any, NoReturn

from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams, JsonRpcRequestCancelled

from complex_edit.server.edit.flow import EditOrder, check, one_line, perform
from complex_edit.server.lsp.arguments import InvalidArguments, PerformArgs, parse_arguments
from complex_edit.server.lsp.bridge import label_for_uri
from complex_edit.server.lsp.editor import LspEditor
from complex_edit.server.lsp.preview import LivePreview
from complex_edit.server.lsp.progress import Progress
from complex_edit.server.lsp.requests import Request
from complex_edit.server.lsp.server import ComplexEditServer
from complex_edit.server.outcome import EditRefused, EditResult, scrub
from complex_edit.server.session.events import SessionEvent, WorkingChanged
from complex_edit.server.settings import Settings, SettingsError

log = logging.getLogger("complex_edit")
# The `data.code` of the invalid-params error for a document the server does not have open.
DOCUMENT_NOT_OPEN = "document_not_open"


class EditCommand:
    """One running command: its request, its arguments, its editor, its progress and its task,
    and whether its edit is on its way (from then on nothing cancels it)."""

    def __init__(self, ls: ComplexEditServer, request: Request, args: PerformArgs) -> None:
        self._ls = ls
        self._request = request
        self._args = args
        self.uri = args.text_document.uri
        self.label = label_for_uri(self.uri)
        self._editor = LspEditor(ls, on_send=self._sending)
        self._preview = LivePreview(ls, self._editor, self.uri)
        self._progress = Progress(ls, None)  # none yet: reports and ends go nowhere
        self._task: asyncio.Task[EditResult] | None = None
        self._sent = False

    @classmethod
    async def answer(cls, ls: ComplexEditServer, raw: tuple[Any, ...]) -> dict[str, Any]:
        """The answer to `performComplexEdit` with `arguments: raw`."""
        request = Request.current(ls.protocol)
        return await cls(ls, request, _arguments(ls, raw)).run()

    async def run(self) -> dict[str, Any]:
        settings = await self._settings()
        if isinstance(settings, EditResult):
            return settings.to_wire()
        document = self._ls.documents.get(self.uri)
        if document is None:  # closed while the settings were read
            return _closed_before_start().to_wire()
        order = self._order(settings, document.text)
        refused = self._check(order, document.text)
        if refused is not None:
            return refused.to_wire()
        if self._ls.commands.busy(self.uri):
            return EditResult.failure(
                "busy", "Another complex edit is already running on this document."
            ).to_wire()
        self._progress = await self._start_progress()
        stopped = self._stopped_meanwhile()
        if stopped is not None:
            return stopped
        return await self._perform(order)

    async def _settings(self) -> Settings | EditResult:
        """The command's settings, resolved once from every layer (the environment, the
        editor's layers, then the command's own arguments), or its `config` failure naming
        each bad setting and the layer it came from."""
        try:
            layers = await self._editor.settings_layers(self.uri)
            return Settings.from_layers(self._ls.env, *layers, self._args.overrides())
        except SettingsError as exc:
            problem = scrub(str(exc), self._ls.env)
            log.warning("performComplexEdit %s: %s", self.label, problem)
            return EditResult.failure("config", problem)

    def _order(self, settings: Settings, text: str) -> EditOrder:
        return EditOrder(
            uri=self.uri,
            prompt=self._args.prompt,
            settings=settings,
            label=self.label,
            selection=self._args.selection(text),
            dry_run=self._args.dry_run,
        )

    def _check(self, order: EditOrder, text: str) -> EditResult | None:
        """The flow's checks, made at once on the document as it is (the flow makes them again
        on the text it snapshots): an argument they refuse is invalid params."""
        try:
            check(order, text)
        except EditRefused as refused:
            return _refusal(refused)
        return None

    async def _start_progress(self) -> Progress:
        """Creating the progress waits for the client: the document is held meanwhile, so
        that a second command on it is `busy` rather than running side by side. A cancel
        frees it at once: the client has its -32800 and may send the next command straight
        away."""
        release = self._ls.commands.hold(self.uri)
        if self._request.future is not None:
            self._request.future.add_done_callback(release)
        try:
            return await Progress.start(self._ls, one_line(self._args.prompt, 80))
        finally:
            release(None)

    def _stopped_meanwhile(self) -> dict[str, Any] | None:
        """The answer when the request was cancelled or the document closed while the
        progress was created; None when the run may start."""
        if self._request.cancelled():
            # pygls has answered -32800 already, and the run must not start.
            self._progress.end("Cancelled")
            return self._cancelled()
        if not self._ls.documents.is_open(self.uri):
            self._progress.end("Document closed")
            return _closed_before_start().to_wire()
        return None

    async def _perform(self, order: EditOrder) -> dict[str, Any]:
        """Run the flow as a task that cancelling the request or the progress cancels, until
        its edit is on its way; answer with its result."""
        task = asyncio.create_task(self._flow(order))
        self._task = task
        self._ls.commands.start(self.uri, task)
        for cancels in (self._request.future, self._progress.cancel_future()):
            if cancels is not None:
                cancels.add_done_callback(self._on_cancel)
        try:
            result = await task
        except asyncio.CancelledError:
            return self._after_cancel()
        except EditRefused as refused:  # the flow's own checks, on the text it snapshotted
            self._progress.end(f"Failed ({refused.reason})")
            return _refusal(refused).to_wire()
        except Exception as exc:
            self._internal_error(exc)
        finally:
            self._sending()
            self._ls.commands.finished(self.uri, task)
        return self._answer(result)

    async def _flow(self, order: EditOrder) -> EditResult:
        # `perform` snapshots the document before its first await: the same text as this.
        self._preview.begin()
        return await perform(order, self._editor, self._ls.sessions, self._on_event)

    def _on_event(self, event: SessionEvent) -> None:
        self._progress.report(event)
        if isinstance(event, WorkingChanged):
            self._preview.show(event)
        # The session is under way in its own process: meanwhile, scan the lines that turning
        # its result into edits and reading their echo will need.
        self._ls.documents.prepare(self.uri)

    def _on_cancel(self, future: Future[Any] | asyncio.Future[Any]) -> None:
        """The request or the progress was cancelled: cancel the run, unless its edit is on
        its way. The client may already have its -32800 and send the next command before the
        task has unwound; it can no longer apply anything, so it no longer holds the
        document."""
        task = self._task
        if self._sent or not future.cancelled() or task is None or task.done():
            return
        task.cancel()
        self._ls.commands.finished(self.uri, task)

    def _sending(self) -> None:
        """The edit is on its way (or the run is over): nothing cancels it any more, and a late
        cancel of the request must not answer -32800 for an edit that lands. The live preview
        ends here: before the edit is sent, and in every way a run ends."""
        self._preview.end()
        if not self._sent and self._task is not None:
            self._ls.commands.sending(self._task)
        self._sent = True
        self._request.forget()

    def _after_cancel(self) -> dict[str, Any]:
        closed = not self._ls.documents.is_open(self.uri)
        self._progress.end("Cancelled" if not closed else "Document closed")
        if closed and not self._request.cancelled():
            return EditResult.failure(
                "document_changed",
                "The document was closed while the edit was running; nothing was applied.",
            ).to_wire()
        return self._cancelled()

    def _cancelled(self) -> dict[str, Any]:
        """How a cancelled command ends. A request the editor cancelled ($/cancelRequest, or
        `shutdown`) has had its -32800 from pygls, which then drops whatever the command
        returns or raises: an exception raised then is never retrieved, and asyncio logs it as
        an error with its traceback. Only a cancel pygls did not answer (the progress was
        cancelled) is answered here, by raising. (No future: the request was cancelled before
        the command started.)"""
        future = self._request.future
        if future is None or future.cancelled():
            return {}  # never sent
        raise JsonRpcRequestCancelled("The complex edit was cancelled.") from None

    def _internal_error(self, exc: Exception) -> NoReturn:
        """A bug, not a fault of the model or the editor. pygls would answer with the exception
        text and a traceback; answer with the type only (no document text)."""
        log.exception("performComplexEdit %s failed unexpectedly", self.label)
        self._progress.end("Failed (internal error)")
        raise JsonRpcInternalError(
            f"complex-edit hit an internal error ({type(exc).__name__}); the server log "
            "has the details. Check the document before running the command again."
        ) from None

    def _answer(self, result: EditResult) -> dict[str, Any]:
        log.info(
            "performComplexEdit %s: %s%s (turns=%d, toolCalls=%d)",
            self.label,
            "success" if result.success else "failed",
            "" if result.success else f" [{result.reason}]",
            result.turns,
            result.tool_calls,
        )
        self._progress.end(
            (result.message or "Done") if result.success else f"Failed ({result.reason})"
        )
        return result.scrubbed_wire(self._ls.env)


def _arguments(ls: ComplexEditServer, raw: tuple[Any, ...]) -> PerformArgs:
    """The validated arguments of an open document; invalid params otherwise."""
    try:
        args = parse_arguments(raw)
    except InvalidArguments as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    uri = args.text_document.uri
    if not ls.documents.is_open(uri):
        raise JsonRpcInvalidParams(
            f"The document {uri} is not open in the editor; open it first.",
            data={"code": DOCUMENT_NOT_OPEN},
        )
    return args


def _closed_before_start() -> EditResult:
    return EditResult.failure(
        "document_changed",
        "The document was closed before the edit started; nothing was applied.",
    )


def _refusal(refused: EditRefused) -> EditResult:
    """A check's refusal: invalid params when it names an argument, else a failed result."""
    if refused.argument is not None:
        raise JsonRpcInvalidParams(f"'{refused.argument}': {refused.message}") from None
    return refused.result()
