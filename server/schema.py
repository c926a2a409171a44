"""The interface's JSON Schemas, generated from the models the server itself validates and
answers with, and the files made from them: `docs/protocol.schema.json` (one document, every
definition under `$defs`; the VS Code client's types are generated from it in its build), the
schema blocks of `docs/protocol.md`, and the settings VS Code shows (`vscode-client/package.json`
`contributes.configuration`: each server setting's type, choices, default, limits and texts;
the client's own settings, `complexEdit.server.*` and the like, are left as they are).

    python -m complex_edit.server.schema           # rewrite the three files (and the VS Code
                                                   # client's generated types, when npm ci ran)
    python -m complex_edit.server.schema --check   # exit 1, naming them, when one differs

A definition added to `DEFINITIONS` appears in both; a field added to one of the models appears
by itself.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from complex_edit.edit_tools.registry import Toolbox
from complex_edit.server.cli.flag_table import MEANING, flag_of, module_text
from complex_edit.server.doctor import Doctor
from complex_edit.server.lsp.arguments import PerformArgs, ReviewArgs
from complex_edit.server.lsp.command import DOCUMENT_NOT_OPEN
from complex_edit.server.lsp.notifications import PreviewParams
from complex_edit.server.outcome import REASON_REMEDIES, REASON_TEXTS, EditResult, Reason
from complex_edit.server.settings import SECTION, Settings

Mode = Literal["validation", "serialization"]

# The wire's definitions: (model, mode). What the server reads is its validation schema; what
# it sends, its serialization schema (absent optional fields are left out, never null).
DEFINITIONS: tuple[tuple[type[BaseModel], Mode], ...] = (
    (PerformArgs, "validation"),
    (ReviewArgs, "validation"),
    (EditResult, "serialization"),
    (PreviewParams, "serialization"),
    (Settings, "validation"),
    (Doctor, "serialization"),
)
SENT_MODE: Mode = "serialization"
# The `data.code` of the JSON-RPC errors the server answers with.
ERROR_CODES: tuple[str, ...] = (DOCUMENT_NOT_OPEN, "unknown_proposal", "invalid_hunk")

REPOSITORY = Path(__file__).resolve().parents[1]
SCHEMA_FILE = Path("docs/protocol.schema.json")
MARKDOWN_FILE = Path("docs/protocol.md")
FLAGS_FILE = Path("server/cli/setting_flags.py")  # the CLI's settings flags, as data
PACKAGE_FILE = Path("vscode-client/package.json")
# What VS Code's settings keep of a setting's schema, besides its type, choices and default.
_VSCODE_LIMITS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength")
SCHEMA_ID = "complex-edit/protocol.schema.json"
# A block of docs/protocol.md made from the definition NAME (or `tools`):
#   <!-- schema NAME -->
#   ```json
#   ...
#   ```
#   <!-- /schema -->
_BLOCK = re.compile(r"(<!-- schema (?P<name>[\w-]+) -->\n)(.*?)(<!-- /schema -->)", re.DOTALL)
# A Markdown table of docs/protocol.md made from the definition NAME (`tables`):
#   <!-- table NAME -->
#   | ... |
#   <!-- /table -->
_TABLE = re.compile(r"(<!-- table (?P<name>[\w-]+) -->\n)(.*?)(<!-- /table -->)", re.DOTALL)
# What each command argument means, for its table (a new argument without one fails the build).
ARGUMENT_MEANING: dict[str, str] = {
    "textDocument": "`{uri}` of a document open in the editor (nothing is read from disk)",
    "prompt": "the instruction; not blank, at most `maxPromptBytes` UTF-8 bytes",
    "range": "the selection the instruction is about (context for the model, not a fence); a "
    "position on the empty line after a final line break means the last line",
    "dryRun": "compute the change and answer it; apply nothing",
    "maxTurns": "overrides the setting `maxTurns` for this command",
    "model": "overrides the setting `model` for this command",
    "review": "overrides the setting `review` for this command: each change is confirmed "
    "before it lands",
    "propose": "keep the change as a proposal for `complexEdit.applyReview` (the answer's "
    "`proposalId` and `hunks`) instead of applying it, even in an editor that can review (VS "
    "Code's Preview…); implies `review`",
    "otherFiles": "overrides the setting `otherFiles` for this command: `off` (the document "
    'alone), `read` (other files may be read and searched), `edit` (changed too; see "Other '
    'files" in the README)',
    "checkers": "overrides the setting `checkers` for this command: `off`, `auto`, or a list "
    'of `{name, languages, command}` (see "Checks" in the README)',
}


def protocol_schema() -> dict[str, Any]:
    """One JSON Schema document holding every definition of the interface."""
    _, top = models_json_schema(
        [(model, mode) for model, mode in DEFINITIONS],
        by_alias=True,
        ref_template="#/$defs/{model}",
    )
    found: dict[str, Any] = top["$defs"]
    read = _reachable(found, [model.__name__ for model, mode in DEFINITIONS if mode != SENT_MODE])
    definitions: dict[str, Any] = {
        name: _tidy(schema, sent=name not in read) for name, schema in found.items()
    }
    definitions["Reason"] = {
        "title": "Reason",
        "description": "Why a command failed: a stable code, and a few words for a person.",
        "oneOf": [_reason(code) for code in get_args(Reason)],
    }
    definitions["ErrorData"] = {
        "title": "ErrorData",
        "description": "The `data` of a JSON-RPC error answer, when it tells errors apart.",
        "type": "object",
        "properties": {"code": {"type": "string", "enum": list(ERROR_CODES)}},
        "required": ["code"],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "complex-edit protocol",
        "description": "Generated by `python -m complex_edit.server.schema`; do not edit.",
        "$defs": dict(sorted(definitions.items())),
        "x-tools": [declaration.model_dump() for declaration in Toolbox.declarations()],
    }


def _reason(code: Reason) -> dict[str, Any]:
    """A reason code, its text, and what a person can do about it (`x-remedy`), if anything."""
    remedy = REASON_REMEDIES.get(code)
    entry = {"const": code, "description": REASON_TEXTS[code]}
    return {**entry, "x-remedy": remedy} if remedy else entry


def _reachable(definitions: dict[str, Any], roots: list[str]) -> set[str]:
    """The definitions `roots` refer to, themselves included."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(re.findall(r'"#/\$defs/(\w+)"', json.dumps(definitions[name])))
    return seen


