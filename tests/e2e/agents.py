"""What the tests of the real agent CLIs share (issue 31 item 7): where `.ci/install-agents.sh`
puts them, the recipes of docs/cli-and-mcp.md as they stand there, and an environment that
keeps each agent in a scratch home, off the network but for the local emulators."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "cli-and-mcp.md"
AGENTS = Path(os.environ.get("AGENTS_CACHE_DIR", REPO / ".cache" / "agents"))
INSTALL = ".ci/install-agents.sh"
# The doc's placeholder for the venv's executable, and ours.
DOC_EXECUTABLE = "/path/to/venv/bin/complex-edit"
EXECUTABLE = str(Path(sys.executable).parent / "complex-edit")
RUN_TIMEOUT = 240.0

# One file with what the byte-for-byte check is about: CRLF line ends, tabs, no final newline.
ORIGINAL = b"def foo():\r\n\treturn 1\r\n\r\n\r\nprint(foo())"
EDITED = b"def bar():\r\n\treturn 1\r\n\r\n\r\nprint(bar())"
RENAME_CALLS = (
    ("replace_text", {"old_text": "def foo", "new_text": "def bar"}),
    ("replace_text", {"old_text": "print(foo())", "new_text": "print(bar())"}),
    ("complete_task", {"success": True, "message": "renamed foo to bar"}),
)


def agent(name: str) -> str:
    """The agent's executable, or skip the test saying how to install it."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed (the agent CLIs run on it)")
    path = AGENTS / "node_modules" / ".bin" / name
    if not path.exists():
        pytest.skip(f"{name} is not installed under {AGENTS}: run `bash {INSTALL}` (npm)")
    return str(path)


def recipe(name: str) -> str:
    """The fenced block after `<!-- recipe: NAME -->` in docs/cli-and-mcp.md, with the venv's
    executable in place of the doc's placeholder."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(
        rf"<!-- recipe: {re.escape(name)} -->\n(?:<!-- .*? -->\n)*```[a-z]*\n(.*?)\n```", text, re.S
    )
    assert found is not None, f"docs/cli-and-mcp.md has no recipe {name!r}"
    block = found.group(1)
    assert DOC_EXECUTABLE in block or name == "codex-exec", block
    return block.replace(DOC_EXECUTABLE, EXECUTABLE)


def scratch_env(home: Path, **extra: str) -> dict[str, str]:
    """A scratch HOME and config folders, no proxy, nothing of the developer's own settings;
    the agents on PATH (the recipes call them by name)."""
    env = {
        "PATH": f"{AGENTS / 'node_modules' / '.bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "true",
        "NO_PROXY": "127.0.0.1,localhost",
        "COMPLEX_EDIT_CHECKERS": "off",  # the tests of Checks turn them on
    }
    env.update(extra)
    return env


@dataclass(frozen=True)
class Workspace:
    """A scratch home for the agent and a project holding `app.py` (ORIGINAL)."""

    home: Path
    project: Path

    @classmethod
    def make(cls, tmp_path: Path) -> Workspace:
        workspace = cls(tmp_path / "home", tmp_path / "project")
        workspace.home.mkdir()
        workspace.project.mkdir()
        workspace.app.write_bytes(ORIGINAL)
        return workspace

    @property
    def app(self) -> Path:
        return self.project / "app.py"

    def run(self, argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        """`argv` in the project, without a terminal or stdin."""
        return subprocess.run(
            argv,
            cwd=self.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )

    def register(self, name: str, env: dict[str, str]) -> None:
        """Run the doc's shell recipe `name` (an `… mcp add` line) in the project."""
        added = self.run(["bash", "-c", recipe(name)], env)
        assert added.returncode == 0, added.stderr
