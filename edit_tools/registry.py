"""The toolbox: tool declarations for the model, and dispatch of its calls to outcomes.

`Toolbox.execute` never raises for anything the model sends: every mistake comes back as an
outcome with `ok=False` and a message the model can act on, and leaves the document untouched.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Mapping
from difflib import get_close_matches
from types import MappingProxyType
from typing import Any, Literal

from pydantic import ValidationError

from complex_edit.edit_tools import errors, tools
from complex_edit.edit_tools.buffer import WorkingBuffer
from complex_edit.edit_tools.errors import ToolError
from complex_edit.edit_tools.lines import line_count
from complex_edit.edit_tools.params import (
    EDIT_PATH_NOTE,
    PATH_DESCRIPTION,
    READ_PATH_NOTE,
    CompleteTaskParams,
    FindInFilesParams,
    GetDocumentParams,
    Params,
    RedoParams,
    ReplaceTextParams,
    SetDocumentParams,
    UndoParams,
    expected,
    normalize,
)
from complex_edit.edit_tools.results import Completion, ToolDeclaration, ToolOutcome
from complex_edit.edit_tools.view import render_document

__all__ = [
    "FIND_IN_FILES",
    "TOOL_NAMES",
    "Completion",
    "OtherFiles",
    "ToolDeclaration",
    "ToolOutcome",
    "Toolbox",
    "render_document",
]

_PARAMS: Mapping[str, type[Params]] = MappingProxyType(
    {
        "get_document": GetDocumentParams,
        "set_document": SetDocumentParams,
        "replace_text": ReplaceTextParams,
        "undo": UndoParams,
        "redo": RedoParams,
        "complete_task": CompleteTaskParams,
    }
)
TOOL_NAMES: tuple[str, ...] = tuple(_PARAMS)
FIND_IN_FILES = "find_in_files"
# Which other files the tools reach: none; read (get_document's `path`, find_in_files); or
# edit as well (`path` on every tool that acts on a document).
OtherFiles = Literal["off", "read", "edit"]
_EDIT_TOOLS = ("set_document", "replace_text", "undo", "redo")

_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN_ARGUMENT_CHARS = 24


def _clean_schema(node: Any) -> Any:
    """The schema without titles and null defaults (noise for the model)."""
    if isinstance(node, dict):
        return {
            key: _clean_schema(value)
            for key, value in node.items()
            if key != "title" and not (key == "default" and value is None)
        }
    if isinstance(node, list):
        return [_clean_schema(item) for item in node]
    return node


def _inline_optional(node: Any) -> Any:
    """`anyOf: [X, {type: null}]` collapsed to X: an optional parameter is simply left out."""
    if isinstance(node, dict):
        any_of = node.get("anyOf")
        if isinstance(any_of, list) and {"type": "null"} in any_of and len(any_of) == 2:
            (inner,) = [option for option in any_of if option != {"type": "null"}]
            merged = {key: value for key, value in node.items() if key != "anyOf"}
            return _inline_optional({**inner, **merged})
        return {key: _inline_optional(value) for key, value in node.items()}
    return node


def _declaration(name: str, model: type[Params]) -> ToolDeclaration:
    schema = _inline_optional(_clean_schema(model.model_json_schema()))
    description = " ".join(str(schema.pop("description", "")).split())
    return ToolDeclaration(name=name, description=description, parameters=schema)


def _with_path(declaration: ToolDeclaration, note: str) -> ToolDeclaration:
    parameters = copy.deepcopy(declaration.parameters)
    parameters.setdefault("properties", {})["path"] = {
        "type": "string",
        "description": PATH_DESCRIPTION,
    }
    return ToolDeclaration(
        name=declaration.name,
        description=f"{declaration.description} {note}",
        parameters=parameters,
    )


@functools.cache
def _declarations(other_files: OtherFiles = "off") -> tuple[ToolDeclaration, ...]:
    plain = tuple(_declaration(name, model) for name, model in _PARAMS.items())
    if other_files == "off":
        return plain
    declared: list[ToolDeclaration] = []
    for declaration in plain:
        if declaration.name == "get_document":
            declared.append(_with_path(declaration, READ_PATH_NOTE))
            declared.append(_declaration(FIND_IN_FILES, FindInFilesParams))
        elif other_files == "edit" and declaration.name in _EDIT_TOOLS:
            declared.append(_with_path(declaration, EDIT_PATH_NOTE))
        else:
            declared.append(declaration)
    return tuple(declared)


def _argument_bytes(args: Mapping[str, Any]) -> int:
    """UTF-8 size of the argument values, without recursion."""
    total = 0
    pending: list[Any] = list(args.values())
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            total += len(value.encode("utf-8", "surrogatepass"))
        elif isinstance(value, Mapping):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list | tuple):
            pending.extend(value)
        else:
            total += len(repr(value))
    return total


def _short(value: str, limit: int = _SHOWN_ARGUMENT_CHARS) -> str:
    flat = value.replace("\r\n", "⏎").replace("\n", "⏎").replace("\r", "⏎").replace("\t", "→")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return _short(str(value), 12)


def _problems(model: type[Params], exc: ValidationError) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    for error in exc.errors():
        param = str(error["loc"][0]) if error["loc"] else "arguments"
        if param in seen:
            continue
        seen.add(param)
        if error["type"] == "missing":
            problems.append(errors.missing_parameter(param, expected(model, param)))
        elif error["type"] == "extra_forbidden":
            problems.append(errors.unknown_parameter(param))
        else:
            problems.append(errors.wrong_value(param, expected(model, param), error["input"]))
    return problems


def outcome_of(name: str, run: Callable[[], tools.ToolResult]) -> ToolOutcome:
    """The outcome of one call carried out by `run`: a `ToolError` (or a bug) comes back as a
    failed outcome with a message the model can act on, never as an exception."""
    try:
        result = run()
    except ToolError as exc:
        return ToolOutcome(
            name=str(name),
            ok=False,
            response={"error": exc.message},
            summary=exc.summary,
            refusal=exc.kind,
        )
    except Exception as exc:  # a bug must come back as a tool error, not end the run
        error = errors.internal_error(str(name), exc)
        return ToolOutcome(
            name=str(name), ok=False, response={"error": error.message}, summary=error.summary
        )
    return ToolOutcome(
        name=name,
        ok=True,
        response={"result": result.text},
        summary=result.summary,
        completion=result.completion,
        full_view=result.full_view,
        adjustments=result.adjustments,
    )


def parse(
    name: str,
    args: Mapping[str, Any] | None,
    known: Mapping[str, type[Params]],
    max_argument_bytes: int,
) -> Params:
    """The validated parameters of a call to one of the `known` tools; raises ToolError."""
    model = known.get(name) if isinstance(name, str) else None
    if model is None:
        shown = str(name)
        names = tuple(known)
        close = get_close_matches(shown.lower(), names, n=1, cutoff=0.6)
        raise errors.unknown_tool(shown, names, close[0] if close else None)
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise errors.arguments_not_object(name, args)
    arguments = {str(key): value for key, value in args.items()}
    size = _argument_bytes(arguments)
    if size > max_argument_bytes:
        raise errors.argument_too_large(name, size, max_argument_bytes)
    try:
        params = model.model_validate(normalize(model, arguments))
    except ValidationError as exc:
        problems = _problems(model, exc)
        raise errors.invalid_arguments(name, problems, list(model.model_fields)) from None
    for param, value in params:
        if isinstance(value, str) and (bad := _SURROGATE.search(value)):
            raise errors.lone_surrogate(name, param, bad.start())
    return params


class _FullCopy:
    """Which text the model last received in full, by length and hash (holding the text
    itself would keep a large document alive for nothing)."""

    __slots__ = ("_digest", "_length", "where")

    def __init__(self, text: str, where: str) -> None:
        self._length = len(text)
        self._digest = hash(text)
        self.where = where

    def matches(self, text: str) -> bool:
        return len(text) == self._length and hash(text) == self._digest


def _whole_document(params: GetDocumentParams, text: str) -> bool:
    """A view of every line of a non-empty text (an empty one is shorter than any note)."""
    if not text or params.start_line not in (None, 1):
        return False
    return params.end_line is None or params.end_line == line_count(text)


class Toolbox:
    """One document's tools: a working buffer plus the six tools acting on it."""

    def __init__(
        self,
        text: str,
        *,
        max_history: int = 100,
        max_argument_bytes: int = 10_000_000,
        max_text_chars: int = 50_000_000,
        elide_repeated_views: bool = False,
    ) -> None:
        """`elide_repeated_views`: the model was shown `text` in full (the first message) and
        keeps the latest full copy it has (a full view, or the content it sent with
        set_document); a full get_document of that very text then answers with a short note
        instead of another copy of the document."""
        self._buffer = WorkingBuffer(text, max_history=max_history)
        self._max_argument_bytes = max_argument_bytes
        self._limits = tools.Limits(max_text_chars=max(max_text_chars, len(text)))
        self._full_copy = (
            _FullCopy(text, "the copy in the first message") if elide_repeated_views else None
        )

    @staticmethod
    def declarations(other_files: OtherFiles = "off") -> list[ToolDeclaration]:
        """The tools as the model sees them; with `other_files` "read" or "edit", the tools
        take `path` (get_document only, or every tool acting on a document) and
        find_in_files is declared."""
        # Building the schemas costs milliseconds (pydantic): build them once per process and
        # hand out copies, so a caller that adjusts a schema cannot change the next session's.
        return [
            declaration.model_copy(update={"parameters": copy.deepcopy(declaration.parameters)})
            for declaration in _declarations(other_files)
        ]

    @property
    def text(self) -> str:
        return self._buffer.text

    @property
    def changed(self) -> bool:
        return self._buffer.changed

    def execute(self, name: str, args: Mapping[str, Any] | None) -> ToolOutcome:
        """Run one call. Never raises for a mistake of the model; a failed call changes
        nothing."""
        return outcome_of(
            name, lambda: self._run(parse(name, args, _PARAMS, self._max_argument_bytes))
        )

    def _run(self, params: Params) -> tools.ToolResult:
        buffer = self._buffer
        match params:
            case GetDocumentParams():
                full_copy = self._full_copy
                if (
                    full_copy is not None
                    and _whole_document(params, buffer.text)
                    and full_copy.matches(buffer.text)
                ):
                    return tools.unchanged_view(buffer, full_copy.where)
                result = tools.get_document(buffer, params)
                if full_copy is not None and result.full_view:
                    self._full_copy = _FullCopy(buffer.text, "your last full get_document")
                return result
            case SetDocumentParams():
                result = tools.set_document(buffer, params, self._limits)
                # After an expansion the text is no longer the content the model sent.
                if self._full_copy is not None and not result.adjustments:
                    self._full_copy = _FullCopy(buffer.text, "the content of your set_document")
                return result
            case ReplaceTextParams():
                return tools.replace_text(buffer, params, self._limits)
            case UndoParams():
                return tools.undo(buffer, params)
            case RedoParams():
                return tools.redo(buffer, params)
            case CompleteTaskParams():
                return tools.complete_task(params)
        raise AssertionError(f"no tool for {type(params).__name__}")

    @staticmethod
    def summarize_call(name: str, args: Mapping[str, Any] | None) -> str:
        """A short line describing a call for progress UIs (document text cut short), naming
        the other file it acts on."""
        line = _summary(name, args)
        path = args.get("path") if isinstance(args, Mapping) else None
        return f"{line} in {_short(path, 60)}" if isinstance(path, str) and path else line


def _summary(name: str, args: Mapping[str, Any] | None) -> str:
    shown = _short(str(name), 40)
    if not isinstance(args, Mapping):
        return shown

    def text(key: str) -> str | None:
        value = args.get(key)
        return value if isinstance(value, str) else None

    if name == "get_document":
        start, end = args.get("start_line"), args.get("end_line")
        if start is None and end is None:
            return "get_document"
        first = "1" if start is None else _number(start)
        last = "end" if end is None else _number(end)
        return f"get_document lines {first}-{last}"
    if name == "set_document":
        content = text("content")
        return "set_document" if content is None else f"set_document ({len(content):,} chars)"
    if name == "replace_text":
        old, new = text("old_text"), text("new_text")
        if old is None or new is None:
            return "replace_text"
        line = f"replace_text {_short(old)!r} → {_short(new)!r}"
        return line + (" (all)" if args.get("replace_all") is True else "")
    if name == FIND_IN_FILES:
        pattern = text("pattern")
        return FIND_IN_FILES if pattern is None else f"{FIND_IN_FILES} {_short(pattern)!r}"
    if name == "complete_task":
        success = args.get("success")
        if not isinstance(success, bool):
            return "complete_task"
        return f"complete_task success={str(success).lower()}"
    return shown
