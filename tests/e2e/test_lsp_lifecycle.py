"""The server's lifecycle: it ends when its editor goes away, and leaves nothing behind.

Each test starts its own `complex-edit lsp` process (through the raw-bytes client, which owns
the pipes), puts an edit in flight against the Gemini emulator, then ends the editor's side in
one way or another (`exit` while the cancelled edit unwinds, stdin closed, stdout closed, both)
and requires the server and its session process to exit. A failed send must never be reported
by sending (that loop once kept orphaned servers at full CPU), and a cancelled command must not
leave an exception nobody retrieves (asyncio logs it as an error with a traceback).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInternalError

from complex_edit.server.lsp.framing import EditorOutput
from complex_edit.server.lsp.handlers import COMMAND, build_server
from complex_edit.server.lsp.log import ClientLogHandler
from complex_edit.server.session.process import SessionProcess, SessionProcessError
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.fakes.rawlsp import EDITOR_CAPABILITIES, RawLspClient, RpcError, frame, server_env
from tests.leftovers import running

DOC = "total = 0\nfor i in range(10):\n    total += i\nprint(total)\n"
URI = "file:///lifecycle/doc.py"
REQUEST_CANCELLED = -32800
# Bounds, not figures: a server that stops at all stops well within them.
EXIT_WITHIN = 20.0
MODEL_REQUEST_WITHIN = 30.0

StartServer = Callable[[], Awaitable[RawLspClient]]


@pytest.fixture
async def start_server(emulator: GeminiEmulator) -> AsyncIterator[StartServer]:
    """`await start_server()`: a server of its own, initialized, with `DOC` open at `URI`.
    Whatever the test's outcome, the server and its session process end with the test."""
    started: list[RawLspClient] = []

    async def start() -> RawLspClient:
        client = await RawLspClient.spawn(server_env(emulator.base_url, TEST_KEY))
        started.append(client)
        await client.initialize(EDITOR_CAPABILITIES)
        client.open(URI, DOC)
        return client

    yield start
    for client in started:
        if client.alive:
            with contextlib.suppress(ProcessLookupError):
                client.proc.kill()
        await client.close()


async def edit_in_flight(
    client: RawLspClient, emulator: GeminiEmulator
) -> tuple[Any, asyncio.Future[Any], int]:
    """Start a command whose model request the emulator holds; returns the request's id, the
    future of its answer and the session process's pid, once the model request has arrived."""
    emulator.enqueue(Reply.hang())
    msg_id, answer = client.send_request(
        "workspace/executeCommand",
        {"command": COMMAND, "arguments": [{"textDocument": {"uri": URI}, "prompt": "edit"}]},
    )
    await client.drain()
    await emulator.wait_for_requests_async(1, timeout=MODEL_REQUEST_WITHIN)
    child = (await client.stats())["sessionProcessPid"]
    assert isinstance(child, int)
    return msg_id, answer, child


async def assert_exits(client: RawLspClient, child: int) -> None:
    """The server exits by itself, and its session process is gone too."""
    try:
        await asyncio.wait_for(client.proc.wait(), EXIT_WITHIN)
    except TimeoutError:
        pytest.fail(
            f"the server is still running {EXIT_WITHIN:.0f} s after its editor went away\n"
            + "".join(client.stderr)[-3000:]
        )
    for _ in range(int(EXIT_WITHIN * 10)):
        if not running(child):
            break
        await asyncio.sleep(0.1)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the session process outlived the server")
    stderr = "".join(client.stderr)
    assert "Traceback" not in stderr, stderr[-3000:]


def close_stdin(client: RawLspClient) -> None:
    assert client.proc.stdin is not None
    client.proc.stdin.close()


def close_stdout(client: RawLspClient) -> None:
    """The editor stops reading: its end of the server's stdout is closed."""
    transport = client.proc._transport  # type: ignore[attr-defined]
    transport.get_pipe_transport(1).close()


# -- the editor goes away ----------------------------------------------------------------------


async def test_exit_while_a_cancelled_edit_unwinds_ends_the_server(
    start_server: StartServer, emulator: GeminiEmulator
) -> None:
    """`shutdown` then `exit` at once, as an editor quitting does: the edit `shutdown`
    cancelled is still unwinding (ending its progress, logging) when `exit` closes the
    output. Those writes were the start of the send-fail-report loop."""
    client = await start_server()
    _, _, child = await edit_in_flight(client, emulator)
    client.write_bytes(
        frame({"jsonrpc": "2.0", "id": "bye", "method": "shutdown", "params": None})
        + frame({"jsonrpc": "2.0", "method": "exit", "params": None})
    )
    await client.drain()
    await assert_exits(client, child)
    assert client.proc.returncode == 0


