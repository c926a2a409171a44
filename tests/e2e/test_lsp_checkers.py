"""Checks over LSP (the real `complex-edit lsp`, its session process, a REAL `ruff server`): a
rename that leaves an undefined name is fixed in a second round; an error the model leaves is
in the answer's `diagnostics` and message; the checkers stay warm between commands and none
outlives the server."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.editor.checks import assert_success
from tests.editor.client import wait_until
from tests.editor.servers import start_session, stop_session
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator

RUFF = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
pytestmark = pytest.mark.skipif(not os.access(RUFF, os.X_OK), reason="ruff is not installed")
CHECKERS = json.dumps([{"name": "ruff", "languages": ["python"], "command": [RUFF, "server"]}])
MAIN = "def total(items):\n    return sum(items)\n\n\nprint(total([1]))\n"
F821 = "main.py:5:7: error: Undefined name `total` (Ruff F821)"


def checkers_in(root: Path) -> list[int]:
    """The `ruff server` processes working in `root`: the checkers started for it."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                if os.readlink(entry / "cwd") == str(root) and argv[1:2] == [b"server"]:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A workspace holding main.py."""
    folder = tmp_path.resolve()
    (folder / "main.py").write_text(MAIN)
    return folder


@pytest.fixture
async def editor(emulator: GeminiEmulator) -> AsyncIterator[EditorSession]:
    session = await start_session(
        "vscode", emulator.base_url, env={"COMPLEX_EDIT_CHECKERS": CHECKERS}
    )
    try:
        yield session
    finally:
        await stop_session(session)


async def test_a_rename_is_fixed_in_a_second_round_and_no_checker_outlives_the_server(
    emulator: GeminiEmulator, root: Path
) -> None:
    editor = await start_session(
        "vscode", emulator.base_url, env={"COMPLEX_EDIT_CHECKERS": CHECKERS}
    )
    try:
        editor.add_folder(str(root))
        uri = editor.open_file(str(root / "main.py"))
        emulator.enqueue(
            calls(replace("def total(", "def grand_total("), done("renamed")),
            calls(replace("print(total(", "print(grand_total("), done("renamed")),
        )
        result = await editor.run(uri, "rename total to grand_total")
        assert_success(result)
        assert editor.text(uri) == MAIN.replace("total", "grand_total")
        asked = emulator.requests[1].function_responses[-1]["response"]["error"]
        assert F821 in asked
        diagnostics = result["diagnostics"]
        assert diagnostics["checked"] is True
        assert [d["code"] for d in diagnostics["introduced"]] == ["F821"]
        assert diagnostics["remaining"] == []
        assert checkers_in(root), "the checker is kept warm for the next command"
    finally:
        await stop_session(editor)
    await wait_until(lambda: not checkers_in(root), 10, "the checkers to exit")


async def test_an_error_left_is_in_the_answer_and_its_message(
    editor: EditorSession, emulator: GeminiEmulator, root: Path
) -> None:
    editor.add_folder(str(root))
    uri = editor.open_file(str(root / "main.py"))
    emulator.enqueue(
        calls(replace("def total(", "def grand_total("), done("renamed")),
        calls(done("renamed anyway")),
    )
    result = await editor.run(uri, "rename total to grand_total")
    assert_success(result)
    assert result["applied"] is True
    assert f"Left with 1 new error: {F821}" in result["message"]
    remaining = result["diagnostics"]["remaining"]
    assert [(d["uri"], d["range"]["start"]["line"], d["code"]) for d in remaining] == [
        (uri, 4, "F821")
    ]
