"""The Neovim plugin (`nvim-client/`) in a real headless Neovim, against the real server and the
Gemini emulator.

Each case runs a script of `tests/e2e/nvim_plugin/` in `nvim --clean --headless -l`. The script
puts `nvim-client/` on the runtimepath, enables the server through the plugin's
`lsp/complex_edit.lua` (only `cmd` is overridden, to run this venv's `python -m complex_edit lsp`),
runs the user commands (`:ComplexEdit`, `:ComplexEditCancel`, `:checkhealth complex_edit`) and
writes a JSON report: the notifications the user saw, the buffer text, the health buffer.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY
from tests.e2e.nvim_plugin_scripts import ORIGINAL, hunk, run_script, write
from tests.editor.decoys import plant_decoys
from tests.editor.turns import calls, done, replace, request_text
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply

pytestmark = pytest.mark.nvim

INFO, WARN, ERROR = 2, 3, 4  # vim.log.levels

DECOYS = ["server.py", "server/__init__.py", "complex_edit/__init__.py"]
RENAMED = "def bar(x):\n    return x + 1\n\n\nprint(bar(41))\n"


# --- :ComplexEdit ---------------------------------------------------------------------------


def test_complex_edit_changes_the_buffer_and_notifies(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL)
    emulator.enqueue(
        calls(replace("foo", "bar", replace_all=True), done("renamed foo to bar")),
        calls(replace("return x + 1", "return x + 2"), done("now adds two")),
    )

    report = run_script(
        nvim,
        "edit",
        tmp_path,
        emulator,
        file=str(path),
        steps=[
            {"command": "ComplexEdit rename foo to bar"},
            # No argument: the instruction comes from vim.ui.input.
            {"command": "ComplexEdit", "input": "add two instead of one"},
        ],
    )

    explain = report["explain"]
    assert report["filetype"] == "python", explain
    assert report["offset_encoding"] == "utf-8", explain
    # No .git above the file: the client runs without a workspace folder (single-file mode).
    assert report["root_dir"] is None, explain
    first, second = report["results"]
    assert first["notification"] == {"msg": "Complex Edit: renamed foo to bar", "level": INFO}
    assert first["text"] == RENAMED, explain
    assert first["modified"] is True, explain  # applied to the buffer; saving is the user's call
    assert first["running"] is False, explain
    assert report["input_prompts"] == ["Complex Edit: "], explain
    assert second["notification"] == {"msg": "Complex Edit: now adds two", "level": INFO}
    assert second["text"] == RENAMED.replace("x + 1", "x + 2"), explain
    # The lines each edit changed flash (the answer's changedLines, not a parse of its diff).
    assert first["flashed"] == [0, 4], explain
    assert second["flashed"] == [1], explain
    assert path.read_text(encoding="utf-8") == ORIGINAL  # nothing written behind the user's back

    one, two = emulator.requests
    assert one.api_key == TEST_KEY
    assert "rename foo to bar" in request_text(one)
    assert "add two instead of one" in request_text(two)
    assert "selected lines" not in request_text(one)  # no range without one
    # The server's progress reached the command line.
    progress = [e for e in report["echoes"] if e.startswith("Complex Edit: ")]
    assert any("rename foo to bar" in e for e in progress), report["echoes"]
    assert all(TEST_KEY not in n["msg"] for n in report["notifications"])


def test_complex_edit_bang_is_an_edit_across_files_the_real_server_takes(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """`:ComplexEdit!` sends `otherFiles: "edit"`; the real server takes it from Neovim (which
    applies an edit of several documents) and the edit lands as usual; a change of this buffer
    alone names no other file."""
    path = write(tmp_path, "doc.py", ORIGINAL)
    emulator.enqueue(calls(replace("foo", "bar", replace_all=True), done("renamed foo to bar")))

    report = run_script(
        nvim,
        "edit",
        tmp_path,
        emulator,
        file=str(path),
        steps=[{"command": "ComplexEdit! rename foo to bar"}],
    )

    explain = report["explain"]
    (result,) = report["results"]
    assert result["notification"] == {"msg": "Complex Edit: renamed foo to bar", "level": INFO}
    assert result["text"] == RENAMED, explain
    assert path.read_text(encoding="utf-8") == ORIGINAL, explain


def test_range_sends_the_selected_lines(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    original = "one\ntwo\nthree\nfour\nfive\n"
    path = write(tmp_path, "lines.txt", original, git=True)
    emulator.enqueue(
        calls(replace("two\nthree", "TWO\nTHREE"), done("uppercased")),
        calls(replace("five", "FIVE"), done("last line")),
    )

    report = run_script(
        nvim,
        "edit",
        tmp_path,
        emulator,
        file=str(path),
        steps=[
            {"command": "2,3ComplexEdit uppercase these lines"},
            # The last line: the range ends at the start of the line after it.
            {"command": "$ComplexEdit uppercase this line"},
        ],
    )

    explain = report["explain"]
    assert report["filetype"] == "text", explain
    assert report["root_dir"] == str(path.parent), explain  # root_markers = { '.git' }
    first, second = report["results"]
    assert first["notification"] == {"msg": "Complex Edit: uppercased", "level": INFO}, explain
    assert first["text"] == "one\nTWO\nTHREE\nfour\nfive\n", explain
    assert second["notification"]["level"] == INFO, explain
    assert second["text"] == "one\nTWO\nTHREE\nfour\nFIVE\n", explain
    assert "lines 2-3" in request_text(emulator.requests[0])
    assert "lines 5-5" in request_text(emulator.requests[1])


def test_failure_is_reported_and_the_buffer_is_untouched(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL)
    emulator.enqueue(
        calls(
            replace("foo", "oops"),
            ("complete_task", {"success": False, "error": "the callers are ambiguous"}),
        )
    )

    report = run_script(
        nvim,
        "edit",
        tmp_path,
        emulator,
        file=str(path),
        steps=[{"command": "ComplexEdit rename foo everywhere"}],
    )

    (result,) = report["results"]
    note = result["notification"]
    assert note["level"] == ERROR, report["explain"]
    assert note["msg"] == "Complex Edit: failed (task_failed): the callers are ambiguous"
    assert result["text"] == ORIGINAL, report["explain"]
    assert result["modified"] is False, report["explain"]


def test_the_default_command_never_imports_from_the_project(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """Neovim started in a project that holds `server.py`, `server/` and `complex_edit/`: the
    plugin's command (`vim.g.complex_edit_cmd`, the venv's `complex-edit`) runs in that folder,
    attaches and edits, and imports none of them (each would leave a marker and exit)."""
    script = Path(sys.executable).parent / "complex-edit"
    if not script.is_file():
        pytest.skip("no complex-edit script beside the interpreter")
    path = write(tmp_path, "doc.py", ORIGINAL, git=True)
    markers = tmp_path / "markers"
    markers.mkdir()
    plant_decoys(path.parent, markers, DECOYS)
    emulator.enqueue(calls(replace("foo", "bar", replace_all=True), done("renamed foo to bar")))

    report = run_script(
        nvim,
        "edit",
        tmp_path,
        emulator,
        cwd=path.parent,
        file=str(path),
        complex_edit_cmd=str(script),
        steps=[{"command": "ComplexEdit rename foo to bar"}],
    )

    (result,) = report["results"]
    assert result["text"] == RENAMED, report["explain"]
    assert list(markers.iterdir()) == [], report["explain"]


@pytest.mark.parametrize("via", ["argument", "input"])
def test_complex_edit_waits_for_a_server_that_is_still_starting(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path, via: str
) -> None:
    """Issue 20: `:ComplexEdit` right after the file opens waits for the server, then runs."""
    path = write(tmp_path, "doc.py", ORIGINAL)
    emulator.enqueue(calls(replace("foo", "bar", replace_all=True), done("renamed foo to bar")))

    report = run_script(
        nvim, "starting", tmp_path, emulator, file=str(path), prompt="rename foo to bar", via=via
    )

    explain = report["explain"]
    assert report["ready_at_command"] is False, explain
    assert report["starting_at_command"] is True, explain
    assert report.get("asked", False) is (via == "input"), explain
    assert report["busy"]["level"] == WARN, explain
    assert "already running" in report["busy"]["msg"], explain
    assert report["result"] == {"msg": "Complex Edit: renamed foo to bar", "level": INFO}, explain
    assert report["text"] == RENAMED, explain
    assert "Complex Edit: waiting for the server to start…" in report["echoes"], explain
    assert len(emulator.requests) == 1


def test_complex_edit_gives_up_on_a_server_that_never_starts(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL)

    report = run_script(
        nvim,
        "starting",
        tmp_path,
        emulator,
        file=str(path),
        prompt="rename foo to bar",
        via="argument",
        never_starts=True,
        start_timeout_ms=1500,
    )

    explain = report["explain"]
    assert report["starting_at_command"] is True, explain
    assert report["result"]["level"] == ERROR, explain
    assert report["last"] == (
        "Complex Edit: the server did not start within 1.5 s; see :checkhealth complex_edit."
    ), explain
    assert 1400 <= report["elapsed_ms"] < 10_000, explain
    assert report["text"] == ORIGINAL, explain
    assert emulator.requests == []


# --- :ComplexEditCancel ---------------------------------------------------------------------


def _hold(flags: list[Path], held: set[int], reply: Reply) -> Callable[[RecordedRequest], Reply]:
    """Model request n (1-based) writes `flags[n - 1]`; those in `held` are never answered, the
    others get `reply`."""
    lock = threading.Lock()
    seen = [0]

    def respond(request: RecordedRequest) -> Reply:
        with lock:
            seen[0] += 1
            number = seen[0]
        if number <= len(flags):
            flags[number - 1].write_text("in flight", encoding="utf-8")
        return Reply.hang() if number in held else reply

    return respond


def test_cancel_stops_the_running_edit(nvim: str, emulator: GeminiEmulator, tmp_path: Path) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL)
    flags = [tmp_path / f"request-{n}.flag" for n in (1, 2, 3)]
    rename = calls(replace("foo", "bar", replace_all=True), done("renamed"))
    emulator.set_responder(_hold(flags, {1, 3}, rename))

    report = run_script(
        nvim,
        "cancel",
        tmp_path,
        emulator,
        file=str(path),
        prompt="rename foo to bar",
        followup="rename foo to bar, again",
        flags=[str(flag) for flag in flags],
    )

    explain = report["explain"]
    assert report["running_before_cancel"] is True, explain
    assert isinstance(report["status_in_flight"], str), explain  # for a statusline
    assert report["busy"]["level"] == WARN, explain
    assert "already running" in report["busy"]["msg"], explain
    assert report["cancelled"]["level"] == WARN, explain
    assert "cancelled" in report["cancelled"]["msg"], explain
    # The server's RequestCancelled answer ended it, not the plugin's 5 s fallback.
    assert report["cancel_ms"] < 4000, explain
    assert report["text_after_cancel"] == ORIGINAL, explain
    assert report["modified_after_cancel"] is False, explain
    assert report["running_after_cancel"] is False, explain
    assert report["status_after_cancel"] is None, explain
    assert "no edit is running" in report["nothing_to_cancel"]["msg"], explain
    # The buffer is free again.
    assert report["followup"] == {"msg": "Complex Edit: renamed", "level": INFO}, explain
    assert report["text_after_followup"] == RENAMED, explain
    # The server stopping under a running edit ends it too.
    assert report["server_gone"]["level"] == ERROR, explain
    assert "detached" in report["server_gone"]["msg"], explain
    assert report["running_after_stop"] is False, explain
    assert report["text_after_stop"] == RENAMED, explain
    # Both held HTTP requests to the model were aborted: the cancel, then the shutdown.
    assert emulator.wait_for_disconnect(timeout=5.0, count=2), emulator.disconnected_requests
    assert emulator.disconnected_requests == [0, 2]
    assert len(emulator.requests) == 3


# --- :checkhealth complex_edit --------------------------------------------------------------


def test_checkhealth_reports_command_key_presence_and_version(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL)

    report = run_script(nvim, "health", tmp_path, emulator, file=str(path))

    explain = report["explain"]
    with_key = "\n".join(report["with_key"]["lines"])
    without_key = "\n".join(report["without_key"]["lines"])
    assert report["with_key"]["filetype"] == "checkhealth", explain
    assert TEST_KEY not in with_key + without_key
    assert "complex-edit: Neovim" in with_key, with_key
    assert "OK Neovim 0.11." in with_key, with_key
    assert "OK :ComplexEdit and :ComplexEditCancel are defined" in with_key, with_key
    assert "OK Enabled" in with_key, with_key
    assert f"OK Command `{sys.executable} -m complex_edit lsp`" in with_key, with_key
    assert "OK Version: complex-edit " in with_key, with_key
    assert "buffer(s) attached, position encoding utf-8" in with_key, with_key
    assert "OK API key set: GEMINI_API_KEY" in with_key, with_key
    assert "GOOGLE_GEMINI_BASE_URL is set" in with_key, with_key
    assert "Model: gemini-3.8-flash (default)" in with_key, with_key
    assert "Thinking level: not set (the model's own default, medium)" in with_key, with_key
    assert "ERROR" not in with_key, with_key
    assert "WARNING" not in with_key, with_key
    assert "OK API key set" not in without_key, without_key
    # A base URL (a local proxy; `complex-edit try`) makes the key optional: the server says so.
    assert "No GEMINI_API_KEY: not needed with a base URL" in without_key, without_key
    assert "WARNING" not in without_key, without_key
    without_either = "\n".join(report["without_key_or_url"]["lines"])
    assert "WARNING No API key" in without_either, without_either
    assert "OK API key set" not in without_either, without_either
    # The model-access lines are the server's own report (complexEdit.doctor).
    assert "Server: complex-edit " in with_key, with_key
    assert "Syntax check of results in " in with_key, with_key
    detached = "\n".join(report["detached"]["lines"])
    assert "Not attached: no server to report what it would use" in detached, detached
    assert "run `complex-edit doctor` in a terminal" in detached, detached
    assert "API key" not in detached, detached


# --- the config file, and :ComplexEdit without a server ------------------------------------


def test_config_defaults_and_no_client_messages(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "notes.txt", "some text\n")

    report = run_script(nvim, "config", tmp_path, emulator, file=str(path))

    explain = report["explain"]
    assert report["commands"] == {"ComplexEdit": 2, "ComplexEditCancel": 2}, explain
    assert report["default"] == {
        "cmd": ["complex-edit", "lsp"],
        "filetypes": None,  # every filetype
        "root_markers": [".git"],
        "settings": {"complexEdit": {}},
        "workspace_required": False,
    }, explain
    assert report["string_override"]["cmd"] == ["/opt/ce/bin/complex-edit", "lsp"], explain
    assert report["list_override"]["cmd"] == ["ce", "lsp", "--log-level", "DEBUG"], explain
    assert report["resolved"] == {"cmd": ["my-complex-edit", "lsp"], "root_markers": [".git"]}
    # Not enabled: both forms of :ComplexEdit say how to enable it (without asking first).
    no_instruction, with_instruction, cancel = report["no_client"]
    for note in (no_instruction, with_instruction):
        assert note["level"] == ERROR, explain
        assert "vim.lsp.enable('complex_edit')" in note["msg"], explain
    assert report["asked"] is False, explain
    assert cancel == {"msg": "Complex Edit: no edit is running on this buffer.", "level": WARN}
    assert report["running"] is False, explain
    health = "\n".join(report["health"])
    assert "WARNING Not enabled" in health, health
    assert 'ERROR Command `my-complex-edit lsp`: "my-complex-edit" is not executable' in health
    assert "No complex_edit client is running" in health, health
    assert TEST_KEY not in health
    assert emulator.requests == []


# --- issue 13: the effective provider's keys, the result message, the statusline and hooks --


def test_checkhealth_checks_the_effective_providers_key(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL)
    local = {"provider": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "qwen"}
    # Cases without `env` share one server; each with `env` starts its own.
    cases = [
        {"name": "openai_local", "settings": local},
        {"name": "openai_remote", "settings": {"provider": "openai"}},
        {"name": "gemini_url_no_key", "settings": {"baseUrl": "http://127.0.0.1:9"}},
        {"name": "unknown", "settings": {"provider": "mistral"}},
        {"name": "invalid_level", "settings": {"thinkingLevel": "extreme"}},
        {"name": "refused_level", "settings": {"thinkingLevel": "minimal"}},
        {
            "name": "openai_env_url",
            "settings": {"provider": "openai"},
            "env": {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
        },
        {
            "name": "anthropic_env",
            "env": {"COMPLEX_EDIT_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": TEST_KEY},
        },
        {
            "name": "vertex",
            "env": {
                "GOOGLE_GENAI_USE_VERTEXAI": "true",
                "GOOGLE_CLOUD_PROJECT": "p",
                "GOOGLE_CLOUD_LOCATION": "us-central1",
            },
        },
    ]

    report = run_script(nvim, "health_providers", tmp_path, emulator, file=str(path), cases=cases)

    explain = report["explain"]
    got = {name: "\n".join(lines) for name, lines in report["cases"].items()}
    assert TEST_KEY not in "".join(got.values()), explain
    # A keyless local server: no warning, and it says why no key is needed.
    openai_local = got["openai_local"]
    configured = "workspace/configuration complexEdit."  # the layer, as the server names it
    assert f"Provider: openai (from {configured}provider)" in openai_local, explain
    assert f"{configured}baseUrl is set" in openai_local, explain
    assert "No OPENAI_API_KEY: not needed with a base URL" in openai_local, explain
    assert "WARNING" not in openai_local, explain
    assert "ERROR" not in openai_local, explain
    assert "GEMINI" not in openai_local, explain
    assert "127.0.0.1" not in openai_local, explain  # names where it came from, not the value
    assert (
        "No OPENAI_API_KEY: not needed with a base URL (OPENAI_BASE_URL)" in got["openai_env_url"]
    ), explain
    assert "WARNING No API key: OPENAI_API_KEY is not set" in got["openai_remote"], explain
    anthropic = got["anthropic_env"]
    assert "Provider: anthropic (from COMPLEX_EDIT_PROVIDER)" in anthropic, explain
    assert "OK API key set: ANTHROPIC_API_KEY" in anthropic, explain
    assert "WARNING" not in anthropic, explain
    vertex = got["vertex"]
    assert "Provider: gemini (default)" in vertex, explain
    assert "OK Vertex AI selected (GOOGLE_GENAI_USE_VERTEXAI); no API key needed" in vertex
    assert "WARNING" not in vertex, explain
    # Gemini with a base URL needs no key either (a local proxy; `complex-edit try`).
    gemini_url = got["gemini_url_no_key"]
    assert "No GEMINI_API_KEY: not needed with a base URL" in gemini_url, explain
    assert "WARNING" not in gemini_url, explain
    assert (
        f"ERROR Invalid configuration: setting 'provider' ({configured}provider): Input should be "
        "'gemini', 'openai' or 'anthropic'"
    ) in got["unknown"], explain
    # Issue 29 item 7: a level that is not a level is an invalid setting, not refused by a model.
    invalid = got["invalid_level"]
    assert f"ERROR Invalid configuration: setting 'thinkingLevel' ({configured}" in invalid
    assert "refuse" not in invalid, explain
    assert "Thinking level: not set" in invalid, explain
    refused = got["refused_level"]
    refusal = "ERROR The model gemini-3.8-flash (Gemini 3.7/3.8 Flash) refuses thinking level"
    assert refusal in refused, explain


LONG_ERROR = (
    "the callers of foo live in three modules and two of them pass keyword arguments that "
    "the new signature would break, so nothing was changed"
)
LONG_SUMMARY = (
    "renamed foo to bar in the definition and at its only call site, keeping the behaviour, "
    "the formatting and the comments exactly as they were"
)


def test_long_messages_fit_and_the_statusline_and_hooks_follow_the_edit(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL)
    emulator.enqueue(
        calls(("complete_task", {"success": False, "error": LONG_ERROR})),
        calls(replace("foo", "bar", replace_all=True), done(LONG_SUMMARY)),
    )

    report = run_script(
        nvim,
        "messages",
        tmp_path,
        emulator,
        file=str(path),
        columns=60,
        steps=["ComplexEdit rename foo to bar", "ComplexEdit rename foo to bar, again"],
    )

    explain = report["explain"]
    echospace = report["echospace"]
    failure, success = report["results"]
    expected = [
        (failure, ERROR, f"Complex Edit: failed (task_failed): {LONG_ERROR}", "failed"),
        (success, INFO, f"Complex Edit: {LONG_SUMMARY}", "done"),
    ]
    for result, level, full, outcome in expected:
        note = result["notification"]
        # One line that fits the command line: no hit-enter prompt.
        assert note["level"] == level, explain
        assert result["width"] < echospace, explain
        assert note["msg"].endswith("… :ComplexEditLast"), explain
        assert full.startswith(note["msg"].removesuffix("… :ComplexEditLast")), explain
        # The whole text: require('complex_edit').last(), :ComplexEditLast and :messages.
        assert result["last"]["message"] == full, explain
        assert result["last"]["level"] == level, explain
        assert result["last_echo"] == full, explain
        assert full in result["in_messages"], explain
        # The statusline showed the running edit and was redrawn when it ended.
        assert result["statuslines"][-1] == "", explain
        assert any(line != "" for line in result["statuslines"]), explain
        # One Start and one Done per edit, with the result.
        start, finish = result["hooks"]
        assert result["hooks_after"] == 2, explain
        assert start["event"] == "ComplexEditStart", explain
        assert start["running"] is True, explain
        assert start["data"]["prompt"].startswith("rename foo to bar"), explain
        assert finish["event"] == "ComplexEditDone", explain
        assert finish["running"] is False, explain
        assert finish["statusline"] == "", explain  # redrawn before the hook runs
        data = finish["data"]
        assert data["outcome"] == outcome, explain
        assert data["request_id"] == start["data"]["request_id"], explain
        assert data["bufnr"] == start["data"]["bufnr"], explain
        assert full.endswith(data["message"]), explain
    assert failure["hooks"][1]["data"]["result"]["reason"] == "task_failed", explain
    assert success["hooks"][1]["data"]["result"]["success"] is True, explain
    assert success["last"]["result"]["success"] is True, explain


# --- :ComplexEditReview ---------------------------------------------------------------------


FOO_LINE = hunk((0, 0), (1, 0), "def foo(x):\n", "def bar(x):\n", "Line 1: foo to bar")
PRINT_LINE = hunk((4, 0), (5, 0), "print(foo(41))\n", "print(bar(41))\n", "Line 5: foo to bar")
KEPT_FOO = "def bar(x):\n    return x + 1\n\n\nprint(foo(41))\n"
KEPT_PRINT = "def foo(x):\n    return x + 1\n\n\nprint(bar(41))\n"


def test_review_ui_keeps_drops_undoes_and_refuses_stale_hunks(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """The review UI fed hand-made hunks (no server), driven by the keys a user presses."""
    typed = "# typed during the review\n"
    cases: list[dict[str, Any]] = [
        {"name": "keep one, drop one", "keys": "yn<CR>", "hunks": [FOO_LINE, PRINT_LINE]},
        {"name": "move, keep the second", "keys": "]h]h[hy<CR>", "hunks": [FOO_LINE, PRINT_LINE]},
        {
            "name": "keep all: a line, an insertion, a word",
            "keys": "a<CR>",
            "hunks": [
                FOO_LINE,
                hunk((2, 0), (2, 0), "", "# added\n"),
                hunk((4, 6), (4, 9), "foo", "bar"),
            ],
        },
        {"name": "drop all", "keys": "d<CR>", "hunks": [FOO_LINE, PRINT_LINE]},
        {"name": "cancel", "keys": "y<Esc>", "hunks": [FOO_LINE]},
        {"name": "stale", "keys": "a<CR>", "typed": "top", "hunks": [FOO_LINE]},
        {
            "name": "moved on, still matches",
            "keys": "a<CR>",
            "typed": "bottom",
            "hunks": [FOO_LINE],
        },
        {
            "name": "remapped keys",
            "keys": "KQ",
            "review_keys": {"keep": "K", "finish": "Q"},
            "hunks": [FOO_LINE],
        },
    ]
    report = run_script(
        nvim,
        "review_ui",
        tmp_path,
        emulator,
        file=str(tmp_path / "doc"),
        original=ORIGINAL,
        cases=cases,
    )
    explain = report["explain"]
    got = {case["name"]: case for case in report["cases"]}
    expected = {
        "keep one, drop one": ("applied", KEPT_FOO),
        "move, keep the second": ("applied", KEPT_PRINT),
        "keep all: a line, an insertion, a word": (
            "applied",
            "def bar(x):\n    return x + 1\n# added\n\n\nprint(bar(41))\n",
        ),
        "drop all": ("none", ORIGINAL),
        "cancel": ("cancelled", ORIGINAL),
        "stale": ("stale", typed + ORIGINAL),
        "moved on, still matches": ("applied", KEPT_FOO + typed),
        "remapped keys": ("applied", KEPT_FOO),
    }
    for name, (outcome, text) in expected.items():
        case = got[name]
        assert case["ended"]["outcome"] == outcome, (name, explain)
        assert case["text"] == text, (name, explain)
        assert case["marks_after"] == 0, (name, explain)  # the review left nothing behind
        assert case["maparg_y"] == 0, (name, explain)  # nor its buffer-local keys
        if outcome == "applied" and name != "moved on, still matches":
            assert case["after_undo"] == ORIGINAL, (name, explain)  # one `u`
    # The kept hunks' ids went back to the server, once per review (none kept: an empty list).
    assert got["keep one, drop one"]["sent"] == [[0]], explain
    assert got["move, keep the second"]["sent"] == [[1]], explain
    assert got["keep all: a line, an insertion, a word"]["sent"] == [[0, 1, 2]], explain
    assert got["drop all"]["sent"] == [[]], explain
    # Shown in the buffer: the new lines as virtual lines, the cursor on the first hunk.
    assert got["keep one, drop one"]["virt_lines"] == ["def bar(x):", "print(bar(41))"], explain
    assert got["keep one, drop one"]["cursor_row"] == 1, explain
    stale_note = [n for n in report["notifications"] if "changed under the review" in n["msg"]]
    assert stale_note, explain
    assert stale_note[0]["level"] == ERROR, explain
    # The commands complete their argument from the instruction history.
    assert report["completion"] == ["foo to bar"], explain
    assert report["completion_all"] == ["add type hints", "rename foo to bar"], explain
    assert report["plugs"] == [True, True, True], explain
    # Issue 38: an edit across files has its <Plug> mapping too (`:ComplexEdit!`).
    assert report["across_plug"] == ["<Cmd>ComplexEdit!<CR>", ":ComplexEdit!<CR>"], explain
    # The changed lines of a landed edit (its answer's changedLines) flash: a deletion at the
    # end marks the last line.
    assert report["changes_flashed"] == [1, 4, 5, 6], explain
    assert got["keep one, drop one"]["y_mapped"] is True, explain
    assert got["remapped keys"]["y_mapped"] is False, explain  # K keeps instead


def test_complex_edit_review_writes_only_the_kept_hunk_as_one_undo_step(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL)
    emulator.enqueue(
        calls(
            replace("def foo(x):", "def bar(x):"),
            replace("print(foo(41))", "print(bar(41))"),
            done("renamed foo to bar"),
        )
    )

    report = run_script(
        nvim,
        "review",
        tmp_path,
        emulator,
        file=str(path),
        command="ComplexEditReview rename foo to bar",
        keys="yn<CR>",  # keep the first hunk, drop the second, write
    )

    explain = report["explain"]
    done_event = report["done"]
    assert done_event["outcome"] == "done", explain
    result = done_event["result"]
    assert result["applied"] is False, explain
    assert [hunk["oldText"] for hunk in result["hunks"]] == [
        "def foo(x):\n",
        "print(foo(41))\n",
    ], explain
    # Nothing landed before the user decided.
    assert report["states"] == ["pending", "pending"], explain
    assert report["text_during"] == ORIGINAL, explain
    assert report["modified_during"] is False, explain
    # The server landed exactly the kept hunk, in the buffer and (after :write) in the file.
    assert report["review_done"]["outcome"] == "applied", explain
    assert report["review_done"]["result"]["declined"] == 1, explain
    assert report["still_open"] is False, explain
    assert report["text"] == KEPT_FOO, explain
    assert path.read_text(encoding="utf-8") == KEPT_FOO, explain
    # One `u` restores the original.
    assert report["after_undo"] == ORIGINAL, explain


# --- issue 38: review across files ---------------------------------------------------------

OTHER = "import doc\n\nA = doc.foo\n" + "\n" * 6 + "B = doc.foo(2)\n"


def test_review_across_files_lands_every_files_kept_hunks(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = write(tmp_path, "doc.py", ORIGINAL, git=True)
    other = write(tmp_path, "other.py", OTHER)
    emulator.enqueue(
        calls(
            replace("def foo(x):", "def bar(x):"),
            (
                "replace_text",
                {"path": "other.py", "old_text": "foo", "new_text": "bar", "replace_all": True},
            ),
            done("renamed foo to bar in both files"),
        )
    )

    report = run_script(
        nvim,
        "review",
        tmp_path,
        emulator,
        file=str(path),
        other=str(other),
        command="ComplexEditReview! rename foo to bar everywhere",
        keys="yyn<CR>",  # keep doc.py's hunk and other.py's first, drop its second, write
    )

    explain = report["explain"]
    assert report["done"]["outcome"] == "done", explain
    uris = [hunk.get("uri") for hunk in report["done"]["result"]["hunks"]]
    assert len(uris) == 3, explain
    # The other file was loaded into a buffer of the same review, nothing written yet.
    assert report["other_loaded"] is True, explain
    assert report["other_in_review"] is True, explain
    assert report["states"] == ["pending", "pending", "pending"], explain
    assert report["other_text_during"] == OTHER, explain
    # Every file's kept hunks landed, in one applyReview.
    assert report["review_done"]["outcome"] == "applied", explain
    assert report["review_done"]["result"]["declined"] == 1, explain
    assert report["still_open"] is False, explain
    expected_other = OTHER.replace("A = doc.foo", "A = doc.bar")
    assert report["text"] == ORIGINAL.replace("def foo(x):", "def bar(x):"), explain
    assert report["other_text"] == expected_other, explain
    assert other.read_text(encoding="utf-8") == expected_other, explain
    assert path.read_text(encoding="utf-8") == ORIGINAL.replace("def foo(x):", "def bar(x):")
