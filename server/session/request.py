"""What a front end asks a session for: one instruction on one text (`EditRequest`), the lines
it is about (`LineRange`) and, for reading and editing other files, the workspace's folders
(`WorkspaceRoot`) and the documents open in the editor (`OpenDocument`). Front ends name these
without importing the tool loop."""

from __future__ import annotations

from dataclasses import dataclass

from complex_edit.server.settings import OtherFiles, Settings

__all__ = ["EditRequest", "LineRange", "OpenDocument", "OtherFiles", "WorkspaceRoot"]


@dataclass(frozen=True)
class LineRange:
    """1-based inclusive lines the instruction is about."""

    start_line: int
    end_line: int


@dataclass(frozen=True)
class WorkspaceRoot:
    """A workspace folder: `path` absolute and resolved; `name` prefixes the paths the model
    uses when there are several folders."""

    name: str
    path: str


@dataclass(frozen=True)
class OpenDocument:
    """A document open in the editor: its absolute file-system path and its buffer's text
    (unsaved changes included) and version."""

    path: str
    text: str
    version: int | None


@dataclass(frozen=True)
class EditRequest:
    instruction: str
    text: str
    settings: Settings
    selection: LineRange | None = None
    path_label: str | None = None
    """How the model is told the document is called."""
    diff_label: str | None = None
    """How the answer's diff heads the document: its path from the workspace root, else its
    path as given (None: `path_label`)."""
    language: str | None = None
    """The document's language (an LSP languageId, a filetype or a grammar name) for the
    syntax check; None when unknown."""
    other_files: OtherFiles = "off"
    """"off": this document alone; "read": other files may be read and searched; "edit":
    they may be changed too."""
    roots: tuple[WorkspaceRoot, ...] = ()
    open_documents: tuple[OpenDocument, ...] = ()
    document_path: str | None = None
    """The command's document's absolute path, when it is a file: a `path` naming it means
    this document, never a second copy of it."""
