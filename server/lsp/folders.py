"""What a command's session may see of the workspace, from the connection: the folders the
client announced (`workspaceFolders`, else `rootUri`) as `WorkspaceRoot`s, and the documents
open in the editor (their buffers, unsaved changes included) as `OpenDocument`s."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pygls.workspace import Workspace

from complex_edit.server.edit.roots import not_a_project
from complex_edit.server.lsp.bridge import path_of
from complex_edit.server.session.request import OpenDocument, WorkspaceRoot
from complex_edit.server.text.documents import DocumentStore


def workspace_roots(workspace: Workspace) -> tuple[WorkspaceRoot, ...]:
    """The client's workspace folders that are local folders, named by their folder names
    (made unique: `name`, `name-2`, …); none announced: `rootUri`'s folder; neither: none.
    The home directory and `/` are left out (never a workspace): the document alone."""
    folders = [(folder.name, folder.uri) for folder in workspace.folders.values()]
    if not folders and workspace.root_uri:
        folders = [("", workspace.root_uri)]
    return _named(folders)


def _named(folders: Iterable[tuple[str, str]]) -> tuple[WorkspaceRoot, ...]:
    roots: list[WorkspaceRoot] = []
    taken: set[str] = set()
    for given, uri in folders:
        path = path_of(uri)
        if path is None or not os.path.isdir(path):
            continue
        path = os.path.realpath(path)
        if any(root.path == path for root in roots) or not_a_project(Path(path), "") is not None:
            continue  # the home directory and `/` are never a workspace
        base = _clean(given) or _clean(os.path.basename(path)) or "root"
        name, number = base, 1
        while name in taken:
            number += 1
            name = f"{base}-{number}"
        taken.add(name)
        roots.append(WorkspaceRoot(name, path))
    return tuple(roots)


def _clean(name: str) -> str:
    """A folder name usable as the first component of a path."""
    return name.replace("/", "_").replace("\\", "_").strip().strip(".")


def open_documents(store: DocumentStore, besides: str) -> tuple[OpenDocument, ...]:
    """The documents open in the editor that are files, other than `besides` (the command's
    own), as the editor has them now."""
    documents = []
    for uri in store.uris():
        path = path_of(uri)
        live = store.get(uri)
        if uri != besides and path is not None and live is not None:
            documents.append(OpenDocument(path, live.text, live.version))
    return tuple(documents)
