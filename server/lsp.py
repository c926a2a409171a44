"""Builds the pygls language server and registers thin handlers.

Documents are kept in our own LSP-correct `DocumentStore` (pygls' `TextDocument` splits lines on
form feeds and other characters LSP does not treat as line breaks), so the protocol class below
replaces pygls' built-in didOpen/didChange/didClose bookkeeping.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Callable, Generator, Mapping
from concurrent.futures import Future
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from server import __version__
from server.arguments import InvalidArguments, parse_arguments
from server.command import CommandEnv, perform
from server.documents import DocumentStore
from server.events import SessionEvent, SessionFinished, describe
from server.lsp_editor import LspEditor
from server.providers.select import ProviderHub, scrub
from server.result import EditResult
from server.settings import Settings, SettingsError

COMMAND = "performComplexEdit"
log = logging.getLogger("complex_edit")


class ComplexEditProtocol(LanguageServerProtocol):
    """Feeds our document store instead of pygls' workspace documents."""

    @property
    def _ce(self) -> ComplexEditServer:
        server = self._server
        assert isinstance(server, ComplexEditServer)
        return server

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' own shutdown cancels in-flight requests while iterating the dict that their
        cancellation callbacks pop from; iterate over a copy instead."""
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True
        yield from ()
        return None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        doc = params.text_document
        self._ce.documents.open(doc.uri, doc.text, doc.version, doc.language_id)
        yield from ()

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        uri = params.text_document.uri
        if self._ce.documents.is_open(uri):
            self._ce.documents.change(uri, params.text_document.version, params.content_changes)
            self._ce.notify_changed(uri)
        else:
            log.warning("didChange for a document that is not open: %s", uri)
        yield from ()

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        uri = params.text_document.uri
        self._ce.documents.close(uri)
        self._ce.notify_closed(uri)
        yield from ()


class ComplexEditServer(LanguageServer):
    def __init__(self, env: Mapping[str, str]) -> None:
        super().__init__(
            "complex-edit",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=ComplexEditProtocol,
        )
        self.env = env
        self.documents = DocumentStore()
        self.provider = ProviderHub(env)
        self.init_options: Mapping[str, Any] | None = None
        self.pushed_settings: Mapping[str, Any] | None = None
        self.running: dict[str, asyncio.Task[EditResult]] = {}
        self._change_waiters: dict[str, list[asyncio.Future[bool]]] = {}

    def notify_changed(self, uri: str) -> None:
        for waiter in self._change_waiters.pop(uri, []):
            if not waiter.done():
                waiter.set_result(True)

    def notify_closed(self, uri: str) -> None:
        for waiter in self._change_waiters.pop(uri, []):
            if not waiter.done():
                waiter.set_result(False)
        task = self.running.get(uri)
        if task is not None and not task.done():
            task.cancel("closed")

    def next_change(self, uri: str) -> asyncio.Future[bool]:
        """Resolves with True on the next didChange of `uri`, False if it is closed."""
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._change_waiters.setdefault(uri, []).append(waiter)
        return waiter


def build_server(env: Mapping[str, str] | None = None) -> ComplexEditServer:
    environ = env if env is not None else os.environ
    ls = ComplexEditServer(environ)

    @ls.feature(types.INITIALIZE)
    def on_initialize(params: types.InitializeParams) -> None:
        encoding = ls.protocol.workspace.position_encoding or "utf-16"
        ls.documents.encoding = str(getattr(encoding, "value", encoding))
        ls.init_options = _section(params.initialization_options)
        try:
            Settings.from_layers(environ, ls.init_options)
        except SettingsError as exc:
            log.warning("%s", exc)

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def on_configuration(params: types.DidChangeConfigurationParams) -> None:
        ls.pushed_settings = _section(params.settings)

    @ls.command(COMMAND)
    async def perform_complex_edit(ls_: ComplexEditServer, *raw: Any) -> dict[str, Any]:
        msg_id = ls.protocol.msg_id
        try:
            args = parse_arguments(raw, Settings.from_layers(environ).max_prompt_bytes)
        except (InvalidArguments, SettingsError) as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        uri = args.text_document.uri
        if not ls.documents.is_open(uri):
            raise JsonRpcInvalidParams(
                f"The document {uri} is not open in the editor; open it first."
            )
        if uri in ls.running:
            return EditResult.failure(
                "busy", "Another complex edit is already running on this document."
            ).to_wire()

        editor = LspEditor(ls)
        progress = await _Progress.start(ls, args.prompt)
        task = asyncio.create_task(
            perform(args, editor, CommandEnv(environ, ls.provider), progress.report)
        )
        ls.running[uri] = task
        unlink = _link_cancellation(ls, msg_id, progress, task)
        editor.before_send = unlink
        try:
            result = await task
        except asyncio.CancelledError:
            closed = not ls.documents.is_open(uri)
            progress.end("Cancelled" if not closed else "Document closed")
            if closed and not _request_cancelled(ls, msg_id):
                return EditResult.failure(
                    "document_changed",
                    "The document was closed while the edit was running; nothing was applied.",
                ).to_wire()
            raise JsonRpcRequestCancelled("The complex edit was cancelled.") from None
        finally:
            unlink()
            if ls.running.get(uri) is task:
                del ls.running[uri]
        log.info(
            "performComplexEdit %s: %s%s (turns=%d, toolCalls=%d)",
            _short_uri(uri),
            "success" if result.success else "failed",
            "" if result.success else f" [{result.reason}]",
            result.turns,
            result.tool_calls,
        )
        progress.end(_final_message(result))
        wire = result.to_wire()
        if result.error:
            wire["error"] = scrub(result.error, environ)
        return wire

    return ls


class _Progress:
    """A cancellable work-done progress, or nothing when the client cannot show one."""

    def __init__(self, ls: ComplexEditServer, token: str | None) -> None:
        self._ls = ls
        self.token = token
        self._ended = False

    @classmethod
    async def start(cls, ls: ComplexEditServer, prompt: str) -> _Progress:
        caps = ls.client_capabilities.window
        if caps is None or not caps.work_done_progress:
            return cls(ls, None)
        token = f"complex-edit/{uuid.uuid4()}"
        try:
            async with asyncio.timeout(5):
                await ls.work_done_progress.create_async(token)
        except Exception as exc:
            log.warning("could not create progress: %s", type(exc).__name__)
            return cls(ls, None)
        ls.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="Complex Edit", message=_one_line(prompt, 80), cancellable=True
            ),
        )
        return cls(ls, token)

    def cancel_future(self) -> Future[Any] | None:
        if self.token is None:
            return None
        return self._ls.work_done_progress.tokens.get(self.token)

    def report(self, event: SessionEvent) -> None:
        if self.token is None or self._ended or isinstance(event, SessionFinished):
            return
        self._ls.work_done_progress.report(
            self.token, types.WorkDoneProgressReport(message=describe(event))
        )

    def end(self, message: str) -> None:
        if self.token is None or self._ended:
            return
        self._ended = True
        self._ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
        self._ls.work_done_progress.tokens.pop(self.token, None)


def _link_cancellation(
    ls: ComplexEditServer, msg_id: Any, progress: _Progress, task: asyncio.Task[Any]
) -> Callable[[], None]:
    """Cancel `task` when the request is cancelled ($/cancelRequest, shutdown) or its progress
    is cancelled. pygls cancels only the request's own future, never the command's task."""

    linked = True

    def on_done(future: Future[Any] | asyncio.Future[Any]) -> None:
        if linked and future.cancelled() and not task.done():
            task.cancel()
            # The client may already have its -32800 and send the next command before this
            # task has unwound; it can no longer apply anything, so it no longer holds the URI.
            for uri, running in list(ls.running.items()):
                if running is task:
                    del ls.running[uri]

    request_future = ls.protocol._request_futures.get(msg_id)
    if request_future is not None:
        request_future.add_done_callback(on_done)
    progress_future = progress.cancel_future()
    if progress_future is not None:
        progress_future.add_done_callback(on_done)

    def unlink() -> None:
        # Past this point the edit is on its way: a late cancel must not answer -32800 for
        # an edit that lands, so the request leaves pygls' cancellable set.
        nonlocal linked
        linked = False
        ls.protocol._request_futures.pop(msg_id, None)

    return unlink


def _request_cancelled(ls: ComplexEditServer, msg_id: Any) -> bool:
    return msg_id not in ls.protocol._request_futures


def _section(value: Any) -> Mapping[str, Any] | None:
    if not isinstance(value, Mapping):
        return None
    inner = value.get("complexEdit")
    return inner if isinstance(inner, Mapping) else value


def _final_message(result: EditResult) -> str:
    if result.success:
        return result.message or "Done"
    return f"Failed ({result.reason})"


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _short_uri(uri: str) -> str:
    return uri.rsplit("/", 1)[-1]
