"""A retried model request shows in the editor's progress: why, which retry, how long."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.e2e.conftest import EditorSession, assert_success, calls, done, replace
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
        (
            Reply.hang(),
            {"maxRetries": 1, "requestTimeoutSeconds": 0.5},
            "Turn 1/8 · no answer in 0.5 s; retry 1/1 in ",
        ),
    ],
    ids=["rate-limited", "no-answer"],
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
    token = await editor.new_progress_token(known)
    messages = [
        report.message or ""
        for report in editor.client.progress_reports[token]
        if isinstance(report, types.WorkDoneProgressReport)
    ]
    assert any(message.startswith(expected) for message in messages), messages
