"""Review mode: nothing lands that the user did not keep, and the answer says what landed.

An editor with change annotations (VS Code) gets one annotated edit, one annotation per hunk,
each needing confirmation; the test editor plays the person who unchecks some of them. Any
other editor gets the hunks and no applyEdit, and sends back which to keep
(`complexEdit.applyReview`): the server lands those like any edit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.editor.client import RESPONSE_TIMEOUT, position_to_offset
from tests.editor.fixtures import SessionFactory
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator

DOC = "alpha = 1\nbeta = 2\ngamma = 3\ndelta = 4\nomega = 5\n"
EDITED = "alpha = 10\nbeta = 2\ngamma = 3\ndelta = 4\nomega = 50\n"
SUMMARY = "set two values"
TWO_HUNKS = calls(
    replace("alpha = 1", "alpha = 10"), replace("omega = 5", "omega = 50"), done(SUMMARY)
)
HUNK_1, HUNK_2 = "complex-edit/hunk-1", "complex-edit/hunk-2"


class Reviewer:
    """The person at the refactor preview: keeps the hunks in `keep`, unchecks the rest.
    Records the annotated edit as it came, then hands the editor the kept edits."""

    def __init__(self, editor: EditorSession, keep: Collection[str]) -> None:
        self.keep = set(keep)
        self.annotations: dict[str, types.ChangeAnnotation] = {}
        self.edit_ids: list[str | None] = []
        self._editor = editor

    def __call__(self) -> None:
        edit = self._editor.applies[-1].params.edit
        self.annotations = dict(edit.change_annotations or {})
        assert edit.document_changes is not None
        (change,) = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        self.edit_ids = [getattr(e, "annotation_id", None) for e in change.edits]
        change.edits = [
            types.TextEdit(range=e.range, new_text=e.new_text)
            for e in change.edits
            if getattr(e, "annotation_id", None) in self.keep
        ]


def reviewing(editor: EditorSession, keep: Collection[str]) -> Reviewer:
    reviewer = Reviewer(editor, keep)
    editor.behaviour.before_apply = reviewer
    return reviewer


def rebuild(editor: EditorSession, text: str, hunks: list[dict[str, Any]]) -> str:
    """Apply the proposed hunks to `text`, from the last to the first."""
    for hunk in reversed(hunks):
        span = types.Range(
            start=types.Position(**hunk["range"]["start"]),
            end=types.Position(**hunk["range"]["end"]),
        )
        start = position_to_offset(text, span.start, editor.encoding)
        end = position_to_offset(text, span.end, editor.encoding)
        assert text[start:end] == hunk["oldText"]
        text = text[:start] + hunk["newText"] + text[end:]
    return text


async def test_one_annotation_per_hunk_each_needing_confirmation(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    reviewer = reviewing(vscode, keep={HUNK_1, HUNK_2})
    emulator.enqueue(TWO_HUNKS)
    result = await vscode.run(uri, review=True)
    assert set(reviewer.annotations) == {HUNK_1, HUNK_2}
    assert all(a.needs_confirmation for a in reviewer.annotations.values())
    assert all(a.description == SUMMARY for a in reviewer.annotations.values())
    labels = [a.label for a in reviewer.annotations.values()]
    assert len(set(labels)) == 2
    assert labels[0].startswith("Line 1:")
    assert labels[1].startswith("Line 5:")
    assert set(reviewer.edit_ids) == {HUNK_1, HUNK_2}
    assert result["success"] is True, result
    assert result["applied"] is True, result
    assert result["declined"] == 0
    assert vscode.text(uri) == EDITED


async def test_partly_applied_review_answers_what_landed(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    reviewing(vscode, keep={HUNK_2})
    emulator.enqueue(TWO_HUNKS)
    result = await vscode.run(uri, review=True)
    assert vscode.text(uri) == DOC.replace("omega = 5", "omega = 50")
    assert result["success"] is True, result
    assert result["applied"] is True, result
    assert result["declined"] == 1
    assert "+omega = 50" in result["diff"]
    assert "alpha" not in result["diff"]
    assert result["message"] == "Applied 1 of 2 changes; you declined 1."


async def test_declining_every_hunk_is_a_plain_answer(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    reviewing(vscode, keep=())
    emulator.enqueue(TWO_HUNKS)
    result = await vscode.run(uri, review=True)
    assert vscode.text(uri) == DOC
    assert result["success"] is True, result
    assert result["applied"] is False, result
    assert result["declined"] == 2
    assert result["message"] == "You declined all 2 changes; nothing was applied."
    assert "reason" not in result


async def test_discarding_the_preview_is_a_plain_answer(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    vscode.behaviour.mode = "reject"
    vscode.behaviour.failure_reason = None
    emulator.enqueue(TWO_HUNKS)
    result = await vscode.run(uri, review=True)
    assert result["success"] is True, result
    assert result["applied"] is False, result
    assert result["declined"] == 2


async def test_an_editor_without_annotations_gets_hunks_and_no_edit(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    neovim = await make_editor("neovim")
    text = "é😀 = 1\n" + DOC
    uri = neovim.open(text)
    emulator.enqueue(TWO_HUNKS)
    result = await neovim.run(uri, review=True)
    assert neovim.applies == []
    assert result["success"] is True, result
    assert result["applied"] is False, result
    assert result["version"] == neovim.version(uri)
    hunks = result["hunks"]
    assert [h["label"].split(":")[0] for h in hunks] == ["Line 2", "Line 6"]
    assert all(h["diff"].startswith("--- ") for h in hunks)
    assert rebuild(neovim, text, hunks) == "é😀 = 1\n" + EDITED
    assert rebuild(neovim, text, hunks[1:]) == text.replace("omega = 5", "omega = 50")
    assert result["message"] == "2 changes proposed for review; nothing was applied."
    assert neovim.text(uri) == text


async def test_review_from_the_configuration_and_the_argument_overrides_it(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    vscode.client.set_configuration({"complexEdit": {"review": True}})
    uri = vscode.open(DOC)
    reviewer = reviewing(vscode, keep={HUNK_1})
    emulator.enqueue(TWO_HUNKS)
    result = await vscode.run(uri)
    assert set(reviewer.annotations) == {HUNK_1, HUNK_2}
    assert result["declined"] == 1
    vscode.behaviour.before_apply = None
    emulator.enqueue(calls(replace("beta = 2", "beta = 20"), done()))
    result = await vscode.run(uri, review=False)
    assert "declined" not in result, result
    assert result["applied"] is True, result
    assert vscode.applies[-1].params.edit.change_annotations is None


# -- review that lands through the server: complexEdit.applyReview -------------------------

REVIEW_COMMAND = "complexEdit.applyReview"


async def apply_review(editor: EditorSession, arguments: dict[str, Any]) -> dict[str, Any]:
    """`complexEdit.applyReview` with `arguments`: its answer (a JSON-RPC error raised)."""
    async with asyncio.timeout(RESPONSE_TIMEOUT):
        answer = await editor.client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=REVIEW_COMMAND, arguments=[arguments]),
        )
    assert isinstance(answer, dict), answer
    return answer


async def refusal(editor: EditorSession, arguments: dict[str, Any]) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as raised:
        await apply_review(editor, arguments)
    return raised.value


async def proposed(editor: EditorSession, emulator: GeminiEmulator) -> tuple[str, dict[str, Any]]:
    """A document under review in a plain editor: its uri and the proposing answer."""
    uri = editor.open(DOC)
    emulator.enqueue(TWO_HUNKS)
    result = await editor.run(uri, review=True)
    assert result["applied"] is False, result
    assert [hunk["id"] for hunk in result["hunks"]] == [0, 1]
    assert isinstance(result["proposalId"], str), result
    return uri, result


async def test_kept_hunks_land_through_the_server(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    neovim = await make_editor("neovim")
    uri, result = await proposed(neovim, emulator)
    landed = await apply_review(neovim, {"proposalId": result["proposalId"], "keep": [1]})
    assert neovim.text(uri) == DOC.replace("omega = 5", "omega = 50")
    assert len(neovim.applies) == 1
    assert landed["success"] is True, landed
    assert landed["applied"] is True, landed
    assert landed["declined"] == 1
    assert landed["message"] == "Kept 1 of 2 changes."
    assert "+omega = 50" in landed["diff"]
    assert "alpha" not in landed["diff"]
    assert [(c["document"]["start"], c["document"]["end"]) for c in landed["changedLines"]] == [
        (4, 5)
    ]
    assert landed["turns"] == result["turns"]
    assert "hunks" not in landed
    assert "proposalId" not in landed
    # applied once: the proposal is gone
    gone = await refusal(neovim, {"proposalId": result["proposalId"], "keep": [0]})
    assert (gone.code, gone.data) == (-32602, {"code": "unknown_proposal"})


async def test_keeping_none_applies_nothing(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    neovim = await make_editor("neovim")
    uri, result = await proposed(neovim, emulator)
    landed = await apply_review(neovim, {"proposalId": result["proposalId"], "keep": []})
    assert neovim.applies == []
    assert neovim.text(uri) == DOC
    assert landed["success"] is True, landed
    assert landed["applied"] is False, landed
    assert landed["declined"] == 2
    assert landed["diff"] == ""
    assert "reason" not in landed


async def test_kept_hunks_are_rebased_over_typing_meanwhile(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    neovim = await make_editor("neovim")
    uri, result = await proposed(neovim, emulator)
    neovim.replace(uri, "gamma = 3", "gamma = 33")
    await neovim.barrier()
    landed = await apply_review(neovim, {"proposalId": result["proposalId"], "keep": [0, 1]})
    assert landed["success"] is True, landed
    assert landed["applied"] is True, landed
    assert landed["declined"] == 0
    assert neovim.text(uri) == EDITED.replace("gamma = 3", "gamma = 33")


async def test_typing_over_a_kept_hunk_is_document_changed(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    neovim = await make_editor("neovim")
    uri, result = await proposed(neovim, emulator)
    neovim.replace(uri, "alpha = 1", "alpha = 7")
    await neovim.barrier()
    landed = await apply_review(neovim, {"proposalId": result["proposalId"], "keep": [0]})
    assert landed["success"] is False, landed
    assert landed["reason"] == "document_changed"
    assert landed["applied"] is False
    assert neovim.applies == []
    assert neovim.text(uri) == DOC.replace("alpha = 1", "alpha = 7")


async def test_an_unknown_proposal_and_a_wrong_hunk_are_invalid_params(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    neovim = await make_editor("neovim")
    unknown = await refusal(neovim, {"proposalId": "no-such-proposal", "keep": [0]})
    assert (unknown.code, unknown.data) == (-32602, {"code": "unknown_proposal"})
    uri, result = await proposed(neovim, emulator)
    wrong = await refusal(neovim, {"proposalId": result["proposalId"], "keep": [0, 2]})
    assert (wrong.code, wrong.data) == (-32602, {"code": "invalid_hunk"})
    malformed = await refusal(neovim, {"proposalId": result["proposalId"], "keep": "all"})
    assert malformed.code == -32602
    assert neovim.applies == []
    # the proposal is still there after a wrong answer
    landed = await apply_review(neovim, {"proposalId": result["proposalId"], "keep": [0]})
    assert landed["applied"] is True, landed
    assert neovim.text(uri) == DOC.replace("alpha = 1", "alpha = 10")


async def test_closing_the_document_or_a_new_command_drops_the_proposal(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    neovim = await make_editor("neovim")
    uri, result = await proposed(neovim, emulator)
    emulator.enqueue(calls(replace("beta = 2", "beta = 20"), done()))
    dry = await neovim.run(uri, dryRun=True)
    assert dry["success"] is True, dry
    voided = await refusal(neovim, {"proposalId": result["proposalId"], "keep": [0]})
    assert voided.data == {"code": "unknown_proposal"}
    uri, result = await proposed(neovim, emulator)
    neovim.close(uri)
    await neovim.barrier()
    closed = await refusal(neovim, {"proposalId": result["proposalId"], "keep": [0]})
    assert closed.data == {"code": "unknown_proposal"}


async def test_a_dry_run_answers_hunks_with_ids(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    emulator.enqueue(TWO_HUNKS)
    result = await vscode.run(uri, dryRun=True)
    assert vscode.applies == []
    assert [hunk["id"] for hunk in result["hunks"]] == [0, 1]
    assert result["version"] == vscode.version(uri)
    assert "proposalId" not in result
    assert rebuild(vscode, DOC, result["hunks"]) == EDITED


async def test_a_proposal_asked_for_lands_through_apply_review_in_an_editor_that_can_review(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    """`propose` (VS Code's Preview…): the change is kept as a proposal even where the editor
    could review it itself, and lands through `complexEdit.applyReview` like any edit."""
    uri = vscode.open(DOC)
    emulator.enqueue(TWO_HUNKS)
    result = await vscode.run(uri, propose=True)
    assert vscode.applies == []
    assert result["applied"] is False, result
    assert result["message"] == SUMMARY  # the session's own, as a dry run answers
    assert [hunk["id"] for hunk in result["hunks"]] == [0, 1]
    assert rebuild(vscode, DOC, result["hunks"]) == EDITED
    landed = await apply_review(vscode, {"proposalId": result["proposalId"], "keep": [0, 1]})
    assert landed["success"] is True, landed
    assert landed["applied"] is True, landed
    assert landed["message"] == "Kept 2 of 2 changes."
    assert vscode.text(uri) == EDITED
    assert len(vscode.applies) == 1
