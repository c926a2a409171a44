"""Runs the Lua scripts of `tests/e2e/nvim_plugin/` (the plugin in `nvim-client/` loaded as a
plugin manager would) for `test_nvim_plugin.py` and `test_nvim_preview.py`, and the document
and review hunks those tests share."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from tests.conftest import TEST_KEY
from tests.editor.neovim import WAIT_MS, neovim_env, read_lsp_log, run_lua
from tests.fakes.gemini_emulator import GeminiEmulator

REPO = Path(__file__).resolve().parents[2]
PLUGIN_DIR = REPO / "nvim-client"
SCRIPTS = Path(__file__).parent / "nvim_plugin"
RUN_TIMEOUT = 40.0  # one Neovim process; every wait inside the scripts is bounded too

ORIGINAL = "def foo(x):\n    return x + 1\n\n\nprint(foo(41))\n"


def run_script(
    nvim: str,
    script: str,
    tmp_path: Path,
    emulator: GeminiEmulator,
    *,
    cwd: Path | None = None,
    **config: Any,
) -> dict[str, Any]:
    """Runs `nvim_plugin/<script>.lua` (in `cwd`, default `tmp_path`) and returns its report
    (asserting the script succeeded)."""
    result_path = tmp_path / f"{script}.report.json"
    config.update(
        plugin_dir=str(PLUGIN_DIR),
        python=sys.executable,
        result=str(result_path),
        timeout_ms=WAIT_MS,
    )
    config_path = tmp_path / f"{script}.config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    env = neovim_env(emulator, tmp_path)
    started = time.monotonic()
    proc = run_lua(
        nvim,
        SCRIPTS / f"{script}.lua",
        config_path,
        cwd=cwd or tmp_path,
        env=env,
        timeout=RUN_TIMEOUT,
    )
    elapsed = time.monotonic() - started
    lsp_log = read_lsp_log(env)
    explain = (
        f"script {script}.lua, exit code {proc.returncode}, {elapsed:.1f} s\n"
        f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}\n"
        f"lsp.log (tail): {lsp_log[-3000:]}"
    )
    assert result_path.exists(), f"the script wrote no report\n{explain}"
    report: dict[str, Any] = json.loads(result_path.read_text(encoding="utf-8"))
    report["explain"] = f"report: {json.dumps(report, indent=2, ensure_ascii=False)}\n{explain}"
    assert report.get("ok") is True, report["explain"]
    assert report.get("server_stopped") is not False, report["explain"]
    assert TEST_KEY not in lsp_log
    assert not emulator.problems, f"unscripted model requests: {emulator.problems}"
    return report


def write(tmp_path: Path, name: str, text: str, *, git: bool = False) -> Path:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    if git:
        (project / ".git").mkdir(exist_ok=True)
    path = project / name
    path.write_text(text, encoding="utf-8")
    return path


def hunk(
    start: tuple[int, int], end: tuple[int, int], old: str, new: str, label: str = ""
) -> dict[str, Any]:
    return {
        "range": {
            "start": {"line": start[0], "character": start[1]},
            "end": {"line": end[0], "character": end[1]},
        },
        "oldText": old,
        "newText": new,
        "label": label,
    }
