"""`complex-edit edit --other-files … --root …` end to end (issue 28): the real CLI process, the
real SDK, the Gemini emulator. A change reaching three files is written every file or none;
other files are read-only unless `--other-files edit`; nothing of a secret (`.env`), a file
behind a link out of the root, a binary or an oversized file reaches any request the model
receives; a file changed, deleted or replaced on disk meanwhile, or an interruption, leaves
every file as it was."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli import RUN_TIMEOUT, _review_on_a_terminal, cli_command, cli_env
from tests.editor.checks import assert_git_applies
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

SECRET = "hunter2-never-sent"
MAIN = "import app\n\nx = app.total([3])\n"
APP = "def total(items):\n    return sum(items)\n"
USE = "from app import total\n\nprint(total([1, 2]))\n"
FILES = {"main.py": MAIN, "src/app.py": APP, "src/use.py": USE}
RENAMED = {name: text.replace("total", "grand_total") for name, text in FILES.items()}

pytestmark = pytest.mark.timeout(120)


def calls(*items: tuple[str, dict[str, Any]]) -> Reply:
    return Reply.function_calls(list(items), usage=(100, 20))


def replace(old: str, new: str, path: str | None = None) -> tuple[str, dict[str, Any]]:
    args: dict[str, Any] = {"old_text": old, "new_text": new}
    if path is not None:
        args["path"] = path
    return ("replace_text", args)


def done(message: str = "renamed everywhere") -> tuple[str, dict[str, Any]]:
    return ("complete_task", {"success": True, "message": message})


FIND = calls(("find_in_files", {"pattern": "total"}))
RENAME_ALL = calls(
    replace("app.total(", "app.grand_total("),
    replace("def total", "def grand_total", "src/app.py"),
    replace(
        "import total\n\nprint(total(", "import grand_total\n\nprint(grand_total(", "src/use.py"
    ),
    done(),
)


def plant(base: Path) -> Path:
    """`base/proj`, a git repository (a project: the CLI's default workspace) with three Python
    files, a secret `.env`, a link to a file outside, a binary and an oversized file;
    `base/outside/notes.txt` beside it. The project's folder."""
    root = base / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    (root / ".env").write_text(f"API_TOKEN={SECRET}\n")
    (base / "outside").mkdir()
    (base / "outside" / "notes.txt").write_text(f"total {SECRET}\n")
    (root / "notes.txt").symlink_to(base / "outside" / "notes.txt")
    (root / "blob.bin").write_bytes(b"total\x00" + SECRET.encode())
    (root / "big.txt").write_text(f"total {SECRET}\n" * 200)
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return plant(tmp_path.resolve())


def contents(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text() for name in FILES}


def leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.tmp"))


def run_cli(
    emulator: GeminiEmulator,
    root: Path,
    *args: str,
    env: dict[str, str | None] | None = None,
    name: str = "main.py",
) -> subprocess.CompletedProcess[str]:
    """`complex-edit edit NAME` run in the folder `root`."""
    return subprocess.run(
        cli_command(name, ["--prompt", "rename total to grand_total everywhere", *args]),
        cwd=root,
        env=cli_env(emulator.base_url, {"COMPLEX_EDIT_MAX_DOCUMENT_BYTES": "1000", **(env or {})}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )


def tool_results(emulator: GeminiEmulator, request: int) -> list[dict[str, Any]]:
    return [part["response"] for part in emulator.requests[request].function_responses]


def test_a_change_to_three_files_writes_all_three(emulator: GeminiEmulator, project: Path) -> None:
    emulator.enqueue(FIND, RENAME_ALL)
    proc = run_cli(emulator, project, "--other-files", "edit", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["success"] is True
    assert result["applied"] is True
    assert contents(project) == RENAMED
    documents = result["documents"]
    assert [d["uri"] for d in documents] == [(project / name).as_uri() for name in FILES]
    assert all(d["applied"] for d in documents)
    # one diff section per file, each under its path from the root
    headers = [line for line in result["diff"].splitlines() if line.startswith("+++ ")]
    assert headers == ["+++ b/main.py", "+++ b/src/app.py", "+++ b/src/use.py"]
    found = tool_results(emulator, 1)[0]["result"]
    assert "src/app.py:1: def total(items):" in found
    assert leftovers(project) == []


# The command's document is src/use.py: its own change, then the other two files'.
RENAME_FROM_USE = calls(
    replace("import total\n\nprint(total(", "import grand_total\n\nprint(grand_total("),
    replace("def total", "def grand_total", "src/app.py"),
    replace("app.total(", "app.grand_total(", "main.py"),
    done(),
)


def test_every_answer_applies_with_git_apply_at_the_root(
    emulator: GeminiEmulator, project: Path
) -> None:
    """Run from a folder below the root on a file there, one document or three, dry run or
    written: every diff section is headed by the file's path from the root (the workspace),
    so `git apply` at the root takes the diff and each document's."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)

    def use(*args: str) -> dict[str, Any]:
        proc = run_cli(emulator, project / "src", "--json", *args, name="use.py")
        assert proc.returncode == 0, proc.stderr
        return dict(json.loads(proc.stdout))

    emulator.enqueue(calls(replace("print(total(", "print(grand_total("), done()))
    one = use("--dry-run")
    assert one["diff"].startswith("--- a/src/use.py\n+++ b/src/use.py\n@@ "), one
    assert_git_applies(project, one["diff"])
    emulator.enqueue(RENAME_FROM_USE)
    several = use("--other-files", "edit", "--dry-run")
    headers = [line for line in several["diff"].splitlines() if line.startswith("--- ")]
    assert headers == ["--- a/src/use.py", "--- a/src/app.py", "--- a/main.py"]
    assert_git_applies(project, several["diff"])
    emulator.enqueue(RENAME_FROM_USE)
    written = use("--other-files", "edit")
    assert contents(project) == RENAMED
    assert_git_applies(project, written["diff"], reverse=True)
    for entry in written["documents"]:
        assert_git_applies(project, entry["diff"], reverse=True)


def test_the_plain_output_lists_every_file_written(emulator: GeminiEmulator, project: Path) -> None:
    emulator.enqueue(RENAME_ALL)
    proc = run_cli(emulator, project, "--other-files", "edit")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "renamed everywhere",
        "  main.py",
        "  src/app.py",
        "  src/use.py",
    ]


def test_a_dry_run_diff_of_three_files_applies_with_git_apply_from_the_root(
    emulator: GeminiEmulator, project: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "sub").mkdir()
    emulator.enqueue(RENAME_ALL)
    # run from a folder below the root: the diff is still from the root
    proc = subprocess.run(
        cli_command("../main.py", ["--prompt", "rename", "--other-files", "edit", "--dry-run"]),
        cwd=project / "sub",
        env=cli_env(emulator.base_url),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert contents(project) == FILES  # a dry run writes nothing
    assert proc.stdout.startswith(b"--- a/main.py\n+++ b/main.py\n@@ ")
    assert proc.stdout.count(b"\n--- a/") == 2
    applied = subprocess.run(["git", "apply"], cwd=project, input=proc.stdout, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    assert contents(project) == RENAMED


def test_reading_only_refuses_a_change_to_another_file(
    emulator: GeminiEmulator, project: Path
) -> None:
    emulator.enqueue(
        calls(replace("def total", "def grand_total", "src/app.py")),
        calls(replace("app.total(", "app.grand_total("), done("only main.py")),
    )
    proc = run_cli(emulator, project, "--json")  # the setting's default: read
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "documents" not in result or result["documents"] is None
    error = tool_results(emulator, 1)[0]["error"]
    assert "src/app.py can be read but not changed" in error
    assert contents(project) == {**FILES, "main.py": RENAMED["main.py"]}


def test_with_other_files_off_no_other_file_is_read(
    emulator: GeminiEmulator, project: Path
) -> None:
    emulator.enqueue(calls(("get_document", {"path": "src/app.py"})), calls(done()))
    proc = run_cli(emulator, project, "--other-files", "off", "--json")
    assert proc.returncode == 0, proc.stderr
    first = emulator.requests[0]
    assert "find_in_files" not in [d["name"] for d in first.function_declarations]
    assert "path" in tool_results(emulator, 1)[0]["error"]
    assert APP not in emulator.requests[1].raw_body.decode()


def test_secrets_links_out_binary_and_huge_files_never_reach_the_model(
    emulator: GeminiEmulator, project: Path
) -> None:
    refused = ["../outside/notes.txt", str(project / ".env"), ".env", "notes.txt"]
    refused += ["blob.bin", "big.txt", ".git/config"]
    emulator.enqueue(
        calls(*(("get_document", {"path": path}) for path in refused)),
        calls(("find_in_files", {"pattern": "API_TOKEN|total", "regex": True})),
        calls(("replace_text", {"path": ".env", "old_text": "API", "new_text": "X"})),
        calls(done()),
    )
    proc = run_cli(emulator, project, "--other-files", "edit", "--json")
    assert proc.returncode == 0, proc.stderr
    assert len(emulator.requests) == 4
    for request in emulator.requests:
        assert SECRET not in request.raw_body.decode("utf-8")
    errors = [result["error"] for result in tool_results(emulator, 1)]
    assert "leaves the workspace" in errors[0]
    assert "is absolute" in errors[1]
    assert "readExclude" in errors[2]
    assert "link that leaves the workspace" in errors[3]
    assert "binary" in errors[4]
    assert "maxDocumentBytes" in errors[5]
    assert ".git/" in errors[6]
    found = tool_results(emulator, 2)[0]["result"]
    assert "main.py:3:" in found
    assert "src/app.py:1:" in found
    for refused_name in (".env", "notes.txt", "big.txt", "blob.bin"):
        assert refused_name not in found
    assert "readExclude" in tool_results(emulator, 3)[0]["error"]
    assert (project / ".env").read_text() == f"API_TOKEN={SECRET}\n"
    assert SECRET not in proc.stdout + proc.stderr


def test_more_files_than_max_files_is_a_tool_error(emulator: GeminiEmulator, project: Path) -> None:
    emulator.enqueue(RENAME_ALL, calls(done("stopped at two files")))
    proc = run_cli(
        emulator, project, "--other-files", "edit", "--json", env={"COMPLEX_EDIT_MAX_FILES": "2"}
    )
    assert proc.returncode == 0, proc.stderr
    results = tool_results(emulator, 1)
    assert "maxFiles" in results[2]["error"]
    assert contents(project) == {
        **RENAMED,
        "src/use.py": USE,
    }
    assert len(json.loads(proc.stdout)["documents"]) == 2


def test_a_root_that_does_not_hold_the_file_is_refused_before_the_model(
    emulator: GeminiEmulator, project: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run_cli(emulator, project, "--root", str(elsewhere), "--json")
    assert proc.returncode == 2, proc.stderr
    result = json.loads(proc.stdout)
    assert result["reason"] == "invalid_request"
    assert "outside --root" in result["error"]
    assert emulator.requests == []


def _wait_for_requests(emulator: GeminiEmulator, count: int) -> None:
    deadline = time.monotonic() + 30
    while len(emulator.requests) < count:
        assert time.monotonic() < deadline, "the CLI never sent its request"
        time.sleep(0.02)


def _start(emulator: GeminiEmulator, root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli_command("main.py", ["--prompt", "rename", "--other-files", "edit", "--json"]),
        cwd=root,
        env=cli_env(emulator.base_url),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _change(path: Path, how: str) -> None:
    if how == "changed":
        path.write_text(APP + "# the user's line\n")
    elif how == "deleted":
        path.unlink()
    else:  # replaced by a directory
        path.unlink()
        path.mkdir()
        (path / "inside.txt").write_text("x\n")


@pytest.mark.parametrize("how", ["changed", "deleted", "replaced by a directory"])
def test_a_file_changed_on_disk_meanwhile_leaves_every_file_unwritten(
    emulator: GeminiEmulator, project: Path, how: str
) -> None:
    emulator.enqueue(calls(("get_document", {"path": "src/app.py"})), RENAME_ALL.delayed(1.0))
    proc = _start(emulator, project)
    _wait_for_requests(emulator, 2)
    _change(project / "src" / "app.py", how)
    stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == 1, stderr
    result = json.loads(stdout)
    assert result["reason"] == "document_changed"
    assert result["error"].startswith("src/app.py changed")
    assert "nothing was applied to any file" in result["error"]
    assert (project / "main.py").read_text() == MAIN
    assert (project / "src" / "use.py").read_text() == USE
    assert leftovers(project) == []


def test_an_interrupt_in_the_middle_writes_nothing_anywhere(
    emulator: GeminiEmulator, project: Path
) -> None:
    emulator.enqueue(FIND, RENAME_ALL.delayed(30))
    proc = _start(emulator, project)
    _wait_for_requests(emulator, 2)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == 130, stderr
    assert json.loads(stdout)["reason"] == "cancelled"
    assert contents(project) == FILES
    assert leftovers(project) == []


def test_review_across_files_writes_the_kept_hunks_of_each_file(
    emulator: GeminiEmulator, project: Path
) -> None:
    """One question per hunk, file after file (each hunk under its file's name); the kept
    ones are written, every file or none, through the same landing."""
    emulator.enqueue(RENAME_ALL)
    status, stdout, shown = _review_on_a_terminal(
        emulator, project / "main.py", [b"y", b"n", b"y", b"y"], "--other-files", "edit", "--json"
    )
    assert status == 0, shown
    assert shown.count("Keep this change") == 4  # src/use.py has two hunks
    assert shown.index("a/main.py") < shown.index("a/src/app.py") < shown.index("a/src/use.py")
    assert contents(project) == {**RENAMED, "src/app.py": APP}
    result = json.loads(stdout)
    assert result["applied"] is True
    assert result["declined"] == 1
    kept = [(project / name).as_uri() for name in ("main.py", "src/use.py")]
    assert [d["uri"] for d in result["documents"]] == kept
    assert leftovers(project) == []
