"""The server: its instructions, the tool's declaration, and the stdio loop that leaves at
once on SIGINT and SIGTERM.

Listing the tool needs only the MCP SDK, the result's model (the output schema) and the
settings: this module imports nothing else; the edit's machinery (`call.py`) is imported by the
first call, or before it by `main.py`'s loading thread, which imports this module while
`early.py` answers the first requests.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO, Literal, cast

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import Field, ValidationError

from complex_edit.server import __version__
from complex_edit.server.edit.roots import Roots
from complex_edit.server.mcp.answer import (
    argument_name,
    invalid_arguments,
    tool_result,
    writes_files,
)
from complex_edit.server.mcp.early import Opening
from complex_edit.server.mcp.handover import FilteredStdout, ReplayedStdin
from complex_edit.server.mcp.revert import register as register_revert
from complex_edit.server.mcp.workbench import ToolCall, Workbench
from complex_edit.server.outcome import EditResult
from complex_edit.server.settings import Settings, SettingsError

if TYPE_CHECKING:
    from complex_edit.server.session.result import SessionRunner

log = logging.getLogger("complex_edit.mcp")

TOOL_NAME = "perform_complex_edit"
TOOL_TITLE = "Complex edit of a file (and the files it reaches)"
TOOL_DESCRIPTION = """\
Delegate an edit of ONE existing text file (and, with other_files="edit", of the files it \
reaches) to a dedicated editing sub-agent, described in plain words. The sub-agent reads \
the whole file, makes the change with exact text replacements in a short loop, and the \
result is written atomically only if it succeeds; on any failure every file is left \
byte-identical.

Use it when the change is easy to say but tedious to make by hand: renaming a symbol \
throughout a file, restructuring or reordering code, converting a style (callbacks to \
async/await, string formatting, type hints), updating many similar call sites, or rewriting \
a section of prose. Do not use it for one-line changes you can make directly, or to create \
new files.

other_files: "read" (the default setting) lets the sub-agent read and search the other \
files of the allowed root that holds the file (never .git/, files .gitignore ignores, \
secrets such as .env and keys, binary or oversized files, or links leading out); "edit" \
lets it change them too, written with the file, every file or none (an extract-and-update-\
the-callers change); "off" keeps it to the file alone.

Returns the result (success, message or error with a reason code, the syntax check, a \
unified diff with one section per file, and `documents`: each changed file). Use \
dry_run=true to get the diff without writing. start_line/end_line (1-based, inclusive) \
point the sub-agent at the lines the instruction is about. Paths are relative to the \
server's first allowed root, or absolute inside an allowed root."""

SERVER_INSTRUCTIONS = """\
complex-edit hands one file and an instruction in plain words to an editing sub-agent (tool \
perform_complex_edit), which makes the change with exact replacements, checks the syntax, and \
writes the file only when it succeeds (all or nothing; line endings, encoding and tabs kept).

Prefer it over your own edit tool for: many related changes in one file (renaming a symbol \
throughout, updating every call site, converting a style such as callbacks to async/await); \
large files, which it edits without you reading or rewriting them whole; edits that must \
keep the file parseable (it refuses to finish with new syntax errors); and a change you want \
to look at hunk by hunk first (dry_run=true returns the diff and writes nothing).

Use your own edit tool instead for a one-line or few-line change you can make directly, to \
create a file, or for a change you must control character by character. For a change that \
reaches other files (a function extracted and its callers updated), name the main file and \
pass other_files="edit": every file is written or none. The answer says what was done, the \
syntax check, each file changed, and the diff."""


class EditServer(MCPServer):
    """The SDK's server, except that arguments failing the tool's schema answer like every
    other failure (`reason: invalid_request` and a sentence naming the argument), not with
    pydantic's own report."""

    def __init__(self, env: Mapping[str, str], **options: Any) -> None:
        super().__init__(**options)
        self._env = env
        self.bench: Workbench | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if name != TOOL_NAME or not isinstance(exc.__cause__, ValidationError):
                raise
            problems = exc.__cause__.errors()
            log.info(
                "rejected the arguments %s", sorted({argument_name(p["loc"]) for p in problems})
            )
            refused = EditResult.failure("invalid_request", invalid_arguments(problems))
            given = arguments.get("path")
            return tool_result(refused, self._env, given if isinstance(given, str) else "The file")


