"""The session's documents: the command's own, and, with `otherFiles` "read" or "edit", the
other files of the workspace the model names with `path`.

Each other file has its own working buffer (an `edit_tools` `Toolbox`: its snapshot, undo and
redo history and elision guard), made when the model first reads or changes it, from the
editor's buffer when the file is open there, else from disk (`server.workspace`, which
applies every rule of what may be read). A file joins the edit when first changed, only with
`otherFiles` "edit" and while fewer than `maxFiles` documents are changed; each joined file
gets its own syntax check (`ResultValidator`).

With `otherFiles` "off" nothing here differs from one document alone: calls go to the own
toolbox untouched (a `path` is an unknown parameter, find_in_files an unknown tool).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from complex_edit.edit_tools import errors
from complex_edit.edit_tools.errors import ToolError
from complex_edit.edit_tools.params import FindInFilesParams, Params
from complex_edit.edit_tools.registry import (
    FIND_IN_FILES,
    Toolbox,
    ToolOutcome,
    outcome_of,
    parse,
)
from complex_edit.edit_tools.results import ToolResult
from complex_edit.edit_tools.syntax import language_for_path
from complex_edit.server.outcome import MaskedPlace, MaskedSecrets
from complex_edit.server.session.request import EditRequest
from complex_edit.server.session.validation import ResultValidator
from complex_edit.server.workspace import ripgrep
from complex_edit.server.workspace.kept import Kept
from complex_edit.server.workspace.rules import Refused
from complex_edit.server.workspace.search import Shown
from complex_edit.server.workspace.secrets import Masked
from complex_edit.server.workspace.workspace import Opened, Workspace

_FIND: Mapping[str, type[Params]] = MappingProxyType({FIND_IN_FILES: FindInFilesParams})
_CHANGING = ("set_document", "replace_text")
MAX_MASKED_PLACES = 100  # the answer's `masked.places`


@dataclass
class OtherFile:
    """Another file the model read or changed: where it came from, and its working buffer."""

    opened: Opened
    toolbox: Toolbox
    masked: Masked  # its secret values, masked in whatever the model reads of it
    validator: ResultValidator | None = None  # made when the file joins the edit

    @property
    def joined(self) -> bool:
        return self.validator is not None

    @property
    def label(self) -> str:
        return self.opened.label


@dataclass(frozen=True)
class Touched:
    """What one call did: its outcome, the other file it acted on (None: the command's own
    document) and that document's text before the call."""

    outcome: ToolOutcome
    other: OtherFile | None
    before: str


