"""One call of the tool: the edit's machinery (the edit flow, the providers and their SDKs,
tree-sitter), imported by the first call so that listing the tool stays cheap."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from complex_edit.server.edit.disk import edit_file
from complex_edit.server.edit.roots import PathRefused
from complex_edit.server.mcp.answer import tool_result
from complex_edit.server.mcp.workbench import ToolCall, Workbench
from complex_edit.server.outcome import EditRefused, EditResult, scrub
from complex_edit.server.session.events import (
    SessionEvent,
    SessionFinished,
    ToolFinished,
    ToolStarted,
    WorkingChanged,
    describe,
)
from complex_edit.server.session.request import LineRange
from complex_edit.server.settings import SettingsError

log = logging.getLogger("complex_edit.mcp")


async def run_call(bench: Workbench, call: ToolCall, ctx: Context) -> CallToolResult:
    settings, env, path = bench.settings, bench.env, call.path
    if isinstance(settings, SettingsError):
        return tool_result(EditResult.failure("config", str(settings)), env, path)
    try:
        target = bench.roots.resolve(path)
    except PathRefused as exc:
        return tool_result(EditResult.failure("invalid_request", str(exc)), env, path)
    if target in bench.running:
        busy = EditResult.failure("busy", f"Another edit of {path} is already running.")
        return tool_result(busy, env, path)
    if call.check is not None and (call.check is False or settings.checkers == "off"):
        settings = settings.model_copy(update={"checkers": "auto" if call.check else "off"})
    relay = ProgressRelay(ctx, env)
    bench.running.add(target)
    relay.start()
    try:
        result = await edit_file(
            target,
            call.prompt,
            settings,
            bench.session_runner(),
            relay,
            dry_run=call.dry_run,
            selection=_selection(call.start_line, call.end_line),
            label=bench.roots.label(target),
            other_files=call.other_files or settings.other_files,
            root=bench.roots.root_of(target),
        )
    except EditRefused as exc:
        result = exc.result()
    except BaseException:
        relay.stop()
        raise
    finally:
        bench.running.discard(target)
    await relay.finish()
    return tool_result(result, env, path)


class ProgressRelay:
    """Turns the session's synchronous events into ordered MCP progress notifications.

    Nothing is sent close to the answer: a notification just before it races the answer in
    some clients (the TypeScript SDK's, in Claude Code, then reports "unknown token" as a
    connection error). So the calls of a turn and their changes are sent when the next turn
    starts (a model request follows, which takes a while), those of the last turn and the
    session's end not at all (the answer says it is done), and the answer leaves at least
    `QUIET_SECONDS` after the last notification."""

    QUIET_SECONDS = 0.25

    def __init__(self, ctx: Context, env: Mapping[str, str]) -> None:
        self._ctx = ctx
        self._env = env
        self._queue: asyncio.Queue[tuple[int, str] | None] = asyncio.Queue()
        self._held: list[str] = []
        self._count = 0
        self._last_sent: float | None = None
        self._task: asyncio.Task[None] | None = None
        self._asked = _asks_for_progress(ctx)

    def __call__(self, event: SessionEvent) -> None:
        if isinstance(event, SessionFinished):
            return
        message = scrub(describe(event), self._env)
        if isinstance(event, ToolStarted | ToolFinished | WorkingChanged):
            self._held.append(message)
            return
        for held in [*self._held, message]:
            self._count += 1
            self._queue.put_nowait((self._count, held))
        self._held.clear()

    def start(self) -> None:
        self._task = asyncio.create_task(self._pump())

    async def finish(self) -> None:
        """Send what is queued, then stop, and let the quiet time pass."""
        if self._task is None:
            return
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=5)
        except TimeoutError:
            self.stop()
        if self._last_sent is not None:
            quiet = self._last_sent + self.QUIET_SECONDS - asyncio.get_running_loop().time()
            if quiet > 0:
                await asyncio.sleep(quiet)

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
            if self._asked:
                self._last_sent = asyncio.get_running_loop().time()


def _asks_for_progress(ctx: Context) -> bool:
    """The call carries a progress token (without one, nothing is sent)."""
    meta: Mapping[str, Any] = dict(ctx.request_context.meta or {})
    return any(meta.get(key) is not None for key in ("progressToken", "progress_token"))


def _selection(start_line: int | None, end_line: int | None) -> LineRange | None:
    """A lone start_line means that line; a lone end_line means lines 1..end_line."""
    if start_line is None and end_line is None:
        return None
    start = start_line if start_line is not None else 1
    end = end_line if end_line is not None else start
    return LineRange(start_line=start, end_line=end)
