"""Checks with a REAL typescript-language-server (5.3.0 with typescript 5.9.3, from npm into
.cache/checkers/ by .ci/install-checkers.sh): a call left with the old number of arguments is
sent back to the model and fixed in a second round."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.check.pool import CheckerPool
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.request import EditRequest, WorkspaceRoot
from complex_edit.server.session.result import run_and_diff
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

CACHE = Path(
    os.environ.get("CHECKERS_CACHE_DIR") or Path(__file__).resolve().parents[2] / ".cache/checkers"
)
SERVER = CACHE / "node_modules" / ".bin" / "typescript-language-server"
TSSERVER = CACHE / "node_modules" / "typescript" / "lib" / "tsserver.js"
pytestmark = pytest.mark.skipif(
    not (SERVER.exists() and TSSERVER.exists()),
    reason="typescript-language-server is not installed (bash .ci/install-checkers.sh)",
)
MAIN = (
    "export function area(w: number, h: number): number {\n"
    "  return w * h;\n"
    "}\n\n"
    "console.log(area(2, 3));\n"
)


def replace(old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("replace_text", {"old_text": old, "new_text": new})


DONE = ("complete_task", {"success": True, "message": "one size"})


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path.resolve()
    (folder / "main.ts").write_text(MAIN)
    return folder


async def test_a_call_left_with_the_old_argument_count_is_fixed(
    emulator: GeminiEmulator, root: Path
) -> None:
    checker = {
        "name": "typescript-language-server",
        "languages": ["typescript"],
        "command": [str(SERVER), "--stdio"],
        "initializationOptions": {"tsserver": {"path": str(TSSERVER)}},
    }
    layer = {
        "baseUrl": emulator.base_url,
        "requestTimeoutSeconds": 5,
        "checkers": json.dumps([checker]),
        "checkTimeoutSeconds": 30,
    }
    emulator.enqueue(
        Reply.function_calls(
            [
                replace("area(w: number, h: number)", "area(size: number)"),
                replace("return w * h;", "return size * size;"),
                DONE,
            ]
        ),
        Reply.function_calls([replace("area(2, 3)", "area(2)"), DONE]),
    )
    request = EditRequest(
        instruction="area takes one size",
        text=MAIN,
        settings=Settings.from_layers({}, layer),
        path_label="main.ts",
        language="typescript",
        roots=(WorkspaceRoot("proj", str(root)),),
        document_path=str(root / "main.ts"),
    )
    pool = CheckerPool()
    try:
        finished = await run_and_diff(
            request, GeminiProvider({"GEMINI_API_KEY": TEST_KEY}), lambda _: None, pool
        )
    finally:
        await pool.close()
    asked = emulator.requests[1].function_responses[-1]["response"]["error"]
    assert "main.ts:5:" in asked
    assert "Expected 1 arguments, but got 2." in asked
    diagnostics = finished.outcome.diagnostics
    assert diagnostics is not None
    assert diagnostics.checked
    assert [d.code for d in diagnostics.introduced] == ["2554"]
    assert diagnostics.remaining == []
    assert "console.log(area(2));" in finished.diff
