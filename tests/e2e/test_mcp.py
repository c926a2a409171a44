"""`complex-edit mcp` end to end: the real server process driven by the `mcp` SDK's own stdio
client session, the real google-genai SDK answered by the Gemini emulator.

One server runs for the module, confined to `<tmp>/proj`; next to it are `proj-evil` (a sibling
whose name starts with the root's) and `outside`, plus symlinks inside the root pointing out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from complex_edit.server.mcp.early import load_listing
from complex_edit.server.mcp.listing import record
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply

TOOL = "perform_complex_edit"
DOC = b"def foo():\n    return 1\n\n\nprint(foo())\n"
RENAMED = b"def bar():\n    return 1\n\n\nprint(bar())\n"
SECRET = b"do not touch\n"
START_TIMEOUT = 60.0
CALL_TIMEOUT = 60.0


def calls(*items: tuple[str, dict[str, Any]]) -> Reply:
    return Reply.function_calls(list(items), usage=(100, 20))


RENAME_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("replace_text", {"old_text": "def foo", "new_text": "def bar"}),
    ("replace_text", {"old_text": "print(foo())", "new_text": "print(bar())"}),
    ("complete_task", {"success": True, "message": "renamed"}),
)
RENAME = calls(*RENAME_CALLS)


@dataclass
class Server:
    session: ClientSession
    root: Path
    base: Path
    log: Path
    files: list[Path] = field(default_factory=list)

    def file(self, name: str, content: bytes = DOC) -> Path:
        path = self.root / name
        path.write_bytes(content)
        return path

    async def call(self, arguments: dict[str, Any], **kwargs: Any) -> CallToolResult:
        return await self.session.call_tool(
            TOOL, arguments, read_timeout_seconds=CALL_TIMEOUT, **kwargs
        )


def _tree(base: Path) -> Path:
    root = base / "proj"
    root.mkdir()
    for sibling in ("proj-evil", "outside"):
        (base / sibling).mkdir()
        (base / sibling / "secret.txt").write_bytes(SECRET)
    (root / "link-out.txt").symlink_to(base / "outside" / "secret.txt")
    (root / "dir-out").symlink_to(base / "outside")
    return root


def _server_env(base_url: str) -> dict[str, str]:
    return {
        "GEMINI_API_KEY": TEST_KEY,
        "GOOGLE_GEMINI_BASE_URL": base_url,
        "COMPLEX_EDIT_REQUEST_TIMEOUT_SECONDS": "10",
        "COMPLEX_EDIT_MAX_RETRIES": "0",
        "COMPLEX_EDIT_CHECKERS": "off",  # the tests of Checks turn them on
        "PYTHONUNBUFFERED": "1",
        # the edit history: the tests' state folder (the SDK passes on only a few variables)
        "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],
    }


@contextlib.asynccontextmanager
async def session_with(
    root: Path, base_url: str, log: Path, flags: Sequence[str] = ()
) -> AsyncIterator[ClientSession]:
    """`complex-edit mcp --root ROOT [flags]` and a client session with it, its stderr in `log`.
    The server and its client session live in one task (anyio scopes must be left in the
    task that entered them); tests talk to the session from their own tasks."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "complex_edit", "mcp", "--root", str(root), *flags],
        env=_server_env(base_url),
        cwd=str(root),
    )
    ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()

    async def hold(errlog: TextIO) -> None:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            ready.set_result(session)
            await stop.wait()

    with _open_log(log) as errlog:
        holder = asyncio.create_task(hold(errlog))
        await asyncio.wait({holder, ready}, timeout=START_TIMEOUT, return_when="FIRST_COMPLETED")
        if not ready.done():
            holder.cancel()
            with contextlib.suppress(BaseException):
                await holder
            pytest.fail(f"the MCP server did not start: {_read(log)}")
        yield ready.result()
        stop.set()
        await asyncio.wait_for(holder, timeout=20)
    assert TEST_KEY not in _read(log)


@pytest.fixture(scope="module")
async def server(
    emulator_server: GeminiEmulator, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Server]:
    base = tmp_path_factory.mktemp("mcp").resolve()
    root = _tree(base)
    log = base / "server.log"
    async with session_with(root, emulator_server.base_url, log) as session:
        yield Server(session=session, root=root, base=base, log=log)


