"""Sessions in the child process (`server/session/process.py`, `server/session/worker.py`),
against the emulator through the real SDK: results and events reach the caller's loop in
order, cancelling the caller aborts the model request, a dead child is replaced, and the child
runs the installed package whatever the server's working directory holds."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from complex_edit.server.session.events import (
    OtherChanged,
    SessionEvent,
    SessionFinished,
    ToolFinished,
    TurnStarted,
)
from complex_edit.server.session.process import SessionProcess, SessionProcessError
from complex_edit.server.session.request import EditRequest, OpenDocument, WorkspaceRoot
from complex_edit.server.session.result import FinishedSession
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = "alpha\nbeta\ngamma\n"
ENV = {"GEMINI_API_KEY": TEST_KEY, "PATH": os.environ.get("PATH", "")}
UPPER_BETA = Reply.function_calls(
    [
        ("replace_text", {"old_text": "beta", "new_text": "BETA"}),
        ("complete_task", {"success": True, "message": "done"}),
    ]
)


@pytest.fixture
async def sessions() -> AsyncIterator[SessionProcess]:
    process = SessionProcess(ENV)
    yield process
    await process.stop()


def _request(emulator: GeminiEmulator) -> EditRequest:
    settings = Settings.from_layers(
        {}, {"baseUrl": emulator.base_url, "requestTimeoutSeconds": 5, "maxRetries": 0}
    )
    return EditRequest(
        instruction="upper-case beta", text=DOC, settings=settings, path_label="doc.txt"
    )


async def _start_waiting_on_the_model(
    emulator: GeminiEmulator, sessions: SessionProcess
) -> asyncio.Future[FinishedSession]:
    emulator.enqueue(Reply.hang())
    task = asyncio.ensure_future(sessions.run_session(_request(emulator), lambda _: None))
    await emulator.wait_for_requests_async(1)
    return task


async def test_a_session_runs_in_the_child_and_reports_in_order(
    emulator: GeminiEmulator, sessions: SessionProcess
) -> None:
    emulator.enqueue(UPPER_BETA)
    events: list[SessionEvent] = []

    finished = await sessions.run_session(_request(emulator), events.append)

    assert finished.outcome.success
    (own,) = finished.documents
    assert own.target() == DOC.replace("beta", "BETA")
    assert "+BETA" in own.diff
    assert [(c.start, c.end, c.new_text) for c in own.changes] == [(6, 10, "BETA")]
    assert sessions.pid() not in (None, os.getpid())
    assert isinstance(events[0], TurnStarted)
    assert [e.name for e in events if isinstance(e, ToolFinished)] == [
        "replace_text",
        "complete_task",
    ]
    assert isinstance(events[-1], SessionFinished)
    assert events[-1].outcome.success
    # The result travels once, as changes: not a second time inside the last event.
    assert finished.outcome.final_text is None
    assert events[-1].outcome.final_text is None


async def test_cancelling_the_caller_aborts_the_model_request(
    emulator: GeminiEmulator, sessions: SessionProcess
) -> None:
    task = await _start_waiting_on_the_model(emulator, sessions)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await emulator.wait_for_disconnect_async()


async def test_a_dead_child_fails_its_sessions_and_is_replaced(
    emulator: GeminiEmulator, sessions: SessionProcess
) -> None:
    task = await _start_waiting_on_the_model(emulator, sessions)
    first = sessions.pid()
    assert first is not None
    os.kill(first, signal.SIGKILL)
    with pytest.raises(SessionProcessError, match="exited"):
        await task

    emulator.reset()
    emulator.enqueue(UPPER_BETA)
    finished = await sessions.run_session(_request(emulator), lambda _: None)
    assert finished.outcome.success
    assert sessions.pid() not in (None, first)


async def test_the_child_never_imports_from_the_servers_working_directory(
    emulator: GeminiEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's project holding a `complex_edit/` or `server/` package, where the server runs
    (an editor starts it in the workspace folder), or named by PYTHONPATH: the child imports
    neither. Importing one would leave a mark and end the child."""
    mark = tmp_path / "decoy-imported"
    for package in ("complex_edit", "server"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(
            f"open({str(mark)!r}, 'a').write({package!r})\nraise SystemExit('decoy')\n"
        )
    # The decoy works: a plain interpreter started there imports it.
    plain = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import complex_edit", cwd=tmp_path, stderr=asyncio.subprocess.DEVNULL
    )
    await plain.wait()
    assert mark.read_text() == "complex_edit"
    mark.unlink()

    monkeypatch.chdir(tmp_path)
    sessions = SessionProcess({**ENV, "PYTHONPATH": str(tmp_path)})
    try:
        emulator.enqueue(UPPER_BETA)
        finished = await sessions.run_session(_request(emulator), lambda _: None)
    finally:
        await sessions.stop()
    assert finished.outcome.success
    assert not mark.exists(), f"the child imported the decoy {mark.read_text()}"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A workspace folder holding other.txt."""
    (tmp_path / "other.txt").write_text("on disk\n")
    return tmp_path.resolve()


async def test_another_file_is_read_and_changed_in_the_child(
    emulator: GeminiEmulator, sessions: SessionProcess, root: Path
) -> None:
    """Everything a session over other files needs travels in the request; its `others`
    and `OtherChanged` events travel back."""
    emulator.enqueue(
        Reply.function_calls(
            [
                ("replace_text", {"path": "other.txt", "old_text": "unsaved", "new_text": "B"}),
                ("complete_task", {"success": True, "message": "done"}),
            ]
        )
    )
    request = EditRequest(
        instruction="change the other file",
        text=DOC,
        settings=_request(emulator).settings,
        other_files="edit",
        roots=(WorkspaceRoot("root", str(root)),),
        open_documents=(OpenDocument(str(root / "other.txt"), "unsaved\n", 4),),
    )
    events: list[SessionEvent] = []

    finished = await sessions.run_session(request, events.append)

    assert finished.outcome.success
    (other,) = finished.documents[1:]
    assert (other.label, other.original, other.version, other.target()) == (
        "other.txt",
        "unsaved\n",
        4,
        "B\n",
    )
    assert [e.label for e in events if isinstance(e, OtherChanged)] == ["other.txt"]
