"""Builds the pygls language server and registers thin handlers.

Documents are kept in our own LSP-correct `DocumentStore` (pygls' `TextDocument` splits lines on
form feeds and other characters LSP does not treat as line breaks), so the protocol class below
replaces pygls' built-in didOpen/didChange/didClose bookkeeping.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import sys
import threading
from collections.abc import Callable, Generator, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import (
    FeatureRequestError,
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
)
from pygls.io_ import run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from server import __version__
from server.documents import DocumentStore
from server.framing import EditorOutput, FramedInput, PrefetchingReader, watch_hangup
from server.lsp_log import STDERR_ONLY
from server.progress import Progress
from server.session_process import SessionProcess

if TYPE_CHECKING:
    from server.events import SessionEvent
    from server.providers.select import ProviderHub
    from server.result import EditResult

COMMAND = "performComplexEdit"
# Once the editor is gone: how long the commands still running get to unwind.
WIND_DOWN_SECONDS = 2.0
# Not part of the contract: a diagnostics request for soak tests and benchmarks (see `_stats`).
STATS_METHOD = "complexEdit/_stats"
log = logging.getLogger("complex_edit")


class ComplexEditProtocol(LanguageServerProtocol):
    """Feeds our document store instead of pygls' workspace documents."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """pygls drops a request whose params do not fit the method's type without answering
        it, so the client would wait forever: answer it with the error first."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            msg_id = data.get("id")
            if isinstance(data.get("method"), str) and isinstance(msg_id, int | str):
                self._send_response(
                    msg_id,
                    error=JsonRpcInvalidParams(
                        f"Invalid params for {data['method']}"
                    ).to_response_error(),
                )
            raise exc

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls keeps the future of every handler it runs under a made-up id (notifications,
        and the command inside `workspace/executeCommand`) and never removes it: one entry,
        holding its result, per didChange and per command. Remove it once it is done."""

        def done(future: Any) -> None:
            try:
                callback(future)
            finally:
                if self._request_futures.get(msg_id) is future:
                    del self._request_futures[msg_id]

        super()._execute_handler(msg_id, handler, done, args, kwargs)

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

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls closes stdout and raises SystemExit from inside the message loop: the commands
        still running then unwind while asyncio tears the loop down, and write to the closed
        stream. Here `exit` closes the output and ends the message loop; `start_io` then
        winds down what runs."""
        if self._ce.output is None:  # not our stdio loop (TCP): pygls' own exit
            yield from super().lsp_exit(*args)
            return
        self._ce.output.close()
        yield from ()

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
        self.sessions = SessionProcess(env)
        # As the editor sent them; `SettingsLayer.client` reads them at each command.
        self.init_options: Any = None
        self.pushed_settings: Any = None
        self.running: dict[str, asyncio.Task[EditResult]] = {}
        # Commands whose edit is on its way to the editor: no longer cancelled by a close.
        self.sending: set[asyncio.Task[EditResult]] = set()
        # Commands creating their progress, by document (the value identifies the command).
        self.starting: dict[str, object] = {}
        self._change_waiters: dict[str, list[asyncio.Future[bool]]] = {}
        self._provider: ProviderHub | None = None
        self.output: EditorOutput | None = None

    @property
    def provider(self) -> ProviderHub:
        """Built on first use: it imports pydantic and the provider modules, which the
        start-up (up to `initialize` answered) does not need."""
        if self._provider is None:
            from server.providers.select import ProviderHub

            self._provider = ProviderHub(self.env)
        return self._provider

    def notify_changed(self, uri: str) -> None:
        for waiter in self._change_waiters.pop(uri, []):
            if not waiter.done():
                waiter.set_result(True)

    def notify_closed(self, uri: str) -> None:
        for waiter in self._change_waiters.pop(uri, []):
            if not waiter.done():
                waiter.set_result(False)
        task = self.running.get(uri)
        if task is not None and not task.done() and task not in self.sending:
            task.cancel("closed")

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls' stdio server, reading through `FramedInput` and `PrefetchingReader` and
        writing through `EditorOutput`. It ends when the editor is gone: `exit`, the end of
        stdin, a failed write or stdout closed by the editor. Then the commands still running
        are cancelled and the session process is stopped, so nothing outlives the server."""
        if stdin is None:
            # A stream of our own on a copy of fd 0: the reading thread may still be blocked
            # in it when the interpreter exits, and closing sys.stdin must not wait for it.
            stdin = io.BufferedReader(io.FileIO(os.dup(sys.stdin.fileno()), "rb"))
        reader = PrefetchingReader(FramedInput(stdin))
        stop_event = self._stop_event = threading.Event()

        def editor_gone() -> None:
            stop_event.set()
            reader.stop()

        out_stream = stdout or sys.stdout.buffer
        self.output = EditorOutput(out_stream, on_lost=editor_gone)
        self.protocol.set_writer(self.output)

        async def serve() -> None:
            reader.start(asyncio.get_running_loop())
            watch_hangup(out_stream, editor_gone)
            try:
                await run_async(
                    stop_event=stop_event,
                    reader=reader,
                    protocol=self.protocol,
                    logger=logging.getLogger("pygls.server"),  # filtered in server/lsp_log.py
                    error_handler=self.report_server_error,
                )
            finally:
                await self._wind_down()

        try:
            asyncio.run(serve())
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    async def _wind_down(self) -> None:
        """The message loop has ended: nothing more goes to the editor. Cancel what still runs
        (commands, and requests to the editor that will never be answered), give the commands
        a moment to unwind, then end the session process (it exits when its stdin closes, or
        is killed)."""
        if self.output is not None:
            self.output.close()
        tasks: set[asyncio.Future[Any]] = set(self.running.values())
        # Typed as concurrent futures, but a coroutine handler's entry is its asyncio task.
        pending: list[object] = list(self.protocol._request_futures.values())
        for future in pending:
            if isinstance(future, asyncio.Future | Future):
                future.cancel()
            if isinstance(future, asyncio.Future):
                tasks.add(future)
        if tasks:
            await asyncio.wait(tasks, timeout=WIND_DOWN_SECONDS)
        await self.sessions.stop()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows every unreadable message to the user as a pop-up quoting the error;
        malformed input from the editor is logged instead (type only, never its content).
        A message pygls failed to send is never reported by sending another one."""
        if source is FeatureRequestError:
            return
        if source is JsonRpcException:
            log.warning("Ignored a malformed message from the editor (%s).", type(error).__name__)
            return
        if source is JsonRpcInternalError:  # pygls' `_send_data` (it has logged the traceback)
            log.error(
                "Failed to send a message to the editor (%s).",
                type(error).__name__,
                extra=STDERR_ONLY,
            )
            return
        log.error("Failed to handle a notification from the editor (%s).", type(error).__name__)
        self.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Error,
                message="complex-edit could not handle a notification from the editor "
                f"({type(error).__name__}); see the server log. If documents look out of "
                "sync, close and reopen them.",
            )
        )

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
        ls.init_options = params.initialization_options

    @ls.feature(types.INITIALIZED)
    def on_initialized(params: types.InitializedParams) -> None:
        asyncio.get_running_loop().call_soon(_preload, ls)

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def on_configuration(params: types.DidChangeConfigurationParams) -> None:
        ls.pushed_settings = params.settings

    @ls.command(COMMAND)
    async def perform_complex_edit(ls_: ComplexEditServer, *raw: Any) -> dict[str, Any]:
        from server.arguments import InvalidArguments, check_prompt_size, parse_arguments
        from server.command import CommandEnv, command_settings, label_for_uri, one_line, perform
        from server.lsp_editor import LspEditor
        from server.providers.select import scrub
        from server.result import EditResult
        from server.settings import SettingsError

        msg_id = ls.protocol.msg_id
        request_future = _request_future(ls, msg_id)
        try:
            args = parse_arguments(raw)
        except InvalidArguments as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        uri = args.text_document.uri
        if not ls.documents.is_open(uri):
            raise JsonRpcInvalidParams(
                f"The document {uri} is not open in the editor; open it first."
            )
        editor = LspEditor(ls)
        try:
            settings = await command_settings(args, editor, environ)
        except SettingsError as exc:
            problem = scrub(str(exc), environ)
            log.warning("performComplexEdit %s: %s", label_for_uri(uri), problem)
            return EditResult.failure("config", problem).to_wire()
        try:
            check_prompt_size(args, settings.max_prompt_bytes)
        except InvalidArguments as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        if uri in ls.running or uri in ls.starting:
            return EditResult.failure(
                "busy", "Another complex edit is already running on this document."
            ).to_wire()

        # Creating the progress waits for the client: hold the document meanwhile, so that a
        # second command on it is `busy` rather than running side by side. A cancel frees it
        # at once: the client has its -32800 and may send the next command straight away.
        hold = object()
        ls.starting[uri] = hold

        def release(_: object = None) -> None:
            if ls.starting.get(uri) is hold:
                del ls.starting[uri]

        if request_future is not None:
            request_future.add_done_callback(release)
        try:
            progress = await Progress.start(ls, one_line(args.prompt, 80))
        finally:
            release()
        if _request_cancelled(ls, msg_id):
            # Cancelled while the progress was created: pygls has answered -32800 already,
            # and the run must not start (nothing links this request to a task yet).
            progress.end("Cancelled")
            return _cancelled(request_future)
        if not ls.documents.is_open(uri):
            progress.end("Document closed")
            return EditResult.failure(
                "document_changed",
                "The document was closed before the edit started; nothing was applied.",
            ).to_wire()

        def on_event(event: SessionEvent) -> None:
            progress.report(event)
            # The session is under way in its own process: meanwhile, scan the lines that
            # turning its result into edits and reading their echo will need.
            ls.documents.prepare(uri)

        task = asyncio.create_task(
            perform(
                args,
                settings,
                editor,
                CommandEnv(environ, ls.provider, ls.sessions.run_session),
                on_event,
            )
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
            return _cancelled(request_future)
        except Exception as exc:
            # A bug, not a fault of the model or the editor. pygls would answer with the
            # exception text and a traceback; answer with the type only (no document text).
            log.exception("performComplexEdit %s failed unexpectedly", label_for_uri(uri))
            progress.end("Failed (internal error)")
            raise JsonRpcInternalError(
                f"complex-edit hit an internal error ({type(exc).__name__}); the server log "
                "has the details. Check the document before running the command again."
            ) from None
        finally:
            unlink()
            ls.sending.discard(task)
            if ls.running.get(uri) is task:
                del ls.running[uri]
        log.info(
            "performComplexEdit %s: %s%s (turns=%d, toolCalls=%d)",
            label_for_uri(uri),
            "success" if result.success else "failed",
            "" if result.success else f" [{result.reason}]",
            result.turns,
            result.tool_calls,
        )
        progress.end(_final_message(result))
        wire = result.to_wire()
        for field in ("error", "message"):
            if isinstance(wire.get(field), str):
                wire[field] = scrub(wire[field], environ)
        return wire

    @ls.feature(STATS_METHOD)
    def stats(params: Any) -> dict[str, Any]:
        return _stats(ls)

    return ls


def _link_cancellation(
    ls: ComplexEditServer, msg_id: Any, progress: Progress, task: asyncio.Task[Any]
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

    request_future = _request_future(ls, msg_id)
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
        if not task.done():
            ls.sending.add(task)

    return unlink


def _cancelled(request_future: Future[Any] | None) -> dict[str, Any]:
    """How a cancelled command ends. A request the editor cancelled ($/cancelRequest, or
    `shutdown`) has had its -32800 from pygls, which then drops whatever the command returns
    or raises: an exception raised then is never retrieved, and asyncio logs it as an error
    with its traceback. Only a cancel pygls did not answer (the progress was cancelled) is
    answered here, by raising. (No future: the request was cancelled before the command
    started.)"""
    if request_future is None or request_future.cancelled():
        return {}  # never sent
    raise JsonRpcRequestCancelled("The complex edit was cancelled.") from None


def _request_future(ls: ComplexEditServer, msg_id: Any) -> Future[Any] | None:
    """The future pygls answers the request from (gone once answered or cancelled)."""
    return ls.protocol._request_futures.get(msg_id)


def _request_cancelled(ls: ComplexEditServer, msg_id: Any) -> bool:
    return msg_id not in ls.protocol._request_futures


def _stats(ls: ComplexEditServer) -> dict[str, Any]:
    """`complexEdit/_stats`: live counters for soak tests (`bench/soak.py`). Not part of the
    contract; no document text, no settings. `rssBytes` is read from /proc (0 elsewhere);
    `sessionProcessPid` is the child running sessions (null until it starts), and
    `sessionProcessRssBytes` its resident memory."""
    child = ls.sessions.pid()
    return {
        "asyncioTasks": len(asyncio.all_tasks()),
        "runningCommands": len(ls.running),
        "openDocuments": len(ls.documents.uris()),
        "changeWaiters": sum(len(waiters) for waiters in ls._change_waiters.values()),
        "pendingRequests": len(ls.protocol._request_futures),
        "progressTokens": len(ls.work_done_progress.tokens),
        "rssBytes": _rss_bytes(),
        "sessionProcessPid": child,
        "sessionProcessRssBytes": _rss_bytes(child) if child is not None else 0,
    }


def _rss_bytes(pid: int | str = "self") -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _preload(ls: ComplexEditServer) -> None:
    """Right after `initialized`: start the session process (it imports the session's modules
    and the provider's SDK on its own core meanwhile), then import what the first command
    needs here and check the settings (a mistake is logged now, not at the first command)."""
    ls.sessions.start_soon()
    asyncio.get_running_loop().call_soon(_import_and_check, ls)


def _import_and_check(ls: ComplexEditServer) -> None:
    import server.arguments
    import server.command
    import server.lsp_editor
    import server.result  # noqa: F401
    from server.settings import Settings, SettingsError, SettingsLayer

    try:
        Settings.from_layers(ls.env, SettingsLayer.client("initializationOptions", ls.init_options))
    except SettingsError as exc:
        log.warning("%s", exc)


def _final_message(result: EditResult) -> str:
    if result.success:
        return result.message or "Done"
    return f"Failed ({result.reason})"
