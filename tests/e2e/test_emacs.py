"""End to end through a real terminal Emacs: `emacs -nw` in a pseudo-terminal, typed at like a
person, with emacs-client/ set up through eglot (Debian's emacs-nox 28.2 + elpa-eglot 1.9) or
lsp-mode, the real `complex-edit lsp` from this venv and the real google-genai SDK pointed at
the local Gemini emulator.

Each case writes a file, scripts the model, starts Emacs on it (tests/e2e/emacs/harness.el
reports events as JSON lines), types `M-x complex-edit RET instruction RET` (or the review,
cancel, undo, save keys) and checks the buffer's text and the file's bytes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY
from tests.e2e.emacs_terminal import (
    CLIENT_DIR,
    SETUP_REQUIRE,
    SETUP_USE_PACKAGE,
    EmacsTerminal,
    find_emacs,
    missing_packages,
    readme_setup,
    server_executable,
)
from tests.editor.turns import calls, done, replace, request_text
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply

pytestmark = pytest.mark.emacs

HOLD_TIMEOUT = 15.0  # how long a held model reply waits for the test's go-ahead


@pytest.fixture(scope="module")
def emacs() -> str:
    found = find_emacs()
    if found is None:
        pytest.skip("no emacs on PATH: apt-get install emacs-nox elpa-eglot (.ci/run does)")
    if missing := missing_packages(found, ("eglot",)):
        pytest.skip(f"this Emacs cannot load {', '.join(missing)}: apt-get install elpa-eglot")
    if not server_executable().exists():
        pytest.skip(f"no {server_executable()}: pip install -e . into this venv")
    return found


@pytest.fixture(scope="module")
def lsp_mode(emacs: str) -> str:
    if missing_packages(emacs, ("lsp-mode",)):
        pytest.skip("this Emacs cannot load lsp-mode: apt-get install elpa-lsp-mode")
    return emacs


@pytest.fixture(params=["eglot", "lsp-mode"])
def either(request: pytest.FixtureRequest) -> str:
    """Each backend in turn (lsp-mode skipped without it)."""
    if request.param == "lsp-mode":
        request.getfixturevalue("lsp_mode")
    return str(request.param)


Start = Callable[..., EmacsTerminal]


@pytest.fixture
def start(emacs: str, emulator: GeminiEmulator, tmp_path: Path) -> Iterator[Start]:
    """`start(content, name=..., backend=...)`: Emacs on a new file, its server ready."""
    terminals: list[EmacsTerminal] = []

    def run(
        content: bytes,
        name: str = "doc.py",
        backend: str = "eglot",
        setup: str = SETUP_REQUIRE,
        elisp: str = "",
        git: bool = True,
    ) -> EmacsTerminal:
        project = tmp_path / "project"
        project.mkdir(exist_ok=True)
        if git:  # a project, as eglot sees one (else its "transient" project: no workspace)
            subprocess.run(["git", "init", "-q", str(project)], check=True)
        file = project / name
        file.write_bytes(content)
        out = tmp_path / f"out{len(terminals)}"
        out.mkdir()
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("COMPLEX_EDIT_", "GOOGLE_", "GEMINI_", "XDG_"))
        }
        env.update(
            HOME=str(tmp_path / "home"),
            TERM="xterm-256color",
            LANG="C.UTF-8",
            GEMINI_API_KEY=TEST_KEY,
            GOOGLE_GEMINI_BASE_URL=emulator.base_url,
            COMPLEX_EDIT_CHECKERS="off",  # the tests of Checks turn them on
            CE_TEST_INIT=str(readme_setup(setup, out)),
            CE_TEST_EXE=str(server_executable()),
            CE_TEST_OUT=str(out),
            CE_TEST_BACKEND=backend,
            CE_TEST_EVAL=f"(progn {elisp})",
        )
        terminal = EmacsTerminal(emacs, file, out, env)
        terminals.append(terminal)
        terminal.wait_event("ready", within=30)
        return terminal

    yield run
    for terminal in terminals:
        terminal.close()
    assert not emulator.problems, f"unscripted model requests: {emulator.problems}"


def held(go: threading.Event, reply: Reply) -> Callable[[RecordedRequest], Reply]:
    """A responder that answers once the test sets `go` (the model "works" until then)."""

    def respond(request: RecordedRequest) -> Reply:
        go.wait(HOLD_TIMEOUT)
        return reply

    return respond


GREETING = 'def greet(name):\n    return "Hello, " + name\n\n\nprint(greet("world"))\n'


# --- an edit, and one undo ----------------------------------------------------------------


def test_an_edit_lands_and_one_undo_takes_back_exactly_it(
    start: Start, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(calls(replace('"Hello, "', '"Hi there, "'), done("greeting changed")))
    emacs = start(GREETING.encode())

    emacs.command("complex-edit", "say hi there instead of hello")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["answer"]["applied"] is True, answer
    assert answer["answer"]["message"] == "greeting changed", answer
    assert answer["answer"].get("confirmed") is not False, answer
    assert answer["text"] == GREETING.replace('"Hello, "', '"Hi there, "')
    (request,) = emulator.requests
    assert "say hi there instead of hello" in request_text(request)

    emacs.keys("C-_")
    state = emacs.dump()
    assert state["text"] == GREETING
    assert state["modified"] is False, "one undo did not return to the visited file's text"


def test_a_crlf_file_keeps_its_line_endings_on_disk(
    start: Start, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = b"alpha = 1\r\nbeta = 2\r\ngamma = 3\r\nomega = 4\r\n"
    emulator.enqueue(
        calls(replace("beta = 2\ngamma = 3", "beta = 20\ngamma = 3\ndelta = 35"), done())
    )
    emacs = start(original, name="crlf.txt")

    emacs.command("complex-edit", "add delta")
    answer = emacs.wait_event("done")
    emacs.keys("\x18\x13")  # C-x C-s
    state = emacs.dump()

    assert answer["answer"]["success"] is True, answer
    # Emacs decodes CRLF: the buffer (and the server) hold LF text, the file keeps CRLF.
    assert answer["text"] == "alpha = 1\nbeta = 20\ngamma = 3\ndelta = 35\nomega = 4\n"
    assert state["coding"].endswith("-dos"), state
    expected = b"alpha = 1\r\nbeta = 20\r\ngamma = 3\r\ndelta = 35\r\nomega = 4\r\n"
    deadline = time.monotonic() + 5
    while (tmp_path / "project" / "crlf.txt").read_bytes() != expected:
        assert time.monotonic() < deadline, (tmp_path / "project" / "crlf.txt").read_bytes()
        time.sleep(0.02)


def test_the_region_is_the_range(start: Start, emulator: GeminiEmulator) -> None:
    emulator.enqueue(calls(replace("two\nthree", "TWO\nTHREE"), done()))
    emacs = start(b"one\ntwo\nthree\nfour\nfive\n", name="r.txt")

    # M-< C-n C-SPC C-n C-n: lines 2 and 3 selected.
    emacs.keys("\x1b<", "\x0e", "C-SPC", "\x0e", "\x0e")
    emacs.command("complex-edit", "uppercase this")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["text"] == "one\nTWO\nTHREE\nfour\nfive\n"
    assert "lines 2-3" in request_text(emulator.requests[0])


def test_c_u_complex_edit_is_an_edit_across_files_the_server_takes(
    start: Start, emulator: GeminiEmulator
) -> None:
    """`C-u M-x complex-edit` sends `otherFiles: "edit"`: eglot announces `documentChanges`, so
    the server takes it (an editor without them is refused before any model call), and the
    edit lands; a change of this buffer alone names no other file."""
    emulator.enqueue(calls(replace("beta = 2", "beta = 20"), done("bumped")))
    original = "alpha = 1\nbeta = 2\n"
    emacs = start(original.encode(), name="u.txt")

    emacs.keys("\x15", "M-x", "complex-edit", "RET")  # C-u M-x complex-edit
    emacs.wait_screen("(across files): ")  # the prompt (the terminal redraws only what changed)
    emacs.keys("bump beta", "RET")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["text"] == original.replace("beta = 2", "beta = 20")
    assert len(emulator.requests) == 1


# --- typing while the model works -----------------------------------------------------------


def test_typing_during_the_run_is_kept_and_undo_takes_back_only_the_edit(
    start: Start, emulator: GeminiEmulator
) -> None:
    go = threading.Event()
    emulator.set_responder(held(go, calls(replace("return x + y", "return x * y"), done())))
    original = "x = 1\ny = 2\n\ndef f():\n    return x + y\n"
    emacs = start(original.encode())

    emacs.command("complex-edit", "multiply instead")
    emulator.wait_for_requests(1, timeout=15)
    # The mode line shows the run, with the server's own progress (eglot 1.9 shows none).
    emacs.wait_screen("Complex Edit: running")
    progress = emacs.wait_event("progress", where=lambda e: "Turn 1/8" in e["mode_line"])
    assert "Complex Edit: running" in progress["mode_line"], progress
    emacs.keys("\x1b<", "# typed while it ran", "RET")  # Emacs stays usable
    emacs.wait_event("changes")  # eglot sent the typing to the server (its idle timer)
    time.sleep(0.1)  # the server reads that didChange before the model's answer
    go.set()
    answer = emacs.wait_event("done")

    typed = "# typed while it ran\n"
    assert answer["answer"]["success"] is True, answer
    assert answer["text"] == typed + original.replace("x + y", "x * y")
    emacs.keys("C-_")
    assert emacs.dump()["text"] == typed + original


# --- review ---------------------------------------------------------------------------------


def test_a_review_keeps_one_of_two_changes(start: Start, emulator: GeminiEmulator) -> None:
    emulator.enqueue(
        calls(replace("beta = 2", "beta = 20"), replace("delta = 4", "delta = 40"), done("bumped"))
    )
    original = "alpha = 1\nbeta = 2\ngamma = 3\ndelta = 4\nomega = 5\n"
    emacs = start(original.encode(), name="f.txt")

    emacs.command("complex-edit-review", "bump")
    review = emacs.wait_event("review")
    assert review["count"] == 2, review
    assert emacs.dump()["text"] == original  # shown, not written
    emacs.keys("y", "n")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["answer"]["applied"] is True, answer
    assert answer["answer"]["kept"] == 1, answer
    assert answer["answer"]["declined"] == 1, answer
    assert answer["text"] == original.replace("beta = 2", "beta = 20")
    emacs.keys("C-_")
    assert emacs.dump()["text"] == original


# --- the README's use-package block ---------------------------------------------------------


def test_the_readmes_use_package_block_sets_it_up(
    start: Start, emulator: GeminiEmulator, emacs: str
) -> None:
    """The block for `use-package` (built into Emacs 29+, elpa-use-package on 28) loads the
    package eagerly, so eglot finds it registered; an edit then lands as with `require`."""
    if missing_packages(emacs, ("use-package",)):
        pytest.skip("this Emacs has no use-package: apt-get install elpa-use-package")
    emulator.enqueue(calls(replace('"Hello, "', '"Hi there, "'), done("greeting changed")))
    emacs_ = start(GREETING.encode(), setup=SETUP_USE_PACKAGE)

    emacs_.command("complex-edit", "say hi there instead of hello")
    answer = emacs_.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["text"] == GREETING.replace('"Hello, "', '"Hi there, "')


# --- cancel ---------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["C-g", "M-x complex-edit-cancel"])
def test_cancel_applies_nothing(start: Start, emulator: GeminiEmulator, how: str) -> None:
    release = threading.Event()
    emulator.enqueue(Reply.hang(release=release, then=calls(replace("gamma", "GAMMA"), done())))
    original = "alpha\nbeta\ngamma\n"
    emacs = start(original.encode(), name="c.txt")

    emacs.command("complex-edit", "shout gamma")
    emulator.wait_for_requests(1, timeout=15)
    if how == "C-g":
        emacs.keys("C-g")
    else:
        emacs.command("complex-edit-cancel")
    answer = emacs.wait_event("done")
    # The server aborted the model call; even if the model answers now, nothing lands.
    assert emulator.wait_for_disconnect(timeout=10), f"the model call was not aborted: {answer}"
    release.set()

    assert answer["answer"]["success"] is False, answer
    assert answer["answer"]["reason"] == "cancelled", answer
    assert answer["answer"]["error"] == "cancelled; nothing was applied", answer
    assert answer["echo"] == "Complex Edit: cancelled; nothing was applied", answer
    assert answer["text"] == original
    state = emacs.dump()
    assert state["text"] == original
    assert state["modified"] is False


# --- eglot's own blocking command ------------------------------------------------------------


def test_eglots_own_blocking_command_is_answered_unconfirmed_at_once(
    start: Start, emulator: GeminiEmulator
) -> None:
    """Through eglot's own server class, `eglot-execute-command` blocks: eglot can report the
    change only after the answer, also once its "Proceed?" is answered. The answer says
    success, not yet confirmed, and comes at once (not after the 5 s wait for a report); the
    report then confirms it quietly."""
    emulator.enqueue(calls(replace('"Hello, "', '"Hi there, "'), done("greeting changed")))
    emacs = start(GREETING.encode(), backend="eglot-plain")

    emacs.command("ce-test-execute", "say hi there instead of hello")
    emacs.wait_screen("Proceed?")  # eglot's own confirmation of a server edit
    began = time.monotonic()
    emacs.keys("y")
    executed = emacs.wait_event("executed")
    took = time.monotonic() - began

    answer = executed["answer"]
    assert answer["success"] is True, answer
    assert answer["applied"] is True, answer
    assert answer["confirmed"] is False, answer
    assert executed["text"] == GREETING.replace('"Hello, "', '"Hi there, "')
    assert took < 4.0, f"answered after {took:.1f} s"
    # The report, from eglot's idle timer, confirmed in the server's log; nothing shown.
    emacs.wait_event("window/logMessage", where=lambda e: "confirmed" in e["message"])
    assert not [e for e in emacs.events() if e["event"] == "window/showMessage"]


def test_eglots_own_blocking_command_with_the_package_is_confirmed(
    start: Start, emulator: GeminiEmulator
) -> None:
    """The package's server class reports the change before it answers the edit: a blocking
    `eglot-execute-command` gets a confirmed success."""
    emulator.enqueue(calls(replace('"Hello, "', '"Hi there, "'), done("greeting changed")))
    emacs = start(GREETING.encode())

    emacs.command("ce-test-execute", "say hi there instead of hello")
    answer = emacs.wait_event("executed")["answer"]

    assert answer["success"] is True, answer
    assert answer.get("confirmed") is not False, answer


# --- an edit of two files, one not visited (issue 28) ---------------------------------------

CALLER = b"from doc import greet\n\ngreet('you')\n"


def rename_across(emulator: GeminiEmulator, tmp_path: Path) -> Path:
    """Script a rename of greet in doc.py and in caller.py (a file not visited); caller.py."""
    caller = tmp_path / "project" / "caller.py"
    caller.parent.mkdir(parents=True, exist_ok=True)
    caller.write_bytes(CALLER)
    emulator.enqueue(
        calls(
            replace("def greet", "def welcome"),
            replace("greet(", "welcome(", replace_all=True),
            (
                "replace_text",
                {
                    "path": "caller.py",
                    "old_text": "greet",
                    "new_text": "welcome",
                    "replace_all": True,
                },
            ),
            done("renamed"),
        )
    )
    return caller


def caller_buffer(event: dict[str, object], caller: Path) -> dict[str, object]:
    (other,) = [o for o in event["others"] if o["name"] == str(caller)]  # type: ignore[attr-defined]
    return other  # type: ignore[no-any-return]


@pytest.mark.parametrize("backend", ["eglot", "eglot-plain", "lsp-mode"])
def test_an_edit_of_two_files_one_not_visited(
    start: Start,
    emulator: GeminiEmulator,
    tmp_path: Path,
    backend: str,
    request: pytest.FixtureRequest,
) -> None:
    """eglot 1.9's own class asks before an edit of a file not visited (whatever the
    settings), visits it (`find-file-noselect`), which its managed mode takes over (`didOpen`
    of the text on disk), then edits it (the `didChange`), left unsaved. The package's server
    class visits the file first, so eglot asks nothing, and reports the changes before the
    answer: confirmed in both files; with eglot's own, after it: applied, not yet confirmed.
    lsp-mode visits the file and edits it, and the harness's `lsp` starts in that buffer (its
    `didOpen`) while the answer waits for the report."""
    if backend == "lsp-mode":
        request.getfixturevalue("lsp_mode")  # skips without lsp-mode
    caller = rename_across(emulator, tmp_path)
    emacs = start(GREETING.encode(), backend=backend)
    emacs.command("ce-test-execute-across", "rename greet to welcome everywhere")
    if backend == "eglot-plain":
        emacs.wait_screen("Proceed?")  # eglot asks before it edits a file not visited
        emacs.keys("y")
    executed = emacs.wait_event("executed")
    if backend != "eglot-plain":
        assert b"Proceed?" not in emacs.screen, "the package let eglot ask"
    answer = executed["answer"]
    assert answer["success"] is True, answer
    assert answer["applied"] is True, answer
    assert executed["text"] == GREETING.replace("greet", "welcome")
    (other,) = executed["others"]
    assert other["name"] == str(caller)
    assert other["text"] == "from doc import welcome\n\nwelcome('you')\n"
    assert other["modified"] is True
    assert caller.read_bytes() == b"from doc import greet\n\ngreet('you')\n"
    entries = {e["uri"].rsplit("/", 1)[-1]: e for e in answer["documents"]}
    assert [entries["doc.py"]["applied"], entries["caller.py"]["applied"]] == [True, True]
    if backend == "eglot-plain":
        assert answer["confirmed"] is False, answer
    else:
        assert answer.get("confirmed") is not False, answer


# --- lsp-mode ----------------------------------------------------------------------------


def test_lsp_mode_edit_lands_as_one_undo_step(
    lsp_mode: str, start: Start, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(calls(replace("beta = 2", "beta = 20"), done("bumped")))
    original = "alpha = 1\nbeta = 2\ngamma = 3\n"
    emacs = start(original.encode(), name="l.txt", backend="lsp-mode")

    emacs.command("complex-edit", "bump beta")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["text"] == original.replace("beta = 2", "beta = 20")
    emacs.keys("C-_")
    assert emacs.dump()["text"] == original


def test_lsp_mode_edit_after_an_emoji_lands_where_it_belongs(
    lsp_mode: str, start: Start, emulator: GeminiEmulator
) -> None:
    """lsp-mode 8.0 counts columns in code points: what it reports of typing after an emoji is
    read so, and the edit on a line with emoji before it (sent as whole lines) lands right."""
    emulator.enqueue(calls(replace("old_name(1)", "new_name(1)"), done("renamed")))
    original = 'E = "🎉🎉"; V = old_name(1)\nsmile = "😀"\n'
    emacs = start(original.encode(), name="e.txt", backend="lsp-mode")

    emacs.keys("\x05", "  # typed")  # C-e: the end of the first line
    emacs.command("complex-edit", "rename old_name")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    typed = original.replace("old_name(1)", "old_name(1)  # typed")
    assert answer["text"] == typed.replace("old_name", "new_name")


# --- the doctor ---------------------------------------------------------------------------


def doctor(emacs: str, executable: str, env: dict[str, str]) -> list[list[str]]:
    script = (
        f"(progn (add-to-list 'load-path {json.dumps(str(CLIENT_DIR))})"
        " (require 'complex-edit-doctor)"
        f" (setq complex-edit-executable {json.dumps(executable)})"
        " (princ (json-encode (vconcat (mapcar #'vconcat (complex-edit-doctor-checks))))))"
    )
    run = subprocess.run(
        [emacs, "--batch", "-q", "--eval", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    checks: list[list[str]] = json.loads(run.stdout)
    return checks


def test_the_doctor_checks_the_executable_the_key_and_the_server(
    emacs: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))}
    env.update(HOME=str(tmp_path), GEMINI_API_KEY=TEST_KEY)

    good = doctor(emacs, str(server_executable()), env)

    assert ["ok", f"Executable {server_executable()}"] in good, good
    assert any(
        level == "ok" and text.startswith("Version: complex-edit") for level, text, *_ in good
    )
    # No server attached: the key checks are those of `complex-edit doctor`, run by Emacs.
    assert any(level == "info" and "No server attached" in text for level, text, *_ in good)
    assert ["ok", "API key set: GEMINI_API_KEY"] in good, good
    assert any(level == "warn" and "No complex-edit server" in text for level, text, *_ in good)
    assert TEST_KEY not in json.dumps(good)

    del env["GEMINI_API_KEY"]
    keyless = doctor(emacs, str(server_executable()), env)

    assert any(level == "warn" and text.startswith("No API key") for level, text, *_ in keyless)

    env["GOOGLE_GEMINI_BASE_URL"] = "http://127.0.0.1:9"  # a local proxy: no key needed
    proxied = doctor(emacs, str(server_executable()), env)

    assert any(
        level == "info" and text.startswith("No GEMINI_API_KEY: not needed with a base URL")
        for level, text, *_ in proxied
    ), proxied
    assert not any(level == "warn" and "API key" in text for level, text, *_ in proxied), proxied
    del env["GOOGLE_GEMINI_BASE_URL"]

    bad = doctor(emacs, str(tmp_path / "no-such-complex-edit"), env)

    assert any(level == "error" and "not an executable" in text for level, text, *_ in bad), bad
    assert ["warn", "No report from the server", "Run `complex-edit doctor' in a terminal."] in bad


@pytest.mark.parametrize("backend", ["eglot", "lsp-mode"])
def test_the_doctor_shows_the_report_of_the_buffers_server(
    start: Start, backend: str, request: pytest.FixtureRequest
) -> None:
    """With a server attached, the checks of what an edit would use come from the server
    itself (complexEdit.doctor), not from tables in the client."""
    if backend == "lsp-mode":
        request.getfixturevalue("lsp_mode")
    emacs = start(b"x = 1\n", backend=backend)

    emacs.command("ce-test-doctor")
    checks = emacs.wait_event("doctor")["checks"]

    assert ["ok", f"Server running for this buffer through {backend}"] in checks, checks
    assert not any("No server attached" in text for _, text, *_ in checks), checks
    texts = [text for _, text, *_ in checks]
    assert any(text.startswith("Server: complex-edit ") for text in texts), checks
    assert "GOOGLE_GEMINI_BASE_URL is set: requests go to a custom endpoint" in texts, checks
    assert ["ok", "API key set: GEMINI_API_KEY"] in checks, checks
    assert "Model: gemini-3.8-flash (default)" in texts, checks
    assert TEST_KEY not in json.dumps(checks)


# --- the package's own ERT tests (review, positions; no server) -------------------------------


def test_the_ert_suite(emacs: str, tmp_path: Path) -> None:
    suite = CLIENT_DIR / "test" / "complex-edit-test.el"
    load = ["-L", str(CLIENT_DIR), "-l", str(suite)]
    run = subprocess.run(
        [emacs, "--batch", "-q", *load, "-f", "ert-run-tests-batch-and-exit"],
        env={**os.environ, "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 unexpected" in run.stdout + run.stderr


# --- an edit across files: no question, or an honest answer to one (issue 40) ---------------


def test_a_question_left_open_past_the_apply_timeout_still_lands_honestly(
    start: Start,
    emulator: GeminiEmulator,
    tmp_path: Path,
    either: str,
) -> None:
    """With `complex-edit-confirm-edits`, the package asks before the edit lands and tells the
    server (`complexEdit/asking`): the server's wait (applyTimeoutSeconds 1 here) stretches,
    so a "y" given after that timeout lands the edit and the answer says so."""
    caller = rename_across(emulator, tmp_path)
    emacs = start(
        GREETING.encode(),
        backend=either,
        elisp="(setq complex-edit-confirm-edits t complex-edit-question-seconds 60"
        " complex-edit-settings '(:applyTimeoutSeconds 1))",
    )

    emacs.command("complex-edit-across-files", "rename greet to welcome everywhere")
    emacs.wait_screen("Proceed?")
    time.sleep(2.0)  # twice applyTimeoutSeconds
    assert not [e for e in emacs.events() if e["event"] == "done"], "answered while asking"
    emacs.keys("y")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["answer"]["applied"] is True, answer
    assert answer["text"] == GREETING.replace("greet", "welcome")
    assert caller_buffer(answer, caller)["text"] == "from doc import welcome\n\nwelcome('you')\n"
    assert "caller.py" in answer["echo"], answer


def test_an_answer_after_the_server_stopped_waiting_applies_nothing(
    start: Start, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """A question left open past the stretched wait too: the server answers that the editor
    did not answer, and the package then refuses the late "y": the failed answer stays true,
    nothing lands anywhere."""
    caller = rename_across(emulator, tmp_path)
    emacs = start(
        GREETING.encode(),
        elisp="(setq complex-edit-confirm-edits t complex-edit-question-seconds 1"
        " complex-edit-settings '(:applyTimeoutSeconds 1))",
    )

    emacs.command("complex-edit-across-files", "rename greet to welcome everywhere")
    emacs.wait_screen("Proceed?")
    answer = emacs.wait_event("done")  # while the question is still open
    emacs.keys("y")
    emacs.wait_screen("after the server stopped waiting")

    assert answer["answer"]["success"] is False, answer
    assert answer["answer"]["reason"] == "client_rejected", answer
    state = emacs.dump()
    assert state["text"] == GREETING
    assert state["modified"] is False
    others = next(o for o in emacs.events() if o["event"] == "done")["others"]
    assert all(o["text"] == CALLER.decode() for o in others if o["name"] == str(caller))
    assert caller.read_bytes() == CALLER


# --- the live preview (issue 40 item 2) --------------------------------------------------------


def test_the_live_preview_is_drawn_then_cleared_without_touching_text_or_undo(
    start: Start,
    emulator: GeminiEmulator,
    tmp_path: Path,
    either: str,
) -> None:
    """While the model works, the change so far is drawn over the buffer (the old text
    marked, the new shown after it): the text, `modified`, the undo list and point stay as
    they were; the edit's end clears it and the edit lands as usual."""
    go = threading.Event()
    emulator.enqueue(calls(replace('"Hello, "', '"Hi there, "')))
    emulator.enqueue(Reply.hang(release=go, then=calls(done("greeting changed"))))
    emacs = start(GREETING.encode(), backend=either)
    before = emacs.dump()

    emacs.command("complex-edit", "say hi there instead of hello")
    emacs.wait_event("preview", within=30, where=lambda e: e["hunks"] > 0)
    during = emacs.dump()
    go.set()
    answer = emacs.wait_event("done")
    after = emacs.dump()

    assert {k: during[k] for k in ("text", "modified", "undo", "point")} == {
        k: before[k] for k in ("text", "modified", "undo", "point")
    }, (before, during)
    (overlay,) = during["overlays"]
    assert '"Hello, "' in overlay["old"], overlay
    assert '"Hi there, "' in overlay["new"], overlay
    assert answer["answer"]["success"] is True, answer
    assert after["text"] == GREETING.replace('"Hello, "', '"Hi there, "')
    assert after["overlays"] == [], after
    assert [e for e in emacs.events() if e["event"] == "preview" and e["done"] is True]


