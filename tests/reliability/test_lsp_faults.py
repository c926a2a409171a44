"""Client misbehaviour the e2e harness cannot produce: garbage on the wire, requests whose
params do not parse, backwards and repeated versions, slow progress creation, large deletions
(confirmation), the framing layer itself.

Servers here are started through ``rawlsp`` (raw bytes on stdin) or the pytest-lsp harness of
``tests/e2e``; the model is the Gemini emulator.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import signal
from collections.abc import AsyncIterator

import pytest

from complex_edit.server.lsp.framing import FramedInput
from tests.conftest import TEST_KEY
from tests.editor.checks import assert_failure, assert_success
from tests.editor.client import CommandError
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.fakes.rawlsp import EDITOR_CAPABILITIES, RawLspClient, RpcError, frame, server_env
from tests.reliability.conftest import StartRaw

MARKER = "RELIABILITY-DOC-MARKER-5521"
DOC = "total = 0\nfor i in range(10):\n    total += i\nprint(total)\n"
INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603


def _request(msg_id: int, method: str, params: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


GARBAGE: dict[str, bytes] = {
    "invalid-json": b"Content-Length: 10\r\n\r\n{not json}",
    "truncated-json": b'Content-Length: 24\r\n\r\n{"jsonrpc": "2.0", "met',
    "json-array": frame([1, 2, 3]),
    "json-string": frame(MARKER),
    "json-null": frame(None),
    "not-json-rpc": frame({"hello": MARKER}),
    "json-rpc-1.0": frame(
        {
            "jsonrpc": "1.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": "file:///garbage.py",
                    "languageId": "python",
                    "version": 1,
                    "text": MARKER,
                }
            },
        }
    ),
    "notification-with-wrong-types": frame(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": 7, "version": "one", "text": MARKER}},
        }
    ),
    "binary-noise": bytes(range(256)) * 4,
    "non-numeric-length": b"Content-Length: abc\r\n\r\n{}",
    "negative-length": b"Content-Length: -5\r\n\r\n{}",
    "length-shorter-than-body": b"Content-Length: 5\r\n\r\n"
    + json.dumps(_request(900, "shutdown", None)).encode(),
    "length-longer-than-body": b"Content-Length: 200\r\n\r\n{}",
    "huge-length": b"Content-Length: 99999999999999999999\r\n\r\n",
    "length-over-the-limit": b"Content-Length: 300000000\r\n\r\n" + b"x" * 5000,
    "lower-case-header": b"content-length:2\r\n\r\n{}",
    "headers-without-cr": b"Content-Length: 2\n\n{}",
}


async def wait_answering(client: RawLspClient, pings: int = 8) -> int:
    """Send `pings` requests back to back; returns how many were answered once the last one
    was (a frame cut by garbage may swallow the first few; answers come in order)."""
    futures = [client.send_request("complexEdit/_stats", None)[1] for _ in range(pings)]
    await client.drain()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(futures[-1]), 10)
    return sum(1 for future in futures if future.done() and "result" in future.result())


@pytest.fixture(scope="module")
async def shared_raw(emulator_server: GeminiEmulator) -> AsyncIterator[RawLspClient]:
    """One server for all the garbage: each case must leave it able to serve the next."""
    client = await RawLspClient.spawn(server_env(emulator_server.base_url, TEST_KEY))
    await client.initialize()
    yield client
    assert await client.close() == 0


@pytest.mark.parametrize("case", list(GARBAGE))
async def test_garbage_frames_leave_the_server_answering(
    case: str, shared_raw: RawLspClient, emulator: GeminiEmulator
) -> None:
    client = shared_raw
    assert client.alive, "an earlier case killed the server"
    stderr_mark, log_mark = len(client.stderr), len(client.log_messages)
    uri = f"file:///reliability/garbage-{case}.py"
    client.open(uri, DOC)
    client.write_bytes(GARBAGE[case])
    await client.drain()
    answered = await wait_answering(client)
    assert client.alive, "the server died"
    assert answered >= 5, f"only {answered} of 8 requests after the garbage were answered"
    # A whole command still works (a dry run: the edit itself is covered elsewhere).
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await run_command(client, uri, dryRun=True)
    assert result["success"] is True, result
    assert "+total = 1" in str(result["diff"])
    client.close_doc(uri)
    # Nothing the garbage carried was echoed into the log or shown to the user.
    await client.stats()
    logged = "".join(client.stderr[stderr_mark:]) + "".join(client.log_messages[log_mark:])
    assert MARKER not in logged
    assert client.shown_messages == [], "malformed input should not pop up messages"


@pytest.mark.parametrize(
    ("params", "why"),
    [
        (None, "no params"),
        ("performComplexEdit", "params a string"),
        ({"arguments": []}, "no command"),
        ({"command": 5, "arguments": []}, "command a number"),
        ({"command": "performComplexEdit", "arguments": {"prompt": "x"}}, "arguments an object"),
    ],
)
async def test_requests_whose_params_do_not_parse_are_answered(
    params: object, why: str, start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    """pygls drops such a request without an answer; the client would wait forever."""
    client = await start_raw()
    future = client.expect(4242)
    client.write_bytes(frame(_request(4242, "workspace/executeCommand", params)))
    await client.drain()
    with pytest.raises(RpcError) as caught:
        await client.answer(future, within=5)
    assert caught.value.code == INVALID_PARAMS, why
    assert emulator.requests == []
    assert await wait_answering(client, pings=2) == 2


async def test_unknown_request_is_method_not_found(start_raw: StartRaw) -> None:
    client = await start_raw()
    with pytest.raises(RpcError) as caught:
        await client.request("complexEdit/noSuchThing", {"text": MARKER})
    assert caught.value.code == METHOD_NOT_FOUND
    assert MARKER not in "".join(client.stderr)


# -- the framing layer on its own -----------------------------------------------------------


def read_frames(data: bytes, limit: int = 1000) -> list[bytes]:
    """Bodies as pygls' loop would read them through FramedInput (same state machine)."""
    stream = FramedInput(io.BufferedReader(io.BytesIO(data)), max_message_bytes=limit)  # type: ignore[arg-type]
    bodies = []
    length = 0
    while True:
        header = stream.readline()
        if not header:
            return bodies
        if not length and header.startswith(b"Content-Length: "):
            length = int(header[16:])
        if length and not header.strip():
            bodies.append(stream.read(length))
            length = 0


