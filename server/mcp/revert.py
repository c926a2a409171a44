"""The `revert_complex_edit` tool: an outer agent takes back an edit it asked for (by the
`editId` of its answer; by default the latest under the allowed roots), every file or none.

The history of each allowed root is searched; a record naming a file outside the roots is
refused. The answer has an edit's shape (`structuredContent`), and a text block like the edit
tool's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from complex_edit.server.mcp.answer import writes_files
from complex_edit.server.outcome import EditResult

if TYPE_CHECKING:
    from complex_edit.server.edit.revert import RevertOrder
    from complex_edit.server.mcp.workbench import Workbench

TOOL_NAME = "revert_complex_edit"
TOOL_TITLE = "Take back a complex edit"
TOOL_DESCRIPTION = """\
Take back an edit perform_complex_edit made (every file it changed, or none): give the \
`editId` of its answer, or nothing for the latest edit under the allowed roots. Changes made \
to the files since, on other lines, are kept; if the lines the edit changed were changed \
again, nothing is reverted (reason "conflict", naming the files and lines). dry_run=true \
returns the revert's diff and writes nothing. The revert is itself an edit with its own \
editId, so it can be taken back too."""


def register(server: MCPServer, bench: Workbench) -> None:
    """Declare the tool on `server`."""

    @server.tool(
        name=TOOL_NAME,
        title=TOOL_TITLE,
        description=TOOL_DESCRIPTION,
        annotations=writes_files(TOOL_TITLE),
    )
    async def revert_complex_edit(
        id: Annotated[
            str | None,
            Field(description="The editId of the edit to take back; default: the latest."),
        ] = None,
        dry_run: Annotated[
            bool, Field(description="Return the revert's diff; write nothing.")
        ] = False,
    ) -> Annotated[CallToolResult, EditResult]:
        return await revert_call(bench, id, dry_run)


async def revert_call(bench: Workbench, edit_id: str | None, dry_run: bool) -> CallToolResult:
    from complex_edit.server.mcp.answer import tool_result

    result, shown = _revert_order(bench, edit_id, dry_run)
    if isinstance(result, EditResult):
        return tool_result(result, bench.env, shown)
    from complex_edit.server.edit.revert import on_disk

    return tool_result(await on_disk(result), bench.env, shown)


def _inside(bench: Workbench, path: str) -> bool:
    from complex_edit.server.edit.roots import PathRefused

    try:
        bench.roots.resolve(path)
    except PathRefused:
        return False
    return True


def _revert_order(
    bench: Workbench, edit_id: str | None, dry_run: bool
) -> tuple[RevertOrder | EditResult, str]:
    """The order of the revert, or the answer refusing it; and how the answer names the
    edit's files."""
    from complex_edit.server.edit.recording import history_store
    from complex_edit.server.edit.revert import RevertOrder, find_record
    from complex_edit.server.edit.roots import record_root
    from complex_edit.server.history.store import HistoryError
    from complex_edit.server.session.request import WorkspaceRoot
    from complex_edit.server.settings import SettingsError

    settings, nothing = bench.settings, "No file"
    if isinstance(settings, SettingsError):
        return EditResult.failure("config", str(settings)), nothing
    stores = []
    # each root, and the git top level above it (an edit without other files is recorded
    # under the file's: `server/edit/recording.py`)
    places = [where for root in bench.roots.paths for where in (root, record_root(root / "-"))]
    for root in dict.fromkeys(places):
        try:
            stores.append(history_store(settings, root))
        except HistoryError:
            continue
    found = find_record(stores, edit_id)
    if isinstance(found, EditResult):
        return found, nothing
    store, record = found
    shown = ", ".join(d.label for d in record.documents) or nothing
    outside = [d.path for d in record.documents if not _inside(bench, d.path)]
    if outside:
        refused = f"Edit {record.id} changed files outside the allowed roots: {', '.join(outside)}."
        return EditResult.failure("invalid_request", refused), shown
    held = WorkspaceRoot(store.root.name, str(store.root))
    return RevertOrder(store, record.id, settings, dry_run=dry_run, roots=(held,)), shown
