"""`complexEdit.history` and `complexEdit.revert`: the edits landed under this client's
workspace, and taking one back through the editor.

The workspace: the client's folders, and the git top level (else the folder) of each file
open in the editor, the roots edits are recorded under (`server/edit/recording.py`). A revert
lands with one `workspace/applyEdit` (versioned changes for open documents, unsaved changes
included; `version: null` for files not open) through the flow's apply step; when none of its
files is open in the editor, it is written to the files, every file or none.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

# (pygls reads the handlers' annotations: the server's class must be importable here)
from complex_edit.server.lsp.server import ComplexEditServer

if TYPE_CHECKING:  # loaded by the first command (start-up imports stay light)
    from complex_edit.server.history.store import HistoryStore
    from complex_edit.server.settings import Settings

HISTORY_COMMAND = "complexEdit.history"
REVERT_COMMAND = "complexEdit.revert"


def register(ls: ComplexEditServer) -> None:
    ls.command(HISTORY_COMMAND)(history)
    ls.command(REVERT_COMMAND)(revert)


async def history(ls: ComplexEditServer, *raw: Any) -> list[dict[str, Any]]:
    """`complexEdit.history {limit?}`: the landed edits, newest first."""
    given = _arguments(raw, {"limit": int, "root": str})
    limit = given.get("limit")
    if limit is not None and limit < 0:
        raise JsonRpcInvalidParams("limit must not be negative")
    settings = await _settings(ls)
    if isinstance(settings, str):
        raise JsonRpcInvalidParams(settings)
    stores = _stores(ls, settings, given.get("root"))
    records = [record for store in stores for record in store.records()]
    records.sort(key=lambda record: (record.time, record.id), reverse=True)
    return [record.entry() for record in records[:limit]]


async def revert(ls: ComplexEditServer, *raw: Any) -> dict[str, Any]:
    """`complexEdit.revert {id?, force?, dryRun?, review?}`: an edit's answer."""
    from complex_edit.server.edit.revert import RevertOrder, find_record, land, on_disk, plan
    from complex_edit.server.lsp.editor import LspEditor
    from complex_edit.server.lsp.folders import workspace_roots
    from complex_edit.server.outcome import EditResult

    fields = {"id": str, "force": bool, "dryRun": bool, "review": bool, "root": str}
    given = _arguments(raw, fields)
    settings = await _settings(ls)
    if isinstance(settings, str):
        return EditResult.failure("config", settings).scrubbed_wire(ls.env)
    found = find_record(_stores(ls, settings, given.get("root")), given.get("id"))
    if isinstance(found, EditResult):
        return found.scrubbed_wire(ls.env)
    store, record = found
    order = RevertOrder(
        store,
        record.id,
        settings,
        force=bool(given.get("force")),
        dry_run=bool(given.get("dryRun")),
        roots=workspace_roots(ls.workspace),
        review=bool(given.get("review")),
    )
    editor = LspEditor(ls)
    if not any(editor.is_open(editor.uri_for(d.path)) for d in record.documents):
        return (await on_disk(order)).scrubbed_wire(ls.env)
    planned = plan(order, editor)
    if isinstance(planned, EditResult):
        return planned.scrubbed_wire(ls.env)
    return (await land(order, planned, editor)).scrubbed_wire(ls.env)


def _arguments(raw: tuple[Any, ...], fields: Mapping[str, type]) -> dict[str, Any]:
    """The one optional argument object, its known fields checked; InvalidParams else."""
    if not raw or raw[0] is None or raw[0] == []:  # ([]: an empty Lua table)
        return {}
    if len(raw) > 1 or not isinstance(raw[0], Mapping):
        raise JsonRpcInvalidParams("expected one argument object")
    given = dict(raw[0])
    for name, kind in fields.items():
        value = given.get(name)
        wrong = not isinstance(value, kind) or isinstance(value, bool) != (kind is bool)
        if value is not None and wrong:
            raise JsonRpcInvalidParams(f"{name} must be a {kind.__name__}")
    return given


async def _settings(ls: ComplexEditServer) -> Settings | str:
    """The settings this client gives, or why they are wrong."""
    from complex_edit.server.lsp.editor import LspEditor
    from complex_edit.server.settings import Settings, SettingsError

    layers = await LspEditor(ls).settings_layers(None)
    try:
        return Settings.from_layers(ls.env, *layers)
    except SettingsError as exc:
        return str(exc)


def _stores(ls: ComplexEditServer, settings: Settings, root: str | None) -> list[HistoryStore]:
    """The histories of the workspace's roots (`root`: that one only)."""
    from complex_edit.server.edit.recording import history_store
    from complex_edit.server.edit.roots import record_root
    from complex_edit.server.history.store import HistoryError
    from complex_edit.server.lsp.bridge import path_of
    from complex_edit.server.lsp.folders import workspace_roots

    if root is not None:
        roots = [Path(root).resolve()]
    else:
        roots = [Path(folder.path) for folder in workspace_roots(ls.workspace)]
        for uri in ls.documents.uris():
            path = path_of(uri)
            if path is not None:
                roots.append(record_root(Path(path).resolve()))
    stores = []
    for where in dict.fromkeys(roots):
        try:
            stores.append(history_store(settings, where))
        except HistoryError:
            continue  # (a root holding the state folder: nothing is recorded there)
    return stores