# --- review across files (issue 40 item 3) ------------------------------------------------------


def test_a_review_across_files_lands_the_kept_changes_of_two_files(
    start: Start,
    emulator: GeminiEmulator,
    tmp_path: Path,
    either: str,
) -> None:
    """`complex-edit-review-across-files` (C-u M-x complex-edit-review) shows the command's
    buffer's changes, then the other file's (visited for its turn); one of two is kept in
    each, and both files get exactly their kept change; the message says where."""
    caller = tmp_path / "project" / "caller.py"
    caller.parent.mkdir(parents=True, exist_ok=True)
    caller_text = "from doc import greet\n\n\n\n\nx = 1\n\n\n\n\ngreet('you')\n"
    caller.write_text(caller_text)
    emulator.enqueue(
        calls(
            replace("def greet", "def welcome"),
            replace("print(greet(", "print(welcome("),
            (
                "replace_text",
                {"path": "caller.py", "old_text": "import greet", "new_text": "import welcome"},
            ),
            (
                "replace_text",
                {"path": "caller.py", "old_text": "greet('you')", "new_text": "welcome('you')"},
            ),
            done("renamed"),
        )
    )
    emacs = start(GREETING.encode(), backend=either)

    emacs.command("complex-edit-review-across-files", "rename greet to welcome everywhere")
    first = emacs.wait_event("review")
    assert (first["name"], first["count"]) == ("doc.py", 2), first
    emacs.keys("y", "n")
    second = emacs.wait_event("review")
    assert (second["name"], second["count"]) == ("caller.py", 2), second
    assert second["buffer"] == "caller.py", second
    emacs.keys("y", "n")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["answer"]["applied"] is True, answer
    assert (answer["answer"]["kept"], answer["answer"]["declined"]) == (2, 2), answer
    assert answer["text"] == GREETING.replace("def greet", "def welcome")
    other = caller_buffer(answer, caller)
    assert other["text"] == caller_text.replace("import greet", "import welcome")
    assert "doc.py 1 of 2 landed, caller.py 1 of 2 landed" in answer["echo"], answer
    assert "nothing was applied" not in answer["echo"], answer
    assert caller.read_text() == caller_text  # left unsaved, as every edit


