"""`complex-edit mcp`: an MCP server over stdio with one tool, `perform_complex_edit`.

The tool runs the shared file flow (`server.edit.disk`) on a path confined to the allowed roots,
relays the session's events as MCP progress notifications, and returns the contract's result as
structured content plus a short text summary with the diff. A cancelled call (the SDK cancels
the tool's task on `notifications/cancelled`) writes nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from complex_edit.server import __version__
from complex_edit.server.edit.disk import edit_file
from complex_edit.server.edit.roots import PathRefused, Roots
from complex_edit.server.outcome import EditRefused, EditResult, scrub
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import SessionEvent, describe
from complex_edit.server.session.request import LineRange
from complex_edit.server.session.result import InProcess, SessionRunner
from complex_edit.server.settings import Settings, SettingsError

log = logging.getLogger("complex_edit.mcp")

TOOL_NAME = "perform_complex_edit"
TOOL_TITLE = "Complex edit of one file"
TOOL_DESCRIPTION = """\
Delegate an edit of ONE existing text file to a dedicated editing sub-agent, described in \
plain words. The sub-agent reads the whole file, makes the change with exact text \
replacements in a short loop, and the result is written atomically only if it succeeds; on \
any failure the file is left byte-identical.

Use it when the change is easy to say but tedious to make by hand: renaming a symbol \
throughout a file, restructuring or reordering code, converting a style (callbacks to \
async/await, string formatting, type hints), updating many similar call sites, or rewriting \
a section of prose. Do not use it for one-line changes you can make directly, to create new \
files, or for changes spanning several files (call it once per file).

Returns the result (success, message or error with a reason code, and a unified diff). Use \
dry_run=true to get the diff without writing. start_line/end_line (1-based, inclusive) point \
the sub-agent at the lines the instruction is about. Paths are relative to the server's first \
allowed root, or absolute inside an allowed root."""

SERVER_INSTRUCTIONS = (
    "complex-edit runs an editing sub-agent on one file per call (tool perform_complex_edit). "
    "Give it a clear instruction; it writes the file only when the edit succeeds."
)


class ProgressRelay:
    """Turns the session's synchronous events into ordered MCP progress notifications."""

    def __init__(self, ctx: Context, env: Mapping[str, str]) -> None:
        self._ctx = ctx
        self._env = env
        self._queue: asyncio.Queue[tuple[int, str] | None] = asyncio.Queue()
        self._count = 0
        self._task: asyncio.Task[None] | None = None

    def __call__(self, event: SessionEvent) -> None:
        self._count += 1
        self._queue.put_nowait((self._count, scrub(describe(event), self._env)))

    def start(self) -> None:
        self._task = asyncio.create_task(self._pump())

    async def finish(self) -> None:
        """Send what is queued, then stop (progress must reach the client before the result)."""
        if self._task is None:
            return
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=5)
        except TimeoutError:
            self.stop()

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _pump(self) -> None:
        while (item := await self._queue.get()) is not None:
            progress, message = item
            try:
                await self._ctx.report_progress(progress, None, message)
            except Exception as exc:  # a closed connection must not end the edit
                log.debug("progress notification failed: %r", exc)


class EditServer(MCPServer):
    """The SDK's server, except that arguments failing the tool's schema answer like every
    other failure (`reason: invalid_request` and a sentence naming the argument), not with
    pydantic's own report."""

    def __init__(self, env: Mapping[str, str], **options: Any) -> None:
        super().__init__(**options)
        self._env = env

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if name != TOOL_NAME or not isinstance(exc.__cause__, ValidationError):
                raise
            problems = exc.__cause__.errors()
            log.info("rejected the arguments %s", sorted({_argument(p["loc"]) for p in problems}))
            refused = EditResult.failure("invalid_request", invalid_arguments(problems))
            given = arguments.get("path")
            return tool_result(refused, self._env, given if isinstance(given, str) else "The file")


def invalid_arguments(problems: Sequence[Mapping[str, Any]]) -> str:
    """One sentence per invalid argument, with the value given when it is short."""
    sentences = []
    for problem in problems:
        name = _argument(problem["loc"])
        if problem["type"] == "missing":
            sentences.append(f"The argument {name} is missing; it is required.")
            continue
        shown = json.dumps(problem.get("input"), ensure_ascii=False, default=str)
        got = f" (got {shown})" if len(shown) <= 40 else ""
        detail = str(problem["msg"]).rstrip(".")
        sentences.append(f"The argument {name} is invalid: {detail[:1].lower()}{detail[1:]}{got}.")
    return " ".join(sentences) or "The arguments are invalid."