def _read(path: Path) -> str:
    return path.read_text()


def _open_log(path: Path) -> TextIO:
    return open(path, "w")  # the server's stderr


def first_message(request: RecordedRequest) -> str:
    parts = request.contents[0]["parts"] if request.contents else []
    return "\n".join(part.get("text", "") for part in parts)


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def structured(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return dict(result.structured_content)


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ------------------------------------------------------------------------------------------


async def test_lists_the_tool_with_its_schema(server: Server) -> None:
    listed = await server.session.list_tools()
    # (and revert_complex_edit, tests/e2e/test_mcp_history.py)
    assert [tool.name for tool in listed.tools] == [TOOL, "revert_complex_edit"]
    tool = listed.tools[0]
    assert tool.input_schema["required"] == ["path", "prompt"]
    assert {"path", "prompt", "dry_run", "start_line", "end_line"} <= set(
        tool.input_schema["properties"]
    )
    assert tool.input_schema["properties"]["dry_run"]["type"] == "boolean"
    assert tool.output_schema is not None
    assert {"success", "message", "error", "reason", "applied", "diff", "turns", "toolCalls"} <= (
        set(tool.output_schema["properties"])
    )
    assert tool.description is not None
    assert "ONE" in tool.description
    assert "dry_run" in tool.description
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is False


async def test_success_writes_the_file_and_reports_progress(
    server: Server, emulator: GeminiEmulator
) -> None:
    """Two turns: the renames, then complete_task. The first turn's calls are reported when
    the second starts; nothing of the last turn is (issue 31 item 3: no notification races the
    answer)."""
    path = server.file("app.py")
    path.chmod(0o640)
    emulator.enqueue(calls(*RENAME_CALLS[:2]), calls(RENAME_CALLS[2]).delayed(0.3))
    progress: list[tuple[float, float | None, str | None]] = []
    arrived: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))
        arrived.append(asyncio.get_running_loop().time())

    result = await server.call(
        {"path": "app.py", "prompt": "rename foo to bar"}, progress_callback=on_progress
    )
    answered = asyncio.get_running_loop().time()
    assert not result.is_error, text_of(result)
    assert path.read_bytes() == RENAMED
    assert path.stat().st_mode & 0o777 == 0o640
    assert leftovers(server.root) == []
    data = structured(result)
    assert data["success"] is True
    assert data["applied"] is True
    assert data["message"] == "renamed"
    assert "-def foo():\n+def bar():\n" in data["diff"]
    assert (data["turns"], data["toolCalls"]) == (2, 3)
    assert data["usage"]["inputTokens"] == 200
    text = text_of(result)
    assert text.startswith("Edited app.py: renamed")
    assert data["diff"] in text
    # issue 31 item 4: the text carries the same facts as structuredContent
    assert (data["validation"]["language"], data["validation"]["syntax"]) == ("python", "ok")
    assert "\nSyntax check: ok (python)\nTurns: 2 · tool calls: 3\n\n" in text
    messages = [message for _, _, message in progress]
    assert messages[0] == "Turn 1/8 · waiting for the model…"
    assert messages[-1] == (
        "Turn 2/8 · +2 −2 lines · last turn: replace_text ×2 · waiting for the model…"
    )
    assert not any(
        m and ("complete_task" in m or m.startswith(("Done", "Failed"))) for m in messages
    )
    assert answered - arrived[-1] >= 0.2
    assert any(m and "replace_text" in m for m in messages)
    values = [value for value, _, _ in progress]
    assert values == sorted(values)
    assert len(set(values)) == len(values)
    assert "`app.py`" in first_message(emulator.requests[0])
    # issue 21 item 4: the running +N −M after each call that changed the text
    so_far = [m for m in messages if m and m.endswith("lines so far")]
    assert so_far == ["Turn 1/8 · +1 −1 lines so far", "Turn 1/8 · +2 −2 lines so far"]


