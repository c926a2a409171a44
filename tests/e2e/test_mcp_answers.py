"""What the MCP tool answers with the review setting on, with a slow model and with a refused
request (issue 20), through the `mcp` SDK's own client connected in-process to the server
`build_server` makes, the real google-genai SDK answered by the Gemini emulator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client
from mcp.types import CallToolResult, TextContent

from complex_edit.server.edit.roots import Roots
from complex_edit.server.mcp.server import TOOL_NAME, build_server
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.result import InProcess
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = b"def foo():\n    return 1\n\n\nprint(foo())\n"
RENAME = Reply.function_calls(
    [
        ("replace_text", {"old_text": "def foo", "new_text": "def bar"}),
        ("replace_text", {"old_text": "print(foo())", "new_text": "print(bar())"}),
        ("complete_task", {"success": True, "message": "renamed"}),
    ]
)
ENV = {"GEMINI_API_KEY": TEST_KEY}


async def call(
    root: Path, emulator: GeminiEmulator, arguments: dict[str, Any], **settings: Any
) -> tuple[CallToolResult, list[str]]:
    layer = {"baseUrl": emulator.base_url, "requestTimeoutSeconds": 5, **settings}
    server = build_server(
        Roots.from_dirs([str(root)]),
        Settings.from_layers({}, layer),
        ENV,
        InProcess(ProviderHub(ENV)),
    )
    progress: list[str] = []

    async def on_progress(_done: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with Client(server) as client:
        result = await client.call_tool(TOOL_NAME, arguments, progress_callback=on_progress)
    return result, progress


def text_of(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


async def test_review_returns_the_change_and_writes_nothing_and_says_so(
    emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = tmp_path / "doc.py"
    path.write_bytes(DOC)
    emulator.enqueue(RENAME)
    result, progress = await call(
        tmp_path, emulator, {"path": "doc.py", "prompt": "rename"}, review=True
    )
    # issue 29 item 7: nothing was written, so no progress line says "Done"
    assert progress
    assert not any(line.startswith("Done") for line in progress)
    text = text_of(result)
    assert "Dry run" not in text
    assert text.startswith("Review is on (setting review)")
    assert "nothing was written to doc.py: 2 changes are proposed" in text
    assert "+def bar():" in text
    assert path.read_bytes() == DOC
    structured = result.structured_content or {}
    assert structured["success"] is True
    assert structured["applied"] is False
    assert len(structured["hunks"]) == 2
    assert structured["validation"]["syntax"] == "ok"
    assert not result.is_error


async def test_a_refused_request_still_has_a_validation(
    emulator: GeminiEmulator, tmp_path: Path
) -> None:
    result, _ = await call(tmp_path, emulator, {"path": "missing.py", "prompt": "rename"})
    structured = result.structured_content or {}
    assert structured["reason"] == "invalid_request"
    assert structured["validation"]["syntax"] == "skipped"
    assert emulator.request_count == 0


async def test_progress_shows_the_time_spent_waiting(
    emulator: GeminiEmulator, tmp_path: Path
) -> None:
    path = tmp_path / "doc.py"
    path.write_bytes(DOC)
    emulator.enqueue(RENAME.delayed(1.2))
    result, progress = await call(
        tmp_path, emulator, {"path": "doc.py", "prompt": "rename"}, requestTimeoutSeconds=2
    )
    assert not result.is_error, text_of(result)
    assert emulator.request_count == 1
    assert any(line.startswith("Turn 1/8 · waiting for the model · ") for line in progress)
