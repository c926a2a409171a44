"""What the LSP command checks before any model call (the `range` against the document, like
the CLI's `--range`), the stable `data.code` of a document that is not open, and the result's
`changedLines`."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.editor.fixtures import SessionFactory
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, first_message, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = "alpha = 1\nbeta = 2\ngamma = 3\ndelta = 4\nomega = 5\n"
INVALID_PARAMS = -32602


def lines(start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": start, "character": 0}, "end": {"line": end, "character": 0}}


def region(snapshot: tuple[int, int], document: tuple[int, int]) -> dict[str, Any]:
    return {
        "snapshot": {"start": snapshot[0], "end": snapshot[1]},
        "document": {"start": document[0], "end": document[1]},
    }


async def refused(editor: EditorSession, arguments: dict[str, Any]) -> JsonRpcException:
    _, future = editor.start_raw([arguments])
    with pytest.raises(JsonRpcException) as caught:
        async with asyncio.timeout(10):
            await future
    return caught.value


@pytest.mark.parametrize("selection", [lines(7, 9), lines(2, 9), lines(6, 6)])
async def test_a_range_past_the_end_is_invalid_params_before_any_model_call(
    selection: dict[str, Any], editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(done()))
    error = await refused(editor, {"textDocument": {"uri": uri}, "prompt": "x", "range": selection})
    assert error.code == INVALID_PARAMS, error
    assert "'range'" in error.message
    assert "past the end of the file (5 lines)" in error.message
    assert emulator.requests == []
    assert editor.applies == []


async def test_a_range_on_the_empty_line_after_the_last_break_means_the_last_line(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(done()))
    result = await editor.run(uri, "look at the end", range=lines(5, 5))
    assert result["success"] is True, result
    assert "lines 5-5" in first_message(emulator.requests[0])


async def test_a_document_not_open_carries_a_stable_code(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    error = await refused(
        editor, {"textDocument": {"uri": "file:///never/opened.py"}, "prompt": "x"}
    )
    assert error.code == INVALID_PARAMS
    assert "is not open in the editor" in error.message
    assert error.data == {"code": "document_not_open"}
    assert emulator.requests == []


async def test_changed_lines_of_an_applied_edit_and_of_a_dry_run(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(
        calls(
            replace("beta = 2\n", "beta = 20\nbeta2 = 21\n"),
            replace("delta = 4\n", ""),
            done(),
        )
    )
    result = await editor.run(uri, "edit", dryRun=True)
    expected = [region((1, 2), (1, 3)), region((3, 4), (4, 4))]
    assert result["changedLines"] == expected, result
    emulator.enqueue(
        calls(
            replace("beta = 2\n", "beta = 20\nbeta2 = 21\n"),
            replace("delta = 4\n", ""),
            done(),
        )
    )
    result = await editor.run(uri, "edit")
    assert result["applied"] is True, result
    assert result["changedLines"] == expected, result


async def test_no_change_has_no_changed_lines(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(done()))
    result = await editor.run(uri, "nothing")
    assert result["success"] is True, result
    assert "changedLines" not in result


async def test_changed_lines_of_an_edit_rebased_over_typing_are_in_the_document(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    release = threading.Event()
    emulator.enqueue(Reply.hang(release=release, then=calls(replace("omega = 5", "omega = 50"))))
    emulator.enqueue(calls(done()))
    _, future = editor.start(uri, "edit")
    await emulator.wait_for_requests_async(1)
    editor.edit(uri, 0, 0, "# one\n# two\n")
    await editor.barrier()
    release.set()
    result = await editor.answer(future)
    assert result["applied"] is True, result
    assert editor.text(uri) == "# one\n# two\n" + DOC.replace("omega = 5", "omega = 50")
    assert result["changedLines"] == [region((4, 5), (6, 7))]


async def test_changed_lines_of_a_partly_kept_review_and_of_proposed_hunks(
    vscode: EditorSession, make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    two_hunks = calls(
        replace("alpha = 1", "alpha = 10"), replace("omega = 5", "omega = 50"), done()
    )
    uri = vscode.open(DOC)

    def keep_the_second() -> None:
        edit = vscode.applies[-1].params.edit
        (change,) = edit.document_changes or []
        assert isinstance(change, types.TextDocumentEdit)
        change.edits = [
            types.TextEdit(range=e.range, new_text=e.new_text)
            for e in change.edits
            if getattr(e, "annotation_id", None) == "complex-edit/hunk-2"
        ]

    vscode.behaviour.before_apply = keep_the_second
    emulator.enqueue(two_hunks)
    result = await vscode.run(uri, review=True)
    assert result["declined"] == 1, result
    assert result["changedLines"] == [region((4, 5), (4, 5))]
    neovim = await make_editor("neovim")
    uri = neovim.open(DOC)
    emulator.enqueue(two_hunks)
    result = await neovim.run(uri, review=True)
    assert result["applied"] is False, result
    assert result["changedLines"] == [region((0, 1), (0, 1)), region((4, 5), (4, 5))]