def test_framing_resynchronises_after_garbage() -> None:
    good = [frame({"n": n}) for n in range(3)]
    assert read_frames(b"".join(good)) == [b'{"n": 0}', b'{"n": 1}', b'{"n": 2}']
    glued = b"binary\x00noise without a line break" + good[0] + b"{partial" + good[1]
    assert read_frames(glued) == [b'{"n": 0}', b'{"n": 1}']
    loose = b"content-length:8\n\n" + b'{"n": 9}' + good[2]
    assert read_frames(loose) == [b'{"n": 9}', b'{"n": 2}']


def test_framing_skips_oversized_messages_up_to_the_next_header() -> None:
    good = frame({"n": 1})
    assert read_frames(b"Content-Length: 5000\r\n\r\n" + b"x" * 5000 + good) == [b'{"n": 1}']
    assert read_frames(b"Content-Length: 5000\r\n\r\n" + good) == [b'{"n": 1}']
    digits = b"9" * 5000  # more digits than int() accepts by default
    assert read_frames(b"Content-Length: " + digits + b"\r\n\r\n" + good) == [b'{"n": 1}']
    long_line = b"y" * 200_000 + good  # one "line" longer than the reader's line limit
    assert read_frames(long_line) == [b'{"n": 1}']


# -- versions the client gets wrong ---------------------------------------------------------


@pytest.mark.parametrize(
    "version", [None, 5, 2, 0], ids=["normal", "repeated", "backwards", "back-to-zero"]
)
async def test_typing_with_odd_versions_is_never_lost(
    version: int | None, editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """didChange with a repeated or decreasing version while the model works: the user's
    typing survives and the result is applied over it (or refused), never over stale text."""
    uri = editor.open(DOC, version=5)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()).delayed(0.5))
    _, future = editor.start(uri, "start at 1")
    await emulator.wait_for_requests_async(1)
    if version is not None:
        editor.docs[uri].version = version - 1  # edit() adds one
    editor.replace(uri, "print(total)", "print('sum', total)")
    result = await editor.answer(future)
    typed = DOC.replace("print(total)", "print('sum', total)")
    if result["success"]:
        assert_success(result)
        assert editor.text(uri) == typed.replace("total = 0", "total = 1")
    else:
        assert_failure(result, "document_changed")
        assert editor.text(uri) == typed
    assert "print('sum', total)" in editor.text(uri)