def _argument(location: Sequence[Any]) -> str:
    return ".".join(str(part) for part in location) or "(all)"


def build_server(
    roots: Roots,
    settings: Settings | SettingsError,
    env: Mapping[str, str],
    runner: SessionRunner,
) -> MCPServer:
    """The MCP server for `roots`. A settings problem is answered per call (reason
    `config`), as the language server does, so the server always starts."""
    server = EditServer(
        env,
        name="complex-edit",
        title="complex-edit",
        version=__version__,
        instructions=SERVER_INSTRUCTIONS,
        log_level="WARNING",
    )
    running: set[Path] = set()

    @server.tool(
        name=TOOL_NAME,
        title=TOOL_TITLE,
        description=TOOL_DESCRIPTION,
        annotations=ToolAnnotations(
            title=TOOL_TITLE,
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=False,
            open_world_hint=False,
        ),
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
    ) -> Annotated[CallToolResult, EditResult]:
        if isinstance(settings, SettingsError):
            return tool_result(EditResult.failure("config", str(settings)), env, path)
        try:
            target = roots.resolve(path)
        except PathRefused as exc:
            return tool_result(EditResult.failure("invalid_request", str(exc)), env, path)
        if target in running:
            busy = EditResult.failure("busy", f"Another edit of {path} is already running.")
            return tool_result(busy, env, path)
        selection = _selection(start_line, end_line)
        relay = ProgressRelay(ctx, env)
        running.add(target)
        relay.start()
        try:
            result = await edit_file(
                target,
                prompt,
                settings,
                runner,
                relay,
                dry_run=dry_run,
                selection=selection,
                label=roots.label(target),
            )
        except EditRefused as exc:
            result = exc.result()
        except BaseException:
            relay.stop()
            raise
        finally:
            running.discard(target)
        await relay.finish()
        return tool_result(result, env, path)

    return server


def tool_result(result: EditResult, env: Mapping[str, str], path: str) -> CallToolResult:
    wire = result.with_validation().scrubbed_wire(env)
    return CallToolResult(
        content=[TextContent(type="text", text=_summary(result, wire, path))],
        structured_content=wire,
        is_error=not result.success,
    )


def _summary(result: EditResult, wire: Mapping[str, Any], path: str) -> str:
    if not result.success:
        return (
            f"The edit failed ({result.reason}): {wire.get('error', '')}\n{path} was not changed."
        )
    message = wire.get("message") or "Edit complete."
    if not result.diff:
        return f"{message}\n{path} was left as it was."
    if result.hunks is not None:
        head = _REVIEW_HEAD.format(path=path, count=_changes(len(result.hunks)))
    elif result.applied:
        head = f"Edited {path}: {message}"
    else:
        head = f"Dry run, {path} not written: {message}"
    return f"{head}\n\n{result.diff}"


# The review setting over MCP: nobody can be asked about each change here, and the setting
# promises that nothing lands unreviewed, so the change is returned, not written.
_REVIEW_HEAD = (
    "Review is on (setting review) and MCP cannot ask about each change, so nothing was "
    "written to {path}: {count} proposed below as a diff (and as `hunks` in the structured "
    "result). Apply the ones to keep yourself, or run again with the review setting off to "
    "write the edit."
)


def _changes(count: int) -> str:
    return "1 change is" if count == 1 else f"{count} changes are"


def _selection(start_line: int | None, end_line: int | None) -> LineRange | None:
    """A lone start_line means that line; a lone end_line means lines 1..end_line."""
    if start_line is None and end_line is None:
        return None
    start = start_line if start_line is not None else 1
    end = end_line if end_line is not None else start
    return LineRange(start_line=start, end_line=end)


def serve(root_dirs: Sequence[str], overrides: Mapping[str, Any]) -> int:
    env = os.environ
    try:
        roots = Roots.from_dirs(root_dirs)
    except PathRefused as exc:
        print(f"complex-edit mcp: {exc}", file=sys.stderr)
        return 2
    settings: Settings | SettingsError
    try:
        settings = Settings.from_layers(env, overrides)
    except SettingsError as exc:
        settings = exc
        log.warning("%s", exc)
    log.info("serving %s for %s", TOOL_NAME, roots.describe())
    build_server(roots, settings, env, InProcess(ProviderHub(env))).run()
    return 0
