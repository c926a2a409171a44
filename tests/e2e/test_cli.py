"""`complex-edit edit` end to end: the real CLI process, the real SDK, the Gemini emulator.

Most scenarios are independent runs: they are started together once per module (each in its
own directory, the emulator answering each by the file name in its first message) and every
test then checks its own run. Scenarios that interact with a running process (the file changes
under it, it is terminated) run on their own.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply

DOC = b"def foo():\n    return 1\n\n\nprint(foo())\n"
RENAMED = b"def bar():\n    return 1\n\n\nprint(bar())\n"
PARALLEL = 6
RUN_TIMEOUT = 120

# The runs of the module are started together by the first test's fixture: allow for a slow,
# busy machine.
pytestmark = pytest.mark.timeout(300)


def calls(*items: tuple[str, dict[str, Any]]) -> Reply:
    return Reply.function_calls(list(items), usage=(100, 20))


def replace(old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("replace_text", {"old_text": old, "new_text": new})


def done(message: str = "done") -> tuple[str, dict[str, Any]]:
    return ("complete_task", {"success": True, "message": message})


RENAME = calls(
    replace("def foo", "def bar"), replace("print(foo())", "print(bar())"), done("renamed")
)
BETA = calls(replace("beta", "BETA"), done("upper-cased beta"))


def cli_env(base_url: str, extra: Mapping[str, str | None] | None = None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("COMPLEX_EDIT_")
        and key not in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI")
    }
    env.update(
        GEMINI_API_KEY=TEST_KEY,
        GOOGLE_GEMINI_BASE_URL=base_url,
        COMPLEX_EDIT_REQUEST_TIMEOUT_SECONDS="10",
        COMPLEX_EDIT_MAX_RETRIES="0",
        COMPLEX_EDIT_CHECKERS="off",  # the tests of Checks turn them on
    )
    for key, value in (extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def cli_command(name: str, args: list[str]) -> list[str]:
    return [sys.executable, "-m", "complex_edit", "edit", name, *args]


@dataclass
class Case:
    content: bytes | None  # None: the file does not exist
    args: list[str]
    replies: list[Reply] = field(default_factory=list)
    env: dict[str, str | None] = field(default_factory=dict)
    stdin: bytes | None = None
    mode: int = 0o644
    directory: bool = False  # the path names a directory
    symlink: bool = False  # the path is a symlink to the real file next to it


@dataclass
class Run:
    name: str
    case: Case
    returncode: int
    stdout: str
    stderr: str
    before: bytes | None
    after: bytes | None
    mode_after: int | None
    leftovers: list[str]
    is_symlink: bool
    requests: list[RecordedRequest] = field(default_factory=list)

    def json(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.stdout)
        return result

    @property
    def untouched(self) -> bool:
        return self.after == self.before


CASES: dict[str, Case] = {
    # success
    "plain.py": Case(DOC, ["--prompt", "rename foo to bar"], [RENAME], mode=0o640),
    "as_json.py": Case(DOC, ["--prompt", "rename", "--json", "--quiet"], [RENAME]),
    "dry_run.py": Case(DOC, ["--prompt", "rename", "--dry-run"], [RENAME]),
    "dry_json.py": Case(DOC, ["--prompt", "rename", "--dry-run", "--json"], [RENAME]),
    "crlf.txt": Case(b"alpha\r\nbeta\r\ngamma\r\n", ["--prompt", "beta up"], [BETA]),
    "bom.txt": Case(b"\xef\xbb\xbfalpha\r\nbeta\r\n", ["--prompt", "beta up"], [BETA]),
    "no_eol.txt": Case(b"alpha\nbeta", ["--prompt", "beta up"], [BETA]),
    "bom_set.txt": Case(
        b"\xef\xbb\xbfx\r\ny\r\n",
        ["--prompt", "rewrite"],
        [calls(("set_document", {"content": "x\ny changed\n"}), done())],
    ),
    "ranged.py": Case(DOC, ["--prompt", "rename", "--range", "2:3"], [RENAME]),
    "linked.py": Case(DOC, ["--prompt", "rename"], [RENAME], symlink=True),
    "stdin.py": Case(DOC, ["--prompt", "-"], [RENAME], stdin=b"rename from stdin"),
    "same.py": Case(DOC, ["--prompt", "nothing to do"], [calls(done("already fine"))]),
    "flags.py": Case(
        DOC, ["--prompt", "rename", "--model", "gemini-test-model", "--max-turns", "3"], [RENAME]
    ),
    # the task fails: exit 1
    "give_up.py": Case(
        DOC,
        ["--prompt", "x", "--json"],
        [
            calls(
                replace("def foo", "def bar"), ("complete_task", {"success": False, "error": "no"})
            )
        ],
    ),
    "max_turns.py": Case(
        DOC, ["--prompt", "x", "--json", "--max-turns", "1"], [calls(replace("def foo", "def x"))]
    ),
    "blocked.py": Case(DOC, ["--prompt", "x", "--json"], [Reply.finish("SAFETY")]),
    "server_error.py": Case(DOC, ["--prompt", "x", "--json"], [Reply.error(500)]),
    # usage or configuration: exit 2
    "no_key.py": Case(
        DOC,
        ["--prompt", "x", "--json"],
        env={"GEMINI_API_KEY": None, "GOOGLE_GEMINI_BASE_URL": None},
    ),
    "bad_key.py": Case(DOC, ["--prompt", "x", "--json"], [Reply.api_key_invalid()]),
    "missing.py": Case(None, ["--prompt", "x", "--json"]),
    "a_directory": Case(None, ["--prompt", "x", "--json"], directory=True),
    "binary.bin": Case(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["--prompt", "x", "--json"]),
    "latin1.txt": Case("café\n".encode("latin-1"), ["--prompt", "x", "--json"]),
    "too_big.txt": Case(b"x" * 100, ["--prompt", "x", "--json", "--max-document-bytes", "99"]),
    "bad_setting.py": Case(DOC, ["--prompt", "x", "--json", "--max-turns", "0"]),
    "bad_env.py": Case(DOC, ["--prompt", "x", "--json"], env={"COMPLEX_EDIT_TEMPERATURE": "hot"}),
    "bad_flag.py": Case(DOC, ["--prompt", "x", "--max-turns", "many"]),
    "bad_range.py": Case(DOC, ["--prompt", "x", "--json", "--range", "3:1"]),
    "past_end.py": Case(DOC, ["--prompt", "x", "--json", "--range", "4:9"]),
    "blank_prompt.py": Case(DOC, ["--prompt", "   ", "--json"]),
    # issue 20: slow answers, refusals shown as refusals, the key in use, settings refused
    "slow.py": Case(
        DOC,
        ["--prompt", "rename"],
        [RENAME.delayed(1.2)],
        env={"COMPLEX_EDIT_REQUEST_TIMEOUT_SECONDS": "2"},
    ),
    "syntax_refused.py": Case(
        DOC,
        ["--prompt", "x", "--json", "--max-turns", "1"],
        [calls(replace("return 1", "return (1"), done())],
    ),
    "sibling_failed.py": Case(
        DOC,
        ["--prompt", "x", "--max-turns", "1"],
        [calls(replace("no such text", "x"), done())],
    ),
    "both_keys.py": Case(
        DOC, ["--prompt", "rename", "--json"], [RENAME], env={"GOOGLE_API_KEY": TEST_KEY}
    ),
    "minimal.py": Case(DOC, ["--prompt", "x", "--json", "--thinking-level", "minimal"]),
}


def _router(cases: Mapping[str, Case]) -> Callable[[RecordedRequest], Reply]:
    """Answer each request from the script of the file its first message names."""

    def respond(request: RecordedRequest) -> Reply:
        first = _first_message(request)
        for name, case in cases.items():
            if f"`{name}`" in first:
                turn = sum(1 for c in request.contents if c.get("role") == "model")
                if turn < len(case.replies):
                    return case.replies[turn]
                return Reply.error(500, f"test script for {name} has no turn {turn + 1}")
        return Reply.error(500, "no test case matches this request")

    return respond


def _first_message(request: RecordedRequest) -> str:
    parts = request.contents[0]["parts"] if request.contents else []
    return "\n".join(part.get("text", "") for part in parts)


def _prepare(base: Path, name: str, case: Case) -> Path:
    directory = base / name.replace(".", "_")
    directory.mkdir()
    target = directory / name
    if case.symlink:
        target.symlink_to(f"real_{name}")
        target = directory / f"real_{name}"
    if case.directory:
        target.mkdir()
    elif case.content is not None:
        target.write_bytes(case.content)
        target.chmod(case.mode)
    return directory


def _snapshot(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def _execute(base_url: str, base: Path, name: str, case: Case) -> Run:
    directory = _prepare(base, name, case)
    path = directory / name
    before = _snapshot(path)
    proc = subprocess.run(
        cli_command(name, case.args),
        cwd=directory,
        env=cli_env(base_url, case.env),
        input=case.stdin if case.stdin is not None else b"",
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    return Run(
        name=name,
        case=case,
        returncode=proc.returncode,
        stdout=proc.stdout.decode("utf-8"),
        stderr=proc.stderr.decode("utf-8"),
        before=before,
        after=_snapshot(path),
        mode_after=path.stat().st_mode & 0o7777 if path.is_file() else None,
        leftovers=_leftovers(directory),
        is_symlink=path.is_symlink(),
    )


@pytest.fixture(scope="module")
def runs(
    emulator_server: GeminiEmulator, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Run]:
    emulator_server.reset()
    emulator_server.set_responder(_router(CASES))
    base = tmp_path_factory.mktemp("cli")
    with ThreadPoolExecutor(PARALLEL) as pool:
        futures = {
            name: pool.submit(_execute, emulator_server.base_url, base, name, case)
            for name, case in CASES.items()
        }
        results = {name: future.result() for name, future in futures.items()}
    for request in emulator_server.requests:
        first = _first_message(request)
        for name, run in results.items():
            if f"`{name}`" in first:
                run.requests.append(request)
    problems = emulator_server.problems
    emulator_server.reset()
    assert not problems, problems
    return results


def assert_no_secret(run: Run) -> None:
    assert TEST_KEY not in run.stdout
    assert TEST_KEY not in run.stderr


# ------------------------------------------------------------------------------------------
# success
# ------------------------------------------------------------------------------------------


def test_success_writes_the_result_and_prints_the_summary(runs: dict[str, Run]) -> None:
    run = runs["plain.py"]
    assert run.returncode == 0, run.stderr
    assert run.after == RENAMED
    assert run.stdout == "renamed\n"
    assert "complex-edit: Turn 1/8 · waiting for the model…" in run.stderr
    assert "replace_text" in run.stderr
    assert run.mode_after == 0o640
    assert run.leftovers == []
    assert_no_secret(run)


def test_progress_shows_each_call_and_the_change_so_far(runs: dict[str, Run]) -> None:
    """Issue 21 item 4: a line per call as it lands, and the running +N −M after each call
    that changed the text."""
    lines = runs["plain.py"].stderr.splitlines()
    first = lines.index("complex-edit: Turn 1/8 · ✓ replace_text: 1 replacement at line 1")
    assert lines[first + 1] == "complex-edit: Turn 1/8 · +1 −1 lines so far"
    assert "complex-edit: Turn 1/8 · +2 −2 lines so far" in lines[first + 2 :]


def test_json_output_is_the_contract_result(runs: dict[str, Run]) -> None:
    run = runs["as_json.py"]
    assert run.returncode == 0, run.stderr
    assert run.after == RENAMED
    assert run.stderr == ""  # --quiet
    result = run.json()
    assert result["success"] is True
    assert result["applied"] is True
    assert result["message"] == "renamed"
    assert "-def foo():\n+def bar():\n" in result["diff"]
    assert (result["turns"], result["toolCalls"]) == (1, 3)
    assert result["usage"]["inputTokens"] == 100
    assert result["usage"]["outputTokens"] == 20
    assert "reason" not in result
    assert "error" not in result


def test_dry_run_prints_a_diff_and_writes_nothing(runs: dict[str, Run]) -> None:
    run = runs["dry_run.py"]
    assert run.returncode == 0, run.stderr
    assert run.untouched
    assert run.stdout.startswith("--- a/dry_run.py\n+++ b/dry_run.py\n@@ ")
    assert "-def foo():\n+def bar():\n" in run.stdout
    assert "-print(foo())\n+print(bar())\n" in run.stdout
    assert "renamed" in run.stderr
    assert run.leftovers == []


def test_dry_run_json_has_the_diff_and_applied_false(runs: dict[str, Run]) -> None:
    run = runs["dry_json.py"]
    assert run.returncode == 0, run.stderr
    assert run.untouched
    result = run.json()
    assert result["success"] is True
    assert result["applied"] is False
    assert "+def bar():\n" in result["diff"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("crlf.txt", b"alpha\r\nBETA\r\ngamma\r\n"),
        ("bom.txt", b"\xef\xbb\xbfalpha\r\nBETA\r\n"),
        ("no_eol.txt", b"alpha\nBETA"),
        ("bom_set.txt", b"\xef\xbb\xbfx\r\ny changed\r\n"),
    ],
)
def test_line_endings_bom_and_final_newline_are_preserved(
    runs: dict[str, Run], name: str, expected: bytes
) -> None:
    run = runs[name]
    assert run.returncode == 0, run.stderr
    assert run.after == expected


def test_range_is_passed_to_the_model(runs: dict[str, Run]) -> None:
    run = runs["ranged.py"]
    assert run.returncode == 0, run.stderr
    assert run.after == RENAMED
    assert "lines 2-3" in _first_message(run.requests[0])


def test_a_symlink_is_kept_and_its_target_is_written(runs: dict[str, Run]) -> None:
    run = runs["linked.py"]
    assert run.returncode == 0, run.stderr
    assert run.is_symlink
    assert run.after == RENAMED
    assert run.leftovers == []


def test_prompt_from_stdin(runs: dict[str, Run]) -> None:
    run = runs["stdin.py"]
    assert run.returncode == 0, run.stderr
    assert run.after == RENAMED
    assert "rename from stdin" in _first_message(run.requests[0])


def test_settings_flags_reach_the_model_request(runs: dict[str, Run]) -> None:
    run = runs["flags.py"]
    assert run.returncode == 0, run.stderr
    assert run.requests[0].model == "gemini-test-model"
    assert "Turn 1/3" in run.stderr


def test_no_change_is_success_without_a_write(runs: dict[str, Run]) -> None:
    run = runs["same.py"]
    assert run.returncode == 0, run.stderr
    assert run.untouched
    assert run.stdout == "already fine (no changes)\n"


# ------------------------------------------------------------------------------------------
# failures: the file is byte-identical afterwards
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status", "reason"),
    [
        ("give_up.py", 1, "task_failed"),
        ("max_turns.py", 1, "max_turns"),
        ("blocked.py", 1, "blocked"),
        ("server_error.py", 1, "model_error"),
        ("no_key.py", 2, "config"),
        ("bad_key.py", 2, "auth"),
        ("missing.py", 2, "invalid_request"),
        ("a_directory", 2, "invalid_request"),
        ("binary.bin", 2, "invalid_request"),
        ("latin1.txt", 2, "invalid_request"),
        ("too_big.txt", 2, "too_large"),
        ("bad_setting.py", 2, "config"),
        ("bad_env.py", 2, "config"),
        ("bad_range.py", 2, "invalid_request"),
        ("past_end.py", 2, "invalid_request"),
        ("blank_prompt.py", 2, "invalid_request"),
    ],
)
def test_failures_exit_with_the_contract_status_and_leave_the_file(
    runs: dict[str, Run], name: str, status: int, reason: str
) -> None:
    run = runs[name]
    assert run.returncode == status, (run.stdout, run.stderr)
    assert run.untouched
    assert run.leftovers == []
    result = run.json()
    assert result["success"] is False
    assert result["reason"] == reason
    assert result["applied"] is False
    assert result["error"]
    assert f"[{reason}]" in run.stderr  # the reason is also shown to a human
    assert_no_secret(run)


@pytest.mark.parametrize("name", ["missing.py", "binary.bin", "too_big.txt", "bad_range.py"])
def test_usage_errors_make_no_model_request(runs: dict[str, Run], name: str) -> None:
    assert runs[name].requests == []


def test_messages_name_the_problem(runs: dict[str, Run]) -> None:
    assert "NUL" in runs["binary.bin"].json()["error"]
    assert "not UTF-8" in runs["latin1.txt"].json()["error"]
    assert "maxDocumentBytes" in runs["too_big.txt"].json()["error"]
    assert "maxTurns" in runs["bad_setting.py"].json()["error"]
    assert "temperature" in runs["bad_env.py"].json()["error"]
    assert "GEMINI_API_KEY" in runs["no_key.py"].json()["error"]
    assert "does not exist" in runs["missing.py"].json()["error"]


def test_bad_flag_is_a_usage_error(runs: dict[str, Run]) -> None:
    run = runs["bad_flag.py"]
    assert run.returncode == 2
    assert run.untouched
    assert run.stdout == ""
    assert "--max-turns" in run.stderr


# ------------------------------------------------------------------------------------------
# interacting with a running edit
# ------------------------------------------------------------------------------------------


def _start(
    emulator: GeminiEmulator, directory: Path, name: str, *args: str
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        cli_command(name, list(args)),
        cwd=directory,
        env=cli_env(emulator.base_url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_file_changed_during_the_run_is_refused(emulator: GeminiEmulator, tmp_path: Path) -> None:
    path = tmp_path / "moving.py"
    path.write_bytes(DOC)
    release = threading.Event()
    emulator.enqueue(Reply.hang(release=release, then=RENAME))
    proc = _start(emulator, tmp_path, "moving.py", "--prompt", "rename", "--json")
    try:
        emulator.wait_for_requests(1, timeout=30)
        theirs = DOC + b"# added by someone else\n"
        path.write_bytes(theirs)
        release.set()
        stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        release.set()
        proc.kill()
        proc.wait()
    assert proc.returncode == 1, stderr
    assert path.read_bytes() == theirs
    result = json.loads(stdout)
    assert result["reason"] == "document_changed"
    assert "+def bar():" in result["diff"]  # what would have been written
    assert _leftovers(tmp_path) == []


def test_sigterm_during_the_model_call_writes_nothing(
    emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = tmp_path / "stopped.py"
    path.write_bytes(DOC)
    release = threading.Event()
    emulator.enqueue(Reply.hang(release=release, then=RENAME))
    proc = _start(emulator, tmp_path, "stopped.py", "--prompt", "rename", "--json")
    try:
        emulator.wait_for_requests(1, timeout=30)
        proc.send_signal(signal.SIGTERM)
        stdout, _ = proc.communicate(timeout=RUN_TIMEOUT)
        assert emulator.wait_for_disconnect(timeout=10)
    finally:
        release.set()
        proc.kill()
        proc.wait()
    assert proc.returncode == 143
    assert json.loads(stdout)["reason"] == "cancelled"
    assert path.read_bytes() == DOC
    assert _leftovers(tmp_path) == []


# ------------------------------------------------------------------------------------------
# a bad setting names the flag or variable that set it; retries show on stderr
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "env", "named"),
    [
        (["--provider", "nobody"], {}, "setting 'provider' (--provider)"),
        (["--max-turns", "0"], {"COMPLEX_EDIT_MAX_TURNS": "3"}, "setting 'maxTurns' (--max-turns)"),
        (
            ["--request-timeout-seconds", "-1"],
            {},
            "setting 'requestTimeoutSeconds' (--request-timeout-seconds)",
        ),
        ([], {"COMPLEX_EDIT_PROVIDER": "nobody"}, "setting 'provider' (COMPLEX_EDIT_PROVIDER)"),
        (["--base-url", "notaurl"], {}, "setting 'baseUrl' (--base-url): 'notaurl' is not"),
        (
            [],
            {"COMPLEX_EDIT_BASE_URL": "ftp://example.com/v1"},
            "setting 'baseUrl' (COMPLEX_EDIT_BASE_URL): 'ftp://example.com/v1' is not",
        ),
    ],
    ids=["flag", "flag-over-env", "long-flag", "env", "base-url-flag", "base-url-env"],
)
def test_a_bad_setting_names_the_flag_or_variable_that_set_it(
    args: list[str],
    env: dict[str, str | None],
    named: str,
    emulator: GeminiEmulator,
    tmp_path: Path,
) -> None:
    path = tmp_path / "named.py"
    path.write_bytes(DOC)
    proc = subprocess.run(
        cli_command("named.py", ["--prompt", "x", "--json", *args]),
        cwd=tmp_path,
        env=cli_env(emulator.base_url, env),
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    result = json.loads(proc.stdout)
    assert result["reason"] == "config"
    assert named in result["error"]
    assert named in proc.stderr.decode("utf-8")
    assert ("COMPLEX_EDIT_" in named) == ("COMPLEX_EDIT_" in result["error"])
    assert path.read_bytes() == DOC
    assert emulator.requests == []


def test_eval_names_the_flag_of_a_bad_setting(emulator: GeminiEmulator, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "complex_edit", "eval", "--provider", "nobody", "--limit", "1"],
        cwd=tmp_path,
        env=cli_env(emulator.base_url),
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "setting 'provider' (--provider)" in proc.stderr.decode("utf-8")
    assert emulator.requests == []


def test_a_dry_run_diff_applies_with_git_apply_from_a_subfolder(
    emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """`a/` and `b/` headers: `git apply` (which strips one leading component) patches the
    file the diff names, not a namesake one level up. Run from a subfolder, the diff still
    names the file by its path from the workspace root (the git top level), where it applies."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    folder = tmp_path / "pkg"
    (folder / "sub").mkdir(parents=True)
    target, namesake = folder / "sub" / "mod.py", folder / "mod.py"
    target.write_bytes(DOC)
    namesake.write_bytes(DOC)
    emulator.enqueue(RENAME)
    proc = subprocess.run(
        cli_command("sub/mod.py", ["--prompt", "rename", "--dry-run"]),
        cwd=folder,
        env=cli_env(emulator.base_url),
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(b"--- a/pkg/sub/mod.py\n+++ b/pkg/sub/mod.py\n@@ ")
    for check in (["--check"], []):
        applied = subprocess.run(
            ["git", "apply", *check], cwd=tmp_path, input=proc.stdout, capture_output=True
        )
        assert applied.returncode == 0, applied.stderr
    assert target.read_bytes() == RENAMED
    assert namesake.read_bytes() == DOC


def test_a_retry_is_shown_on_stderr(emulator: GeminiEmulator, tmp_path: Path) -> None:
    path = tmp_path / "retried.py"
    path.write_bytes(DOC)
    emulator.enqueue(Reply.rate_limited(retry_delay="0.2s"), RENAME)
    proc = subprocess.run(
        cli_command("retried.py", ["--prompt", "rename", "--max-retries", "2"]),
        cwd=tmp_path,
        env=cli_env(emulator.base_url),
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    stderr = proc.stderr.decode("utf-8")
    assert proc.returncode == 0, stderr
    assert "complex-edit: Turn 1/8 · rate limited; retry 1/2 in 0.2 s\n" in stderr
    assert path.read_bytes() == RENAMED
    assert len(emulator.requests) == 2


# ------------------------------------------------------------------------------------------
# read-only files (even for root), Ctrl-C at any moment, `lsp` started by hand on a terminal
# ------------------------------------------------------------------------------------------

INTERRUPTED_LINE = "complex-edit: Interrupted; the file was not changed. [cancelled]"


def _lock(directory: Path, path: Path, locked: str) -> None:
    if locked == "file":
        path.chmod(0o444)
    else:
        directory.chmod(0o555)


@pytest.mark.parametrize("locked", ["file", "directory"])
def test_a_read_only_file_or_directory_is_refused_before_the_model(
    emulator: GeminiEmulator, tmp_path: Path, locked: str
) -> None:
    """The tests run as root here: os.access allows everything, the mode bits do not."""
    directory = tmp_path / "locked"
    directory.mkdir()
    path = directory / "ro.py"
    path.write_bytes(DOC)
    emulator.enqueue(RENAME)
    _lock(directory, path, locked)
    try:
        proc = subprocess.run(
            cli_command("ro.py", ["--prompt", "rename", "--json"]),
            cwd=directory,
            env=cli_env(emulator.base_url),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        mode = path.stat().st_mode & 0o777
    finally:
        directory.chmod(0o755)
    assert proc.returncode == 2, proc.stderr
    result = json.loads(proc.stdout)
    assert result["reason"] == "invalid_request"
    assert "read-only" in result["error"]
    assert "[invalid_request]" in proc.stderr.decode("utf-8")
    assert emulator.requests == []
    assert path.read_bytes() == DOC
    assert mode == (0o444 if locked == "file" else 0o644)
    assert _leftovers(directory) == []


def test_a_dry_run_of_a_read_only_file_still_shows_the_diff(
    emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = tmp_path / "ro_dry.py"
    path.write_bytes(DOC)
    path.chmod(0o444)
    emulator.enqueue(RENAME)
    proc = subprocess.run(
        cli_command("ro_dry.py", ["--prompt", "rename", "--dry-run"]),
        cwd=tmp_path,
        env=cli_env(emulator.base_url),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "+def bar():" in proc.stdout.decode("utf-8")
    assert path.read_bytes() == DOC


def _imported(line: str) -> str | None:
    """The module an `-X importtime` line reports, or None for any other line."""
    if not line.startswith("import time:"):
        return None
    return line.rsplit("|", 1)[-1].strip()


def _wait_for_import(proc: subprocess.Popen[bytes], module: str) -> list[str]:
    assert proc.stderr is not None
    seen: list[str] = []
    for raw in proc.stderr:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        seen.append(line)
        if _imported(line) == module:
            return seen
    pytest.fail(f"the CLI never imported {module}: {seen[-20:]}")


def _wait_for_stdin_read(pid: int, within: float = 60.0) -> None:
    """Until the process is blocked reading its stdin pipe (Linux: /proc/PID/wchan)."""
    deadline = time.monotonic() + within
    wchan = Path(f"/proc/{pid}/wchan")
    while "pipe_read" not in wchan.read_text():
        assert time.monotonic() < deadline, "the CLI never read its prompt from stdin"
        time.sleep(0.01)


@pytest.mark.parametrize(
    "moment",
    ["loading the command line", "loading the edit modules", "reading stdin", "the model call"],
)
def test_ctrl_c_at_any_moment_prints_one_line_and_exits_130(
    emulator: GeminiEmulator, tmp_path: Path, moment: str
) -> None:
    path = tmp_path / "interrupted.py"
    path.write_bytes(DOC)
    release = threading.Event()
    emulator.enqueue(Reply.hang(release=release, then=RENAME))
    prompt = "-" if moment == "reading stdin" else "rename"
    command = [
        sys.executable,
        "-X",
        "importtime",  # one stderr line per import: moments inside the start-up to aim at
        "-m",
        "complex_edit",
        "edit",
        "interrupted.py",
        "--prompt",
        prompt,
        "--json",
    ]
    proc = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=cli_env(emulator.base_url),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    watchdog = threading.Timer(RUN_TIMEOUT, proc.kill)
    watchdog.start()
    try:
        seen: list[str] = []
        if moment == "loading the command line":
            seen = _wait_for_import(proc, "argparse")  # the first import inside main()
        elif moment == "loading the edit modules":
            seen = _wait_for_import(proc, "complex_edit.server.session.events")
        elif moment == "reading stdin":
            assert proc.stdin is not None
            proc.stdin.write(b"rename foo to bar")  # no EOF: the CLI keeps reading
            proc.stdin.flush()
            _wait_for_stdin_read(proc.pid)
        else:
            emulator.wait_for_requests(1, timeout=60)
        proc.send_signal(signal.SIGINT)
        stdout, rest = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        watchdog.cancel()
        release.set()
        proc.kill()
        proc.wait()
    stderr = [*seen, *rest.decode("utf-8", "replace").splitlines()]
    said = [line for line in stderr if _imported(line) is None]
    assert proc.returncode == 130, said
    assert "Traceback" not in "\n".join(said)
    # besides the progress, the one line saying the file is edited alone (no git repository)
    alone = ("complex-edit: Turn ", "complex-edit: the file is in no git repository")
    assert [line for line in said if not line.startswith(alone)] == [INTERRUPTED_LINE]
    assert json.loads(stdout)["reason"] == "cancelled"
    assert path.read_bytes() == DOC
    assert _leftovers(tmp_path) == []
    if moment != "the model call":
        assert emulator.requests == []


def _lsp(stdin: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "complex_edit", "lsp"],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_lsp_on_a_terminal_says_what_it_waits_for_and_stops_on_ctrl_d() -> None:
    leader, follower = pty.openpty()
    proc = _lsp(follower)
    os.close(follower)
    try:
        assert proc.stderr is not None
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        assert ready, "nothing on stderr"
        first = proc.stderr.readline().decode("utf-8")
        assert first.startswith("complex-edit lsp: this is a language server")
        assert "waits for an editor" in first
        assert "Ctrl-C or Ctrl-D to stop" in first
        os.write(leader, b"\x04")  # Ctrl-D: end of input
        stdout, _ = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        os.close(leader)
        proc.kill()
        proc.wait()
    assert proc.returncode == 0
    assert stdout == b""


@pytest.mark.parametrize("stdin", [subprocess.PIPE, subprocess.DEVNULL], ids=["pipe", "devnull"])
def test_lsp_with_no_editor_exits_quietly(stdin: int) -> None:
    """An editor that went away at once, or `complex-edit lsp < /dev/null`: exit 0, no hint,
    and no warning about the session process it no longer needs."""
    proc = _lsp(stdin)
    stdout, stderr = proc.communicate(
        b"" if stdin == subprocess.PIPE else None, timeout=RUN_TIMEOUT
    )
    assert proc.returncode == 0, stderr
    assert stdout == b""
    assert stderr == b""


# ------------------------------------------------------------------------------------------
# --review: hunk by hunk on a terminal
# ------------------------------------------------------------------------------------------

LETTERS = b"alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\nlambda\nmu\n"
QUESTION = b"Keep this change [y,n,a,d,q,?]? "


def _upper(*words: str) -> Reply:
    return calls(*(replace(word, word.upper()) for word in words), done("upper-cased"))


def _review_on_a_terminal(
    emulator: GeminiEmulator, path: Path, answers: list[bytes | None], *args: str, **env: str
) -> tuple[int, str, str]:
    """Run `edit --review` with stdin and stderr on a pseudo-terminal, answering each
    question in turn (None: Ctrl-C); (status, stdout, what the terminal showed)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        cli_command(path.name, ["--prompt", "upper-case", "--review", *args]),
        cwd=path.parent,
        env=cli_env(emulator.base_url, env),
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=follower,
    )
    os.close(follower)
    shown = b""
    try:
        pending = list(answers)
        deadline = time.monotonic() + RUN_TIMEOUT
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1)
            if ready:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:  # the process closed the terminal: it is done
                    break
                if not chunk:
                    break
                shown += chunk
            if pending and shown.count(QUESTION) > len(answers) - len(pending):
                answer = pending.pop(0)
                if answer is None:
                    proc.send_signal(signal.SIGINT)
                else:
                    os.write(leader, answer + b"\n")
        stdout, _ = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        os.close(leader)
        proc.kill()
        proc.wait()
    return proc.returncode, stdout.decode("utf-8"), shown.decode("utf-8", "replace")


def test_review_keeps_one_change_of_two(emulator: GeminiEmulator, tmp_path: Path) -> None:
    path = tmp_path / "letters.txt"
    path.write_bytes(LETTERS)
    emulator.enqueue(_upper("alpha", "lambda"))
    status, stdout, shown = _review_on_a_terminal(emulator, path, [b"y", b"n"])
    assert status == 0, shown
    assert path.read_bytes() == LETTERS.replace(b"alpha", b"ALPHA")
    assert stdout == "Kept 1 of 2 changes.\n"
    assert shown.count("Keep this change [y,n,a,d,q,?]? ") == 2
    assert "(1/2)" in shown
    assert "(2/2)" in shown
    assert "\x1b[32m+ALPHA" in shown  # a terminal, NO_COLOR unset: coloured
    assert _leftovers(tmp_path) == []


def test_review_quit_keeps_only_what_was_decided(emulator: GeminiEmulator, tmp_path: Path) -> None:
    path = tmp_path / "letters.txt"
    path.write_bytes(LETTERS)
    emulator.enqueue(_upper("alpha", "epsilon", "lambda"))
    status, stdout, shown = _review_on_a_terminal(
        emulator, path, [b"y", b"q"], "--json", NO_COLOR="1"
    )
    assert status == 0, shown
    assert path.read_bytes() == LETTERS.replace(b"alpha", b"ALPHA")
    assert shown.count("Keep this change") == 2  # nothing asked after q
    assert "\x1b[" not in shown
    result = json.loads(stdout)
    assert result["success"] is True
    assert result["applied"] is True
    assert result["declined"] == 2
    assert "+ALPHA" in result["diff"]
    assert "EPSILON" not in result["diff"]
    assert "LAMBDA" not in result["diff"]


def test_review_keeping_nothing_writes_nothing(emulator: GeminiEmulator, tmp_path: Path) -> None:
    path = tmp_path / "letters.txt"
    path.write_bytes(LETTERS)
    emulator.enqueue(_upper("alpha", "lambda"))
    status, stdout, shown = _review_on_a_terminal(emulator, path, [b"d"])
    assert status == 0, shown
    assert path.read_bytes() == LETTERS
    assert stdout == "Kept none of 2 changes; the file was not changed.\n"


def test_ctrl_c_during_the_review_writes_nothing(emulator: GeminiEmulator, tmp_path: Path) -> None:
    path = tmp_path / "letters.txt"
    path.write_bytes(LETTERS)
    emulator.enqueue(_upper("alpha", "lambda"))
    status, stdout, shown = _review_on_a_terminal(emulator, path, [b"y", None], "--json")
    assert status == 130, shown
    assert path.read_bytes() == LETTERS
    assert INTERRUPTED_LINE in shown
    assert "Traceback" not in shown
    assert json.loads(stdout)["reason"] == "cancelled"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("extra", [[], ["--dry-run"]])
def test_review_without_a_terminal_is_a_usage_error(
    emulator: GeminiEmulator, tmp_path: Path, extra: list[str]
) -> None:
    path = tmp_path / "letters.txt"
    path.write_bytes(LETTERS)
    proc = subprocess.run(
        cli_command(path.name, ["--prompt", "upper-case", "--review", *extra]),
        cwd=tmp_path,
        env=cli_env(emulator.base_url),
        input=b"",
        capture_output=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert emulator.requests == []
    assert path.read_bytes() == LETTERS
    said = proc.stderr.decode("utf-8")
    if extra:
        assert "--dry-run: not allowed with argument --review" in said
    else:
        assert "asks about each change on a terminal" in said


# ------------------------------------------------------------------------------------------
# issue 20: honest progress and errors
# ------------------------------------------------------------------------------------------


def test_every_json_result_has_a_validation(runs: dict[str, Run]) -> None:
    for name, run in runs.items():
        if "--json" in run.case.args and run.stdout.startswith("{"):
            assert "syntax" in run.json()["validation"], name


def test_a_slow_answer_shows_the_time_waited_and_lands(runs: dict[str, Run]) -> None:
    run = runs["slow.py"]
    assert run.returncode == 0, run.stderr
    assert run.after == RENAMED
    assert len(run.requests) == 1
    assert "complex-edit: Turn 1/8 · waiting for the model · " in run.stderr


def test_a_completion_refused_for_syntax_says_where(runs: dict[str, Run]) -> None:
    run = runs["syntax_refused.py"]
    assert run.returncode == 1, run.stderr
    assert run.untouched
    result = run.json()
    assert result["reason"] == "max_turns"
    assert "line 2" in result["error"]
    assert "return (1" in result["error"]
    assert result["validation"]["syntax"] == "errors"
    assert "✗ complete_task: refused: " in run.stderr
    assert "✓ complete_task" not in run.stderr


def test_a_completion_beside_a_failed_call_shows_as_refused(runs: dict[str, Run]) -> None:
    run = runs["sibling_failed.py"]
    assert run.returncode == 1, run.stderr
    assert "✗ complete_task: refused: 1 other call(s) in this turn failed (replace_text)" in (
        run.stderr
    )
    assert "✓ complete_task" not in run.stderr


def test_both_keys_name_the_one_in_use_in_the_command_s_own_lines(runs: dict[str, Run]) -> None:
    run = runs["both_keys.py"]
    assert run.returncode == 0, run.stderr
    assert "complex-edit: Both GEMINI_API_KEY and GOOGLE_API_KEY are set; using GOOGLE_API_KEY" in (
        run.stderr
    )
    assert all(line.startswith("complex-edit: ") for line in run.stderr.splitlines()), run.stderr
    assert_no_secret(run)


def test_a_thinking_level_the_model_refuses_is_config_before_any_request(
    runs: dict[str, Run],
) -> None:
    run = runs["minimal.py"]
    assert run.returncode == 2, run.stderr
    assert run.requests == []
    result = run.json()
    assert result["reason"] == "config"
    assert "thinkingLevel" in result["error"]
