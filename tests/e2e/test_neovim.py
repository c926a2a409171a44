"""End to end through a real headless Neovim: the real `python -m complex_edit lsp`, Neovim's
own LSP client (position encoding, debounced didChange, its own `workspace/applyEdit` handler,
`:write`) and the real google-genai SDK pointed at the local Gemini emulator.

Each case writes a file, scripts the emulator, and runs `tests/e2e/nvim/perform_edit.lua` in
`nvim --clean --headless -l`. The script opens the file, starts the server with
`vim.lsp.start`, runs `performComplexEdit` with `client:exec_cmd`, lets Neovim apply the edit,
writes the buffer and reports in a JSON file. The assertions compare the bytes on disk.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY
from tests.editor.neovim import WAIT_MS, neovim_env, read_lsp_log, run_lua
from tests.editor.turns import calls, done, replace, request_text
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply
from tests.fakes.lsp_positions import line_starts, position_to_offset

pytestmark = pytest.mark.nvim

SCRIPT = Path(__file__).parent / "nvim" / "perform_edit.lua"
RUN_TIMEOUT = 45.0  # the whole Neovim process; every wait inside the script is bounded too
FLAG_TIMEOUT = 15.0  # how long a delayed model reply waits for the user's typing


@dataclass
class NvimRun:
    report: dict[str, Any]
    file_bytes: bytes
    returncode: int
    stdout: str
    stderr: str
    lsp_log: str

    @property
    def result(self) -> dict[str, Any]:
        response = self.report.get("response") or {}
        result = response.get("result")
        assert isinstance(result, dict), f"no command result:\n{self.explain()}"
        return result

    @property
    def apply_edits(self) -> list[dict[str, Any]]:
        edits = self.report.get("apply_edits") or []
        return list(edits) if isinstance(edits, list) else []  # `{}` is Lua's empty table

    def explain(self) -> str:
        report = {k: v for k, v in self.report.items() if k != "notified"}
        return (
            f"exit code {self.returncode}\n"
            f"report: {json.dumps(report, indent=2, ensure_ascii=False)}\n"
            f"stdout: {self.stdout[-2000:]}\nstderr: {self.stderr[-2000:]}\n"
            f"lsp.log (tail): {self.lsp_log[-4000:]}"
        )


def run_edit(
    nvim: str,
    emulator: GeminiEmulator,
    tmp_path: Path,
    content: bytes,
    prompt: str,
    *,
    name: str = "doc.py",
    edit_range: Mapping[str, Any] | None = None,
    typing: Mapping[str, Any] | None = None,
    apply_typing: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    arguments: Mapping[str, Any] | None = None,
    attach_loaded: bool = False,
) -> NvimRun:
    path = tmp_path / "project" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    result_path = tmp_path / "report.json"
    config: dict[str, Any] = {
        "python": sys.executable,
        "file": str(path),
        "root": str(path.parent),
        "prompt": prompt,
        "result": str(result_path),
        "timeout_ms": WAIT_MS,
    }
    if edit_range is not None:
        config["range"] = dict(edit_range)
    if typing is not None:
        config["typing"] = dict(typing)
    if apply_typing is not None:
        config["apply_typing"] = dict(apply_typing)
    if arguments is not None:
        config["arguments"] = dict(arguments)
    config["attach_loaded"] = attach_loaded
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")

    server_env = neovim_env(emulator, tmp_path)
    server_env.update(env or {})
    proc = run_lua(nvim, SCRIPT, config_path, cwd=path.parent, env=server_env, timeout=RUN_TIMEOUT)
    report: dict[str, Any] = {}
    if result_path.exists():
        report = json.loads(result_path.read_text(encoding="utf-8"))
    run = NvimRun(
        report,
        path.read_bytes(),
        proc.returncode,
        proc.stdout,
        proc.stderr,
        read_lsp_log(server_env),
    )
    assert result_path.exists(), f"the Lua script wrote no report:\n{run.explain()}"
    assert run.report.get("ok") is True, f"the Lua script failed:\n{run.explain()}"
    assert run.report.get("server_stopped") is True, f"server did not stop:\n{run.explain()}"
    assert not emulator.problems, f"unscripted model requests: {emulator.problems}"
    return run


def text_edits(run: NvimRun) -> list[dict[str, Any]]:
    """The TextEdits of the single applyEdit (either WorkspaceEdit shape)."""
    assert len(run.apply_edits) == 1, f"expected one applyEdit:\n{run.explain()}"
    edit = run.apply_edits[0]["params"]["edit"]
    if edit.get("documentChanges"):
        changes = edit["documentChanges"]
        assert len(changes) == 1, run.explain()
        return list(changes[0]["edits"])
    (edits,) = edit["changes"].values()
    return list(edits)


def assert_success(run: NvimRun, expected: bytes) -> None:
    result = run.result
    assert result.get("success") is True, run.explain()
    assert result.get("applied") is True, run.explain()
    assert run.file_bytes == expected, (
        f"file on disk differs\nexpected: {expected!r}\nactual:   {run.file_bytes!r}\n"
        f"{run.explain()}"
    )
    assert run.report["buffer_text"].encode("utf-8") == expected, run.explain()
    answer = run.apply_edits[0]["answer"]
    assert answer.get("applied") is True, run.explain()


# --- 1. success -------------------------------------------------------------------------------


def test_success_writes_exactly_the_expected_file(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = b'def greet(name):\n    return "Hello, " + name\n\n\nprint(greet("world"))\n'
    emulator.enqueue(calls(replace('"Hello, "', '"Hi there, "'), done("greeting changed")))

    run = run_edit(nvim, emulator, tmp_path, original, "say hi there instead of hello")

    assert_success(run, original.replace(b'"Hello, "', b'"Hi there, "'))
    result = run.result
    assert result["message"] == "greeting changed"
    assert result["turns"] == 1
    assert result["toolCalls"] == 2
    assert result["usage"]["inputTokens"] == 100
    assert result["usage"]["outputTokens"] == 20
    assert '+    return "Hi there, " + name' in result["diff"]
    # Neovim negotiates utf-8 and the command is advertised (exec_cmd refuses it otherwise).
    assert run.report["offset_encoding"] == "utf-8"
    assert "performComplexEdit" in run.report["advertised_commands"]
    # One minimal edit on line 2 only, never a whole-document replace.
    for edit in text_edits(run):
        assert edit["range"]["start"]["line"] == 1 == edit["range"]["end"]["line"], run.explain()
    # The SDK in the server process reached the emulator with the key from the environment.
    (request,) = emulator.requests
    assert request.api_key == TEST_KEY
    assert "say hi there instead of hello" in request_text(request)
    assert TEST_KEY not in run.lsp_log


# --- 2. utf-8 positions ---------------------------------------------------------------------


def _apply_text_edits(text: str, edits: list[dict[str, Any]], encoding: str) -> str | None:
    """Apply LSP TextEdits whose `character` counts code units of `encoding` (None: invalid)."""
    starts = line_starts(text)
    try:
        spans = sorted(
            (
                position_to_offset(text, e["range"]["start"], encoding, starts),
                position_to_offset(text, e["range"]["end"], encoding, starts),
                e["newText"],
            )
            for e in edits
        )
    except ValueError:
        return None
    for start, end, new_text in reversed(spans):
        text = text[:start] + new_text + text[end:]
    return text


def test_utf8_positions_with_multibyte_text_and_emoji(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = (
        "# ☕ café — naïve “quotes” 日本語\n"
        'title = "😀 Größe 🎉"  # 👩‍👩‍👧 family\n'
        'unchanged = "🎉🎉🎉"\n'
        'value = "e\u0301 😀 old 🎉 ünï"  # 🚀\n'
        'end = "✓"\n'
    )
    emulator.enqueue(
        calls(
            replace("Größe", "Grösse 🙂"),
            replace("old 🎉", "néw 🎊"),
            done(),
        )
    )

    run = run_edit(nvim, emulator, tmp_path, original.encode(), "modernise the strings")

    expected = (
        "# ☕ café — naïve “quotes” 日本語\n"
        'title = "😀 Grösse 🙂 🎉"  # 👩‍👩‍👧 family\n'
        'unchanged = "🎉🎉🎉"\n'
        'value = "e\u0301 😀 néw 🎊 ünï"  # 🚀\n'
        'end = "✓"\n'
    )
    assert run.report["offset_encoding"] == "utf-8"
    assert_success(run, expected.encode())
    edits = text_edits(run)
    assert [(e["range"]["start"]["line"], e["range"]["end"]["line"]) for e in edits] == [
        (1, 1),
        (3, 3),
    ], run.explain()
    # The positions are utf-8 byte offsets: read as utf-16 they would land elsewhere.
    assert _apply_text_edits(original, edits, "utf-8") == expected
    assert _apply_text_edits(original, edits, "utf-16") != expected


# --- 3. line endings and form feeds ---------------------------------------------------------


def test_crlf_document_keeps_crlf_on_disk(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = b"alpha = 1\r\nbeta = 2\r\ngamma = 3\r\nomega = 4\r\n"
    # The model writes LF; the tools adopt the document's CRLF.
    emulator.enqueue(
        calls(replace("beta = 2\ngamma = 3", "beta = 20\ngamma = 3\ndelta = 35"), done())
    )

    run = run_edit(nvim, emulator, tmp_path, original, "add delta", name="crlf.txt")

    assert run.report["fileformat"] == "dos", run.explain()
    assert_success(run, b"alpha = 1\r\nbeta = 20\r\ngamma = 3\r\ndelta = 35\r\nomega = 4\r\n")
    assert "CRLF" in request_text(emulator.requests[0])


def test_form_feed_lines_do_not_shift_positions(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = (
        b"import os\n"
        b"\x0c\n"
        b"def a():\n"
        b"    return 1\n"
        b"\x0c# section two\x0c tail\n"
        b"def b():\n"
        b"    return 2\n"
    )
    emulator.enqueue(calls(replace("return 2", "return 3"), replace("def a", "def first"), done()))

    run = run_edit(nvim, emulator, tmp_path, original, "bump b, rename a")

    expected = original.replace(b"return 2", b"return 3").replace(b"def a", b"def first")
    assert_success(run, expected)
    lines = sorted(edit["range"]["start"]["line"] for edit in text_edits(run))
    assert lines == [2, 6], run.explain()


# --- 4. the selection reaches the model ---------------------------------------------------


def test_range_reaches_the_model(nvim: str, emulator: GeminiEmulator, tmp_path: Path) -> None:
    original = b"one\ntwo\nthree\nfour\nfive\n"
    emulator.enqueue(calls(replace("two\nthree", "TWO\nTHREE"), done()))
    selection = {"start": {"line": 1, "character": 0}, "end": {"line": 3, "character": 0}}

    run = run_edit(
        nvim, emulator, tmp_path, original, "uppercase this", name="r.txt", edit_range=selection
    )

    assert_success(run, b"one\nTWO\nTHREE\nfour\nfive\n")
    first = request_text(emulator.requests[0])
    assert "lines 2-3" in first, first


# --- 5. failure leaves the file alone -----------------------------------------------------


def test_failed_task_leaves_the_file_untouched(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = b"keep = 'me'\r\nexactly\tas\x0cis \xc3\xa9\r\n"
    emulator.enqueue(
        calls(
            replace("keep", "lose"),
            ("complete_task", {"success": False, "error": "cannot do that safely"}),
        )
    )

    run = run_edit(nvim, emulator, tmp_path, original, "do something impossible")

    result = run.result
    assert result["success"] is False, run.explain()
    assert result["reason"] == "task_failed", run.explain()
    assert not result.get("applied"), run.explain()
    assert run.apply_edits == [], run.explain()
    assert run.file_bytes == original, run.explain()
    assert run.report["version_after"] == run.report["version_before"], run.explain()


# --- 6. the user types while the sub-agent works ------------------------------------------


def _after_flag(flag: Path, reply: Reply) -> Callable[[RecordedRequest], Reply]:
    """A responder that holds the model's answer until Neovim has sent the user's typing."""

    def respond(request: RecordedRequest) -> Reply:
        deadline = time.monotonic() + FLAG_TIMEOUT
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        # The didChange left Neovim before the flag was written; give the server a moment to
        # read it ahead of this HTTP answer.
        time.sleep(0.1)
        return reply

    return respond


def test_typing_elsewhere_is_rebased(nvim: str, emulator: GeminiEmulator, tmp_path: Path) -> None:
    original = b"# header\nx = 1\ny = 2\n\ndef f():\n    return x + y\n"
    flag = tmp_path / "typed.flag"
    emulator.set_responder(
        _after_flag(flag, calls(replace("return x + y", "return x * y"), done()))
    )
    typing = {
        "start": 0,
        "end": 2,
        "lines": ["# header, edited by the user", "x = 10", "w = 0"],
        "flag": str(flag),
    }

    run = run_edit(nvim, emulator, tmp_path, original, "multiply instead", typing=typing)

    assert run.report.get("typed") is True, run.explain()
    expected = b"# header, edited by the user\nx = 10\nw = 0\ny = 2\n\ndef f():\n    return x * y\n"
    assert_success(run, expected)
    assert emulator.requests, "the model was never asked"
    # The edit was computed on the old text and rebased: it targets the line below the inserted one.
    lines = {edit["range"]["start"]["line"] for edit in text_edits(run)}
    assert lines == {6}, run.explain()


def test_typing_on_the_same_line_elsewhere_is_rebased(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = b"a = 1\nb = compute(a)\nc = 3\n"
    flag = tmp_path / "typed.flag"
    emulator.set_responder(
        _after_flag(flag, calls(replace("compute(a)", "compute(a, fast=True)"), done()))
    )
    # The user appends a comment; the agent inserts inside the parentheses: no overlap.
    typing = {"start": 1, "end": 2, "lines": ["b = compute(a)  # note"], "flag": str(flag)}

    run = run_edit(nvim, emulator, tmp_path, original, "make it fast", typing=typing)

    assert run.report.get("typed") is True, run.explain()
    assert_success(run, b"a = 1\nb = compute(a, fast=True)  # note\nc = 3\n")


def test_typing_over_the_edited_text_is_refused_and_kept(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = b"a = 1\nb = compute(a)\nc = 3\n"
    flag = tmp_path / "typed.flag"
    emulator.set_responder(
        _after_flag(flag, calls(replace("compute(a)", "compute(a, fast=True)"), done()))
    )
    # The user rewrites the very text the agent changes.
    typing = {"start": 1, "end": 2, "lines": ["b = None  # user's choice"], "flag": str(flag)}

    run = run_edit(nvim, emulator, tmp_path, original, "make it fast", typing=typing)

    assert run.report.get("typed") is True, run.explain()
    result = run.result
    assert result["success"] is False, run.explain()
    assert result["reason"] == "document_changed", run.explain()
    assert not result.get("applied"), run.explain()
    assert run.apply_edits == [], run.explain()
    assert run.file_bytes == b"a = 1\nb = None  # user's choice\nc = 3\n", run.explain()


# --- 7. the edit lands while the user types -------------------------------------------------
#
# Neovim sends didChange after a 150 ms debounce, counted from its last didChange: an edit
# arriving long after the user's last keystroke has its first range sent at once and the
# others with the next didChange, together with whatever the user types meanwhile. The
# server reads the edit from those changes; a whole-document comparison failed on both.

LINES = ["alpha = 1", "beta = 2", "gamma = 3", "delta = 4", "omega = 5"]
EOLS = {"lf": "\n", "crlf": "\r\n"}
# Two ranges apart, neither on the first nor on the last line.
ONE_TURN = [calls(replace("beta = 2", "beta = 20"), replace("delta = 4", "delta = 40"), done())]
MULTI_TURN = [
    calls(replace("beta = 2", "beta = 20")),
    calls(replace("delta = 4", "delta = 40")),
    calls(done()),
]
SETTLE = 0.4  # after the user's typing left Neovim: longer than its debounce


def document(eol: str, lines: list[str] = LINES) -> bytes:
    return "".join(line + eol for line in lines).encode()


def _script_after_flag(flag: Path, replies: list[Reply]) -> Callable[[RecordedRequest], Reply]:
    """Answers the first model request once Neovim has sent the user's typing (and its debounce
    has run out), then the next replies in order."""
    pending = list(replies)

    def respond(request: RecordedRequest) -> Reply:
        if len(pending) == len(replies):
            deadline = time.monotonic() + FLAG_TIMEOUT
            while not flag.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(SETTLE)
        return pending.pop(0)

    return respond


@pytest.mark.parametrize("turns", ["one-turn", "multi-turn"])
@pytest.mark.parametrize("where", ["top", "bottom"])
@pytest.mark.parametrize("eol", list(EOLS))
def test_a_line_added_during_the_run_and_a_two_range_edit(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path, eol: str, where: str, turns: str
) -> None:
    """The issue's CRLF report: a line typed at the top or the bottom while the sub-agent
    works, then an edit of two ranges; the answer must be the success it is."""
    flag = tmp_path / "typed.flag"
    emulator.set_responder(
        _script_after_flag(flag, ONE_TURN if turns == "one-turn" else MULTI_TURN)
    )
    keys = "ggO# added by the user<Esc>" if where == "top" else "Go# added by the user<Esc>"
    typing = {"keys": keys, "flag": str(flag)}

    run = run_edit(
        nvim, emulator, tmp_path, document(EOLS[eol]), "bump", name="f.txt", typing=typing
    )

    assert run.report.get("typed") is True, run.explain()
    assert run.report["fileformat"] == ("dos" if eol == "crlf" else "unix"), run.explain()
    lines = [line.replace("= 2", "= 20").replace("= 4", "= 40") for line in LINES]
    lines.insert(0 if where == "top" else len(lines), "# added by the user")
    assert_success(run, document(EOLS[eol], lines))
    # What made it hard: the typing, then the edit's two ranges in two didChanges.
    assert len(run.report["did_changes"]) == 3, run.explain()


def keystroke(line: int, text: str, **extra: Any) -> dict[str, Any]:
    """Typed at the end of `line` (negative: from the end) by the Lua script."""
    return {"line": line, "text": text, **extra}


@pytest.mark.parametrize("eol", list(EOLS))
def test_keystrokes_typed_right_before_and_after_the_edit_lands(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path, eol: str
) -> None:
    """Keystrokes scheduled around the applyEdit: one right before Neovim applies it (below
    the edit, so the unversioned edit still lands where it belongs), some right after, and
    some over the next 200 ms. One didChange carries them with the edit."""
    emulator.enqueue(*ONE_TURN)
    around = {
        "before": [keystroke(-1, " # o")],
        "after": [keystroke(0, " # a"), keystroke(1, "!")],
        "later": [keystroke(2, c, delay_ms=40 * n) for n, c in enumerate(" # g", start=1)],
    }

    run = run_edit(
        nvim, emulator, tmp_path, document(EOLS[eol]), "bump", name="f.txt", apply_typing=around
    )

    expected = [
        "alpha = 1 # a",
        "beta = 20!",
        "gamma = 3 # g",
        "delta = 40",
        "omega = 5 # o",
    ]
    assert_success(run, document(EOLS[eol], expected))
    # What made it hard: one didChange carried keystrokes along with the edit's ranges.
    edit_ranges = len(text_edits(run))
    assert any(len(d["changes"]) > edit_ranges for d in run.report["did_changes"]), run.explain()


def test_keystrokes_around_the_edit_after_typing_during_the_run(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """Both at once: the user typed while the sub-agent worked (so the edit's first range
    leaves at once) and keeps typing as the edit lands."""
    flag = tmp_path / "typed.flag"
    emulator.set_responder(_script_after_flag(flag, ONE_TURN))
    typing = {"keys": "ggO# top<Esc>", "flag": str(flag)}
    around = {
        "after": [keystroke(0, "!")],
        "later": [keystroke(-1, c, delay_ms=30 * n) for n, c in enumerate(" # o", start=1)],
    }

    run = run_edit(
        nvim,
        emulator,
        tmp_path,
        document("\r\n"),
        "bump",
        name="f.txt",
        typing=typing,
        apply_typing=around,
    )

    expected = ["# top!", "alpha = 1", "beta = 20", "gamma = 3", "delta = 40", "omega = 5 # o"]
    assert_success(run, document("\r\n", expected))


def test_an_edit_moved_by_a_keystroke_before_it_lands_is_not_a_success(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """A line typed above the edit right before Neovim applies it: Neovim applies the
    unversioned edit at its old lines, that is, one line too high. The answer must say so."""
    emulator.enqueue(calls(replace("gamma = 3", "gamma = 30"), done()))
    around = {"before": [{"line": 0, "col": 0, "text": "# typed first\n"}]}

    run = run_edit(
        nvim,
        emulator,
        tmp_path,
        document("\n"),
        "bump",
        name="f.txt",
        apply_typing=around,
        env={"COMPLEX_EDIT_APPLY_TIMEOUT_SECONDS": "1"},  # how long the server reads the echo
    )

    result = run.result
    assert result["success"] is False, run.explain()
    assert result["reason"] == "client_rejected", run.explain()
    assert result.get("applied") is True, run.explain()
    assert b"# typed first\n" in run.file_bytes, run.explain()  # the user's line is kept


# --- issue 14: a result that no longer parses never lands -------------------------------------


def test_a_broken_result_is_refused_and_the_model_fixes_it(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = b'def greet(name):\n    return "Hello, " + name\n\n\nprint(greet("world"))\n'
    emulator.enqueue(
        calls(replace('print(greet("world"))', 'print(greet("there")'), done("greeting changed")),
        calls(replace('print(greet("there")', 'print(greet("there"))'), done("bracket restored")),
    )

    run = run_edit(nvim, emulator, tmp_path, original, "greet there instead")

    assert_success(run, original.replace(b'greet("world"))', b'greet("there"))'))
    result = run.result
    assert result["turns"] == 2, run.explain()
    assert result["message"] == "bracket restored"
    assert result["validation"]["language"] == "python", run.explain()
    assert result["validation"]["syntax"] == "ok", run.explain()
    # The model was told what broke, with the line, before anything reached the editor.
    refusal = json.dumps(emulator.requests[1].contents)
    assert "NOT complete" in refusal
    assert "syntax error" in refusal
    assert "line 5" in refusal
    assert len(run.apply_edits) == 1, run.explain()


# -- an edit of two files, one not loaded (issue 28) -----------------------------------------

CALLER = b"from doc import total\n\nTOTAL = total([3])\n"


@pytest.mark.parametrize("attach_loaded", [True, False], ids=["enable", "start"])
def test_an_edit_of_two_files_one_not_loaded(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path, attach_loaded: bool
) -> None:
    """Neovim loads the other file into a buffer, edits it and leaves it unsaved. A client
    that attaches to every buffer of its filetype (`vim.lsp.enable`) reports it (didOpen of
    the text on disk, then the edit as didChange): the edit is confirmed in both. A client
    attached to one buffer (`vim.lsp.start`) says nothing of the other file: applied, as
    Neovim answered, but not claimed for that file."""
    caller = tmp_path / "project" / "caller.py"
    caller.parent.mkdir(parents=True)
    caller.write_bytes(CALLER)
    emulator.enqueue(
        calls(
            replace("total", "sum_of", replace_all=True),
            (
                "replace_text",
                {
                    "path": "caller.py",
                    "old_text": "total",
                    "new_text": "sum_of",
                    "replace_all": True,
                },
            ),
        ),
        calls(done("renamed")),
    )
    own = b"def total(values):\n    return sum(values)\n"
    run = run_edit(
        nvim,
        emulator,
        tmp_path,
        own,
        "rename total to sum_of everywhere",
        arguments={"otherFiles": "edit"},
        attach_loaded=attach_loaded,
    )
    assert run.file_bytes == own.replace(b"total", b"sum_of"), run.explain()
    assert caller.read_bytes() == CALLER  # Neovim leaves the buffer it loaded unsaved
    (other,) = run.report["others"]
    assert other["name"] == str(caller)
    assert other["text"] == CALLER.decode().replace("total", "sum_of")
    assert other["modified"] is True
    (apply,) = run.apply_edits
    versions = [
        c["textDocument"].get("version") for c in apply["params"]["edit"]["documentChanges"]
    ]
    assert versions[1] is None
    result = run.result
    entries = {e["uri"].rsplit("/", 1)[-1]: e for e in result["documents"]}
    assert entries["doc.py"]["applied"] is True
    assert result["applied"] is True
    if attach_loaded:
        assert caller.as_uri() in run.report["opened"]
        assert result["success"] is True, run.explain()
        assert entries["caller.py"]["applied"] is True
    else:
        assert caller.as_uri() not in run.report["opened"]
        assert result["success"] is False
        assert result["reason"] == "client_rejected"
        assert "caller.py" in result["error"]
        assert entries["caller.py"]["applied"] is False
