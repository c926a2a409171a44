"""Checks through the CLI (`complex-edit edit --checkers JSON`, one run's checkers) and MCP
(`complex-edit mcp`, warm checkers, the `check` argument), each with a REAL `ruff server`: a
planted break fixed in a second round, an error left printed, and no checker left running."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY
from tests.e2e.test_lsp_checkers import checkers_in
from tests.e2e.test_mcp import CALL_TIMEOUT, TOOL, session_with
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.fakes.rawlsp import server_env

RUFF = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
pytestmark = pytest.mark.skipif(not os.access(RUFF, os.X_OK), reason="ruff is not installed")
CHECKERS = json.dumps([{"name": "ruff", "languages": ["python"], "command": [RUFF, "server"]}])
MAIN = "def total(items):\n    return sum(items)\n\n\nprint(total([1]))\n"
F821 = "main.py:5:7: error: Undefined name `total` (Ruff F821)"
RENAME_DEF = ("replace_text", {"old_text": "def total(", "new_text": "def grand_total("})
RENAME_CALL = ("replace_text", {"old_text": "print(total(", "new_text": "print(grand_total("})
DONE = ("complete_task", {"success": True, "message": "renamed"})


def turns(*calls: list[tuple[str, dict[str, Any]]]) -> list[Reply]:
    return [Reply.function_calls(list(turn)) for turn in calls]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path.resolve() / "proj"
    folder.mkdir()
    (folder / "main.py").write_text(MAIN)
    return folder


def edit(root: Path, base_url: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *(sys.executable, "-m", "complex_edit", "edit", "main.py", "--prompt", "rename"),
            *("--root", str(root), "--checkers", CHECKERS, *flags),
        ],
        cwd=root,
        env=server_env(base_url, TEST_KEY),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_cli_fixes_a_break_in_a_second_round(root: Path, emulator: GeminiEmulator) -> None:
    emulator.enqueue(*turns([RENAME_DEF, DONE], [RENAME_CALL, DONE]))
    run = edit(root, emulator.base_url, "--json")
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert [d["code"] for d in answer["diagnostics"]["introduced"]] == ["F821"]
    assert answer["diagnostics"]["remaining"] == []
    assert F821 in emulator.requests[1].function_responses[-1]["response"]["error"]
    assert (root / "main.py").read_text() == MAIN.replace("total", "grand_total")
    assert checkers_in(root) == []


def test_the_cli_prints_an_error_left(root: Path, emulator: GeminiEmulator) -> None:
    emulator.enqueue(*turns([RENAME_DEF, DONE], [DONE]))
    run = edit(root, emulator.base_url)
    assert run.returncode == 0, run.stderr
    assert f"Left with 1 new error: {F821}" in run.stdout
    assert f"complex-edit: New error left: {F821}" in run.stderr
    assert checkers_in(root) == []


async def test_mcp_fixes_a_break_in_a_second_round_and_reports_an_error_left(
    root: Path, emulator: GeminiEmulator
) -> None:
    log = root.parent / "mcp.log"
    async with session_with(root, emulator.base_url, log, ["--checkers", CHECKERS]) as session:
        emulator.enqueue(*turns([RENAME_DEF, DONE], [RENAME_CALL, DONE]))
        fixed = await session.call_tool(
            TOOL, {"path": "main.py", "prompt": "rename"}, read_timeout_seconds=CALL_TIMEOUT
        )
        assert fixed.structured_content is not None
        assert fixed.structured_content["diagnostics"]["remaining"] == []
        (root / "main.py").write_text(MAIN)
        emulator.enqueue(*turns([RENAME_DEF, DONE], [DONE]))
        left = await session.call_tool(
            TOOL, {"path": "main.py", "prompt": "rename"}, read_timeout_seconds=CALL_TIMEOUT
        )
        text = left.content[0].text  # type: ignore[union-attr]
        assert f"New error left: {root / 'main.py'}:5:7: error: Undefined name `total`" in text
        assert checkers_in(root), "kept warm between calls"
        (root / "main.py").write_text(MAIN)
        emulator.enqueue(*turns([RENAME_DEF, DONE]))
        unchecked = await session.call_tool(
            TOOL,
            {"path": "main.py", "prompt": "rename", "check": False},
            read_timeout_seconds=CALL_TIMEOUT,
        )
        assert unchecked.structured_content is not None
        assert "diagnostics" not in unchecked.structured_content
    assert checkers_in(root) == []
