"""`complex-edit log` and `complex-edit revert` end to end (issue 35): the real CLI processes,
the real SDK, the Gemini emulator. An edit of three files, typing elsewhere in them, `log
--json`, `revert` keeps the typing; a conflicting revert writes nothing (exit 1); the revert is
itself reverted. The history lives in the state folder the tests give every process, never in
the workspace (no `.git` is written)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_cli import RUN_TIMEOUT, cli_env
from tests.e2e.test_cli_other_files import (
    FILES,
    FIND,
    RENAME_ALL,
    RENAMED,
    calls,
    contents,
    done,
    run_cli,
)
from tests.fakes.gemini_emulator import GeminiEmulator

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path.resolve() / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()  # a git top level: `log` and `revert` find it from below
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


def history(emulator: GeminiEmulator, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "complex_edit", *args],
        cwd=cwd,
        env=cli_env(emulator.base_url),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def typed(root: Path) -> None:
    """The user's own changes since the edit, on other lines of two of its files."""
    main = root / "main.py"
    main.write_text(main.read_text() + "# typed by hand\n")
    app = root / "src/app.py"
    app.write_text("# header typed by hand\n" + app.read_text())


def assert_history_outside(root: Path) -> None:
    state = Path(os.environ["XDG_STATE_HOME"]) / "complex-edit"
    assert list(state.glob("roots/*/*.json")), "the history was written in the state folder"
    assert list((root / ".git").iterdir()) == []
    assert not [p for p in root.rglob("*") if "complex-edit" in p.name]


def test_log_and_revert_keep_the_typing_and_revert_the_revert(
    emulator: GeminiEmulator, project: Path
) -> None:
    emulator.enqueue(FIND, RENAME_ALL)
    edited = run_cli(emulator, project, "--other-files", "edit", "--json")
    assert edited.returncode == 0, edited.stderr
    edit_id = json.loads(edited.stdout)["editId"]
    assert contents(project) == RENAMED
    typed(project)
    now = contents(project)

    listed = history(emulator, project / "src", "log", "--json")
    assert listed.returncode == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)
    assert entry["id"] == edit_id
    assert entry["instruction"] == "rename total to grand_total everywhere"
    assert entry["files"] == ["main.py", "src/app.py", "src/use.py"]
    assert entry["added"] == entry["removed"] == 4  # use.py: two lines
    assert entry["time"].endswith("+00:00")

    reverted = history(emulator, project, "revert", "--json")
    assert reverted.returncode == 0, reverted.stderr
    answer = json.loads(reverted.stdout)
    assert answer["success"] is True
    assert answer["applied"] is True
    assert len(answer["documents"]) == 3
    assert all(d["applied"] for d in answer["documents"])
    assert contents(project) == {
        "main.py": FILES["main.py"] + "# typed by hand\n",
        "src/app.py": "# header typed by hand\n" + FILES["src/app.py"],
        "src/use.py": FILES["src/use.py"],
    }
    revert_id = answer["editId"]
    assert revert_id != edit_id

    again = history(emulator, project, "revert", revert_id)
    assert again.returncode == 0, again.stderr
    assert contents(project) == now
    assert [e["id"] for e in json.loads(history(emulator, project, "log", "--json").stdout)][
        1:
    ] == [revert_id, edit_id]
    assert_history_outside(project)


def test_a_conflicting_revert_writes_nothing(emulator: GeminiEmulator, project: Path) -> None:
    emulator.enqueue(FIND, RENAME_ALL)
    edited = run_cli(emulator, project, "--other-files", "edit", "--json")
    assert edited.returncode == 0, edited.stderr
    app = project / "src/app.py"
    app.write_text(app.read_text().replace("def grand_total", "def grand_total_v2"))
    before = contents(project)

    dry = history(emulator, project, "revert", "--dry-run", "--json")
    assert dry.returncode == 1
    refused = json.loads(dry.stdout)
    assert refused["reason"] == "conflict"
    assert "src/app.py:1" in refused["error"]
    refused_run = history(emulator, project, "revert")
    assert refused_run.returncode == 1
    assert "[conflict]" in refused_run.stderr
    assert contents(project) == before

    forced = history(emulator, project, "revert", "--force", "--json")
    assert forced.returncode == 0, forced.stderr
    assert "src/app.py" in json.loads(forced.stdout)["message"]
    assert contents(project) == {**FILES, "src/app.py": before["src/app.py"]}


def test_an_unknown_edit_is_refused(emulator: GeminiEmulator, project: Path) -> None:
    proc = history(emulator, project, "revert", "nosuchedit", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["reason"] == "unknown_edit"
    assert history(emulator, project, "log", "--json").stdout.strip() == "[]"


def test_outside_git_and_in_a_nested_repository(emulator: GeminiEmulator, tmp_path: Path) -> None:
    """The root an edit is recorded under: the file's git top level (a nested repository's
    own), else its folder; `log` and `revert` find it from there or with `--root`."""
    plain = tmp_path.resolve() / "plain"
    nested = tmp_path.resolve() / "outer" / "inner"
    (nested / ".git").mkdir(parents=True)
    (nested.parent / ".git").mkdir()
    for folder in (plain, nested):
        folder.mkdir(exist_ok=True)
        (folder / "main.py").write_text(FILES["main.py"])
        emulator.enqueue(calls(("replace_text", {"old_text": "x =", "new_text": "y ="}), done()))
        edited = run_cli(emulator, folder, "--json")
        assert edited.returncode == 0, edited.stderr
        edit_id = json.loads(edited.stdout)["editId"]
        (entry,) = json.loads(history(emulator, folder, "log", "--json").stdout)
        assert entry["id"] == edit_id
        assert entry["files"] == ["main.py"]
    assert json.loads(history(emulator, nested.parent, "log", "--json").stdout) == []
    outer = history(emulator, nested.parent, "revert", "--root", str(nested), "--json")
    assert outer.returncode == 0, outer.stderr
    assert (nested / "main.py").read_text() == FILES["main.py"]
    assert history(emulator, plain, "revert").returncode == 0
    assert (plain / "main.py").read_text() == FILES["main.py"]
