"""The Neovim plugin's live preview (`complexEdit/preview`, issue 21) and `:ComplexEdit!` (an
edit across files, issue 28) in a real headless Neovim.

The server side is a tiny in-process fake (`nvim_plugin/fake_server.lua`): the plugin's own
`lsp/complex_edit.lua` with only `cmd` replaced, so the capabilities the plugin sends, its
notification handler and the way its edits end are the real ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.nvim_plugin_scripts import ORIGINAL, hunk, run_script
from tests.fakes.gemini_emulator import GeminiEmulator

pytestmark = pytest.mark.nvim

# ORIGINAL is "def foo(x):\n    return x + 1\n\n\nprint(foo(41))\n".
HUNKS = [
    hunk((0, 0), (1, 0), "def foo(x):\n", "def bar(x):\n"),
    hunk((2, 0), (2, 0), "", "# added\n# twice\n"),
    hunk((4, 6), (4, 9), "foo", "bar"),
]
MORE_HUNKS = [hunk((0, 0), (1, 0), "def foo(x):\n", "def baz(x):\n")]
SHOWN = ["def bar(x):", "# added", "# twice", "print(bar(41))"]


def _preview(nvim: str, emulator: GeminiEmulator, tmp_path: Path, **config: Any) -> dict[str, Any]:
    path = tmp_path / "project" / "doc.py"
    path.parent.mkdir()
    path.write_text(ORIGINAL, encoding="utf-8")
    return run_script(
        nvim,
        "preview",
        tmp_path,
        emulator,
        file=str(path),
        hunks=HUNKS,
        more_hunks=MORE_HUNKS,
        **config,
    )


def _untouched(seen: dict[str, Any], before: dict[str, Any]) -> bool:
    """The buffer holds what it held before: text, changedtick, undo tree, cursor, 'modified'."""
    keys = ("text", "changedtick", "undo_seq", "cursor", "modified")
    return all(seen[key] == before[key] for key in keys)


def test_the_preview_is_drawn_never_written_and_cleared_however_the_edit_ends(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    report = _preview(nvim, emulator, tmp_path)
    explain = report["explain"]
    before = report["before"]
    assert report["experimental"] == {"complexEditPreview": True}, explain
    assert report["running"] is True, explain
    assert before["marks"] == 0, explain
    assert before["text"] == ORIGINAL, explain

    first = report["first"]
    assert first["virt_lines"] == SHOWN, explain
    assert first["old_rows"] == [[0, 1], [4, 5]], explain  # line 1, line 5 highlighted
    replaced = report["replaced"]
    assert replaced["virt_lines"] == ["def baz(x):"], explain  # each one replaces the last
    # A preview on a version the buffer is not at is skipped; the last good one stays.
    assert report["older_version"]["virt_lines"] == ["def baz(x):"], explain
    assert report["newer_version"]["virt_lines"] == ["def baz(x):"], explain
    assert report["after_done"]["marks"] == 0, explain

    for shown, ended in [
        ("before_success", "after_success"),
        ("before_failure", "after_failure"),
        ("before_cancel", "after_cancel"),
    ]:
        assert report[shown]["virt_lines"] == SHOWN, (shown, explain)
        assert report[ended]["marks"] == 0, (ended, explain)
    assert report["cancels"] == 1, explain

    # Drawn, never written: no text, no undo step, no cursor move, not even 'modified'.
    for name in (
        "first",
        "replaced",
        "older_version",
        "newer_version",
        "after_done",
        "after_success",
        "after_failure",
        "after_cancel",
    ):
        assert _untouched(report[name], before), (name, explain)
    assert before["cursor"] == [2, 4], explain

    # After the user typed, only a preview on the new version shows.
    assert report["typed_old_version"]["marks"] == 0, explain
    assert report["typed_new_version"]["virt_lines"] == SHOWN, explain
    assert report["no_edit"]["marks"] == 0, explain
    # Unloading the buffer leaves nothing behind.
    assert report["before_unload"]["virt_lines"] == SHOWN, explain
    assert report["autocmds_while_shown"] == 2, explain  # BufUnload, BufWipeout
    assert report["autocmds_after_unload"] == 0, explain
    assert report["after_reload"]["marks"] == 0, explain
    assert report["running_after_reload"] is False, explain


def test_opting_out_sends_no_capability_and_draws_nothing(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    report = _preview(nvim, emulator, tmp_path, live_preview=False)
    explain = report["explain"]
    assert report["experimental"] == {"complexEditPreview": False}, explain
    for name in ("first", "replaced", "before_success", "before_failure", "before_cancel"):
        assert report[name]["marks"] == 0, (name, explain)
        assert _untouched(report[name], report["before"]), (name, explain)
    assert report["typed_new_version"]["marks"] == 0, explain


def test_complex_edit_bang_edits_across_files_and_names_the_unsaved_ones(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """`:ComplexEdit!` against the fake server: `otherFiles: "edit"` is sent (and nothing by a
    plain `:ComplexEdit`); the file the workspace edit loaded is left unsaved and named in the
    message, with the `:wall` hint."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "doc.py").write_text(ORIGINAL, encoding="utf-8")
    other = project / "lib.py"
    other.write_text("foo = 1\n", encoding="utf-8")

    report = run_script(
        nvim, "across", tmp_path, emulator, file=str(project / "doc.py"), other=str(other)
    )

    explain = report["explain"]
    assert report["plain_other_files"] is None, explain
    assert report["bang_other_files"] == "edit", explain
    assert report["apply_answer"]["result"]["applied"] is True, explain
    assert report["other_loaded_before"] is False, explain
    assert report["other_loaded"] is True, explain
    assert report["other_modified"] is True, explain
    assert report["other_text"] == "bar = 1\n", explain
    assert other.read_text(encoding="utf-8") == "foo = 1\n", explain  # left unsaved
    assert report["last"].startswith("Complex Edit: renamed foo to bar (also changed: "), explain
    assert "lib.py; unsaved, :wall writes them)" in report["last"], explain
