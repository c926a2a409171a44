"""What the client can do, resolved once at `initialize` from its capabilities (and, for the
clients known to differ from what they announce, from its name)."""

from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types

from complex_edit.server.text.positions import Encoding, normalize_encoding

# Clients that answer `workspace/applyEdit` while blocked in the request that caused it, and
# report the change only after that request is answered (eglot's `eglot-execute-command`:
# its didChange leaves from an idle timer). Matched in `clientInfo.name` ("Eglot"; pytest-lsp's
# record of Emacs 29 says "Emacs (eglot)"), and eglot before it sent one (1.9, Emacs 28's
# ELPA package) on what it announces (`_eglot_without_name`).
REPORTS_AFTER_ANSWER = "eglot"
# Clients that count position characters in code points without announcing an encoding
# (lsp-mode 8.0 sends `clientInfo.name` "emacs").
COUNT_CODE_POINTS = frozenset({"emacs", "lsp-mode"})
# The client (by `clientInfo.name`) that applies `documentChanges` without announcing it.
APPLIES_DOCUMENT_CHANGES = "Neovim"


@dataclass(frozen=True)
class ClientAbilities:
    apply_edit: bool = False
    """`workspace/applyEdit`."""
    document_changes: bool = False
    """Versioned `TextDocumentEdit`s in a workspace edit."""
    several_documents: bool = False
    """One workspace edit of several documents (`documentChanges`): announced, or Neovim's,
    which applies them (versioned, or `version: null` for a file it loads) unannounced."""
    change_annotations: bool = False
    """Change annotations (`needsConfirmation`) in a workspace edit."""
    configuration: bool = False
    """`workspace/configuration`."""
    work_done_progress: bool = False
    """Server-initiated work-done progress."""
    position_encoding: Encoding = "utf-16"
    """How the client counts characters in positions: the encoding negotiated at
    `initialize`, or code points for a client known to count them without saying so."""
    reports_after_answer: bool = False
    """The client reports an applied edit's change only after the command is answered."""
    whole_lines: bool = False
    """Send edits as whole lines, whose ranges do not depend on how columns are counted (a
    client that counts them unlike what it negotiated)."""
    live_preview: bool = False
    """`complexEdit/preview` notifications (client capability
    `experimental.complexEditPreview: true` or `initializationOptions.livePreview: true`)."""

    @classmethod
    def of(
        cls,
        capabilities: types.ClientCapabilities,
        encoding: object,
        client: types.ClientInfo | None = None,
        init_options: object = None,
    ) -> ClientAbilities:
        workspace = capabilities.workspace
        edit = workspace.workspace_edit if workspace is not None else None
        window = capabilities.window
        name = client.name if client is not None else ""
        code_points = name in COUNT_CODE_POINTS and not _announces_encodings(capabilities)
        return cls(
            apply_edit=bool(workspace is not None and workspace.apply_edit),
            document_changes=bool(edit is not None and edit.document_changes),
            several_documents=bool(edit is not None and edit.document_changes)
            or name == APPLIES_DOCUMENT_CHANGES,
            change_annotations=bool(edit is not None and edit.change_annotation_support),
            configuration=bool(workspace is not None and workspace.configuration),
            work_done_progress=bool(window is not None and window.work_done_progress),
            position_encoding="utf-32" if code_points else normalize_encoding(encoding or "utf-16"),
            reports_after_answer=REPORTS_AFTER_ANSWER in name.lower()
            or (client is None and _eglot_without_name(capabilities)),
            whole_lines=code_points,
            live_preview=_flag(capabilities.experimental, "complexEditPreview")
            or _flag(init_options, "livePreview"),
        )

    @property
    def can_review(self) -> bool:
        """Can the client ask its user to confirm each change of an edit?"""
        return self.apply_edit and self.document_changes and self.change_annotations


def _announces_encodings(capabilities: types.ClientCapabilities) -> bool:
    general = capabilities.general
    return bool(general is not None and general.position_encodings)


def _eglot_without_name(capabilities: types.ClientCapabilities) -> bool:
    """Eglot 1.9 sends no `clientInfo`; it alone announces, together, an empty `experimental`,
    `willSaveWaitUntil`, and no dynamic registration of `workspace/executeCommand`."""
    sync = capabilities.text_document.synchronization if capabilities.text_document else None
    command = capabilities.workspace.execute_command if capabilities.workspace else None
    return (
        capabilities.experimental == {}
        and sync is not None
        and sync.will_save_wait_until is True
        and sync.did_save is True
        and command is not None
        and command.dynamic_registration is False
    )


def _flag(options: object, name: str) -> bool:
    """Whether the JSON object `options` has `name: true`."""
    return isinstance(options, dict) and options.get(name) is True
