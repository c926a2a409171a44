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


# `:ComplexEditLiveDiff` (issue 39): the command's buffer, a loaded buffer with text that is
# not ASCII, and a file not loaded (CRLF and tabs on disk, `version: null`).
LIB = 'AUTHORS = "🎉 Peter Åstrand"; foo = 1\n'
DISK = "from doc import foo\r\n\tprint(foo)  # ✨\r\n"


def test_the_live_diff_grows_a_section_per_file_and_says_how_the_edit_ended(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "doc.py").write_text(ORIGINAL, encoding="utf-8")
    (project / "lib.py").write_bytes(LIB.encode("utf-8"))
    (project / "disk.py").write_bytes(DISK.encode("utf-8"))
    foo_at = len(LIB.split("foo")[0].encode("utf-8"))  # utf-8: the fake server's encoding
    report = run_script(
        nvim,
        "live_diff",
        tmp_path,
        emulator,
        cwd=project,
        file=str(project / "doc.py"),
        other=str(project / "lib.py"),
        disk=str(project / "disk.py"),
        own_hunks=[hunk((0, 0), (1, 0), "def foo(x):\n", "def bar(x):\n")],
        own_hunks_later=[
            hunk((0, 0), (1, 0), "def foo(x):\n", "def bar(x):\n"),
            hunk((4, 6), (4, 9), "foo", "bar"),
        ],
        other_hunks=[hunk((0, foo_at), (0, foo_at + 3), "foo", "bar")],
        disk_hunks=[
            hunk((0, 16), (0, 19), "foo", "bar"),
            hunk((1, 7), (1, 10), "foo", "bar"),
        ],
    )
    explain = report["explain"]
    assert report["diff_filetype"] == "diff", explain
    assert report["diff_buftype"] == "nofile", explain
    assert report["before_edit"][0] == "# Complex Edit live diff: no edit has run yet", explain
    assert report["at_start"] == ["# Complex Edit live diff: running…", "# no change yet"], explain
    own = report["own"]
    assert own[:3] == ["# Complex Edit live diff: running…", "--- a/doc.py", "+++ b/doc.py"]
    assert "-def foo(x):" in own, explain
    assert "+def bar(x):" in own, explain
    with_other = report["with_other"]
    assert with_other.index("--- a/doc.py") < with_other.index("--- a/lib.py"), explain
    assert '-AUTHORS = "🎉 Peter Åstrand"; foo = 1' in with_other, explain
    assert '+AUTHORS = "🎉 Peter Åstrand"; bar = 1' in with_other, explain
    assert report["other_marks"] > 0, explain  # the other loaded buffer's inline preview
    with_disk = report["with_disk"]
    assert with_disk.index("--- a/lib.py") < with_disk.index("--- a/disk.py"), explain
    assert "+from doc import bar" in with_disk, explain
    assert "+\tprint(bar)  # ✨" in with_disk, explain
    redrawn = report["redrawn"]
    assert "+print(bar(41))" in redrawn, explain  # redrawn in place, in the same buffer
    assert redrawn.count("--- a/doc.py") == 1, explain
    assert report["same_buffer"] is True, explain
    assert report["disk_untouched"] is True, explain  # never loaded, never written
    assert report["other_text"] == LIB, explain  # drawn, never written
    assert (project / "disk.py").read_bytes() == DISK.encode("utf-8"), explain
    assert report["after_done"][0] == "# Complex Edit live diff: done", explain
    assert report["after_done"][1:] == redrawn[1:], explain  # the last state stays
    assert report["other_marks_after"] == 0, explain
    assert report["second_start"][0] == "# Complex Edit live diff: running…", explain
    assert report["after_failure"][0] == "# Complex Edit live diff: failed", explain
