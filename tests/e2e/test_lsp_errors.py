"""Refusals and failures: malformed requests, failing models, editors that refuse the edit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY
from tests.editor.checks import assert_failure
from tests.editor.client import CommandError
from tests.editor.fixtures import SessionFactory
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, give_up, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = "total = 0\nfor i in range(10):\n    total += i\nprint(total)\n"
INVALID_PARAMS = -32602

# Each case builds the `arguments` array from the URI of an open document.
BAD_ARGUMENTS: dict[str, Any] = {
    "no arguments": lambda uri: None,
    "empty arguments": lambda uri: [],
    "two arguments": lambda uri: [
        {"textDocument": {"uri": uri}, "prompt": "x"},
        {"textDocument": {"uri": uri}, "prompt": "y"},
    ],
    "argument not an object": lambda uri: ["rename things"],
    "missing textDocument": lambda uri: [{"prompt": "rename things"}],
    "missing uri": lambda uri: [{"textDocument": {}, "prompt": "rename things"}],
    "uri not a string": lambda uri: [{"textDocument": {"uri": 42}, "prompt": "x"}],
    "textDocument a string": lambda uri: [{"textDocument": uri, "prompt": "x"}],
    "missing prompt": lambda uri: [{"textDocument": {"uri": uri}}],
    "prompt not a string": lambda uri: [{"textDocument": {"uri": uri}, "prompt": 7}],
    "empty prompt": lambda uri: [{"textDocument": {"uri": uri}, "prompt": ""}],
    "blank prompt": lambda uri: [{"textDocument": {"uri": uri}, "prompt": " \n\t "}],
    "1 MB prompt": lambda uri: [{"textDocument": {"uri": uri}, "prompt": "x" * 1_000_000}],
    "dryRun not a bool": lambda uri: [
        {"textDocument": {"uri": uri}, "prompt": "x", "dryRun": "yes"}
    ],
    "maxTurns zero": lambda uri: [{"textDocument": {"uri": uri}, "prompt": "x", "maxTurns": 0}],
    "maxTurns a string": lambda uri: [
        {"textDocument": {"uri": uri}, "prompt": "x", "maxTurns": "3"}
    ],
    "model empty": lambda uri: [{"textDocument": {"uri": uri}, "prompt": "x", "model": ""}],
    "range malformed": lambda uri: [
        {"textDocument": {"uri": uri}, "prompt": "x", "range": {"start": {"line": 0}}}
    ],
    "range negative": lambda uri: [
        {
            "textDocument": {"uri": uri},
            "prompt": "x",
            "range": {
                "start": {"line": -1, "character": 0},
                "end": {"line": 0, "character": 0},
            },
        }
    ],
    "unopened uri": lambda uri: [
        {"textDocument": {"uri": uri + ".never-opened.py"}, "prompt": "x"}
    ],
}


@pytest.mark.parametrize("case", list(BAD_ARGUMENTS))
async def test_malformed_arguments_are_invalid_params_before_any_model_call(
    case: str, editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    with pytest.raises(CommandError) as caught:
        await editor.execute_raw(BAD_ARGUMENTS[case](uri))
    assert caught.value.code == INVALID_PARAMS, caught.value
    assert caught.value.message
    assert emulator.requests == []
    assert editor.applies == []
    assert editor.text(uri) == DOC


async def test_unopened_file_on_disk_is_not_read(
    vscode: EditorSession, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    on_disk = tmp_path / "secret.py"
    on_disk.write_text("password = 'ON-DISK-ONLY-TEXT'\n")
    emulator.enqueue(calls(done()))
    with pytest.raises(CommandError) as caught:
        await vscode.execute_raw([{"textDocument": {"uri": on_disk.as_uri()}, "prompt": "x"}])
    assert caught.value.code == INVALID_PARAMS
    assert "ON-DISK-ONLY-TEXT" not in caught.value.message
    assert emulator.requests == []


async def test_closed_document_is_no_longer_editable(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    vscode.close(uri)
    emulator.enqueue(calls(done()))
    with pytest.raises(CommandError) as caught:
        await vscode.execute_raw([{"textDocument": {"uri": uri}, "prompt": "x"}])
    assert caught.value.code == INVALID_PARAMS
    assert emulator.requests == []


async def test_the_server_survives_malformed_requests(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    for build in BAD_ARGUMENTS.values():
        with pytest.raises(CommandError):
            await vscode.execute_raw(build("file:///nowhere.py"))
    uri = vscode.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 100"), done()))
    result = await vscode.run(uri, "start at 100")
    assert result["success"] is True, result
    assert vscode.text(uri) == DOC.replace("total = 0", "total = 100")


# -- the model fails ---------------------------------------------------------------------


async def test_model_gives_up_nothing_is_applied(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = -1"), give_up("no way to do that")))
    result = await editor.run(uri, "do the impossible")
    assert_failure(result, "task_failed")
    assert "no way to do that" in result["error"]
    assert result["turns"] == 1
    assert result["toolCalls"] == 2
    assert editor.applies == []
    assert editor.text(uri) == DOC


async def test_turn_cap_from_the_command(editor: EditorSession, emulator: GeminiEmulator) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(("get_document", {})).repeat(None))
    result = await editor.run(uri, "never finish", maxTurns=2)
    assert_failure(result, "max_turns")
    assert result["turns"] == 2
    assert len(emulator.requests) == 2
    assert editor.applies == []
    assert editor.text(uri) == DOC


async def test_edits_without_complete_task_are_never_applied(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 5")).repeat(None))
    result = await editor.run(uri, "edit forever", maxTurns=3)
    assert_failure(result, "max_turns")
    assert editor.applies == []
    assert editor.text(uri) == DOC


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply.error(401), "auth"),
        (Reply.error(403), "auth"),
        (Reply.api_key_invalid(), "auth"),
        (Reply.error(401, f"API key {TEST_KEY} is not valid"), "auth"),
        (Reply.finish("SAFETY"), "blocked"),
        (Reply.blocked_prompt(), "blocked"),
        (Reply.error(500), "model_error"),
        (Reply.html(502), "model_error"),
        (Reply.rate_limited(retry_delay=3600), "quota"),
        (Reply.input_too_large(), "too_large"),
    ],
    ids=[
        "401",
        "403",
        "api-key-invalid",
        "401-echoing-the-key",
        "safety",
        "blocked-prompt",
        "500",
        "html-502",
        "429",
        "input-too-large",
    ],
)
async def test_model_service_failures_apply_nothing(
    reply: Reply, reason: str, vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    emulator.enqueue(reply.repeat(None))
    result = await vscode.run(uri, "edit it")
    assert_failure(result, reason)
    assert TEST_KEY not in str(result)
    assert vscode.applies == []
    assert vscode.text(uri) == DOC


async def test_missing_api_key_answers_config(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    keyless = await make_editor("vscode", env={"GEMINI_API_KEY": "", "GOOGLE_GEMINI_BASE_URL": ""})
    uri = keyless.open(DOC)
    emulator.enqueue(calls(done()))
    result = await keyless.run(uri, "edit it")
    assert_failure(result, "config")
    assert "GEMINI_API_KEY" in result["error"]
    assert emulator.requests == []


async def test_no_api_key_with_a_base_url_is_allowed(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    """A local proxy (or `complex-edit try`'s replay) needs no key: a placeholder is sent."""
    keyless = await make_editor("vscode", env={"GEMINI_API_KEY": ""})
    uri = keyless.open(DOC)
    emulator.enqueue(calls(done("nothing to do")))
    result = await keyless.run(uri, "edit it")
    assert result["success"] is True, result
    assert emulator.requests[0].api_key not in (None, "", TEST_KEY)


# -- the editor refuses ------------------------------------------------------------------


async def test_editor_rejecting_the_edit_is_client_rejected_with_its_reason(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.behaviour.mode = "reject"
    editor.behaviour.failure_reason = "read-only buffer (e2e)"
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await editor.run(uri, "edit it")
    assert_failure(result, "client_rejected")
    assert "read-only buffer (e2e)" in result["error"]
    assert len(editor.applies) == 1, "the edit was re-sent"
    assert editor.text(uri) == DOC


async def test_editor_rejecting_without_a_reason(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    vscode.behaviour.mode = "reject"
    vscode.behaviour.failure_reason = None
    uri = vscode.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await vscode.run(uri, "edit it")
    assert_failure(result, "client_rejected")
    assert len(vscode.applies) == 1


async def test_editor_answering_with_an_error_is_client_rejected(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.behaviour.mode = "error"
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await editor.run(uri, "edit it")
    assert_failure(result, "client_rejected")
    assert len(editor.applies) == 1, "the edit was re-sent"
    assert editor.text(uri) == DOC


async def test_editor_never_answering_is_client_rejected_after_the_apply_timeout(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.client.set_configuration({"complexEdit": {"applyTimeoutSeconds": 1}})
    editor.behaviour.mode = "hang"
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await editor.run(uri, "edit it")
    assert_failure(result, "client_rejected")
    assert "applyTimeoutSeconds" in result["error"]
    assert len(editor.applies) == 1, "the edit was re-sent"
    # the server is still responsive and the document can be edited again
    editor.behaviour.mode = "apply"
    emulator.enqueue(calls(replace("total = 0", "total = 2"), done()))
    result = await editor.run(uri, "edit it again")
    assert result["success"] is True, result
    assert editor.text(uri) == DOC.replace("total = 0", "total = 2")


async def test_editor_refusing_a_stale_version(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    """A strict editor refuses an edit for another version; the server reports it."""
    uri = vscode.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    # The editor pretends its document moved on without telling the server (its didChange
    # got lost): the versioned edit no longer matches, and a strict editor refuses it.
    vscode.docs[uri].version += 5
    result = await vscode.run(uri, "edit it")
    assert_failure(result, "client_rejected")
    assert "version" in result["error"]
    assert vscode.text(uri) == DOC


async def test_editor_claiming_applied_without_applying_is_not_a_silent_success(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """Neovim answers `applied: true` for an edit it dropped. A real editor always sends
    didChange for an edit it applied; with no echo the server must not report a success
    that did not happen (RELIABILITY: silent successes must be 0)."""
    editor.behaviour.mode = "drop"
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await editor.run(uri, "edit it")
    assert editor.text(uri) == DOC
    assert not (result["success"] and result.get("applied")), (
        f"reported success although the editor's text is unchanged: {result}"
    )
    assert len(editor.applies) == 1, "the edit was re-sent"


async def test_editor_applying_something_else_is_reported(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """The echoed didChange does not give the text the server sent: no success."""
    editor.behaviour.mode = "garble"
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await editor.run(uri, "edit it")
    assert editor.text(uri) != DOC
    assert result["success"] is False, result
    assert result["reason"] == "client_rejected", result
    assert len(editor.applies) == 1, "the edit was re-sent"
