"""The API key and the document's text never reach the server's stderr, the client's log
(`window/logMessage`, `window/showMessage`) or error messages."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.conftest import TEST_KEY
from tests.editor.checks import assert_failure, assert_success
from tests.editor.client import CommandError
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, give_up, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

MARKER = "QZX-DOCUMENT-MARKER-7781"
DOC = f"token = '{MARKER}'\nsecond_line = 2\n# comment {MARKER} again\n"


async def settle(editor: EditorSession) -> None:
    """Let the server's stderr and log notifications arrive."""
    await editor.barrier()
    seen = -1
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        count = len(editor.client.stderr_lines) + len(editor.client.log_messages)
        if count == seen:
            break
        seen = count
        await asyncio.sleep(0.15)


def assert_nothing_leaked(editor: EditorSession, *results: dict[str, object]) -> None:
    stderr = editor.stderr_since_start()
    logs = editor.log_since_start()
    assert TEST_KEY not in stderr
    assert TEST_KEY not in logs
    assert MARKER not in stderr, "the document text was written to the server's stderr"
    assert MARKER not in logs, "the document text was sent to the client's log"
    for result in results:
        assert TEST_KEY not in str(result)
        assert MARKER not in str(result.get("error", ""))


async def test_no_key_or_text_in_logs_across_outcomes(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    editor.replace(uri, "second_line = 2", f"second_line = '{MARKER}'")
    results = []

    emulator.enqueue(calls(replace("second_line", "line_two"), done("renamed")))
    results.append(await editor.run(uri, "rename second_line"))
    assert_success(results[-1])

    emulator.enqueue(calls(replace("no such text", "x"), give_up("could not")))
    results.append(await editor.run(uri, "fail"))
    assert_failure(results[-1], "task_failed")

    emulator.enqueue(Reply.error(401, f"API key {TEST_KEY} not valid"))
    results.append(await editor.run(uri, "auth failure"))
    assert_failure(results[-1], "auth")

    emulator.enqueue(Reply.truncated_json())
    results.append(await editor.run(uri, "broken reply"))
    assert_failure(results[-1], "model_error")

    emulator.enqueue(calls(replace("token", "tok"), done()))
    results.append(await editor.run(uri, "dry", dryRun=True))
    assert results[-1]["success"] is True

    editor.behaviour.mode = "reject"
    emulator.enqueue(calls(replace("token", "tok"), done()))
    results.append(await editor.run(uri, "rejected"))
    assert_failure(results[-1], "client_rejected")
    editor.behaviour.mode = "apply"

    emulator.enqueue(Reply.hang())
    msg_id, future = editor.start(uri, "cancel me")
    await emulator.wait_for_requests_async(len(emulator.requests) + 1)
    editor.cancel(msg_id)
    with pytest.raises(CommandError):
        await editor.answer(future)

    for request in emulator.requests:
        assert TEST_KEY not in request.raw_body.decode("utf-8", "replace"), (
            "the key reached the prompt"
        )
    await settle(editor)
    assert_nothing_leaked(editor, *results)


async def test_refused_documents_do_not_leak(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    binary = editor.open(f"{MARKER}\x00\x01binary")
    result = await editor.run(binary, "edit the binary")
    assert_failure(result, "invalid_request")
    editor.client.set_configuration({"complexEdit": {"maxDocumentBytes": 16}})
    big = editor.open(DOC)
    result2 = await editor.run(big, "too big")
    assert_failure(result2, "too_large")
    with pytest.raises(CommandError) as caught:
        await editor.execute_raw([{"textDocument": {"uri": big}, "prompt": 12}])
    assert MARKER not in caught.value.message
    assert emulator.requests == []
    await settle(editor)
    assert_nothing_leaked(editor, result, result2)


async def test_document_with_a_lone_surrogate_is_refused_cleanly(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    """JSON may carry a lone surrogate escape (\\ud800); the server must refuse it, not crash."""
    uri = vscode.new_uri()
    # The test client writes JSON with non-ASCII escaped, so the escape reaches the server as is.
    vscode.open(f"x = '{MARKER}\ud800'\n", uri=uri)
    result = await vscode.run(uri, "edit it")
    assert_failure(result, "invalid_request")
    assert emulator.requests == []
    emulator.enqueue(calls(done()))
    other = vscode.open("fine = 1\n")
    assert (await vscode.run(other, "still alive"))["success"] is True
    await settle(vscode)
    assert_nothing_leaked(vscode, result)
