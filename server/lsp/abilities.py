"""What the client can do, resolved once at `initialize` from its capabilities."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from complex_edit.server.text.positions import Encoding, normalize_encoding


@dataclass(frozen=True)
class ClientAbilities:
    apply_edit: bool = False
    """`workspace/applyEdit`."""
    document_changes: bool = False
    """Versioned `TextDocumentEdit`s in a workspace edit."""
    change_annotations: bool = False
    """Change annotations (`needsConfirmation`) in a workspace edit."""
    configuration: bool = False
    """`workspace/configuration`."""
    work_done_progress: bool = False
    """Server-initiated work-done progress."""
    position_encoding: Encoding = "utf-16"
    """The position encoding negotiated at `initialize`."""
    live_preview: bool = False
    """`complexEdit/preview` notifications (client capability
    `experimental.complexEditPreview: true` or `initializationOptions.livePreview: true`)."""

    @classmethod
    def of(
        cls,
        capabilities: types.ClientCapabilities,
        encoding: object,
        init_options: object = None,
    ) -> ClientAbilities:
        workspace = capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        window = capabilities.window
        return cls(
            apply_edit=bool(workspace is not None and workspace.apply_edit),
            document_changes=bool(edit is not None and edit.document_changes),
            change_annotations=bool(edit is not None and edit.change_annotation_support),
            configuration=bool(workspace is not None and workspace.configuration),
            work_done_progress=bool(window is not None and window.work_done_progress),
            position_encoding=normalize_encoding(encoding or "utf-16"),
            live_preview=_flag(capabilities.experimental, "complexEditPreview")
            or _flag(init_options, "livePreview"),
        )

    @property
    def can_review(self) -> bool:
        """Can the client ask its user to confirm each change of an edit?"""
        return self.apply_edit and self.document_changes and self.change_annotations


def _flag(options: object, name: str) -> bool:
    """Whether the JSON object `options` has `name: true`."""
    return isinstance(options, dict) and options.get(name) is True
