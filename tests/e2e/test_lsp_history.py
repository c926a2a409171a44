"""`complexEdit.history` and `complexEdit.revert` over LSP (issue 35): the real server through
pytest-lsp, the Gemini emulator. An edit of three files (one not open), the user typing
elsewhere in them (unsaved), the revert keeping the typing as one versioned applyEdit; a
conflicting revert changing nothing; the revert itself reverted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.test_lsp_several_files import CALLER, HELPERS, OWN, RENAME, open_project
from tests.editor.checks import assert_success
from tests.editor.client import CommandError
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done
from tests.fakes.gemini_emulator import GeminiEmulator


async def command(editor: EditorSession, name: str, arguments: dict[str, Any]) -> Any:
    try:
        return await editor.client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=name, arguments=[arguments]),
        )
    except Exception as exc:  # a JSON-RPC error
        raise CommandError(int(getattr(exc, "code", 0)), str(exc)) from None


async def renamed(
    editor: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> tuple[str, dict[str, str]]:
    files, own, helpers = open_project(editor, tmp_path)
    emulator.enqueue(RENAME, calls(done("renamed")))
    result = await editor.run(own, "rename total to sum_of everywhere", otherFiles="edit")
    assert_success(result)
    uris = {"main.py": own, "helpers.py": helpers, "caller.py": files["caller.py"].as_uri()}
    return result["editId"], uris


async def test_a_revert_of_three_files_keeps_the_typing_and_is_reverted_in_turn(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    edit_id, uris = await renamed(vscode, emulator, tmp_path)
    vscode.replace(uris["main.py"], "print(", "# typed\nprint(")
    vscode.edit(uris["helpers.py"], 0, 0, "# header\n")
    await vscode.barrier()
    typed = {name: vscode.text(uri) for name, uri in uris.items()}

    listed = await command(vscode, "complexEdit.history", {"limit": 5})
    assert listed[0]["id"] == edit_id
    assert listed[0]["files"] == ["main.py", "helpers.py", "caller.py"]
    assert listed[0]["instruction"] == "rename total to sum_of everywhere"

    applies = len(vscode.applies)
    dry = await command(vscode, "complexEdit.revert", {"id": edit_id, "dryRun": True})
    assert dry["success"] is True, dry
    assert dry["applied"] is False
    assert "+++ b/caller.py" in dry["diff"]
    assert len(vscode.applies) == applies
    answer = await command(vscode, "complexEdit.revert", {"id": edit_id})
    assert answer["success"] is True, answer
    assert answer["applied"] is True
    assert [d["applied"] for d in answer["documents"]] == [True, True, True]
    assert vscode.text(uris["main.py"]) == OWN.replace("print(", "# typed\nprint(")
    assert vscode.text(uris["helpers.py"]) == "# header\n" + HELPERS
    assert vscode.text(uris["caller.py"]) == CALLER
    (apply,) = vscode.applies[applies:]  # one edit, every document versioned
    changes = apply.params.edit.document_changes
    assert changes is not None
    assert all(c.text_document.version is not None for c in changes)

    again = await command(vscode, "complexEdit.revert", {"id": answer["editId"]})
    assert again["success"] is True, again
    assert {name: vscode.text(uri) for name, uri in uris.items()} == typed
    listed = await command(vscode, "complexEdit.history", {})
    assert [entry["id"] for entry in listed[:3]] == [again["editId"], answer["editId"], edit_id]
    assert nothing_recorded_in(tmp_path)


def nothing_recorded_in(root: Path) -> bool:
    """No `.git` and no record of the history in the workspace."""
    return not (root / ".git").exists() and not [p for p in root.rglob("*.json")]


async def test_a_conflicting_revert_changes_nothing(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    edit_id, uris = await renamed(vscode, emulator, tmp_path)
    vscode.replace(uris["helpers.py"], "def sum_of(values):", "def sum_of(values, start=0):")
    await vscode.barrier()
    before = {name: vscode.text(uri) for name, uri in uris.items()}
    applies = len(vscode.applies)
    answer = await command(vscode, "complexEdit.revert", {"id": edit_id})
    assert answer["success"] is False
    assert answer["reason"] == "conflict"
    assert "helpers.py:1" in answer["error"]
    assert len(vscode.applies) == applies
    assert {name: vscode.text(uri) for name, uri in uris.items()} == before

    forced = await command(vscode, "complexEdit.revert", {"id": edit_id, "force": True})
    assert forced["success"] is True, forced
    assert vscode.text(uris["main.py"]) == OWN
    assert vscode.text(uris["helpers.py"]) == before["helpers.py"]


async def test_an_unknown_edit_and_bad_arguments(vscode: EditorSession) -> None:
    answer = await command(vscode, "complexEdit.revert", {"id": "no-such-edit"})
    assert answer["reason"] == "unknown_edit"
    with pytest.raises(CommandError):
        await command(vscode, "complexEdit.history", {"limit": "ten"})


async def test_a_revert_for_review_asks_for_each_change(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """`review: true` (VS Code's "Revert an Edit…"): every change of the revert needs the
    user's confirmation (the refactor preview); what they keep lands and is recorded."""
    edit_id, uris = await renamed(vscode, emulator, tmp_path)
    applies = len(vscode.applies)
    seen: dict[str, types.ChangeAnnotation] = {}

    def keep_every_change() -> None:
        """The person at the refactor preview keeps every change of every file."""
        edit = vscode.applies[-1].params.edit
        seen.update(edit.change_annotations or {})
        for change in edit.document_changes or []:
            assert isinstance(change, types.TextDocumentEdit)
            plain = [types.TextEdit(range=e.range, new_text=e.new_text) for e in change.edits]
            change.edits = plain

    vscode.behaviour.before_apply = keep_every_change
    answer = await command(vscode, "complexEdit.revert", {"id": edit_id, "review": True})
    assert answer["success"] is True, answer
    assert len(vscode.applies[applies:]) == 1
    assert seen
    assert all(note.needs_confirmation for note in seen.values())
    assert vscode.text(uris["main.py"]) == OWN
    assert vscode.text(uris["caller.py"]) == CALLER
    assert answer["editId"] != edit_id
