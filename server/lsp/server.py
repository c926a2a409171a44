"""The pygls language server: the protocol glue, the server object, its stdio loop and its end.

Documents are kept in our own LSP-correct `DocumentStore` (pygls' `TextDocument` splits lines on
form feeds and other characters LSP does not treat as line breaks), so the protocol class below
replaces pygls' built-in didOpen/didChange/didClose bookkeeping (its request bookkeeping is in
`server/lsp/requests.py`). The handlers are in `server/lsp/handlers.py`; `build_server`
registers them.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import sys
import threading
from collections.abc import Generator, Mapping
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import (
    FeatureRequestError,
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
)
from pygls.io_ import run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol.language_server import lsp_method

from complex_edit.server import __version__
from complex_edit.server.lsp.abilities import ClientAbilities
from complex_edit.server.lsp.bridge import content_changes
from complex_edit.server.lsp.commands import Commands
from complex_edit.server.lsp.framing import (
    EditorOutput,
    FramedInput,
    PrefetchingReader,
    watch_hangup,
)
from complex_edit.server.lsp.log import STDERR_ONLY
from complex_edit.server.lsp.requests import RequestBookkeeping
from complex_edit.server.lsp.state import ServerState
from complex_edit.server.session.process import SessionProcess
from complex_edit.server.text.documents import DocumentStore

# Once the editor is gone: how long the commands still running get to unwind.
WIND_DOWN_SECONDS = 2.0
log = logging.getLogger("complex_edit")


class ComplexEditProtocol(RequestBookkeeping):
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

    @property
    def _ce(self) -> ComplexEditServer:
        server = self._server
        assert isinstance(server, ComplexEditServer)
        return server

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
        self._ce.state.opened(doc.uri, doc.text, doc.version, doc.language_id)
        yield from ()

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        uri, state = params.text_document.uri, self._ce.state
        if state.documents.is_open(uri):
            changes = content_changes(params.content_changes)
            state.documents.change(uri, params.text_document.version, changes)
            state.changed(uri)
        else:
            log.warning("didChange for a document that is not open: %s", uri)
        yield from ()

    @lsp_method(types.TEXT_DOCUMENT_DID_SAVE)
    def lsp_text_document__did_save(
        self, params: types.DidSaveTextDocumentParams
    ) -> Generator[Any, Any, None]:
        """Nothing to do (eglot sends it unasked); handled so that pygls does not log it."""
        yield from ()

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        self._ce.state.closed(params.text_document.uri)
        yield from ()


class ComplexEditServer(LanguageServer):
    def __init__(self, env: Mapping[str, str], sessions: SessionProcess | None = None) -> None:
        super().__init__(
            "complex-edit",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=ComplexEditProtocol,
        )
        self.env = env
        self.state = ServerState(env)  # every piece of state the commands share
        self.sessions = sessions if sessions is not None else SessionProcess(env)
        self.output: EditorOutput | None = None

    @property
    def bookkeeping(self) -> RequestBookkeeping:
        """The protocol, with its requests in flight (`requests.py`)."""
        assert isinstance(self.protocol, RequestBookkeeping)
        return self.protocol

    # The state's parts the LSP modules read, by their usual names.
    @property
    def documents(self) -> DocumentStore:
        return self.state.documents

    @property
    def commands(self) -> Commands:
        return self.state.commands

    @property
    def abilities(self) -> ClientAbilities:
        return self.state.abilities

    @property
    def init_options(self) -> Any:
        return self.state.init_options

    @property
    def pushed_settings(self) -> Any:
        return self.state.pushed_settings

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls' stdio server, reading through `FramedInput` and `PrefetchingReader` and
        writing through `EditorOutput`; the session process is started with it (unless it was
        launched earlier). It ends when the editor is gone: `exit`, the end of stdin, a failed
        write or stdout closed by the editor. Then the commands still running are cancelled
        and the session process is stopped, so nothing outlives the server."""
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
            self.sessions.start_soon()
            reader.start(asyncio.get_running_loop())
            watch_hangup(out_stream, editor_gone)
            try:
                await run_async(
                    stop_event=stop_event,
                    reader=reader,
                    protocol=self.protocol,
                    logger=logging.getLogger("pygls.server"),  # filtered in server/lsp/log.py
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
        for watch in list(self.state.late_echoes):
            watch.cancel()
        tasks: set[asyncio.Future[Any]] = set(self.state.commands.tasks())
        tasks |= self.bookkeeping.cancel_pending()
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
