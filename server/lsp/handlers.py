"""The language server's handlers, registered by `build_server`. Each is a short named
function; `performComplexEdit` is `EditCommand` (`server/lsp/command.py`)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from complex_edit.server.lsp.abilities import ClientAbilities
from complex_edit.server.lsp.server import ComplexEditServer
from complex_edit.server.session.process import SessionProcess

COMMAND = "performComplexEdit"
DOCTOR_COMMAND = "complexEdit.doctor"
REVIEW_COMMAND = "complexEdit.applyReview"
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
    ls.command(DOCTOR_COMMAND)(doctor)
    ls.command(REVIEW_COMMAND)(apply_review)
    ls.feature(STATS_METHOD)(stats)
    return ls


def initialize(ls: ComplexEditServer, params: types.InitializeParams) -> None:
    """What the client can do, once (pygls has negotiated the position encoding)."""
    state = ls.state
    state.abilities = ClientAbilities.of(
        params.capabilities,
        ls.protocol.workspace.position_encoding,
        params.client_info,
        params.initialization_options,
    )
    state.documents.encoding = state.abilities.position_encoding
    state.init_options = params.initialization_options


def initialized(ls: ComplexEditServer, params: types.InitializedParams) -> None:
    """Start the session process if it is not running yet (a TCP server), then import what
    the first command needs and check the settings (a mistake is logged now, not at the
    first command)."""
    ls.sessions.start_soon()
    asyncio.get_running_loop().call_soon(_import_and_check, ls)


def configuration(ls: ComplexEditServer, params: types.DidChangeConfigurationParams) -> None:
    ls.state.pushed_settings = params.settings


async def perform_complex_edit(ls: ComplexEditServer, *raw: Any) -> dict[str, Any]:
    # Imported here and after `initialized`, not at start-up: pydantic and the edit flow would
    # slow the answer to `initialize` (bench/README.md, goal 7).
    from complex_edit.server.lsp.command import EditCommand

    return await EditCommand.answer(ls, raw)


async def doctor(ls: ComplexEditServer, *raw: Any) -> dict[str, Any]:
    """`complexEdit.doctor`: what `complex-edit doctor --json` answers, with the settings this
    client gives (optional argument `{textDocument: {uri}}`: the scope of its configuration)."""
    from complex_edit.server.doctor import examine
    from complex_edit.server.lsp.editor import LspEditor

    layers = await LspEditor(ls).settings_layers(_scope(raw))
    return examine(ls.env, *layers).to_wire()


def _scope(raw: tuple[Any, ...]) -> str | None:
    document = raw[0].get("textDocument") if raw and isinstance(raw[0], Mapping) else None
    uri = document.get("uri") if isinstance(document, Mapping) else None
    return uri if isinstance(uri, str) else None


async def apply_review(ls: ComplexEditServer, *raw: Any) -> dict[str, Any]:
    """`complexEdit.applyReview`: the hunks a reviewer kept of a proposal, landed."""
    from complex_edit.server.lsp.command import ReviewCommand

    return await ReviewCommand.answer(ls, raw)


def stats(ls: ComplexEditServer, params: Any) -> dict[str, Any]:
    """`complexEdit/_stats`: live counters for soak tests (`bench/soak.py`). Not part of the
    contract; no document text, no settings. `rssBytes` is read from /proc (0 elsewhere);
    `sessionProcessPid` is the child running sessions (null until it starts), and
    `sessionProcessRssBytes` its resident memory."""
    child = ls.sessions.pid()
    return {
        "asyncioTasks": len(asyncio.all_tasks()),
        "runningCommands": len(ls.commands.tasks()),
        "openDocuments": len(ls.documents.uris()),
        "changeWaiters": ls.commands.waiter_count(),
        "pendingRequests": ls.bookkeeping.pending_count(),
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
    import complex_edit.server.lsp.command  # noqa: F401  (see `perform_complex_edit`)
    from complex_edit.server.settings import Settings, SettingsError, SettingsLayer

    ls.state.ready()
    try:
        Settings.from_layers(ls.env, SettingsLayer.client("initializationOptions", ls.init_options))
    except SettingsError as exc:
        log.warning("%s", exc)
