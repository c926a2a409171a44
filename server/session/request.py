"""What a front end asks a session for: one instruction on one text (`EditRequest`), and the
lines it is about (`LineRange`). Front ends name these without importing the tool loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from complex_edit.server.settings import Settings

# Whether a session may read ("read") or also change ("edit") files other than its own.
OtherFiles = Literal["off", "read", "edit"]


@dataclass(frozen=True)
class LineRange:
    """1-based inclusive lines the instruction is about."""

    start_line: int
    end_line: int


@dataclass(frozen=True)
class EditRequest:
    instruction: str
    text: str
    settings: Settings
    selection: LineRange | None = None
    path_label: str | None = None
    language: str | None = None
    """The document's language (an LSP languageId, a filetype or a grammar name) for the
    syntax check; None when unknown."""