# --- a folder that is not a project (issue 36 item 1) ---------------------------------------


def test_a_transient_project_is_no_workspace(
    start: Start, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """A file outside version control: eglot makes its folder a transient project. The
    package's server class gives the server otherFiles "off" (the document alone; the model
    gets no file tools), and refuses an edit across files there, naming the setting."""
    emulator.enqueue(calls(replace("beta = 2", "beta = 20"), done("bumped")))
    original = "alpha = 1\nbeta = 2\n"
    emacs = start(original.encode(), name="t.txt", git=False)

    emacs.command("complex-edit-across-files", "bump beta")
    emacs.wait_screen("Complex Edit: /")  # the refusal, naming the folder and the setting
    emacs.command("ce-test-dump")
    refused = emacs.wait_event("state")
    assert refused["text"] == original, refused
    emacs.command("complex-edit", "bump beta")
    answer = emacs.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    assert answer["text"] == original.replace("beta = 2", "beta = 20")
    (request,) = emulator.requests
    tools = {declaration["name"] for declaration in request.function_declarations}
    assert "find_in_files" not in tools, tools


def test_an_edit_of_four_files_three_not_visited_lands_with_no_question(
    start: Start, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """The issue's case: `M-x complex-edit-across-files` renaming a function in four files,
    three of them not visited, through eglot 1.9: no "Proceed?", every file changed in its
    buffer (left unsaved), and the echo area names the three others."""
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    others = {name: f"from doc import greet\n\ngreet('{name}')\n" for name in ("a.py", "b.py")}
    others["pkg/c.py"] = "import doc\n\ndoc.greet('c')\n"
    for name, text in others.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    edits = [
        (
            "replace_text",
            {"path": name, "old_text": "greet", "new_text": "welcome", "replace_all": True},
        )
        for name in others
    ]
    emulator.enqueue(calls(replace("greet", "welcome", replace_all=True), *edits, done("renamed")))
    emacs = start(GREETING.encode())

    emacs.command("complex-edit-across-files", "rename greet to welcome everywhere")
    answer = emacs.wait_event("done")

    assert b"Proceed?" not in emacs.screen
    assert answer["answer"]["success"] is True, answer
    assert answer["answer"].get("confirmed") is not False, answer
    assert answer["text"] == GREETING.replace("greet", "welcome")
    buffers = {o["name"]: o for o in answer["others"]}
    for name, text in others.items():
        other = buffers[str(project / name)]
        assert other["text"] == text.replace("greet", "welcome"), other
        assert other["modified"] is True, other
        assert (project / name).read_text() == text  # unsaved
    assert "also changed: a.py, b.py, pkg/c.py" in answer["echo"], answer


# --- history and revert (issue 40 item 4) ---------------------------------------------------


def test_revert_takes_back_an_edit_across_files_in_one_step(
    start: Start,
    emulator: GeminiEmulator,
    tmp_path: Path,
    either: str,
) -> None:
    """`M-x complex-edit-history` lists the edit; `M-x complex-edit-revert` takes it back in
    both files at once. Runs once the server has `complexEdit.history`/`revert`."""
    if importlib.util.find_spec("complex_edit.server.lsp.history") is None:
        pytest.skip("this server has no complexEdit.history / complexEdit.revert yet")
    caller = rename_across(emulator, tmp_path)
    emacs = start(GREETING.encode(), backend=either)
    emacs.command("complex-edit-across-files", "rename greet to welcome everywhere")
    landed = emacs.wait_event("done")
    assert landed["answer"]["success"] is True, landed

    emacs.command("complex-edit-history")
    (entry, *_) = emacs.wait_event("history")["entries"]
    assert entry["instruction"] == "rename greet to welcome everywhere", entry
    assert sorted(entry["files"]) == ["caller.py", "doc.py"], entry
    emacs.command("other-window")  # back to doc.py from the history's window
    emacs.command("complex-edit-revert")
    reverted = emacs.wait_event("done")

    assert reverted["answer"]["success"] is True, reverted
    assert reverted["text"] == GREETING
    assert caller_buffer(reverted, caller)["text"] == CALLER.decode()