def build_server(
    roots: Roots,
    settings: Settings | SettingsError,
    env: Mapping[str, str],
    runner: SessionRunner | None = None,
) -> MCPServer:
    """The MCP server for `roots`. A settings problem is answered per call (reason
    `config`), as the language server does, so the server always starts. Without `runner`,
    the first call makes one with the providers of `env`."""
    server = EditServer(
        env,
        name="complex-edit",
        title="complex-edit",
        version=__version__,
        instructions=SERVER_INSTRUCTIONS,
        log_level="WARNING",
    )
    bench = Workbench(roots, settings, env, runner)
    server.bench = bench

    @server.tool(
        name=TOOL_NAME,
        title=TOOL_TITLE,
        description=TOOL_DESCRIPTION,
        annotations=writes_files(TOOL_TITLE),
    )
    async def perform_complex_edit(
        path: Annotated[
            str,
            Field(description="The file to edit: relative to the first allowed root, or absolute."),
        ],
        prompt: Annotated[
            str, Field(description="The editing instruction, as you would give it to a person.")
        ],
        ctx: Context,
        dry_run: Annotated[
            bool, Field(description="Compute the change and return its diff; write nothing.")
        ] = False,
        start_line: Annotated[
            int | None,
            Field(ge=1, description="First line (1-based) the instruction is about."),
        ] = None,
        end_line: Annotated[
            int | None,
            Field(ge=1, description="Last line (1-based, inclusive) the instruction is about."),
        ] = None,
        other_files: Annotated[
            Literal["off", "read", "edit"] | None,
            Field(
                description='Other files of the root holding the file: "read" (read and '
                'search them), "edit" (change them too, every file written or none), "off". '
                "Default: the setting otherFiles (read)."
            ),
        ] = None,
        check: Annotated[
            bool | None,
            Field(
                description="Have language servers (ruff, basedpyright, tsserver, ...) check "
                "the edit before it is written; errors it introduced go back to the sub-agent. "
                "Default: the setting checkers (auto)."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, EditResult]:
        from complex_edit.server.mcp.call import run_call

        call = ToolCall(path, prompt, dry_run, start_line, end_line, other_files, check)
        return await run_call(bench, call, ctx)

    register_revert(server, bench)  # revert_complex_edit (server/mcp/revert.py)
    return server


def run(roots: Roots, overrides: Mapping[str, Any], opening: Opening) -> int:
    """Serve over stdio, from where the early answers (`early.py`) left off."""
    env = os.environ
    settings: Settings | SettingsError
    try:
        settings = Settings.from_layers(env, overrides)
    except SettingsError as exc:
        settings = exc
        log.warning("%s", exc)
    log.info("serving %s for %s", TOOL_NAME, roots.describe())
    server = build_server(roots, settings, env)
    asyncio.run(_serve_then_stop(server, opening))
    return 0


async def _serve_then_stop(server: MCPServer, opening: Opening) -> None:
    """Serve until stdin ends, then stop the checkers."""
    try:
        await serve_streams(server, opening, sys.stdin.buffer, _claim_stdout())
    finally:
        if isinstance(server, EditServer) and server.bench is not None:
            await server.bench.close()


def _claim_stdout() -> BinaryIO:
    """The wire, on a private descriptor; file descriptor 1 then goes to stderr, so that
    nothing printed by accident (by us or a library) lands in the protocol's stream (the SDK
    does the same with the streams it opens itself)."""
    sys.stdout.flush()
    wire = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return wire


async def serve_streams(
    server: MCPServer, opening: Opening, stdin: BinaryIO, stdout: BinaryIO, *, signals: bool = True
) -> None:
    """The SDK's stdio transport over `stdin` (after the lines `opening` read) and `stdout`
    (without the answer to the `initialize` answered early), until stdin ends."""
    if signals:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, _leave, signum, server)
    lines = cast("anyio.AsyncFile[str]", ReplayedStdin(opening, stdin))
    output = cast("anyio.AsyncFile[str]", FilteredStdout(opening, stdout))
    lowlevel = server._lowlevel_server
    async with stdio_server(lines, output) as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


def _leave(signum: int, server: MCPServer) -> None:
    """SIGINT or SIGTERM: leave now, idle or busy. It runs on the event loop between two
    steps, and the file's write has no await inside it, so a running edit ends unwritten.
    (Waiting for the SDK instead hangs: its stdin reader thread blocks until the next line.)"""
    log.info("stopped by %s", signal.Signals(signum).name)
    if isinstance(server, EditServer) and server.bench is not None and server.bench.checks:
        server.bench.checks.kill_now()
    sys.stderr.flush()
    os._exit(128 + signum)
