"""Edits that reach across files over LSP (issue 28): the workspace the client announced, the
other documents open in the editor (read from their buffers), files not open (read from disk,
edited with `version: null`), one edit all or nothing, each document's honest report, and the
refusals.

Each test announces its own temporary folder as a workspace folder of the pooled server
(`EditorSession.add_folder`, removed at the test's end)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.editor.checks import assert_failure, assert_git_applies, assert_success
from tests.editor.client import CommandError, wait_until
from tests.editor.fixtures import SessionFactory
from tests.editor.previews import previews
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

OWN = "from helpers import total\n\nprint(total([1, 2]))\n"
HELPERS = "def total(values):\n    return sum(values)\n"
CALLER = "from helpers import total\n\nTOTAL = total([3])\n"


def workspace(root: Path) -> dict[str, Path]:
    files = {"main.py": OWN, "helpers.py": HELPERS, "caller.py": CALLER}
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return {name: root / name for name in files}


def rename(path: str | None, old: str, new: str) -> tuple[str, dict[str, Any]]:
    name, args = replace(old, new, replace_all=True)
    return name, {**args, "path": path} if path else args


RENAME = calls(
    rename(None, "total", "sum_of"),
    rename("helpers.py", "total", "sum_of"),
    rename("caller.py", "total", "sum_of"),
)


def open_project(editor: EditorSession, root: Path) -> tuple[dict[str, Path], str, str]:
    """The three files written in `root`, announced as a workspace folder; main.py (the
    command's document) and helpers.py open, caller.py not: the files, and the two URIs."""
    files = workspace(root)
    editor.add_folder(str(root))
    own = editor.open_file(str(files["main.py"]))
    return files, own, editor.open_file(str(files["helpers.py"]))


WITH_CALLER = calls(rename(None, "total", "sum_of"), rename("caller.py", "total", "sum_of"))
WITH_HELPERS = calls(rename(None, "total", "sum_of"), rename("helpers.py", "total", "sum_of"))


def documents(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["uri"].rsplit("/", 1)[-1]: entry for entry in result["documents"]}


async def test_an_edit_of_three_files_one_not_open_lands_as_one(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    files, own, helpers = open_project(vscode, tmp_path)
    vscode.replace(helpers, "return sum(values)", "return sum(values)  # unsaved")
    emulator.enqueue(RENAME, calls(done("renamed")))
    result = await vscode.run(own, "rename total to sum_of everywhere", otherFiles="edit")
    assert_success(result)
    assert vscode.text(own) == OWN.replace("total", "sum_of")
    # the open document was read from its buffer (the unsaved comment kept), not from disk
    assert vscode.text(helpers) == "def sum_of(values):\n    return sum(values)  # unsaved\n"
    caller = files["caller.py"].as_uri()
    assert vscode.text(caller) == CALLER.replace("total", "sum_of")
    assert files["caller.py"].read_text() == CALLER  # loaded and edited, left unsaved
    (apply,) = vscode.applies
    changes = apply.params.edit.document_changes
    assert changes is not None
    versions = {c.text_document.uri.rsplit("/", 1)[-1]: c.text_document.version for c in changes}
    assert versions == {"main.py": 1, "helpers.py": 2, "caller.py": None}
    entries = documents(result)
    assert list(entries) == ["main.py", "helpers.py", "caller.py"]
    assert all(entry["applied"] for entry in entries.values())
    assert entries["caller.py"]["diff"].startswith("--- a/caller.py\n+++ b/caller.py\n")
    assert "version" not in entries["caller.py"] or entries["caller.py"]["version"] is None
    assert "+++ b/helpers.py" in result["diff"]
    assert "+++ b/caller.py" in result["diff"]


async def test_every_answer_applies_with_git_apply_at_the_workspace_root(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """Every diff section, the command's document's included and single-document answers
    too, is headed by the document's path from the workspace root: `git apply` there takes
    the answer's diff and each document's."""
    (tmp_path / "pkg").mkdir()
    files = {"pkg/main.py": OWN, "pkg/helpers.py": HELPERS, "caller.py": CALLER}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    vscode.add_folder(str(tmp_path))
    own = vscode.open_file(str(tmp_path / "pkg" / "main.py"))
    vscode.open_file(str(tmp_path / "pkg" / "helpers.py"))
    emulator.enqueue(calls(rename(None, "total", "sum_of")), calls(done()))
    one = await vscode.run(own, dryRun=True)
    assert one["diff"].startswith("--- a/pkg/main.py\n+++ b/pkg/main.py\n@@ "), one
    assert all(hunk["diff"].startswith("--- a/pkg/main.py\n") for hunk in one["hunks"]), one
    assert_git_applies(tmp_path, one["diff"])
    emulator.enqueue(
        calls(
            rename(None, "total", "sum_of"),
            rename("pkg/helpers.py", "total", "sum_of"),
            rename("caller.py", "total", "sum_of"),
        ),
        calls(done()),
    )
    several = await vscode.run(own, otherFiles="edit")
    assert_success(several)
    headers = [line for line in several["diff"].splitlines() if line.startswith("--- ")]
    assert headers == ["--- a/pkg/main.py", "--- a/pkg/helpers.py", "--- a/caller.py"]
    # (the edit landed in the editor's buffers; the files on disk are as they were)
    assert_git_applies(tmp_path, several["diff"])
    for entry in several["documents"]:
        assert_git_applies(tmp_path, entry["diff"])


@pytest.mark.parametrize("unopened", ["open-edited", "silent"])
async def test_how_the_editor_reports_a_file_it_had_to_open(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path, unopened: str
) -> None:
    """A file reported opened with the edit already in it (its didOpen) counts. One the
    editor loads and edits without a word to the server (Neovim whose client is attached to
    one buffer) is applied, as the editor said, but not claimed: the answer says so."""
    files, own, _helpers = open_project(vscode, tmp_path)
    vscode.behaviour.unopened = "open-edited" if unopened == "open-edited" else "silent"
    emulator.enqueue(WITH_CALLER, calls(done()))
    result = await vscode.run(own, otherFiles="edit")
    entries = documents(result)
    assert result["applied"] is True
    assert entries["main.py"]["applied"] is True
    if unopened == "open-edited":
        assert_success(result)
        assert entries["caller.py"]["applied"] is True
        return
    assert result["success"] is False, result
    assert result["reason"] == "client_rejected"
    assert "caller.py" in result["error"]
    assert entries["caller.py"]["applied"] is False
    assert vscode.loaded[files["caller.py"].as_uri()].text == CALLER.replace("total", "sum_of")
    # the wait for a report that never came is gone with the command
    stats = await vscode.client.protocol.send_request_async("complexEdit/_stats", {})
    assert _plain_stats(stats)["changeWaiters"] == 0, stats


async def test_typing_in_another_document_right_after_the_edit_still_confirms_it(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """The user types in helpers.py right after the edit landed there, before the server
    has read its report: the reported changes still show the edit."""
    _, own, helpers = open_project(vscode, tmp_path)
    vscode.behaviour.after_apply = lambda: vscode.edit(helpers, 0, 0, "# typed after\n")
    emulator.enqueue(WITH_HELPERS, calls(done()))
    result = await vscode.run(own, otherFiles="edit")
    assert_success(result)
    assert [entry["applied"] for entry in result["documents"]] == [True, True]
    assert vscode.text(helpers) == "# typed after\n" + HELPERS.replace("total", "sum_of")


@pytest.mark.parametrize("how", ["changed on disk", "typed over"])
async def test_a_document_that_cannot_take_its_change_stops_the_whole_edit(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path, how: str
) -> None:
    """caller.py (not open) changed on disk after it was read, or helpers.py (open) typed
    over where the edit changes it: nothing is sent, and the answer names the file."""
    files, own, helpers = open_project(vscode, tmp_path)
    if how == "changed on disk":
        first, name = WITH_CALLER, "caller.py"
    else:
        first, name = WITH_HELPERS, "helpers.py"
    _, future, release = await paused(vscode, emulator, own, first)
    if how == "changed on disk":
        files["caller.py"].write_text(CALLER + "# changed on disk\n", encoding="utf-8")
    else:
        vscode.replace(helpers, "def total", "def grand_total")
    release.set()
    result = await vscode.answer(future)
    assert_failure(result, "document_changed")
    assert name in result["error"]
    assert vscode.applies == []
    assert vscode.text(own) == OWN


async def test_typing_in_two_open_documents_is_rebased(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    _files, own, helpers = open_project(vscode, tmp_path)
    _, future, release = await paused(vscode, emulator, own, WITH_HELPERS)
    vscode.edit(own, len(vscode.text(own)), len(vscode.text(own)), "# typed\n")
    vscode.edit(helpers, 0, 0, "# typed too\n")
    release.set()
    result = await vscode.answer(future)
    assert_success(result)
    assert vscode.text(own) == OWN.replace("total", "sum_of") + "# typed\n"
    assert vscode.text(helpers) == "# typed too\n" + HELPERS.replace("total", "sum_of")


async def test_read_mode_reads_and_searches_but_changes_only_the_document(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text("API_TOKEN=sekrit-value\n", encoding="utf-8")
    files, own, _helpers = open_project(vscode, tmp_path)
    emulator.enqueue(
        calls(
            ("find_in_files", {"pattern": "total"}),
            ("get_document", {"path": "caller.py"}),
            ("get_document", {"path": ".env"}),
            rename("caller.py", "total", "sum_of"),
        ),
        calls(rename(None, "total", "sum_of"), done()),
    )
    result = await vscode.run(own)  # otherFiles: the setting's default, "read"
    assert_success(result)
    assert "documents" not in result or result["documents"] is None
    caller = files["caller.py"].as_uri()
    assert caller not in vscode.docs or vscode.text(caller) == CALLER
    answers = emulator.requests[1].function_responses
    text = str(answers)
    assert "caller.py:3: TOTAL = total([3])" in text
    assert "sekrit" not in str([r.body for r in emulator.requests])
    assert "readExclude" in text or "excluded" in text
    assert "can be read but not changed" in text


async def test_without_a_workspace_folder_other_files_are_refused_clearly(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    files = workspace(tmp_path)
    own = vscode.open_file(str(files["main.py"]))
    emulator.enqueue(calls(("get_document", {"path": "caller.py"})), calls(done()))
    result = await vscode.run(own, otherFiles="edit")
    assert result["success"] is True, result
    first = str(emulator.requests[0].contents[0])
    assert "No workspace folder is open" in first
    answer = str(emulator.requests[1].function_responses)
    assert "workspace" in answer
    assert "TOTAL" not in answer


async def test_more_files_than_max_files_is_a_tool_error(
    make_editor: SessionFactory, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    vscode = await make_editor("vscode")
    vscode.client.set_configuration({"complexEdit": {"maxFiles": 2}})
    _, own, _helpers = open_project(vscode, tmp_path)
    emulator.enqueue(RENAME, calls(done()))
    result = await vscode.run(own, otherFiles="edit")
    assert_success(result)
    assert "maxFiles" in str(emulator.requests[1].function_responses)
    assert [e["uri"].rsplit("/", 1)[-1] for e in result["documents"]] == ["main.py", "helpers.py"]


def _plain_stats(stats: Any) -> dict[str, Any]:
    return dict(stats._asdict()) if hasattr(stats, "_asdict") else dict(stats)


async def paused(
    editor: EditorSession, emulator: GeminiEmulator, own: str, first: Reply
) -> tuple[str, asyncio.Future[Any], threading.Event]:
    """The command with otherFiles "edit" started, the model's `first` turn done and its
    second one (complete_task) waiting for the returned event: the command's request id and
    answer, and that event."""
    release = threading.Event()
    emulator.enqueue(first, Reply.hang(release=release, then=calls(done())))
    msg_id, future = editor.start(own, "rename", otherFiles="edit")
    try:
        await wait_until(lambda: len(emulator.requests) >= 2, 10.0, "the second model request")
    except AssertionError:
        release.set()
        raise
    return msg_id, future, release


async def test_each_open_document_gets_its_own_live_preview(
    make_editor: SessionFactory, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    editor = await make_editor("vscode-preview")
    seen = previews(editor)
    _files, own, helpers = open_project(editor, tmp_path)
    release = threading.Event()
    emulator.enqueue(RENAME, Reply.hang(release=release, then=calls(done())))
    _, future = editor.start(own, "rename", otherFiles="edit")

    def previewed(uri: str) -> list[dict[str, Any]]:
        return [p for p in seen if p["textDocument"]["uri"] == uri and p["hunks"]]

    try:
        await wait_until(lambda: bool(previewed(own) and previewed(helpers)), 10.0, "previews")
    finally:
        release.set()
    (hunk,) = previewed(helpers)[-1]["hunks"]
    assert hunk["oldText"] == "def total(values):\n"
    assert hunk["newText"] == "def sum_of(values):\n"
    assert editor.text(helpers) == HELPERS  # drawn, never written
    # caller.py is not open: nothing to draw on
    assert {p["textDocument"]["uri"] for p in seen} == {own, helpers}
    result = await editor.answer(future)
    assert_success(result)
    for uri in (own, helpers):
        last = [p for p in seen if p["textDocument"]["uri"] == uri][-1]
        assert last["done"] is True
        assert last["hunks"] == []


async def test_review_across_files_for_a_plain_editor_lands_the_kept_hunks(
    make_editor: SessionFactory, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """An editor without change annotations gets every file's hunks, each with its `uri`;
    `complexEdit.applyReview` lands the kept ones, across files, as one edit."""
    plain = await make_editor("no-config")
    files, own, helpers = open_project(plain, tmp_path)
    emulator.enqueue(RENAME, calls(done()))
    result = await plain.run(own, otherFiles="edit", review=True)
    assert result["success"] is True, result
    assert result["applied"] is False
    assert plain.applies == []
    hunks = result["hunks"]
    by_file = {h["id"]: h["uri"].rsplit("/", 1)[-1] for h in hunks}
    assert sorted(set(by_file.values())) == ["caller.py", "helpers.py", "main.py"]
    assert [h["id"] for h in hunks] == list(range(len(hunks)))
    keep = [i for i, name in by_file.items() if name != "main.py"]
    answer = await _apply_review(plain, {"proposalId": result["proposalId"], "keep": keep})
    assert answer["success"] is True, answer
    assert answer["applied"] is True
    assert answer["declined"] == len(hunks) - len(keep)
    assert plain.text(own) == OWN  # none of its hunks kept
    assert plain.text(helpers) == HELPERS.replace("total", "sum_of")
    assert plain.text(files["caller.py"].as_uri()) == CALLER.replace("total", "sum_of")
    assert len(plain.applies) == 1


async def _apply_review(editor: EditorSession, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = await editor.client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command="complexEdit.applyReview", arguments=[arguments]),
    )
    assert isinstance(answer, dict), answer
    return answer


async def test_review_across_files_in_the_refactor_preview_answers_each_file(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """An editor with change annotations gets one annotation per hunk in every file; the
    person keeps some (here: everything but caller.py's); the answer says what landed where."""
    files, own, helpers = open_project(vscode, tmp_path)
    seen: dict[str, types.ChangeAnnotation] = {}

    def reviewer() -> None:
        edit = vscode.applies[-1].params.edit
        seen.update(edit.change_annotations or {})
        for change in edit.document_changes or []:
            assert isinstance(change, types.TextDocumentEdit)
            keep = not change.text_document.uri.endswith("caller.py")
            change.edits = [
                types.TextEdit(range=e.range, new_text=e.new_text) for e in change.edits if keep
            ]

    vscode.behaviour.before_apply = reviewer
    emulator.enqueue(RENAME, calls(done()))
    result = await vscode.run(own, otherFiles="edit", review=True)
    assert all(note.needs_confirmation for note in seen.values())
    labels = [note.label for note in seen.values()]
    assert any(label.startswith("helpers.py, line 1:") for label in labels), labels
    assert any(label.startswith("caller.py, line 1:") for label in labels), labels
    assert result["success"] is True, result
    assert result["applied"] is True
    assert result["declined"] == 2  # caller.py's two hunks
    entries = documents(result)
    assert [entries[name]["applied"] for name in ("main.py", "helpers.py", "caller.py")] == [
        True,
        True,
        False,
    ]
    assert vscode.text(own) == OWN.replace("total", "sum_of")
    assert vscode.text(helpers) == HELPERS.replace("total", "sum_of")
    caller = files["caller.py"].as_uri()
    assert caller not in vscode.docs or vscode.text(caller) == CALLER


async def test_a_cancel_in_the_middle_writes_nothing_anywhere(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    files, own, helpers = open_project(vscode, tmp_path)
    msg_id, future, release = await paused(vscode, emulator, own, RENAME)
    vscode.cancel(msg_id)
    outcome = await vscode.outcome(future)
    release.set()
    assert isinstance(outcome, CommandError), outcome
    assert outcome.code == -32800
    await vscode.barrier()
    assert vscode.applies == []
    assert (vscode.text(own), vscode.text(helpers)) == (OWN, HELPERS)
    assert [files[name].read_text() for name in ("main.py", "helpers.py", "caller.py")] == [
        OWN,
        HELPERS,
        CALLER,
    ]
