"""docs/providers.md's keyless local-model recipe, run as written: its environment block and
command line against the OpenAI emulator (only the server's address changes, to the
emulator's), and its editor settings checked to mean the same settings."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.providers.base import PLACEHOLDER_KEY
from complex_edit.server.settings import Settings, SettingsLayer
from tests.fakes.openai_emulator import OpenAIEmulator, Reply

DOC = Path(__file__).resolve().parents[2] / "docs" / "providers.md"
HEADING = "## A real model without a key: a local server (OpenAI-compatible)"
SOURCE = "def area(width, height):\n    return width * height\n"
HINTED = "def area(width: float, height: float) -> float:\n    return width * height\n"
# Variables that would give the run a key or another provider: the recipe needs none of them.
FOREIGN = ("_API_KEY", "_AUTH_TOKEN", "_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI")


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(HEADING)
    end = text.find("\n## ", start + len(HEADING))
    return text[start : end if end != -1 else len(text)]


def _block(language: str) -> str:
    (block,) = re.findall(rf"```{language}\n(.*?)```", _section(), re.S)
    return str(block)


def _shell_recipe() -> tuple[dict[str, str], list[str]]:
    """The `export NAME=VALUE` lines and the one `complex-edit edit` command of the sh block
    (the block also names `complex-edit doctor --probe`, checked by the test below)."""
    exports: dict[str, str] = {}
    commands = []
    for line in _block("sh").splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["export"]:
            for word in words[1:]:
                name, _, value = word.partition("=")
                exports[name] = value
        elif words[:1] == ["complex-edit"]:
            commands.append(words[1:])
    assert ["doctor", "--probe"] in commands  # the documented check that the server is up
    (command,) = [words for words in commands if words[:1] == ["edit"]]
    return exports, command


def _recipe_settings() -> Settings:
    exports, _ = _shell_recipe()
    return Settings.from_layers(exports)


def _recipe_env(base_url: str) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("COMPLEX_EDIT_") and not any(part in name for part in FOREIGN)
    }
    exports, _ = _shell_recipe()
    env.update(exports)
    env["COMPLEX_EDIT_BASE_URL"] = base_url  # the one change: where the server listens
    env["COMPLEX_EDIT_CHECKERS"] = "off"  # and no checkers (the tests of Checks turn them on)
    return env


def test_the_recipe_runs_keyless_against_an_openai_compatible_server(
    openai_server: OpenAIEmulator, tmp_path: Path
) -> None:
    exports, command = _shell_recipe()
    assert exports["COMPLEX_EDIT_PROVIDER"] == "openai"
    assert exports["COMPLEX_EDIT_BASE_URL"] == "http://localhost:11434/v1"
    assert command[0] == "edit"
    path = tmp_path / command[1]
    path.write_text(SOURCE, encoding="utf-8")
    openai_server.reset()
    openai_server.enqueue(
        Reply.tool_calls(
            [
                (
                    "replace_text",
                    {"old_text": SOURCE.splitlines()[0], "new_text": HINTED.splitlines()[0]},
                )
            ]
        ),
        Reply.tool_calls([("complete_task", {"success": True, "message": "added type hints"})]),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "complex_edit", *command],
        cwd=tmp_path,
        env=_recipe_env(openai_server.base_url),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    requests = openai_server.requests
    problems = openai_server.problems
    openai_server.reset()
    assert proc.returncode == 0, proc.stderr
    assert problems == []
    assert path.read_text(encoding="utf-8") == HINTED
    assert "added type hints" in proc.stdout
    first = requests[0]
    assert first.field("model") == exports["COMPLEX_EDIT_MODEL"]
    assert first.api_key == PLACEHOLDER_KEY  # no key was set, and none is needed
    assert first.tool_choice == "required"
    assert first.field("reasoning_effort") is None  # the knob the recipe leaves unset
    assert command[3] in first.messages[1]["content"]  # the documented instruction


def _jsonc(text: str) -> dict[str, Any]:
    return dict(json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M)))


def test_the_editor_settings_are_the_same_settings() -> None:
    expected = _recipe_settings()
    vscode = _jsonc(_block("jsonc"))
    assert all(key.startswith("complexEdit.") for key in vscode)
    layer = {key.removeprefix("complexEdit."): value for key, value in vscode.items()}
    assert Settings.from_layers({}, SettingsLayer.client("settings.json", layer)) == expected
    lua = _block("lua")
    pairs = re.findall(r"(\w+) = (?:'([^']*)'|(\d+))", lua)
    neovim = {name: text or int(number) for name, text, number in pairs}
    assert set(neovim) == set(layer)
    assert Settings.from_layers({}, SettingsLayer.client("settings", neovim)) == expected


@pytest.mark.parametrize(
    "row", re.findall(r"^\| \[([^\]]+)\].*`(http[^`]+)` \|$", _section(), re.M)
)
def test_every_server_s_base_url_is_a_valid_setting(row: tuple[str, str]) -> None:
    _, url = row
    assert Settings.from_layers({}, {"baseUrl": url}).base_url == url
    assert url.endswith("/v1")
