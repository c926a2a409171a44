"""The language server's handlers, each a named function over the server, and `build_server`,
which registers them.

`performComplexEdit` reads its arguments and settings, holds the document, creates the
progress, runs the edit flow (`server.edit.flow.perform`) as a task the request's cancellation
can reach, and maps what ends it to the contract's answer.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, NoReturn

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams, JsonRpcRequestCancelled

from complex_edit.server.lsp.progress import Progress
from complex_edit.server.lsp.server import ComplexEditServer
from complex_edit.server.session.process import SessionProcess

if TYPE_CHECKING:
    from complex_edit.server.edit.flow import EditOrder
    from complex_edit.server.lsp.arguments import PerformArgs
    from complex_edit.server.lsp.editor import LspEditor
    from complex_edit.server.outcome import EditResult
    from complex_edit.server.session.events import SessionEvent
    from complex_edit.server.settings import Settings

COMMAND = "performComplexEdit"
# Not part of the contract: a diagnostics request for soak tests and benchmarks (see `stats`).
STATS_METHOD = "complexEdit/_stats"
log = logging.getLogger("complex_edit")


def build_server(
    env: Mapping[str, str] | None = None, sessions: SessionProcess | None = None
) -> ComplexEditServer:
    """The server with every handler below registered. `sessions`: a session process
    launched earlier (`SessionProcess.launch`); by default one is started with `start_io`."""
    ls = ComplexEditServer(env if env is not None else os.environ, sessions)
    ls.feature(types.INITIALIZE)(initialize)
    ls.feature(types.INITIALIZED)(initialized)
    ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(configuration)
    ls.command(COMMAND)(perform_complex_edit)
    ls.feature(STATS_METHOD)(stats)
    return ls


def initialize(ls: ComplexEditServer, params: types.InitializeParams) -> None:
    encoding = ls.protocol.workspace.position_encoding or "utf-16"
    ls.documents.encoding = str(getattr(encoding, "value", encoding))
    ls.init_options = params.initialization_options


def initialized(ls: ComplexEditServer, params: types.InitializedParams) -> None:
    """Start the session process if it is not running yet (a TCP server), then import what
    the first command needs and check the settings (a mistake is logged now, not at the
    first command)."""
    ls.sessions.start_soon()
    asyncio.get_running_loop().call_soon(_import_and_check, ls)


def configuration(ls: ComplexEditServer, params: types.DidChangeConfigurationParams) -> None:
    ls.pushed_settings = params.settings


async def perform_complex_edit(ls: ComplexEditServer, *raw: Any) -> dict[str, Any]:
    from complex_edit.server.lsp.editor import LspEditor
    from complex_edit.server.outcome import EditResult

    msg_id = ls.protocol.msg_id
    request = ls.request_future(msg_id)
    args = _arguments(ls, raw)
    editor = LspEditor(ls)
    settings = await _settings(ls, args, editor)
    if isinstance(settings, EditResult):
        return settings.to_wire()
    _check_prompt(args, settings)
    if ls.commands.busy(args.text_document.uri):
        return EditResult.failure(
            "busy", "Another complex edit is already running on this document."
        ).to_wire()
    progress = await _start_progress(ls, args, request)
    stopped = _stopped_meanwhile(ls, (msg_id, request), args, progress)
    if stopped is not None:
        return stopped
    return await _run(ls, (msg_id, request), _order(args, settings), editor, progress)


def _arguments(ls: ComplexEditServer, raw: tuple[Any, ...]) -> PerformArgs:
    """The validated arguments of an open document; invalid params otherwise."""
    from complex_edit.server.lsp.arguments import InvalidArguments, parse_arguments

    try:
        args = parse_arguments(raw)
    except InvalidArguments as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    uri = args.text_document.uri
    if not ls.documents.is_open(uri):
        raise JsonRpcInvalidParams(f"The document {uri} is not open in the editor; open it first.")
    return args


async def _settings(
    ls: ComplexEditServer, args: PerformArgs, editor: LspEditor
) -> Settings | EditResult:
    """The command's settings, resolved once from every layer (the environment, the editor's
    layers, then the command's own arguments), or its `config` failure naming each bad
    setting and the layer it came from."""
    from complex_edit.server.outcome import EditResult, scrub
    from complex_edit.server.settings import Settings, SettingsError

    try:
        layers = await editor.settings_layers(args.text_document.uri)
        return Settings.from_layers(ls.env, *layers, args.overrides())
    except SettingsError as exc:
        problem = scrub(str(exc), ls.env)
        log.warning("performComplexEdit %s: %s", label_for_uri(args.text_document.uri), problem)
        return EditResult.failure("config", problem)


def _check_prompt(args: PerformArgs, settings: Settings) -> None:
    from complex_edit.server.lsp.arguments import InvalidArguments, check_prompt_size

    try:
        check_prompt_size(args, settings.max_prompt_bytes)
    except InvalidArguments as exc:
        raise JsonRpcInvalidParams(str(exc)) from None


async def _start_progress(
    ls: ComplexEditServer, args: PerformArgs, request: Future[Any] | None
) -> Progress:
    """Creating the progress waits for the client: the document is held meanwhile, so that
    a second command on it is `busy` rather than running side by side. A cancel frees it at
    once: the client has its -32800 and may send the next command straight away."""
    from complex_edit.server.edit.flow import one_line

    release = ls.commands.hold(args.text_document.uri)
    if request is not None:
        request.add_done_callback(release)
    try:
        return await Progress.start(ls, one_line(args.prompt, 80))
    finally:
        release(None)


def _stopped_meanwhile(
    ls: ComplexEditServer,
    request: tuple[Any, Future[Any] | None],
    args: PerformArgs,
    progress: Progress,
) -> dict[str, Any] | None:
    """The answer when the request was cancelled or the document closed while the progress
    was created; None when the run may start."""
    from complex_edit.server.outcome import EditResult

    msg_id, request_future = request
    if ls.request_cancelled(msg_id):
        # pygls has answered -32800 already, and the run must not start (nothing links this
        # request to a task yet).
        progress.end("Cancelled")
        return _cancelled(request_future)
    if not ls.documents.is_open(args.text_document.uri):
        progress.end("Document closed")
        return EditResult.failure(
            "document_changed",
            "The document was closed before the edit started; nothing was applied.",
        ).to_wire()
    return None


def _order(args: PerformArgs, settings: Settings) -> EditOrder:
    from complex_edit.server.edit.flow import EditOrder

    uri = args.text_document.uri
    return EditOrder(
        uri=uri,
        prompt=args.prompt,
        settings=settings,
        label=label_for_uri(uri),
        selection=args.selection(),
        dry_run=args.dry_run,
    )


async def _run(
    ls: ComplexEditServer,
    request: tuple[Any, Future[Any] | None],
    order: EditOrder,
    editor: LspEditor,
    progress: Progress,
) -> dict[str, Any]:
    """Run the flow as a task that cancelling the request or the progress cancels, until
    its edit is on its way; answer with its result."""
    from complex_edit.server.edit.flow import perform

    uri = order.uri
    msg_id, _ = request

    def on_event(event: SessionEvent) -> None:
        progress.report(event)
        # The session is under way in its own process: meanwhile, scan the lines that
        # turning its result into edits and reading their echo will need.
        ls.documents.prepare(uri)

    task = asyncio.create_task(perform(order, editor, ls.sessions, on_event))
    unlink = ls.commands.start(uri, task, [ls.request_future(msg_id), progress.cancel_future()])

    def before_send() -> None:
        unlink()
        ls.forget_request(msg_id)

    editor.before_send = before_send
    try:
        result = await task
    except asyncio.CancelledError:
        return _after_cancel(ls, request, uri, progress)
    except Exception as exc:
        _internal_error(uri, progress, exc)
    finally:
        before_send()
        ls.commands.finished(uri, task)
    return _answer(ls, uri, result, progress)


def _after_cancel(
    ls: ComplexEditServer,
    request: tuple[Any, Future[Any] | None],
    uri: str,
    progress: Progress,
) -> dict[str, Any]:
    from complex_edit.server.outcome import EditResult

    msg_id, request_future = request
    closed = not ls.documents.is_open(uri)
    progress.end("Cancelled" if not closed else "Document closed")
    if closed and not ls.request_cancelled(msg_id):
        return EditResult.failure(
            "document_changed",
            "The document was closed while the edit was running; nothing was applied.",
        ).to_wire()
    return _cancelled(request_future)


def _internal_error(uri: str, progress: Progress, exc: Exception) -> NoReturn:
    """A bug, not a fault of the model or the editor. pygls would answer with the exception
    text and a traceback; answer with the type only (no document text)."""
    log.exception("performComplexEdit %s failed unexpectedly", label_for_uri(uri))
    progress.end("Failed (internal error)")
    raise JsonRpcInternalError(
        f"complex-edit hit an internal error ({type(exc).__name__}); the server log "
        "has the details. Check the document before running the command again."
    ) from None


def _answer(
    ls: ComplexEditServer, uri: str, result: EditResult, progress: Progress
) -> dict[str, Any]:
    log.info(
        "performComplexEdit %s: %s%s (turns=%d, toolCalls=%d)",
        label_for_uri(uri),
        "success" if result.success else "failed",
        "" if result.success else f" [{result.reason}]",
        result.turns,
        result.tool_calls,
    )
    progress.end((result.message or "Done") if result.success else f"Failed ({result.reason})")
    return result.scrubbed_wire(ls.env)


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


def label_for_uri(uri: str) -> str:
    """The last path segment of a URI, for labels and logs."""
    return uri.rsplit("/", 1)[-1] or uri


def stats(ls: ComplexEditServer, params: Any) -> dict[str, Any]:
    """`complexEdit/_stats`: live counters for soak tests (`bench/soak.py`). Not part of the
    contract; no document text, no settings. `rssBytes` is read from /proc (0 elsewhere);
    `sessionProcessPid` is the child running sessions (null until it starts), and
    `sessionProcessRssBytes` its resident memory."""
    child = ls.sessions.pid()
    return {
        "asyncioTasks": len(asyncio.all_tasks()),
        "runningCommands": len(ls.commands.running),
        "openDocuments": len(ls.documents.uris()),
        "changeWaiters": ls.commands.waiter_count(),
        "pendingRequests": ls.pending_requests(),
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


def _import_and_check(ls: ComplexEditServer) -> None:
    import complex_edit.server.edit.flow
    import complex_edit.server.lsp.arguments
    import complex_edit.server.lsp.editor
    import complex_edit.server.outcome  # noqa: F401
    from complex_edit.server.settings import Settings, SettingsError, SettingsLayer

    try:
        Settings.from_layers(ls.env, SettingsLayer.client("initializationOptions", ls.init_options))
    except SettingsError as exc:
        log.warning("%s", exc)
