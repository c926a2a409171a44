"""No planted secret reaches a model request from any front end (issue 36): a fake home
directory holding every credential file and a project with a source file holding a planted
secret of each kind (`tests/fakes/planted.py`), the real CLI, MCP and LSP servers, the real
SDK and the Gemini emulator, whose recorded request bodies are searched for every value.

- CLI, a file outside any repository, no --root: the document alone, said once on stderr;
- CLI and MCP with the home directory as the root: refused before any model call;
- CLI, MCP and LSP in the project: credential files refused, the source file's values masked,
  its other lines editable, no marker written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli import RUN_TIMEOUT, cli_command, cli_env
from tests.e2e.test_mcp import CALL_TIMEOUT, TOOL, session_with, structured
from tests.editor.checks import assert_success
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.fakes.planted import PLAIN_LINE, PLANTED, SOURCE, leaked, make_home

pytestmark = pytest.mark.timeout(120)

READS = [
    ("get_document", {"path": "settings.py"}),
    ("find_in_files", {"pattern": "pL4nt3d"}),
    ("find_in_files", {"pattern": "password"}),
    ("get_document", {"path": "../.netrc"}),
]
EDIT = ("replace_text", {"path": "settings.py", "old_text": PLAIN_LINE, "new_text": "DEBUG = 1"})
MARKED = (
    "replace_text",
    {
        "path": "settings.py",
        "old_text": 'AWS_SECRET_ACCESS_KEY = "«secret: aws-access-key, 40 chars»"',
        "new_text": "AWS_SECRET_ACCESS_KEY = None",
    },
)
FINISH = ("complete_task", {"success": True, "message": "done"})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = make_home(tmp_path.resolve() / "home")
    (home / "project" / ".git").mkdir()
    return home


def run_cli(
    emulator: GeminiEmulator, home: Path, path: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cli_command(str(path), ["--prompt", "turn debugging on", "--json", *args]),
        cwd=home,
        env=cli_env(
            emulator.base_url, {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
        ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def bodies(emulator: GeminiEmulator) -> list[Any]:
    return [request.body for request in emulator.requests]


def assert_masked_said(answer: dict[str, Any]) -> None:
    """The answer says how many values were masked and where (settings.py's lines), never a
    value."""
    masked = answer["masked"]
    assert masked["count"] >= len(masked["places"]) > 0
    assert {place["path"] for place in masked["places"]} == {"settings.py"}
    assert {"path": "settings.py", "line": 8, "kind": "github-token"} in masked["places"]
    assert leaked([masked]) == []


def test_cli_a_file_outside_any_repository_is_edited_alone(
    emulator: GeminiEmulator, home: Path
) -> None:
    emulator.enqueue(
        Reply.function_calls([("find_in_files", {"pattern": "password"})]),
        Reply.function_calls([FINISH]),
    )
    proc = run_cli(emulator, home, home / "notes.txt")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("in no git repository") == 1
    (result,) = emulator.requests[1].function_responses
    assert "No workspace folder is open" in result["response"]["error"]
    assert leaked(bodies(emulator)) == []


@pytest.mark.parametrize("root", ["home", "/"])
def test_cli_refuses_the_home_directory_or_slash_as_root(
    emulator: GeminiEmulator, home: Path, root: str
) -> None:
    given = str(home) if root == "home" else "/"
    proc = run_cli(emulator, home, home / "notes.txt", "--root", given)
    assert proc.returncode == 2
    assert "never a workspace" in proc.stdout + proc.stderr
    assert "--root" in proc.stdout + proc.stderr
    assert emulator.requests == []


def test_cli_in_the_project_masks_secrets_and_keeps_them_on_disk(
    emulator: GeminiEmulator, home: Path
) -> None:
    emulator.enqueue(
        Reply.function_calls(READS),
        Reply.function_calls([MARKED, EDIT]),
        Reply.function_calls([FINISH]),
    )
    proc = run_cli(emulator, home, home / "project" / "app.py", "--other-files", "edit")
    assert proc.returncode == 0, proc.stderr
    assert leaked(bodies(emulator)) == []
    assert_masked_said(json.loads(proc.stdout))
    read, found, _, netrc = (r["response"] for r in emulator.requests[1].function_responses)
    assert "«secret: github-token, 40 chars»" in read["result"]
    assert "settings.py:8" in found["result"]
    assert "leaves the workspace" in netrc["error"]
    marked, edited = (r["response"] for r in emulator.requests[2].function_responses)
    assert "marker" in marked["error"]
    assert "error" not in edited
    assert (home / "project" / "settings.py").read_text() == SOURCE.replace(PLAIN_LINE, "DEBUG = 1")


def test_mcp_refuses_the_home_directory_as_root(emulator: GeminiEmulator, home: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "complex_edit", "mcp", "--root", str(home)],
        env=cli_env(emulator.base_url, {"HOME": str(home)}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 2
    assert "never a workspace" in proc.stderr


async def test_mcp_in_the_project_masks_secrets(
    emulator: GeminiEmulator, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(home))
    emulator.enqueue(
        Reply.function_calls(READS),
        Reply.function_calls([MARKED, EDIT]),
        Reply.function_calls([FINISH]),
    )
    project = home / "project"
    async with session_with(project, emulator.base_url, home / "mcp.log") as session:
        answer = await session.call_tool(
            TOOL,
            {"path": "app.py", "prompt": "turn debugging on", "other_files": "edit"},
            read_timeout_seconds=CALL_TIMEOUT,
        )
    assert structured(answer)["success"] is True
    assert_masked_said(structured(answer))
    assert leaked(bodies(emulator)) == []
    assert (project / "settings.py").read_text() == SOURCE.replace(PLAIN_LINE, "DEBUG = 1")
    assert all(value not in (home / "mcp.log").read_text() for value in PLANTED.values())


async def test_lsp_in_the_project_masks_secrets(
    vscode: EditorSession, emulator: GeminiEmulator, home: Path
) -> None:
    project = home / "project"
    vscode.add_folder(str(project))
    own = vscode.open_file(str(project / "app.py"))
    emulator.enqueue(calls(*READS), calls(MARKED, EDIT), calls(done()))
    result = await vscode.run(own, "turn debugging on", otherFiles="edit")
    assert_success(result)
    assert leaked(bodies(emulator)) == []
    assert_masked_said(result)
    marked, _ = (r["response"] for r in emulator.requests[2].function_responses)
    assert "marker" in marked["error"]
    assert "+DEBUG = 1" in result["diff"]
    assert "«secret" not in result["diff"]
