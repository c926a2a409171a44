"""Checks with a REAL typescript-language-server (5.3.0 with typescript 5.9.3, from npm into
.cache/checkers/ by .ci/install-checkers.sh): a call left with the old number of arguments is
sent back to the model and fixed in a second round."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakes.gemini_emulator import GeminiEmulator
from tests.session.test_checks import Run, done, pool, replace, run

__all__ = ["pool", "run"]  # the fixtures, for pytest

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


async def test_a_call_left_with_the_old_argument_count_is_fixed(
    run: Run, emulator: GeminiEmulator
) -> None:
    checker = {
        "name": "typescript-language-server",
        "languages": ["typescript"],
        "command": [str(SERVER), "--stdio"],
        "initializationOptions": {"tsserver": {"path": str(TSSERVER)}},
    }
    finished = await run(
        [
            replace("area(w: number, h: number)", "area(size: number)"),
            replace("return w * h;", "return size * size;"),
            done(),
        ],
        [replace("area(2, 3)", "area(2)"), done()],
        text=MAIN,
        filename="main.ts",
        language="typescript",
        checkers=[checker],
        checkTimeoutSeconds=30,
    )
    asked = emulator.requests[1].function_responses[-1]["response"]["error"]
    assert "main.ts:5:" in asked
    assert "Expected 1 arguments, but got 2." in asked
    diagnostics = finished.outcome.diagnostics
    assert diagnostics is not None
    assert diagnostics.checked
    assert [d.code for d in diagnostics.introduced] == ["2554"]
    assert diagnostics.remaining == []
    assert "console.log(area(2));" in finished.documents[0].diff
