"""`complex-edit mcp` with the argument `other_files` (issue 28): the real server process driven
by the `mcp` SDK's stdio client, the real google-genai SDK answered by the Gemini emulator.

The server's root is `<tmp>/proj` (three Python files, a secret `.env`, a link to a file
outside); a change reaching three files is written every one or none and the answer lists each
file; other files are read-only unless `other_files: "edit"`; nothing of the secret or of the
file outside reaches any request the model receives."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.types import CallToolResult

from tests.e2e.test_cli_other_files import (
    APP,
    FILES,
    MAIN,
    RENAME_ALL,
    RENAME_FROM_USE,
    RENAMED,
    SECRET,
    USE,
    calls,
    done,
    plant,
    replace,
)
from tests.e2e.test_mcp import CALL_TIMEOUT, TOOL, leftovers, session_with, structured, text_of
from tests.editor.checks import assert_git_applies
from tests.fakes.gemini_emulator import GeminiEmulator


class Server:
    def __init__(self, session: ClientSession, root: Path) -> None:
        self.session = session
        self.root = root

    async def call(self, arguments: dict[str, Any]) -> CallToolResult:
        return await self.session.call_tool(TOOL, arguments, read_timeout_seconds=CALL_TIMEOUT)

    def reset(self) -> None:
        for name, text in FILES.items():
            (self.root / name).write_text(text)

    def contents(self) -> dict[str, str]:
        return {name: (self.root / name).read_text() for name in FILES}


@pytest.fixture(scope="module")
async def server(
    emulator_server: GeminiEmulator, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Server]:
    base = tmp_path_factory.mktemp("mcp-files").resolve()
    root = plant(base)
    (root / "big.txt").unlink()  # oversized only under the CLI test's maxDocumentBytes
    log = base / "server.log"
    async with session_with(root, emulator_server.base_url, log) as session:
        yield Server(session, root)
    assert SECRET not in log.read_text()


def _wait_for_requests(emulator: GeminiEmulator, count: int) -> None:
    deadline = time.monotonic() + 30
    while len(emulator.requests) < count:
        assert time.monotonic() < deadline, "the server never sent its request"
        time.sleep(0.02)


@pytest.fixture
def project(server: Server, emulator: GeminiEmulator) -> Server:
    server.reset()
    return server


async def test_the_tool_declares_other_files(project: Server) -> None:
    (tool,) = (await project.session.list_tools()).tools
    schema = tool.input_schema["properties"]["other_files"]
    assert "edit" in str(schema)
    assert "other_files" in (tool.description or "")


async def test_a_change_to_three_files_writes_all_and_lists_each(
    project: Server, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(calls(("find_in_files", {"pattern": "total"})), RENAME_ALL)
    result = await project.call(
        {"path": "main.py", "prompt": "rename total everywhere", "other_files": "edit"}
    )
    assert not result.is_error, text_of(result)
    assert project.contents() == RENAMED
    data = structured(result)
    uris = [(project.root / name).as_uri() for name in FILES]
    assert [d["uri"] for d in data["documents"]] == uris
    assert all(d["applied"] for d in data["documents"])
    headers = [line for line in data["diff"].splitlines() if line.startswith("+++ ")]
    assert headers == ["+++ b/main.py", "+++ b/src/app.py", "+++ b/src/use.py"]
    text = text_of(result)
    paths = ", ".join(str(project.root / name) for name in FILES)
    assert text.splitlines()[:2] == [
        "Edited main.py: renamed everywhere",
        f"Files changed: {paths}",
    ]
    assert data["diff"] in text
    assert leftovers(project.root) == []
    assert leftovers(project.root / "src") == []


async def test_a_dry_run_of_three_files_writes_none_and_lists_each(
    project: Server, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(RENAME_ALL)
    result = await project.call(
        {"path": "main.py", "prompt": "rename", "other_files": "edit", "dry_run": True}
    )
    assert not result.is_error, text_of(result)
    assert project.contents() == FILES
    data = structured(result)
    assert [d["applied"] for d in data["documents"]] == [False] * 3
    assert "Files the edit changes: " in text_of(result)


async def test_every_answer_applies_with_git_apply_at_the_root(
    project: Server, emulator: GeminiEmulator
) -> None:
    """A file below the root, one document or three, dry run or written: every diff section
    is headed by the file's path from the root, so `git apply` there takes the diff."""
    emulator.enqueue(calls(replace("print(total(", "print(grand_total("), done()))
    call = {"path": "src/use.py", "prompt": "rename", "dry_run": True}
    one = structured(await project.call(call))
    assert one["diff"].startswith("--- a/src/use.py\n+++ b/src/use.py\n@@ "), one
    assert_git_applies(project.root, one["diff"])
    emulator.enqueue(RENAME_FROM_USE)
    several = structured(await project.call({**call, "other_files": "edit"}))
    headers = [line for line in several["diff"].splitlines() if line.startswith("--- ")]
    assert headers == ["--- a/src/use.py", "--- a/src/app.py", "--- a/main.py"]
    assert_git_applies(project.root, several["diff"])
    emulator.enqueue(RENAME_FROM_USE)
    written = structured(await project.call({**call, "other_files": "edit", "dry_run": False}))
    assert project.contents() == RENAMED
    assert_git_applies(project.root, written["diff"], reverse=True)


