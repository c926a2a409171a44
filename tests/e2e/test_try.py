"""`complex-edit try` end to end: the real command in a process with no key and (where the
machine allows a network namespace) no network but its own loopback; `--editor` with stand-in
editors on PATH that talk to the replay while they run; the Emacs set-up evaluated by a real
Emacs, and a real terminal Emacs driven through `try --editor emacs` on a pseudo-terminal; and
Neovim for real, headless, through the command line `try --editor nvim` runs."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import signal
import stat
import struct
import subprocess
import sys
import termios
import threading
import time
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.demo.editors import client_folder, command_line
from complex_edit.server.demo.recording import ACROSS, load_recording, sample_bytes
from complex_edit.server.demo.run import sample_at_replay
from tests.e2e.emacs_terminal import find_emacs, missing_packages
from tests.fakes.rawlsp import ambient_free_env

TIMEOUT = 120
CLOSED_PORT = "http://127.0.0.1:9"
NVIM_SCRIPT = Path(__file__).resolve().parent / "nvim_plugin" / "try_editor.lua"


def _edited_sample() -> str:
    recording = load_recording()
    (replace,), _ = recording.turns
    text = sample_bytes(recording).decode("utf-8")
    return text.replace(replace.args["old_text"], replace.args["new_text"])


def _keyless_env(tmp_path: Path) -> dict[str, str]:
    """No key or model setting of any provider; every proxy a closed port (a request that
    leaves 127.0.0.1 fails); temporary folders inside the test's own."""
    env = ambient_free_env()
    assert not any(name.endswith(("_API_KEY", "_AUTH_TOKEN")) for name in env)
    env.update(
        TMPDIR=str(tmp_path),
        HTTP_PROXY=CLOSED_PORT,
        HTTPS_PROXY=CLOSED_PORT,
        ALL_PROXY=CLOSED_PORT,
        http_proxy=CLOSED_PORT,
        https_proxy=CLOSED_PORT,
    )
    return env


@cache
def _offline_prefix() -> tuple[str, ...]:
    """Runs a command in a new network namespace holding only a loopback interface, when this
    machine allows one (unshare and ip; a user namespace when not root); else nothing."""
    unshare, ip = shutil.which("unshare"), shutil.which("ip")
    if unshare is None or ip is None:
        return ()
    prefix = (unshare, "-rn", "sh", "-c", f'"{ip}" link set lo up && exec "$@"', "sh")
    probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=30, check=False)
    return prefix if probe.returncode == 0 else ()


