"""The live preview in a real headless Neovim with the real server (issue 21): the plugin opts
in, and while a multi-turn session runs the buffer shows the change so far as extmarks and
keeps its text; the edit then lands as usual, no preview remains, and one `u` undoes it.

The model's second turn waits until the script has seen the preview (a flag file), so the test
needs no sleeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.nvim_plugin_scripts import ORIGINAL, run_script
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply

pytestmark = pytest.mark.nvim

FLAG_TIMEOUT = 15.0


def _turns(flag: Path) -> Callable[[RecordedRequest], Reply]:
    """Turn 1 renames the function; turn 2 answers once the flag exists."""
    first = calls(replace("def foo(x):", "def bar(x):"))
    second = calls(replace("print(foo(41))", "print(bar(41))"), done("renamed"))

    def respond(request: RecordedRequest) -> Reply:
        if request.index == 0:
            return first
        deadline = time.monotonic() + FLAG_TIMEOUT
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return second

    return respond


def test_the_preview_shows_while_the_session_runs_and_the_edit_is_one_undo_step(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = tmp_path / "project" / "doc.py"
    path.parent.mkdir()
    path.write_text(ORIGINAL, encoding="utf-8")
    flag = tmp_path / "seen.flag"
    emulator.set_responder(_turns(flag))

    report = run_script(
        nvim,
        "live_preview_real",
        tmp_path,
        emulator,
        file=str(path),
        prompt="rename foo to bar",
        flag=str(flag),
    )
    explain = report["explain"]
    before, during, after, undone = (report[k] for k in ("before", "during", "after", "undone"))
    assert before["marks"] == 0, explain
    assert before["text"] == ORIGINAL, explain
    assert report["running_during"] is True, explain
    # Drawn, never written: the first turn's rename shows, the buffer is as it was.
    assert during["virt_lines"] == ["def bar(x):"], explain
    assert during["old_rows"], explain
    assert during["old_rows"][0][0] == 0, explain
    for key in ("text", "changedtick", "undo_seq", "modified"):
        assert during[key] == before[key], (key, explain)
    # The edit landed; nothing of the preview remains; one undo restores the original.
    assert after["text"] == ORIGINAL.replace("foo", "bar"), explain
    assert after["marks"] == 0, explain
    assert undone["text"] == ORIGINAL, explain
    assert undone["marks"] == 0, explain
    assert len(emulator.requests) == 2, explain