async def test_dry_run_returns_the_diff_and_writes_nothing(
    server: Server, emulator: GeminiEmulator
) -> None:
    path = server.file("dry.py")
    emulator.enqueue(RENAME)
    result = await server.call({"path": "dry.py", "prompt": "rename", "dry_run": True})
    assert not result.is_error, text_of(result)
    assert path.read_bytes() == DOC
    data = structured(result)
    assert data["success"] is True
    assert data["applied"] is False
    assert "+print(bar())\n" in data["diff"]
    assert text_of(result).startswith("Dry run, dry.py not written")


async def test_crlf_bom_file_round_trips(server: Server, emulator: GeminiEmulator) -> None:
    path = server.file("win.txt", b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma")
    emulator.enqueue(
        calls(
            ("replace_text", {"old_text": "beta", "new_text": "BETA"}),
            ("complete_task", {"success": True}),
        )
    )
    result = await server.call({"path": str(path), "prompt": "upper-case beta"})
    assert not result.is_error, text_of(result)
    assert path.read_bytes() == b"\xef\xbb\xbfalpha\r\nBETA\r\ngamma"


async def test_line_range_reaches_the_model(server: Server, emulator: GeminiEmulator) -> None:
    server.file("ranged.py")
    emulator.enqueue(RENAME)
    result = await server.call(
        {"path": "ranged.py", "prompt": "rename", "start_line": 2, "end_line": 3}
    )
    assert not result.is_error, text_of(result)
    assert "lines 2-3" in first_message(emulator.requests[0])


async def test_task_failure_is_an_error_result_and_leaves_the_file(
    server: Server, emulator: GeminiEmulator
) -> None:
    path = server.file("fail.py")
    emulator.enqueue(
        calls(
            ("replace_text", {"old_text": "def foo", "new_text": "def bar"}),
            ("complete_task", {"success": False, "error": "cannot do that"}),
        )
    )
    result = await server.call({"path": "fail.py", "prompt": "do the impossible"})
    assert result.is_error
    assert path.read_bytes() == DOC
    data = structured(result)
    assert data["success"] is False
    assert data["reason"] == "task_failed"
    assert data["error"] == "cannot do that"
    text = text_of(result)
    assert text.startswith(
        "The edit failed (task_failed): cannot do that\nfail.py was not changed."
    )
    assert "\nTurns: 1 · tool calls: 2" in text
    assert "Syntax check: " in text


@pytest.mark.parametrize(
    ("name", "content", "extra", "words"),
    [
        ("nope.py", None, {}, "does not exist"),
        ("blob.bin", b"\x00\x01\x02binary", {}, "NUL"),
        ("short.py", DOC, {"start_line": 9}, "past the end"),
    ],
)
async def test_files_that_cannot_be_edited_are_refused_before_the_model(
    server: Server,
    emulator: GeminiEmulator,
    name: str,
    content: bytes | None,
    extra: dict[str, Any],
    words: str,
) -> None:
    if content is not None:
        server.file(name, content)
    result = await server.call({"path": name, "prompt": "edit", **extra})
    assert result.is_error
    data = structured(result)
    assert data["reason"] == "invalid_request"
    assert words in data["error"]
    assert emulator.requests == []
    if content is not None:
        assert (server.root / name).read_bytes() == content


@pytest.mark.parametrize(
    "target",
    [
        "../outside/secret.txt",
        "{base}/outside/secret.txt",
        "link-out.txt",
        "dir-out/secret.txt",
        "../proj-evil/secret.txt",
        "{base}/proj-evil/secret.txt",
        "{base}/proj/../outside/secret.txt",
    ],
)
async def test_paths_outside_the_root_are_refused(
    server: Server, emulator: GeminiEmulator, target: str
) -> None:
    emulator.enqueue(
        calls(
            ("set_document", {"content": "owned\n"}),
            ("complete_task", {"success": True}),
        )
    )
    path = target.format(base=server.base)
    result = await server.call({"path": path, "prompt": "overwrite it"})
    assert result.is_error
    data = structured(result)
    assert data["reason"] == "invalid_request"
    assert "outside the directories" in data["error"]
    assert emulator.requests == []
    assert (server.base / "outside" / "secret.txt").read_bytes() == SECRET
    assert (server.base / "proj-evil" / "secret.txt").read_bytes() == SECRET


async def test_cancellation_stops_the_model_call_and_writes_nothing(
    server: Server, emulator: GeminiEmulator
) -> None:
    path = server.file("cancel.py")
    release = threading.Event()
    emulator.enqueue(Reply.hang(release=release, then=RENAME))
    call = asyncio.create_task(server.call({"path": "cancel.py", "prompt": "rename"}))
    try:
        await emulator.wait_for_requests_async(1, timeout=30)
        # a second edit of the same file while the first runs is refused
        busy = await server.call({"path": "cancel.py", "prompt": "rename"})
        assert busy.is_error
        assert structured(busy)["reason"] == "busy"
        call.cancel()  # the client sends notifications/cancelled
        with contextlib.suppress(asyncio.CancelledError):
            await call
        assert await emulator.wait_for_disconnect_async(timeout=20)
    finally:
        release.set()
    # The first call is over on the server side (the file is no longer busy) and wrote nothing.
    emulator.enqueue(calls(("complete_task", {"success": True, "message": "checked"})))
    after = await server.call({"path": "cancel.py", "prompt": "check", "dry_run": True})
    assert not after.is_error, text_of(after)
    assert path.read_bytes() == DOC
    assert leftovers(server.root) == []


# ------------------------------------------------------------------------------------------
# read-only files and invalid arguments
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("locked", ["file", "directory"])
async def test_read_only_file_or_directory_is_refused_before_the_model(
    server: Server, emulator: GeminiEmulator, locked: str
) -> None:
    """The server runs as root here: os.access allows everything, the mode bits do not."""
    directory = server.root / f"locked-{locked}"
    directory.mkdir()
    path = directory / "ro.py"
    path.write_bytes(DOC)
    emulator.enqueue(RENAME)
    if locked == "file":
        path.chmod(0o444)
    else:
        directory.chmod(0o555)
    try:
        result = await server.call({"path": f"locked-{locked}/ro.py", "prompt": "rename"})
    finally:
        directory.chmod(0o755)
    assert result.is_error
    data = structured(result)
    assert data["reason"] == "invalid_request"
    assert "read-only" in data["error"]
    assert data["applied"] is False
    assert emulator.requests == []
    assert path.read_bytes() == DOC
    assert path.stat().st_mode & 0o777 == (0o444 if locked == "file" else 0o644)
    assert leftovers(directory) == []


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"start_line": 0}, "The argument start_line is invalid: input should be greater than"),
        ({"end_line": -3}, "The argument end_line is invalid"),
        ({"start_line": 1.5}, "The argument start_line is invalid"),
        ({"dry_run": "maybe"}, "The argument dry_run is invalid"),
        ({"prompt": None}, "The argument prompt is missing; it is required."),
        ({"path": 7}, "The argument path is invalid: input should be a valid string (got 7)."),
    ],
)
async def test_invalid_arguments_answer_a_structured_tool_error(
    server: Server, emulator: GeminiEmulator, extra: dict[str, Any], words: str
) -> None:
    path = server.file("args.py")
    arguments = {"path": "args.py", "prompt": "rename", **extra}
    arguments = {key: value for key, value in arguments.items() if value is not None}
    emulator.enqueue(RENAME)
    result = await server.call(arguments)
    assert result.is_error
    data = structured(result)
    assert data["success"] is False
    assert data["reason"] == "invalid_request"
    assert words in data["error"]
    assert data["applied"] is False
    text = text_of(result)
    assert text.startswith("The edit failed (invalid_request): The argument ")
    assert "pydantic" not in text
    assert "validation error" not in text
    assert emulator.requests == []
    assert path.read_bytes() == DOC