def _try(
    tmp_path: Path, env: dict[str, str], *args: str, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "complex_edit", "try", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_try_edits_a_copy_of_the_sample_with_no_key_and_no_network(tmp_path: Path) -> None:
    proc = _try(tmp_path, _keyless_env(tmp_path), "--keep", prefix=_offline_prefix())
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 0, err
    (edited,) = tmp_path.glob("complex-edit-try-*/inventory.py")
    assert edited.read_text(encoding="utf-8") == _edited_sample()
    assert f"File:        {edited}" in out
    assert "answers are replayed from a recording" in out
    assert "no key is used" in out
    assert "--- a/inventory.py\n+++ b/inventory.py\n@@ " in out
    assert "+    def reorder_list(self, threshold: int = 5) -> list[str]:\n" in out
    assert "Validation:  python syntax ok" in out
    assert "reorder_list takes a threshold" in out
    assert "Those answers were replayed. Next:" in out
    assert "GEMINI_API_KEY" in out  # the next steps: a key, a local model, an editor
    assert "--provider openai --base-url http://localhost:11434/v1" in out
    assert "complex-edit try --editor nvim|emacs|code" in out
    # Progress as `complex-edit edit` shows it, with the running count of lines.
    assert "complex-edit: Turn 1/8 · waiting for the model…\n" in err
    assert "complex-edit: Turn 1/8 · +8 −3 lines so far\n" in err
    assert "complex-edit: Turn 2/8 · +8 −3 lines · last turn: replace_text · waiting" in err
    assert "Traceback" not in err


def test_the_offline_run_is_really_offline() -> None:
    """What the test above relies on, where the machine allows it: nothing but loopback."""
    prefix = _offline_prefix()
    if not prefix:
        pytest.skip("no network namespace here (unshare -rn); proxies point at a closed port")
    probe = subprocess.run(
        [
            *prefix,
            sys.executable,
            "-c",
            "import socket; socket.create_connection(('1.1.1.1', 53), 2)",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert probe.returncode != 0
    assert "unreachable" in probe.stderr.lower() or "OSError" in probe.stderr


# A stand-in editor: records how it was started and asks the replay something while it runs.
STAND_IN = """#!{python}
import json, os, sys, urllib.request
folder = os.getcwd()
body = json.dumps({{"contents": [{{"role": "user", "parts": [{{"text": "another file"}}]}}]}})
url = os.environ["COMPLEX_EDIT_BASE_URL"] + "/v1beta/models/m:generateContent"
request = urllib.request.Request(url, body.encode(), {{"Content-Type": "application/json"}})
answer = json.load(urllib.request.urlopen(request, timeout=10))
settings = os.path.join(folder, ".vscode", "settings.json")
report = {{
    "argv": sys.argv[1:],
    "cwd": folder,
    "env": {{k: v for k, v in os.environ.items() if k.startswith(("COMPLEX_EDIT_", "GEMINI_"))}},
    "answer": answer["candidates"][0]["content"]["parts"][0]["functionCall"],
    "settings": json.load(open(settings)) if os.path.exists(settings) else None,
}}
with open(os.environ["STAND_IN_REPORT"], "w") as out:
    json.dump(report, out)
"""


@pytest.mark.parametrize("editor", ["code", "emacs"])
def test_try_in_an_editor_starts_it_at_the_sample_with_the_replay_running(
    editor: str, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / editor
    stand_in.write_text(STAND_IN.format(python=sys.executable), encoding="utf-8")
    stand_in.chmod(stand_in.stat().st_mode | stat.S_IXUSR)
    env = _keyless_env(tmp_path)
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env['PATH']}",
        STAND_IN_REPORT=str(tmp_path / "report.json"),
        GEMINI_API_KEY="a-key-the-editor-must-not-get",
    )
    proc = _try(tmp_path, env, "--editor", editor, "--keep")
    assert proc.returncode == 0, proc.stderr
    (sample,) = tmp_path.glob("complex-edit-try-*/inventory.py")
    report: dict[str, Any] = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["cwd"] == str(sample.parent)
    assert report["argv"][-1] == str(sample)
    assert report["env"]["COMPLEX_EDIT_BASE_URL"].startswith("http://127.0.0.1:")
    assert report["env"]["COMPLEX_EDIT_PROVIDER"] == "gemini"
    assert "GEMINI_API_KEY" not in report["env"]
    assert report["answer"]["name"] == "complete_task"  # the replay answered, while it ran
    assert load_recording().instruction in report["answer"]["args"]["error"]
    assert sample.read_bytes() == sample_bytes(load_recording())  # the editor changed nothing
    assert "replayed from a recording" in proc.stdout
    assert load_recording().instruction in proc.stdout
    if editor == "code":
        assert report["argv"][:3] == ["--new-window", "--wait", str(sample.parent)]
        assert report["settings"]["complexEdit.baseUrl"] == report["env"]["COMPLEX_EDIT_BASE_URL"]
    else:
        assert report["argv"][:2] == ["-q", "--eval"]


def test_try_with_an_editor_that_is_not_installed_says_so(tmp_path: Path) -> None:
    env = _keyless_env(tmp_path)
    env["PATH"] = str(tmp_path)  # no editor anywhere
    proc = _try(tmp_path, env, "--editor", "emacs")
    assert proc.returncode == 2
    assert "Emacs (emacs) is not on PATH" in proc.stderr


def test_the_emacs_set_up_loads_the_package_and_points_it_at_the_replay(tmp_path: Path) -> None:
    emacs = find_emacs()
    if emacs is None or missing_packages(emacs, ("eglot",)):
        pytest.skip("no Emacs with eglot here: apt-get install emacs-nox elpa-eglot")
    plan = command_line(
        "emacs",
        tmp_path / "inventory.py",
        "http://127.0.0.1:8123",
        "do it",
        program=emacs,
        client=client_folder("emacs"),
        env=ambient_free_env(),
    )
    _, quick, evaluate, setup, _ = plan.argv
    show = (
        "(princ (json-encode (list complex-edit-executable complex-edit-server-args"
        " complex-edit-settings (car complex-edit-instruction-history)"
        " (and (assoc '(python-mode python-ts-mode) eglot-server-programs) t))))"
    )
    run = subprocess.run(
        [emacs, "--batch", quick, evaluate, setup, "--eval", show],
        env={**plan.env, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    executable, args, settings, history, registered = json.loads(run.stdout)
    assert [executable, *args] == [sys.executable, "-P", "-m", "complex_edit", "lsp"]
    assert settings == {
        "provider": "gemini",
        "baseUrl": "http://127.0.0.1:8123",
        "otherFiles": "off",
    }
    assert history == "do it"
    assert registered is True


def _neovim_through_try(nvim: str, tmp_path: Path, *, across: bool) -> tuple[Any, Any, str]:
    """`try --editor nvim`'s own command line for the sample (`across`: the second one, in a
    project folder), run headless with NVIM_SCRIPT: (what was tried, the report, stderr)."""
    env = ambient_free_env()
    xdg = tmp_path / "xdg"
    env.update(
        XDG_STATE_HOME=str(xdg / "state"),
        XDG_DATA_HOME=str(xdg / "data"),
        XDG_CONFIG_HOME=str(xdg / "config"),
        XDG_CACHE_HOME=str(xdg / "cache"),
    )
    with sample_at_replay(tmp_path, across=across) as tried:
        if across:
            (tried.folder / ".git").mkdir()  # a project: Neovim announces the folder
        plan = command_line(
            "nvim",
            tried.path,
            tried.base_url,
            tried.recording.instruction,
            program=nvim,
            client=client_folder("nvim"),
            env=env,
            other_files=across,
        )
        program, *args = plan.argv
        report_path = tmp_path / "report.json"
        run = subprocess.run(
            [program, "--headless", *args[:-1], "-c", f"luafile {NVIM_SCRIPT}", args[-1]],
            cwd=tried.folder,
            env={**plan.env, "CE_TRY_REPORT": str(report_path)},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert report_path.exists(), run.stdout + run.stderr
        report = json.loads(report_path.read_text(encoding="utf-8"))
    return tried, report, run.stderr


@pytest.mark.nvim
def test_neovim_through_try_s_command_line_lands_the_edit_as_one_undo_step(
    nvim: str, tmp_path: Path
) -> None:
    tried, report, stderr = _neovim_through_try(nvim, tmp_path, across=False)
    assert report.get("error") is None, (report, stderr)
    original = sample_bytes(tried.recording).decode("utf-8")
    assert report["filetype"] == "python"
    assert report["cmdline"] == f"ComplexEdit {tried.recording.instruction}"
    assert report["before"] + "\n" == original
    assert report["after"] + "\n" == _edited_sample()
    assert report["modified"] is True  # in the buffer, not yet written
    assert report["undone"] == report["before"]  # one undo step
    assert any("reorder_list takes a threshold" in text for text in report["notifications"])
    assert tried.path.read_text(encoding="utf-8") == original


class _Terminal:
    """`complex-edit try --editor emacs` on a pseudo-terminal, as a person runs it; what it
    shows is drained and searched as plain bytes."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        pid, master = pty.fork()
        if pid == 0:  # the child: a wide screen, so that messages are not wrapped
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 220, 0, 0))
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        self.pid, self.master = pid, master
        self.screen = bytearray()
        self.status: int | None = None
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.screen.extend(chunk)

    def wait_for(self, text: str, within: float = 60) -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if text.encode() in self.screen:
                return
            time.sleep(0.05)
        shown = self.screen[-2000:].decode("utf-8", "replace")
        raise AssertionError(f"{text!r} not shown within {within} s: {shown!r}")

    def keys(self, *typed: bytes) -> None:
        for key in typed:
            os.write(self.master, key)
            time.sleep(0.05)

    def wait_exit(self, within: float = 30) -> int:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
            time.sleep(0.05)
        raise AssertionError("complex-edit try did not exit after Emacs was left")

    def close(self) -> None:
        if self.status is None:  # a failed test: end try, Emacs and its server together
            os.killpg(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.master)


@pytest.mark.emacs
def test_emacs_through_try_lands_the_edit_and_saves_it(tmp_path: Path) -> None:
    emacs = find_emacs()
    if emacs is None or missing_packages(emacs, ("eglot",)):
        pytest.skip("no Emacs with eglot here: apt-get install emacs-nox elpa-eglot")
    env = _keyless_env(tmp_path)
    env.update(TERM="xterm", HOME=str(tmp_path))
    env.pop("DISPLAY", None)
    terminal = _Terminal(
        [sys.executable, "-m", "complex_edit", "try", "--editor", "emacs", "--keep"], env, tmp_path
    )
    try:
        terminal.wait_for("[eglot] Connected!")
        terminal.keys(b"\x1bx", b"complex-edit\r")
        terminal.wait_for("Complex Edit: ")
        terminal.keys(b"\x1bp", b"\r")  # M-p: the sample's instruction, from the history
        terminal.wait_for("takes a threshold (default 5)")
        terminal.keys(b"\x18", b"\x13")  # C-x C-s
        terminal.wait_for("Wrote ")
        terminal.keys(b"\x18", b"\x03")  # C-x C-c
        status = terminal.wait_exit()
    finally:
        terminal.close()
    assert status == 0, terminal.screen[-2000:]
    (sample,) = tmp_path.glob("complex-edit-try-*/inventory.py")
    assert sample.read_text(encoding="utf-8") == _edited_sample()
    assert b"Emacs exited; the sample stays at" in terminal.screen


# -- issue 38: try --other-files, the folder removed unless --keep, full paths ---------------


def _edited_across() -> dict[str, str]:
    """The three files of the second sample as its recording leaves them."""
    recording = load_recording(ACROSS)
    return {
        name: sample_bytes(recording, name).decode("utf-8").replace("total_price", "order_total")
        for name in (recording.file, *recording.others)
    }


def test_try_other_files_edits_three_files_with_no_key(tmp_path: Path) -> None:
    proc = _try(
        tmp_path, _keyless_env(tmp_path), "--other-files", "--keep", prefix=_offline_prefix()
    )
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 0, err
    (folder,) = tmp_path.glob("complex-edit-try-*")
    for name, text in _edited_across().items():
        assert (folder / name).read_text(encoding="utf-8") == text, name
    assert "one real edit of three files" in out
    assert "Beside it:   invoice.py, report.py" in out
    # The combined diff: one section per file, the command's own first.
    headers = [line for line in out.splitlines() if line.startswith("--- a/")]
    assert headers == ["--- a/orders.py", "--- a/invoice.py", "--- a/report.py"]
    assert "+def order_total(lines: list[Line], discount: float = 0.0) -> float:" in out
    assert "+    return max(orders, key=order_total)" in out
    assert f"Written to:  orders.py, invoice.py, report.py in {folder}; the sample stays" in out
    assert "complex-edit: Turn 1/8 · find_in_files 'total_price'" in err
    assert "in report.py" in err
    # Next steps name the executable by its full path.
    program = str(Path(sys.executable).parent / "complex-edit")
    assert f"{program} edit {folder / 'orders.py'} --prompt" in out
    assert "--other-files edit" in out
    assert f"{program} try --editor nvim|emacs|code --other-files" in out
    assert "Traceback" not in err


def test_try_removes_its_folder_on_exit_unless_keep(tmp_path: Path) -> None:
    proc = _try(tmp_path, _keyless_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.glob("complex-edit-try-*")) == []
    assert "the folder is removed as try exits (complex-edit try --keep keeps it)" in proc.stdout
    assert "edit YOUR_FILE.py --prompt" in proc.stdout  # not a path that is gone
    assert "An edit of three files: " in proc.stdout
    assert "complex-edit try --other-files\n" in proc.stdout


def test_try_other_files_in_an_editor_allows_other_files(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / "code"
    stand_in.write_text(STAND_IN.format(python=sys.executable), encoding="utf-8")
    stand_in.chmod(stand_in.stat().st_mode | stat.S_IXUSR)
    env = _keyless_env(tmp_path)
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", STAND_IN_REPORT=str(tmp_path / "report.json")
    )
    proc = _try(tmp_path, env, "--editor", "code", "--other-files")
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["settings"]["complexEdit.otherFiles"] == "edit"
    assert report["argv"][-1].endswith("/orders.py")
    assert load_recording(ACROSS).instruction in proc.stdout
    assert list(tmp_path.glob("complex-edit-try-*")) == []  # removed when the editor exited
    assert "VS Code exited; the folder is removed as try exits" in proc.stdout


@pytest.mark.nvim
def test_neovim_through_try_other_files_lands_all_three_files(nvim: str, tmp_path: Path) -> None:
    _, report, stderr = _neovim_through_try(nvim, tmp_path, across=True)
    assert report.get("error") is None, (report, stderr)
    edited = _edited_across()
    assert report["after"] + "\n" == edited["orders.py"]
    assert report["others"]["invoice.py"] + "\n" == edited["invoice.py"]
    assert report["others"]["report.py"] + "\n" == edited["report.py"]