def _tidy(schema: dict[str, Any], *, sent: bool) -> dict[str, Any]:
    """A model's schema as the wire has it: the reason codes as one `Reason`, no titles on
    properties (types are named by their models), and, for what the server sends, no defaults
    and optional fields without `null` (they are left out instead)."""
    reasons = sorted(get_args(Reason))
    properties: dict[str, Any] = {}
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        prop = {key: value for key, value in prop.items() if key != "title"}
        options = prop.get("anyOf", [])
        if sent:
            prop.pop("default", None)
        if sent and name not in required and {"type": "null"} in options:
            rest = [option for option in options if option != {"type": "null"}]
            prop.pop("anyOf")
            prop = {**(rest[0] if len(rest) == 1 else {"anyOf": rest}), **prop}
        properties[name] = _reason_refs(prop, reasons)
    return {**schema, "properties": properties} if properties else schema


def _reason_refs(node: Any, reasons: list[str]) -> Any:
    if isinstance(node, dict):
        if sorted(node.get("enum", ())) == reasons:
            return {"$ref": "#/$defs/Reason"}
        return {key: _reason_refs(value, reasons) for key, value in node.items()}
    if isinstance(node, list):
        return [_reason_refs(item, reasons) for item in node]
    return node


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def markdown(current: str, schema: dict[str, Any]) -> str:
    """`current` (docs/protocol.md) with each schema block made anew from `schema`."""

    def block(match: re.Match[str]) -> str:
        name = match["name"]
        if name == "tools":
            body = schema["x-tools"]
        elif name in schema["$defs"]:
            body = schema["$defs"][name]
        else:
            raise KeyError(f"docs/protocol.md names an unknown definition: {name}")
        text = json.dumps(body, indent=2, ensure_ascii=False)
        return f"{match[1]}```json\n{text}\n```\n{match[4]}"

    return _BLOCK.sub(block, current)