class Documents:
    def __init__(self, request: EditRequest, own: Toolbox, kept: Kept | None = None) -> None:
        self.own = own
        self._request = request
        self._mode = request.other_files
        self._workspace = (
            Workspace(
                [(root.name, root.path) for root in request.roots],
                {doc.path: (doc.text, doc.version) for doc in request.open_documents},
                request.settings.read_exclude,
                request.settings.max_document_bytes,
                ripgrep=ripgrep.program(),
                search_seconds=request.settings.search_timeout_seconds,
                kept=kept,
            )
            if self._mode != "off"
            else None
        )
        own_path = request.document_path
        self._own_path = os.path.realpath(own_path) if own_path else None
        self._own_names = {
            name
            for name in (
                request.path_label,
                self._workspace.label_of(own_path) if self._workspace and own_path else None,
            )
            if name
        }
        self._others: dict[str, OtherFile] = {}  # by real path, in the order first named
        self._joined: list[OtherFile] = []

    def masked(self) -> MaskedSecrets | None:
        """The secret values the model was shown masked, and where (None: none)."""
        places = self._workspace.shown.places if self._workspace is not None else ()
        if not places:
            return None
        return MaskedSecrets(
            count=len(places),
            places=[
                MaskedPlace(path=label, line=spot.line, kind=spot.kind)
                for label, spot in places[:MAX_MASKED_PLACES]
            ],
        )

    @property
    def joined(self) -> tuple[OtherFile, ...]:
        """The other files changed at some point, in the order they joined the edit."""
        return tuple(self._joined)

    def execute(self, name: str, args: Mapping[str, Any] | None) -> Touched:
        before = self.own.text
        workspace = self._workspace
        if workspace is None:
            return Touched(self.own.execute(name, args), None, before)
        if name == FIND_IN_FILES:
            return Touched(
                outcome_of(name, lambda: self._find(workspace, name, args)), None, before
            )
        refused = _marker_refusal(workspace, name, args)
        if refused is not None:
            return Touched(refused, None, before)
        if not isinstance(args, Mapping) or "path" not in args:
            return Touched(self.own.execute(name, args), None, before)
        path = args["path"]
        rest = {key: value for key, value in args.items() if key != "path"}
        if path is None or path == "":  # an optional parameter sent empty: left out
            return Touched(self.own.execute(name, rest), None, before)
        try:
            other = self._other(workspace, name, path)
        except ToolError as exc:
            return Touched(outcome_of(name, functools.partial(_raise, exc)), None, before)
        if other is None:
            return Touched(self.own.execute(name, rest), None, before)
        before = other.toolbox.text
        outcome = other.toolbox.execute(name, rest)
        if other.toolbox.text != before and not other.joined:
            self._join(other)
        # A conversation keeps one full view, of the command's document: another file's must
        # not make that one look out of date. The summary (the progress line) names the file.
        summary = f"{outcome.summary} in {_short(other.label)}"
        response = _hidden(outcome.response, other, workspace.shown)
        outcome = outcome.model_copy(
            update={"full_view": False, "summary": summary, "response": response}
        )
        return Touched(outcome, other, before)

    def _find(self, workspace: Workspace, name: str, args: Mapping[str, Any] | None) -> ToolResult:
        params = parse(name, args, _FIND, self._request.settings.max_document_bytes)
        assert isinstance(params, FindInFilesParams)
        current = {path: other.toolbox.text for path, other in self._others.items()}
        if self._own_path is not None:
            current[self._own_path] = self.own.text
        try:
            text = workspace.find(params.pattern, params.glob, params.regex, current)
        except Refused as exc:
            raise ToolError(exc.message, f"{name}: refused") from None
        first = text.partition("\n")[0]
        return ToolResult(text, f"{name}: {first.partition(' (')[0]}")

    def _other(self, workspace: Workspace, name: str, path: Any) -> OtherFile | None:
        """The other file `path` names (None: the command's own document); raises ToolError
        when it may not be read, or not changed by this call."""
        if not isinstance(path, str):
            raise errors.invalid_arguments(
                name, [errors.wrong_value("path", "a string", path)], ["path"]
            )
        if path in self._own_names:
            return None
        try:
            located = workspace.locate(path)
            if located.label in self._own_names or located.path == self._own_path:
                return None
            other = self._others.get(located.path)
            if other is None:
                opened = workspace.read(path)
                other = self._open(opened)
        except Refused as exc:
            raise ToolError(exc.message, f"{name}: refused {_short(path)}") from None
        if name in _CHANGING and not other.joined:
            self._may_join(name, other)
        return other

    def _open(self, opened: Opened) -> OtherFile:
        limit = self._request.settings.max_document_bytes
        toolbox = Toolbox(opened.text, max_argument_bytes=limit, max_text_chars=limit)
        assert self._workspace is not None
        other = OtherFile(opened, toolbox, self._workspace.mask(opened.text, opened.label))
        self._others[opened.path] = other
        return other

    def _may_join(self, name: str, other: OtherFile) -> None:
        if self._mode != "edit":
            raise ToolError(
                f"{other.label} can be read but not changed: changing other files is off "
                f'(setting otherFiles is "{self._mode}"). Change only the document of the '
                "instruction, and say in complete_task's message what the other files need.",
                f"{name}: refused, other files are read-only",
            )
        limit = self._request.settings.max_files
        if len(self._joined) + 1 >= limit:
            names = ", ".join(["the document of the instruction", *(o.label for o in self._joined)])
            raise ToolError(
                f"{other.label} cannot join the edit: one command changes at most {limit} "
                f"documents (setting maxFiles), and this one already has {names}. Finish with "
                "those, or say in complete_task what else needs changing.",
                f"{name}: refused, maxFiles reached",
            )

    def _join(self, other: OtherFile) -> None:
        settings = self._request.settings
        other.validator = ResultValidator(
            other.opened.text, language_for_path(other.opened.path), settings.validate_result
        )
        other.validator.start()
        self._joined.append(other)

    def close(self) -> None:
        if self._workspace is not None:
            self._workspace.close()
        for other in self._joined:
            if other.validator is not None:
                other.validator.close()


def _raise(error: ToolError) -> ToolResult:
    raise error


def _marker_refusal(
    workspace: Workspace, name: str, args: Mapping[str, Any] | None
) -> ToolOutcome | None:
    """A call whose text arguments hold a marker shown for a secret value: refused, so that a
    marker is never written into a file (None: the call may go on)."""
    if name not in _CHANGING or not isinstance(args, Mapping):
        return None
    if not any(isinstance(value, str) and workspace.shown_marker(value) for value in args.values()):
        return None
    error = ToolError(
        "The text holds a «secret: …» marker: it stands for a secret value you cannot see, and "
        "it must never be written into a file. Leave the lines holding a marker as they are "
        "(choose old_text around them) and change the others.",
        f"{name}: refused, holds a secret marker",
    )
    return outcome_of(name, functools.partial(_raise, error))


def _hidden(response: dict[str, Any], other: OtherFile, shown: Shown) -> dict[str, Any]:
    """What the model reads back of another file, its secret values masked; a get_document
    says how many were masked and where."""
    masked = other.masked
    if not masked.values:
        return response
    hidden = {
        key: masked.hide(value) if isinstance(value, str) else value
        for key, value in response.items()
    }
    note = shown.note([(other.label, spot) for spot in masked.spots])
    return {**hidden, "masked": note.strip()}


def _short(path: str) -> str:
    return path if len(path) <= 60 else path[:59] + "…"