async def test_by_default_other_files_are_read_only(
    project: Server, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        calls(("get_document", {"path": "src/app.py"})),
        calls(replace("def total", "def grand_total", "src/app.py")),
        calls(replace("app.total(", "app.grand_total("), done("main.py only")),
    )
    result = await project.call({"path": "main.py", "prompt": "rename total"})
    assert not result.is_error, text_of(result)
    read = emulator.requests[1].function_responses[0]["response"]["result"]
    assert "def total(items):" in read
    refused = emulator.requests[2].function_responses[0]["response"]["error"]
    assert "can be read but not changed" in refused
    assert project.contents() == {**FILES, "main.py": RENAMED["main.py"]}
    assert structured(result).get("documents") is None


async def test_a_secret_and_a_file_behind_a_link_out_never_reach_the_model(
    project: Server, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(
        calls(
            ("get_document", {"path": ".env"}),
            ("get_document", {"path": "notes.txt"}),
            ("get_document", {"path": "../outside/notes.txt"}),
        ),
        calls(("find_in_files", {"pattern": "API_TOKEN|total", "regex": True})),
        calls(done()),
    )
    result = await project.call({"path": "main.py", "prompt": "look", "other_files": "edit"})
    assert not result.is_error, text_of(result)
    assert len(emulator.requests) == 3
    for request in emulator.requests:
        assert SECRET not in request.raw_body.decode("utf-8")
    errors = [part["response"]["error"] for part in emulator.requests[1].function_responses]
    assert "readExclude" in errors[0]
    assert "link that leaves the workspace" in errors[1]
    assert "leaves the workspace" in errors[2]
    assert SECRET not in text_of(result)


async def test_a_file_changed_meanwhile_leaves_every_file_unwritten(
    project: Server, emulator: GeminiEmulator
) -> None:
    emulator.enqueue(calls(("get_document", {"path": "src/use.py"})), RENAME_ALL.delayed(1.0))
    call = asyncio.create_task(
        project.call({"path": "main.py", "prompt": "rename", "other_files": "edit"})
    )
    await asyncio.to_thread(_wait_for_requests, emulator, 2)
    (project.root / "src" / "use.py").write_text(USE + "# the user's line\n")
    result = await call
    assert result.is_error
    data = structured(result)
    assert data["reason"] == "document_changed"
    assert "src/use.py" in data["error"]
    assert (project.root / "main.py").read_text() == MAIN
    assert (project.root / "src" / "app.py").read_text() == APP