# ------------------------------------------------------------------------------------------
# signals and the server's instructions (issue 31 items 5 and 6), over raw stdio
# ------------------------------------------------------------------------------------------


class RawServer:
    """`complex-edit mcp` spoken to line by line, as an agent's client does."""

    def __init__(self, root: Path, base_url: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "complex_edit", "mcp", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **_server_env(base_url)},
            cwd=root,
        )

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, request_id: int | str) -> dict[str, Any]:
        assert self.process.stdout is not None
        while line := self.process.stdout.readline():
            message = json.loads(line)
            if message.get("id") == request_id:
                return dict(message)
        raise AssertionError(f"no answer to {request_id}: {self.stderr()}")

    def initialize(self) -> dict[str, Any]:
        self.send(
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        answer = self.answer(1)
        self.send({"method": "notifications/initialized"})
        return dict(answer["result"])

    def stop(self, signum: int) -> int:
        self.process.send_signal(signum)
        return self.process.wait(timeout=10)

    def stderr(self) -> str:
        assert self.process.stderr is not None
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        return self.process.stderr.read().decode(errors="replace")


@pytest.fixture
def raw_server(emulator: GeminiEmulator, tmp_path: Path) -> Iterator[RawServer]:
    server = RawServer(tmp_path, emulator.base_url)
    yield server
    if server.process.poll() is None:
        server.process.kill()
        server.process.wait()
    for stream in (server.process.stdin, server.process.stdout, server.process.stderr):
        if stream is not None:
            stream.close()


def test_instructions_say_when_to_prefer_the_tool(raw_server: RawServer) -> None:
    instructions = raw_server.initialize()["instructions"]
    assert "Prefer it over your own edit tool for: many related changes in one file" in (
        " ".join(instructions.split())
    )
    for when in ("large files", "parseable", "hunk by hunk", "dry_run=true", "one-line"):
        assert when in instructions


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_idle_server_leaves_at_once_on_sigint_and_sigterm(
    raw_server: RawServer, signum: int, status: int
) -> None:
    raw_server.initialize()
    raw_server.send({"id": 2, "method": "tools/list"})
    assert raw_server.answer(2)["result"]["tools"][0]["name"] == TOOL
    assert raw_server.stop(signum) == status
    assert raw_server.stderr() == ""


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_busy_server_leaves_at_once_and_writes_nothing(
    raw_server: RawServer, emulator: GeminiEmulator, tmp_path: Path, signum: int, status: int
) -> None:
    path = tmp_path / "busy.py"
    path.write_bytes(DOC)
    release = threading.Event()
    emulator.enqueue(Reply.hang(release=release, then=RENAME))
    raw_server.initialize()
    arguments = {"path": "busy.py", "prompt": "rename foo to bar"}
    raw_server.send(
        {"id": 2, "method": "tools/call", "params": {"name": TOOL, "arguments": arguments}}
    )
    try:
        emulator.wait_for_requests(1, timeout=30)
        assert raw_server.stop(signum) == status
    finally:
        release.set()
    assert emulator.wait_for_disconnect(timeout=10)
    assert path.read_bytes() == DOC
    assert leftovers(tmp_path) == []
    assert raw_server.stderr() == ""


# ------------------------------------------------------------------------------------------
# the early answers (issue 31 item 2): from listing.json while the SDK loads, then the SDK
# ------------------------------------------------------------------------------------------


async def test_the_early_answers_are_what_the_sdk_server_answers() -> None:
    """listing.json holds what the SDK server answers today; after changing the tool, the
    instructions, the version or the SDK: `python -m complex_edit.server.mcp.listing`."""
    assert await record() == load_listing(), (
        "server/mcp/listing.json is out of date: run "
        ".venv/bin/python -m complex_edit.server.mcp.listing"
    )


def test_an_unknown_version_is_answered_with_the_latest_then_the_sdk_serves(
    raw_server: RawServer, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    (tmp_path / "late.py").write_bytes(DOC)
    emulator.enqueue(RENAME)
    hello = {"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "old"}}
    raw_server.send({"id": "a", "method": "initialize", "params": hello})
    assert raw_server.answer("a")["result"]["protocolVersion"] == LATEST_HANDSHAKE_VERSION
    raw_server.send({"method": "notifications/initialized"})
    raw_server.send({"id": 2, "method": "prompts/list", "params": {}})
    assert raw_server.answer(2)["result"] == {"prompts": []}
    arguments = {"path": "late.py", "prompt": "rename"}
    call = {"name": TOOL, "arguments": arguments}
    raw_server.send({"id": 3, "method": "tools/call", "params": call})
    answer = raw_server.answer(3)
    assert answer["result"]["structuredContent"]["success"] is True
    assert (tmp_path / "late.py").read_bytes() == RENAMED
    raw_server.send({"id": 4, "method": "tools/list"})
    assert raw_server.answer(4)["result"]["tools"][0]["name"] == TOOL