def tables(current: str, schema: dict[str, Any]) -> str:
    """`current` with each table made anew from `schema`: `PerformArgs` (field, required,
    type, meaning), `Settings` (setting, environment variable, CLI flag, type, default,
    meaning) and `tools` (each tool of the model and its parameters, other files' included)."""

    def table(match: re.Match[str]) -> str:
        name = match["name"]
        if name == "PerformArgs":
            rows = _argument_rows(schema["$defs"][name])
        elif name == "Settings":
            rows = _setting_rows(schema["$defs"][name])
        elif name == "tools":
            rows = _tool_rows()
        else:
            raise KeyError(f"docs/protocol.md names an unknown table: {name}")
        return match[1] + "\n".join(rows) + "\n" + match[4]

    return _TABLE.sub(table, current)


def _type_of(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        return str(prop["$ref"]).rsplit("/", 1)[-1]
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in prop["enum"])
    options = [option for option in prop.get("anyOf", []) if option != {"type": "null"}]
    if options:
        return " \\| ".join(_type_of(option) for option in options)
    if prop.get("type") == "array":
        return f"array of {_type_of(prop.get('items', {}))}"
    return str(prop.get("type", "any"))


def _argument_rows(definition: dict[str, Any]) -> list[str]:
    required = set(definition.get("required", ()))
    rows = ["| field | required | type | meaning |", "|---|---|---|---|"]
    for name, prop in definition["properties"].items():
        must = "yes" if name in required else "no"
        rows.append(f"| `{name}` | {must} | {_type_of(prop)} | {ARGUMENT_MEANING[name]} |")
    return rows


def _setting_rows(definition: dict[str, Any]) -> list[str]:
    rows = [
        "| setting | environment variable | CLI flag | type | default | meaning |",
        "|---|---|---|---|---|---|",
    ]
    fields = {info.alias or field: field for field, info in Settings.model_fields.items()}
    for name, prop in definition["properties"].items():
        default = prop.get("default")
        shown = "not set" if default is None else f"`{json.dumps(default)}`"
        if isinstance(default, list):
            shown = ", ".join(f"`{item}`" for item in default)
        variable = Settings.env_name(fields[name])
        rows.append(
            f"| `{name}` | `{variable}` | `{flag_of(name)}` | {_type_of(prop)} | {shown} | "
            f"{MEANING[name]} |"
        )
    return rows


def _tool_rows() -> list[str]:
    rows = ["| tool | parameters | with other files |", "|---|---|---|"]
    alone = {tool.name: tool for tool in Toolbox.declarations("off")}
    for tool in Toolbox.declarations("edit"):
        names = list(tool.parameters.get("properties", {}))
        required = set(tool.parameters.get("required", ()))
        shown = [f"`{name}`" + ("" if name in required else "?") for name in names]
        if tool.name not in alone:
            more = "only then (read-only)"
        else:
            added = [
                name
                for name in names
                if name not in alone[tool.name].parameters.get("properties", {})
            ]
            more = "adds " + ", ".join(f"`{name}`" for name in added) if added else "the same"
        rows.append(f"| `{tool.name}` | {', '.join(shown) or '—'} | {more} |")
    return rows


