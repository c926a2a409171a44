"""Checks through a real headless Neovim (its own LSP client, `tests/e2e/nvim/perform_edit.lua`)
and the real `complex-edit lsp` with a REAL `ruff server`: a planted break fixed in a second
round lands clean, one left is named in the answer, and the checker ends with the server."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.test_lsp_checkers import CHECKERS, F821, MAIN, RUFF, checkers_in
from tests.e2e.test_neovim import NvimRun, assert_success, run_edit
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator

pytestmark = [
    pytest.mark.nvim,
    pytest.mark.skipif(not Path(RUFF).exists(), reason="ruff is not installed"),
]
RENAME_DEF = replace("def total(", "def grand_total(")


def rename(nvim: str, emulator: GeminiEmulator, tmp_path: Path) -> NvimRun:
    """`main.py` (MAIN) renamed in Neovim, the server with ruff as its checker."""
    return run_edit(
        nvim,
        emulator,
        tmp_path,
        MAIN.encode(),
        "rename total to grand_total",
        name="main.py",
        env={"COMPLEX_EDIT_CHECKERS": CHECKERS},
    )


def test_neovim_lands_a_break_fixed_in_a_second_round(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    emulator.enqueue(
        calls(RENAME_DEF, done("renamed")),
        calls(replace("print(total(", "print(grand_total("), done("renamed")),
    )
    run = rename(nvim, emulator, tmp_path)
    assert_success(run, MAIN.replace("total", "grand_total").encode())
    assert F821 in emulator.requests[1].function_responses[-1]["response"]["error"]
    assert [d["code"] for d in run.result["diagnostics"]["introduced"]] == ["F821"]
    assert run.result["diagnostics"]["remaining"] == []
    # Neovim has quit: the server and its checkers exit (a checker's exit may trail the
    # server's by a moment under load).
    root = (tmp_path / "project").resolve()
    deadline = time.monotonic() + 10
    while checkers_in(root) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert checkers_in(root) == [], "a checker outlived the server"


def test_neovim_reports_an_error_left(nvim: str, emulator: GeminiEmulator, tmp_path: Path) -> None:
    emulator.enqueue(calls(RENAME_DEF, done("renamed")), calls(done("renamed anyway")))
    run = rename(nvim, emulator, tmp_path)
    assert_success(run, MAIN.replace("def total(", "def grand_total(").encode())
    assert f"Left with 1 new error: {F821}" in run.result["message"]
    assert [d["code"] for d in run.result["diagnostics"]["remaining"]] == ["F821"]