async def test_lax_client_with_backwards_versions(
    make_editor: object, emulator: GeminiEmulator
) -> None:
    """Neovim-like (no version check on its side, `changes` form): versions going backwards
    must not let a stale edit through."""
    session: EditorSession = await make_editor("neovim")  # type: ignore[operator]
    session.behaviour.versions = "lax"
    uri = session.open(DOC, version=3)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()).delayed(0.5))
    _, future = session.start(uri, "start at 1")
    await emulator.wait_for_requests_async(1)
    session.docs[uri].version = 0
    session.replace(uri, "print(total)", "print(total * 2)")
    result = await session.answer(future)
    text = session.text(uri)
    assert "print(total * 2)" in text
    if result["success"]:
        assert text == DOC.replace("print(total)", "print(total * 2)").replace(
            "total = 0", "total = 1"
        )
    else:
        assert result["reason"] in ("document_changed", "client_rejected"), result


# -- capabilities ---------------------------------------------------------------------------


async def test_no_apply_edit_capability_fails_before_any_model_call(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    client = await start_raw({"window": {"workDoneProgress": True}})
    uri = "file:///reliability/no-apply.py"
    client.open(uri, DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await client.request(
        "workspace/executeCommand",
        {
            "command": "performComplexEdit",
            "arguments": [{"textDocument": {"uri": uri}, "prompt": "start at 1"}],
        },
    )
    assert result["success"] is False
    assert result["reason"] == "invalid_request"
    assert "dryRun" in result["error"]
    assert emulator.requests == []
    assert client.applies == []


async def test_no_work_done_progress_capability_creates_no_progress(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    caps = {"workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}}}
    client = await start_raw(caps)
    uri = "file:///reliability/no-progress.py"
    client.open(uri, DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await run_command(client, uri)
    assert result["success"] is True, result
    assert client.docs[uri].text == DOC.replace("total = 0", "total = 1")
    assert client.created_progress == []
    assert client.progress == []


async def test_a_dead_session_process_fails_the_run_cleanly_and_is_replaced(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    """The child running sessions is killed mid-run: that command is an internal error with
    nothing applied, and the next command runs in a new child."""
    client = await start_raw(EDITOR_CAPABILITIES)
    uri = "file:///reliability/dead-child.py"
    client.open(uri, DOC)
    emulator.enqueue(Reply.hang())
    _, future = client.send_request(
        "workspace/executeCommand",
        {
            "command": "performComplexEdit",
            "arguments": [{"textDocument": {"uri": uri}, "prompt": "edit"}],
        },
    )
    await emulator.wait_for_requests_async(1)
    child = (await client.stats())["sessionProcessPid"]
    assert isinstance(child, int)
    os.kill(child, signal.SIGKILL)
    with pytest.raises(RpcError) as caught:
        await client.answer(future)
    assert caught.value.code == INTERNAL_ERROR
    assert "internal error" in caught.value.message
    assert client.applies == []

    emulator.reset()
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    result = await run_command(client, uri)
    assert result["success"] is True, result
    assert client.docs[uri].text == DOC.replace("total = 0", "total = 1")
    assert (await client.stats())["sessionProcessPid"] not in (None, child)


async def run_command(client: RawLspClient, uri: str, **extra: object) -> dict[str, object]:
    result = await client.request(
        "workspace/executeCommand",
        {
            "command": "performComplexEdit",
            "arguments": [{"textDocument": {"uri": uri}, "prompt": "edit", **extra}],
        },
    )
    assert isinstance(result, dict)
    return result


# -- slow progress creation -----------------------------------------------------------------


async def test_second_command_while_progress_is_created_is_busy(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    """The first command waits for the client to create its progress; a second command on
    the same document meanwhile must be `busy`, not a second run side by side."""
    client = await start_raw(EDITOR_CAPABILITIES)
    client.progress_create_delay = 1.0
    uri = "file:///reliability/slow-progress.py"
    client.open(uri, DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()).repeat(None))
    first = asyncio.ensure_future(run_command(client, uri))
    await asyncio.sleep(0.3)
    second = await run_command(client, uri)
    assert second["success"] is False, second
    assert second["reason"] == "busy"
    result = await first
    assert result["success"] is True, result
    assert len(emulator.requests) == 1
    assert client.docs[uri].text == DOC.replace("total = 0", "total = 1")


async def test_close_while_progress_is_created(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    client = await start_raw(EDITOR_CAPABILITIES)
    client.progress_create_delay = 1.0
    uri = "file:///reliability/close-early.py"
    client.open(uri, DOC)
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    first = asyncio.ensure_future(run_command(client, uri))
    await asyncio.sleep(0.3)
    client.close_doc(uri)
    await client.drain()
    try:
        result = await first
    except RpcError as exc:
        pytest.fail(f"the command answered an error instead of a result: {exc}")
    assert result["success"] is False
    assert result["reason"] == "document_changed"
    assert emulator.requests == []
    assert client.applies == []


# -- a result that deletes most of the document --------------------------------------------

BIG_DOC = "".join(f"line_{n} = {n}\n" for n in range(40))
# An editor that can ask the user to confirm an annotated edit (VS Code's capabilities).
ANNOTATING_EDITOR = {
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {
            "documentChanges": True,
            "changeAnnotationSupport": {"groupsOnLabel": True},
        },
    }
}


@pytest.mark.parametrize("annotations", [True, False], ids=["vscode-like", "neovim-like"])
async def test_deleting_most_of_the_document_asks_for_confirmation(
    annotations: bool, start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    edit_caps: dict[str, object] = {"documentChanges": True}
    if annotations:
        edit_caps["changeAnnotationSupport"] = {"groupsOnLabel": True}
    caps = {"workspace": {"applyEdit": True, "workspaceEdit": edit_caps}}
    client = await start_raw(caps)
    uri = "file:///reliability/big.py"
    client.open(uri, BIG_DOC)
    emulator.enqueue(calls(("set_document", {"content": "line_0 = 0\n"}), done()))
    result = await run_command(client, uri)
    assert result["success"] is True, result
    assert client.docs[uri].text == "line_0 = 0\n"
    (params,) = client.applies
    edit = params["edit"]
    if annotations:
        (annotation,) = edit["changeAnnotations"].values()
        assert annotation["needsConfirmation"] is True
        (document_edit,) = edit["documentChanges"]
        assert all("annotationId" in e for e in document_edit["edits"])
    else:
        assert "changeAnnotations" not in edit


async def test_small_changes_need_no_confirmation(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    client = await start_raw(ANNOTATING_EDITOR)
    uri = "file:///reliability/small.py"
    client.open(uri, BIG_DOC)
    emulator.enqueue(calls(replace("line_3 = 3\n", ""), done()))
    result = await run_command(client, uri)
    assert result["success"] is True, result
    (params,) = client.applies
    assert "changeAnnotations" not in params["edit"]


async def test_declined_confirmation_is_client_rejected(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    client = await start_raw(ANNOTATING_EDITOR)
    client.apply_mode = "reject"
    uri = "file:///reliability/declined.py"
    client.open(uri, BIG_DOC)
    emulator.enqueue(calls(("set_document", {"content": ""}), done()))
    result = await run_command(client, uri)
    assert result["success"] is False
    assert result["reason"] == "client_rejected"
    assert client.docs[uri].text == BIG_DOC
    assert len(client.applies) == 1


# -- the key never reaches the wire to the editor -------------------------------------------


async def test_stats_request_reports_counters_without_content(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    client = await start_raw()
    client.open("file:///reliability/stats.py", MARKER)
    stats = await client.stats()
    assert stats["openDocuments"] == 1
    assert stats["runningCommands"] == 0
    assert stats["asyncioTasks"] >= 1
    assert stats["rssBytes"] > 0
    assert MARKER not in json.dumps(stats)
    assert TEST_KEY not in json.dumps(stats)


async def test_command_error_answers_never_carry_a_traceback(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    with pytest.raises(CommandError) as caught:
        await editor.execute_raw([{"textDocument": {"uri": 5}, "prompt": MARKER}])
    assert caught.value.code == INVALID_PARAMS
    assert "Traceback" not in caught.value.message


async def test_whole_document_changes_during_a_run(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    """A client that sends the full text on didChange (it may, even when incremental sync is
    offered), changing two places at once while the model works: the result is rebased (or
    refused), never an internal error."""
    caps = {"workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}}}
    client = await start_raw(caps)
    uri = "file:///reliability/full-sync.py"
    text = "".join(f"line_{n} = {n}\n" for n in range(12))
    client.open(uri, text)
    emulator.enqueue(calls(replace("line_6 = 6", "line_6 = 66"), done()).delayed(0.5))
    future = asyncio.ensure_future(run_command(client, uri))
    await emulator.wait_for_requests_async(1)
    typed = text.replace("line_0 = 0", "first = 0").replace("line_11 = 11", "last = 11")
    client.docs[uri].text = typed
    client.docs[uri].version = 2
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": typed}]},
    )
    await client.drain()
    result = await future
    assert result["success"] is True, result
    assert client.docs[uri].text == typed.replace("line_6 = 6", "line_6 = 66")


async def _cancel_while_progress_is_created(start_raw: StartRaw, uri: str) -> RawLspClient:
    """Open `uri`, start a command whose progress the client creates only after a second,
    cancel it meanwhile and check its -32800; the client then creates progress at once."""
    client = await start_raw(EDITOR_CAPABILITIES)
    client.progress_create_delay = 1.0
    client.open(uri, DOC)
    msg_id, future = client.send_request(
        "workspace/executeCommand",
        {
            "command": "performComplexEdit",
            "arguments": [{"textDocument": {"uri": uri}, "prompt": "start at 1"}],
        },
    )
    await client.drain()
    await asyncio.sleep(0.3)
    client.notify("$/cancelRequest", {"id": msg_id})
    await client.drain()
    with pytest.raises(RpcError) as caught:
        await client.answer(future, within=5)
    assert caught.value.code == -32800
    client.progress_create_delay = 0
    return client


async def test_cancel_while_progress_is_created_never_runs_the_model(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    """`$/cancelRequest` before the command's task exists (the client is slow to create the
    progress): -32800, and then no model call and no edit, ever."""
    uri = "file:///reliability/cancel-early.py"
    emulator.enqueue(calls(replace("total = 0", "total = 1"), done()))
    client = await _cancel_while_progress_is_created(start_raw, uri)
    await asyncio.sleep(1.5)  # past the progress creation
    assert emulator.requests == [], "the model was called after the cancel"
    assert client.applies == []
    assert client.docs[uri].text == DOC
    stats = await client.stats()
    assert stats["runningCommands"] == 0
    # the document is free for the next command
    emulator.enqueue(calls(replace("total = 0", "total = 2"), done()))
    assert (await run_command(client, uri))["success"] is True


async def test_a_command_cancelled_while_its_progress_is_created_frees_the_document(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    """The client has its -32800 at once and may send the next command straight away: that
    command runs (it is not `busy`), and the cancelled one, whose progress is created later,
    neither runs the model nor disturbs the next one."""
    uri = "file:///reliability/cancel-then-run.py"
    emulator.enqueue(calls(replace("total = 0", "total = 2"), done()))
    client = await _cancel_while_progress_is_created(start_raw, uri)
    second = await run_command(client, uri)
    assert second["success"] is True, second
    await asyncio.sleep(1.0)  # the first command's progress is created meanwhile
    assert len(emulator.requests) == 1
    assert client.docs[uri].text == DOC.replace("total = 0", "total = 2")
    stats = await client.stats()
    assert stats["runningCommands"] == 0
    assert stats["progressTokens"] == 0, stats


async def test_handled_messages_leave_nothing_behind(
    start_raw: StartRaw, emulator: GeminiEmulator
) -> None:
    """pygls keeps a future per notification and per command under a made-up id; the server
    removes them, so a long session does not accumulate one per keystroke."""
    client = await start_raw(EDITOR_CAPABILITIES)
    uri = "file:///reliability/leak.py"
    client.open(uri, DOC)
    for n in range(100):
        client.type_text(uri, 0, 0, "#", version=2 + n)
    baseline = 0
    for n in range(3):
        emulator.enqueue(calls(replace(f"total = {n}", f"total = {n + 1}"), done()))
        assert (await run_command(client, uri))["success"] is True
        if n == 0:
            # pygls' own loop, and the session process's reader and writer
            baseline = (await client.stats())["asyncioTasks"]
    client.notify("workspace/didChangeConfiguration", {"settings": {}})
    stats = await client.stats()
    assert stats["pendingRequests"] == 0, stats
    assert stats["changeWaiters"] == 0, stats
    assert stats["progressTokens"] == 0, stats
    assert stats["asyncioTasks"] == baseline == 3, stats


@pytest.mark.parametrize(
    ("text", "agent", "at"),
    [("\nrest\n", "rest\n", 0), ("a\n\nb\n", "a\nb\n", 2)],
    ids=["document-start", "line-start"],
)
async def test_typed_cr_joining_a_deleted_lf_is_not_lost(
    text: str, agent: str, at: int, editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """The user types a CR right before a LF the model deletes. Rebased naively, the edit
    would end between that CR and the LF, which no position can name: the editor would
    delete the CR too. Found by the command property of test_properties_ci.py."""
    uri = editor.open(text)
    emulator.enqueue(calls(("set_document", {"content": agent}), done()).delayed(0.5))
    _, future = editor.start(uri, "join the lines")
    await emulator.wait_for_requests_async(1)
    editor.edit(uri, at, at, "\r")
    typed = text[:at] + "\r" + text[at:]
    result = await editor.answer(future)
    if result["success"]:
        assert_success(result)
        assert editor.text(uri) == typed[: at + 1] + typed[at + 2 :]  # the CR kept, LF gone
    else:
        assert_failure(result, "document_changed")
        assert editor.text(uri) == typed
