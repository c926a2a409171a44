"""`complex-edit mcp` with the argument `other_files` (issue 28): the real server process driven
by the `mcp` SDK's stdio client, the real google-genai SDK answered by the Gemini emulator.

The server's root is `<tmp>/proj` (three Python files, a secret `.env`, a link to a file
outside); a change reaching three files is written every one or none and the answer lists each
file; other files are read-only unless `other_files: "edit"`; nothing of the secret or of the
file outside reaches any request the model receives."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from tests.conftest import TEST_KEY
from tests.e2e.test_mcp import (
    CALL_TIMEOUT,
    START_TIMEOUT,
    TOOL,
    _open_log,
    _server_env,
    leftovers,
    structured,
    text_of,
)
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

SECRET = "hunter2-never-sent"
MAIN = "import app\n\nx = app.total([3])\n"
APP = "def total(items):\n    return sum(items)\n"
USE = "from app import total\n\nprint(total([1, 2]))\n"
FILES = {"main.py": MAIN, "src/app.py": APP, "src/use.py": USE}
RENAMED = {name: text.replace("total", "grand_total") for name, text in FILES.items()}


def calls(*items: tuple[str, dict[str, Any]]) -> Reply:
    return Reply.function_calls(list(items), usage=(100, 20))


def replace(old: str, new: str, path: str | None = None) -> tuple[str, dict[str, Any]]:
    args: dict[str, Any] = {"old_text": old, "new_text": new}
    if path is not None:
        args["path"] = path
    return ("replace_text", args)


def done(message: str = "renamed everywhere") -> tuple[str, dict[str, Any]]:
    return ("complete_task", {"success": True, "message": message})


RENAME_ALL = calls(
    replace("app.total(", "app.grand_total("),
    replace("def total", "def grand_total", "src/app.py"),
    replace(
        "import total\n\nprint(total(", "import grand_total\n\nprint(grand_total(", "src/use.py"
    ),
    done(),
)


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
    root = base / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text(f"API_TOKEN={SECRET}\n")
    (base / "outside").mkdir()
    (base / "outside" / "notes.txt").write_text(f"total {SECRET}\n")
    (root / "notes.txt").symlink_to(base / "outside" / "notes.txt")
    log = base / "server.log"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "complex_edit", "mcp", "--root", str(root)],
        env=_server_env(emulator_server.base_url),
        cwd=str(root),
    )
    ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()

    async def hold() -> None:
        with _open_log(log) as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                ready.set_result(session)
                await stop.wait()

    holder = asyncio.create_task(hold())
    await asyncio.wait({holder, ready}, timeout=START_TIMEOUT, return_when="FIRST_COMPLETED")
    if not ready.done():
        holder.cancel()
        with contextlib.suppress(BaseException):
            await holder
        pytest.fail(f"the MCP server did not start: {log.read_text()}")
    yield Server(ready.result(), root)
    stop.set()
    await asyncio.wait_for(holder, timeout=20)
    assert TEST_KEY not in log.read_text()
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
