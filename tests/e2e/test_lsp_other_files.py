"""The `otherFiles` argument: checked with the other arguments, and "edit" refused before any
model call by a client that cannot take one edit of several documents (no documentChanges)."""

from __future__ import annotations

import pytest

from tests.editor.checks import assert_failure
from tests.editor.client import CommandError
from tests.editor.fixtures import SessionFactory
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator

DOC = "x = 1\n"


async def test_other_file_edits_need_document_changes(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    plain = await make_editor("no-document-changes")
    uri = plain.open(DOC)
    result = await plain.run(uri, otherFiles="edit")
    assert_failure(result, "invalid_request")
    assert "documentChanges" in result["error"]
    assert emulator.requests == []
    assert plain.applies == []
    # reading other files, or this document alone, is fine there
    emulator.enqueue(calls(replace("x = 1", "x = 2"), done()))
    result = await plain.run(uri, otherFiles="read")
    assert result["success"] is True, result
    assert plain.text(uri) == "x = 2\n"


async def test_other_files_edit_on_a_capable_client_runs(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    emulator.enqueue(calls(replace("x = 1", "x = 3"), done()))
    result = await vscode.run(uri, otherFiles="edit")
    assert result["success"] is True, result
    assert vscode.text(uri) == "x = 3\n"


async def test_a_bad_other_files_value_is_invalid_params(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    with pytest.raises(CommandError) as caught:
        await editor.run(uri, otherFiles="everything")
    assert caught.value.code == -32602
    assert "otherFiles" in caught.value.message
    assert emulator.requests == []
