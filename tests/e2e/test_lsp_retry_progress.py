"""A retried model request shows in the editor's progress: why, which retry, how long; a slow
one shows how long it has been waited for; a hung one ends after one limit (issue 20)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.editor.checks import assert_success
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = "value = 1\n"


@pytest.mark.parametrize(
    ("fault", "settings", "expected"),
    [
        (
            Reply.rate_limited(retry_delay="0.5s"),
            {"maxRetries": 2},
            "Turn 1/8 · rate limited; retry 1/2 in 0.5 s",
        ),
    ],
    ids=["rate-limited"],
)
async def test_progress_names_each_retry(
    fault: Reply,
    settings: dict[str, object],
    expected: str,
    editor: EditorSession,
    emulator: GeminiEmulator,
) -> None:
    editor.client.set_configuration({"complexEdit": settings})
    known = editor.progress_tokens()
    uri = editor.open(DOC)
    emulator.enqueue(fault, calls(replace("value = 1", "value = 2"), done()))
    result = await editor.run(uri, "bump the value")
    assert_success(result)
    assert editor.text(uri) == "value = 2\n"
    assert len(emulator.requests) == 2
    messages = _reports(editor, await editor.new_progress_token(known))
    assert any(message.startswith(expected) for message in messages), messages


def _reports(editor: EditorSession, token: str) -> list[str]:
    return [
        report.message or ""
        for report in editor.client.progress_reports[token]
        if isinstance(report, types.WorkDoneProgressReport)
    ]


async def test_progress_shows_the_time_spent_waiting(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    # A waiting line every requestTimeoutSeconds / 8 (0.25 s here; 5 s by default).
    editor.client.set_configuration({"complexEdit": {"requestTimeoutSeconds": 2}})
    known = editor.progress_tokens()
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("value = 1", "value = 2"), done()).delayed(1.2))
    result = await editor.run(uri, "bump the value")
    assert_success(result)
    assert len(emulator.requests) == 1
    messages = _reports(editor, await editor.new_progress_token(known))
    waiting = [m for m in messages if m.startswith("Turn 1/8 · waiting for the model · ")]
    assert waiting, messages


async def test_a_hung_request_ends_after_one_limit_with_one_error(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.client.set_configuration(
        {"complexEdit": {"maxRetries": 3, "requestTimeoutSeconds": 0.5}}
    )
    uri = editor.open(DOC)
    emulator.enqueue(Reply.hang().repeat(None))
    result = await editor.run(uri, "bump the value")
    assert result["reason"] == "model_error", result
    assert "requestTimeoutSeconds" in result["error"]
    assert len(emulator.requests) == 1
    assert editor.text(uri) == DOC
