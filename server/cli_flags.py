"""The settings flags of `complex-edit edit`, `mcp` and `doctor`, generated from the settings
schema (`Settings.model_fields`): one flag per setting, `--` and its name in kebab case
(`maxFiles` → `--max-files`, `readExclude` → `--read-exclude`), so that every setting works
from the command line as from every other layer, a new setting included. A flag the command
defines itself for a setting (`edit --review`, `edit --other-files`) is left to it.

Every value is taken as text and read by the schema, as an environment variable's is (`5`,
`true`, a JSON list or comma-separated patterns); a bad one is refused naming the flag.
"""

from __future__ import annotations

import argparse
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal

from pydantic.fields import FieldInfo

from complex_edit.server import DEFAULT_MODEL
from complex_edit.server.settings import Settings, SettingsLayer

_PREFIX = "setting_"
# What each setting does: a flag's help (then "(setting NAME, default VALUE)"), and the
# settings table of docs/protocol.md (`schema.py`).
MEANING: Mapping[str, str] = {
    "provider": "model provider",
    "model": "model name",
    "thinkingLevel": "how much the model thinks (unset: not sent, the model's own, medium on "
    "gemini-3.7/3.8-flash; they refuse minimal)",
    "maxTurns": "model requests per edit",
    "temperature": "sampling temperature (not sent to Gemini 3.6+, where it is deprecated)",
    "requestTimeoutSeconds": "time a model request has to answer; each request also gets time "
    "to write an answer as long as the document",
    "maxDocumentBytes": "larger files are refused",
    "baseUrl": "model API base URL, for every provider (e.g. http://localhost:11434/v1)",
    "maxRetries": "retries of transient faults",
    "wallTimeSeconds": "budget for one edit, every turn and retry included",
    "thoughtSummaries": "show a line of what the model is thinking about in the progress "
    "(models that can summarise their thoughts)",
    "validate": "refuse a result with new syntax errors",
    "applyTimeoutSeconds": "how long an editor may take to apply an edit",
    "maxPromptBytes": "longer instructions are refused",
    "review": "confirm each change before it lands",
    "otherFiles": "off: the file alone; read: other files may be read; edit: changed too",
    "readExclude": "more files the sub-agent never reads (JSON list or comma-separated globs)",
    "maxFiles": "documents one edit may change",
}
_METAVAR_BY_SUFFIX = (("Seconds", "SECONDS"), ("Bytes", "BYTES"), ("Url", "URL"))


def flag_of(setting: str) -> str:
    """`maxFiles` → `--max-files`."""
    return "--" + re.sub(r"(?<!^)(?=[A-Z])", "-", setting).lower()


def setting_names() -> list[str]:
    """Every setting's public (camelCase) name, in the schema's order."""
    return [info.alias or field for field, info in Settings.model_fields.items()]


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per setting on `parser`, in a group of their own (those it has already left)."""
    group = parser.add_argument_group(
        "settings", "override the COMPLEX_EDIT_* environment variables of the same name"
    )
    taken = set(parser._option_string_actions)
    for field, info in Settings.model_fields.items():
        name = info.alias or field
        if flag_of(name) in taken:
            continue
        group.add_argument(
            flag_of(name), dest=_PREFIX + name, metavar=_metavar(name, info), help=_help(name, info)
        )


def setting_overrides(args: argparse.Namespace) -> SettingsLayer:
    """The settings layer the flags give (camelCase keys; None = not given), each value named
    by its flag in messages; also a command's own flags for a setting (`--review`,
    `--other-files`)."""
    values: dict[str, Any] = {}
    flags: dict[str, str] = {}
    for name in setting_names():
        value = getattr(args, _PREFIX + name, None)
        if value is None:
            value = getattr(args, re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower(), None)
        if value is not None and value is not False:
            values[name], flags[name] = value, flag_of(name)
    return SettingsLayer.flags(values, flags)


def _metavar(name: str, info: FieldInfo) -> str:
    choices = _choices(info.annotation)
    if choices:
        return "|".join(choices)
    kind = _plain(info.annotation)
    if kind is bool:
        return "true|false"
    for suffix, metavar in _METAVAR_BY_SUFFIX:
        if name.endswith(suffix):
            return metavar
    if kind is int:
        return "N"
    if kind is float:
        return "X"
    if kind is tuple:
        return "PATTERNS"
    return "NAME" if name in ("model", "provider") else "TEXT"


def _help(name: str, info: FieldInfo) -> str:
    default = info.default
    if name == "model":
        default = DEFAULT_MODEL
    if isinstance(default, tuple):
        shown = ", ".join(default)
    elif isinstance(default, bool):
        shown = "true" if default else "false"
    else:
        shown = "not set" if default is None else str(default)
    said = MEANING.get(name, name)
    return f"{said} (setting {name}, default {shown})".replace("%", "%%")


def _choices(annotation: Any) -> list[str]:
    """The values of a Literal (or an optional one)."""
    for part in _parts(annotation):
        if typing.get_origin(part) is Literal:
            return [str(value) for value in typing.get_args(part)]
    return []


def _plain(annotation: Any) -> Any:
    """`int | None` → int; `tuple[str, ...]` → tuple."""
    for part in _parts(annotation):
        if part is not type(None):
            return typing.get_origin(part) or part
    return None


def _parts(annotation: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(annotation)
    return (annotation,)