async def test_exit_while_the_session_process_starts_ends_the_server(
    emulator: GeminiEmulator,
) -> None:
    """An editor that stops the server right after starting it (`:checkhealth` and quit):
    `exit` arrives while the session process is being started, after `initialized`. A start
    cancelled by the event loop's teardown never finished, and the server never exited."""
    client = await RawLspClient.spawn(server_env(emulator.base_url, TEST_KEY))
    try:
        await client.initialize(EDITOR_CAPABILITIES)
        await client.stats()  # a round trip: the start has begun
        client.write_bytes(
            frame({"jsonrpc": "2.0", "id": "bye", "method": "shutdown", "params": None})
            + frame({"jsonrpc": "2.0", "method": "exit", "params": None})
        )
        await client.drain()
        try:
            await asyncio.wait_for(client.proc.wait(), EXIT_WITHIN)
        except TimeoutError:
            pytest.fail(f"the server is still running {EXIT_WITHIN:.0f} s after `exit`")
        assert client.proc.returncode == 0
    finally:
        if client.alive:
            client.proc.kill()
        await client.close()


async def test_stopping_the_sessions_while_the_child_starts_ends_the_child(
    emulator: GeminiEmulator,
) -> None:
    """What the test above needs, in process: `stop` while the child is being started waits
    for it and ends it, and no child starts afterwards."""
    sessions = SessionProcess(server_env(emulator.base_url, TEST_KEY))
    sessions.start_soon()
    await asyncio.sleep(0)  # the start is under way
    await sessions.stop()
    starting = sessions._starting
    assert starting is not None
    child = await starting
    try:
        assert child.process.returncode is not None, "the child started during `stop` runs on"
        with pytest.raises(SessionProcessError):
            await sessions._running_child()
    finally:
        if child.process.returncode is None:
            child.process.kill()
            await child.process.wait()


@pytest.mark.parametrize("pipes", ["stdout", "stdin", "stdin+stdout"])
async def test_the_server_exits_when_the_editor_closes_its_pipes(
    start_server: StartServer, emulator: GeminiEmulator, pipes: str
) -> None:
    """The editor crashes or stops reading mid-edit, without `exit`."""
    client = await start_server()
    _, _, child = await edit_in_flight(client, emulator)
    if "stdout" in pipes:
        close_stdout(client)
    if "stdin" in pipes:
        close_stdin(client)
    else:
        # Make the server log (a warning for the editor's log) now that nobody reads it.
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": "file:///lifecycle/never-opened.py", "version": 2},
                "contentChanges": [{"text": "x"}],
            },
        )
        await client.drain()
    await assert_exits(client, child)


# -- cancelling ----------------------------------------------------------------------------------


async def test_a_cancelled_command_leaves_no_unretrieved_exception(
    start_server: StartServer, emulator: GeminiEmulator
) -> None:
    """pygls answers -32800 for a cancelled request and drops what the command raises
    afterwards: raising then left "Task exception was never retrieved" with a traceback in
    the log (Neovim shows it in :LspLog) at every cancel."""
    client = await start_server()
    msg_id, answer, _ = await edit_in_flight(client, emulator)
    client.notify("$/cancelRequest", {"id": msg_id})
    await client.drain()
    with pytest.raises(RpcError) as caught:
        await client.answer(answer)
    assert caught.value.code == REQUEST_CANCELLED
    assert await emulator.wait_for_disconnect_async(timeout=5)

    # The cancelled command has unwound once pygls holds no handler of it any more; then a
    # line on stderr (pygls warns about a cancel for an id it does not know) follows anything
    # the unwinding left there.
    for _ in range(200):
        if (await client.stats())["pendingRequests"] == 0:
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the cancelled command never finished unwinding")
    client.notify("$/cancelRequest", {"id": "stderr-mark"})
    await client.drain()
    for _ in range(200):
        if "stderr-mark" in "".join(client.stderr):
            break
        await asyncio.sleep(0.05)
    stderr = "".join(client.stderr)
    assert "stderr-mark" in stderr, stderr
    assert "never retrieved" not in stderr, stderr
    assert "Traceback" not in stderr, stderr
    assert await client.close() == 0


# -- a failed write, in process ----------------------------------------------------------------


class _ClosedStream:
    """stdout once the editor is gone: every write fails, as after `exit` closed it."""

    def __init__(self) -> None:
        self.writes = 0

    def write(self, data: bytes) -> int:
        self.writes += 1
        raise ValueError("I/O operation on closed file.")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_failed_write_is_never_reported_by_writing() -> None:
    """One write fails; the log record, the pop-up and pygls' report of the failed send that
    follow it write nothing (each used to fail and be reported by another write)."""
    server = build_server({})
    stream = _ClosedStream()
    lost: list[bool] = []
    server.protocol.set_writer(EditorOutput(stream, on_lost=lambda: lost.append(True)))  # type: ignore[arg-type]
    handler = ClientLogHandler(server)
    log = logging.getLogger("complex_edit")
    log.addHandler(handler)
    try:
        log.error("a line for the editor's log")
        server.report_server_error(ValueError("closed"), JsonRpcInternalError)
        server.report_server_error(RuntimeError("a bug"), Exception)  # would show a pop-up
        log.error("another line")
    finally:
        log.removeHandler(handler)
    assert stream.writes == 1
    assert lost == [True]
