"""Every setting of the server's schema can be set from every client, and each client's
documentation names it: the list comes from the schema (`Settings`), never from a copy."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from complex_edit.server.schema import protocol_schema

ROOT = Path(__file__).resolve().parents[2]
SETTINGS: dict[str, dict[str, object]] = protocol_schema()["$defs"]["Settings"]["properties"]
NAMES = sorted(SETTINGS)


def _manifest_settings() -> dict[str, dict[str, object]]:
    manifest = json.loads((ROOT / "vscode-client/package.json").read_text(encoding="utf-8"))
    properties: dict[str, dict[str, object]] = manifest["contributes"]["configuration"][
        "properties"
    ]
    return properties


def _text(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def test_the_schema_has_the_settings_the_contract_names() -> None:
    assert {"model", "maxTurns", "validate", "maxPromptBytes", "thoughtSummaries"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_setting_says_what_it_does(name: str) -> None:
    """The clients show the server's own texts (server/settings_help.py), every value of a
    choice included; VS Code's package.json is generated from them."""
    setting = SETTINGS[name]
    assert f"`{name}`" in str(setting.get("description", ""))
    values = setting.get("enum") or next(
        (option["enum"] for option in setting.get("anyOf", []) if "enum" in option), None
    )
    if values is not None:
        texts = setting.get("x-enumDescriptions", {})
        assert isinstance(texts, dict)
        assert set(values) <= set(texts), f"{name}: a value has no text"
        contributed = _manifest_settings()[f"complexEdit.{name}"]
        assert contributed["enumDescriptions"] == [
            texts.get(value, "")
            for value in contributed["enum"]  # type: ignore[union-attr]
        ]


@pytest.mark.parametrize("name", NAMES)
def test_vscode_contributes_the_setting_with_the_servers_default(name: str) -> None:
    contributed = _manifest_settings().get(f"complexEdit.{name}")
    assert contributed is not None, f"vscode-client/package.json lacks complexEdit.{name}"
    default = SETTINGS[name].get("default")
    if default is not None:
        assert contributed.get("default") == default
    if "enum" in SETTINGS[name]:
        assert set(SETTINGS[name]["enum"]) <= set(contributed["enum"])  # type: ignore[call-overload]


def test_vscode_sends_every_setting_of_the_schema() -> None:
    """The middleware's list is the generated one (the generated file is checked by ci.sh)."""
    middleware = _text("vscode-client/src/core/settings.ts")
    assert re.search(r"export const SERVER_SETTINGS = SETTING_NAMES;", middleware)
    generated = _text("vscode-client/src/core/generated/protocol.ts")
    listed = re.search(r"export const SETTING_NAMES[^=]*= \[([^\]]*)\]", generated)
    assert listed is not None
    assert re.findall(r'"(\w+)"', listed[1]) == list(SETTINGS)


@pytest.mark.parametrize(
    ("readme", "written"),
    [
        ("README.md", "| `{}` | `COMPLEX_EDIT_"),
        ("vscode-client/README.md", "`complexEdit.{}`"),
        ("nvim-client/README.md", "`{}`"),
        ("emacs-client/README.md", "`:{}`"),
    ],
)
def test_each_clients_readme_names_every_setting(readme: str, written: str) -> None:
    text = _text(readme)
    missing = [name for name in NAMES if written.format(name) not in text]
    assert not missing, f"{readme} does not name {missing}"
