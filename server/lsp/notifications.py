"""The wire shape of the server's own notification, `complexEdit/preview` (contract: "Live
preview"): what `preview.py` sends, and what docs/protocol.md's schema is generated from."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from complex_edit.server.outcome import WireRange

PREVIEW_METHOD = "complexEdit/preview"


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class PreviewDocument(_Wire):
    """The live document the hunks are placed on, at `version`; `version` null: a file not
    open in the editor, the hunks on its text as read from disk."""

    uri: str
    version: int | None


class PreviewHunk(_Wire):
    """One changed region so far: `range` of the live document (in the negotiated position
    encoding) now holding `old_text`, shown as `new_text`."""

    range: WireRange
    new_text: str
    old_text: str | None = None


class PreviewParams(_Wire):
    """One preview: the change so far, replacing the previous one; `done: true` (and no
    hunks) ends the command's previews, whatever its end."""

    text_document: PreviewDocument
    hunks: list[PreviewHunk]
    done: bool = False

    def to_wire(self) -> dict[str, Any]:
        wire = self.model_dump(by_alias=True, exclude_none=True, mode="json")
        wire["textDocument"]["version"] = self.text_document.version  # null, not left out
        return wire