def vscode_settings(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """VS Code's `contributes.configuration` entry of each server setting (`complexEdit.NAME`),
    from the settings' schema. A choice that may be unset offers "" for it (VS Code has no null
    choice); another value that may be unset is typed `[type, "null"]`."""
    entries: dict[str, dict[str, Any]] = {}
    for name, prop in schema["$defs"]["Settings"]["properties"].items():
        options = [option for option in prop.get("anyOf", [prop]) if option != {"type": "null"}]
        nullable = "anyOf" in prop and len(options) < len(prop["anyOf"])
        base = options[0]
        entry: dict[str, Any] = {}
        default = prop.get("default")
        if "enum" in base:
            values = ["", *base["enum"]] if nullable else list(base["enum"])
            entry = {"type": "string", "enum": values}
            texts = prop.get("x-enumDescriptions", {})
            if texts:
                entry["enumDescriptions"] = [texts.get(value, "") for value in values]
            default = "" if default is None else default
        elif base.get("type") == "array":
            entry = {"type": "array", "items": base["items"]}
        else:
            entry = {"type": [base["type"], "null"] if nullable else base["type"]}
        entry["default"] = _whole(default)
        entry.update({key: _whole(base[key]) for key in _VSCODE_LIMITS if key in base})
        entry["markdownDescription"] = prop["description"]
        entries[f"{SECTION}.{name}"] = entry
    return entries


def _whole(value: Any) -> Any:
    """60.0 → 60, as JSON people write it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def package_json(current: str, schema: dict[str, Any]) -> str:
    """`current` (vscode-client/package.json) with its server settings made anew: the client's
    own settings before the first server setting stay first, the rest follow."""
    manifest = json.loads(current)
    properties: dict[str, Any] = manifest["contributes"]["configuration"]["properties"]
    ours = vscode_settings(schema)
    keys = list(properties)
    first = next((i for i, key in enumerate(keys) if key in ours), len(keys))
    client = [key for key in keys if key not in ours]
    before = [key for key in client if keys.index(key) < first]
    after = [key for key in client if keys.index(key) >= first]
    manifest["contributes"]["configuration"]["properties"] = {
        **{key: properties[key] for key in before},
        **ours,
        **{key: properties[key] for key in after},
    }
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def expected_files(root: Path = REPOSITORY) -> dict[Path, str]:
    """Each generated file's path (under `root`) and the text it should hold (package.json:
    when the checkout has the VS Code client)."""
    schema = protocol_schema()
    current = (root / MARKDOWN_FILE).read_text(encoding="utf-8")
    text = tables(markdown(current, schema), schema)
    files = {SCHEMA_FILE: schema_text(schema), MARKDOWN_FILE: text}
    if (root / FLAGS_FILE).parent.is_dir():
        files[FLAGS_FILE] = module_text()
    if (root / PACKAGE_FILE).exists():
        package = (root / PACKAGE_FILE).read_text(encoding="utf-8")
        files[PACKAGE_FILE] = package_json(package, schema)
    return files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m complex_edit.server.schema")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 on drift")
    parser.add_argument("--root", type=Path, default=REPOSITORY, help="the repository")
    args = parser.parse_args(argv)
    stale = []
    for path, text in expected_files(args.root).items():
        target = args.root / path
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            target.write_text(text, encoding="utf-8")
    for path in stale:
        verb = "differs from the models" if args.check else "written"
        print(f"{path}: {verb}", file=sys.stderr)
    if stale and args.check:
        print("run: python -m complex_edit.server.schema", file=sys.stderr)
    if SCHEMA_FILE in stale and not args.check:
        _generate_client_types(args.root)
    return 1 if stale and args.check else 0


def _generate_client_types(root: Path) -> None:
    """The VS Code client's types follow the schema (`npm run generate`): made here too when
    the client's tools are installed, else said."""
    client = root / PACKAGE_FILE.parent
    node = shutil.which("node")
    if node is None or not (client / "node_modules").is_dir():
        print(f"then: cd {client} && npm ci && npm run generate", file=sys.stderr)
        return
    subprocess.run([node, "scripts/generate-protocol.mjs"], cwd=client, check=True)
    print(f"{PACKAGE_FILE.parent}/src/core/generated/protocol.ts: written", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
