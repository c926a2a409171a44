"""No start-up from the user's folder (issue 19 item 2).

The editor clients start the server as `complex-edit lsp`, or, when only a Python interpreter
is known, as `python -P -m complex_edit lsp` (vscode-client/src/core/launch.ts). Here a workspace
holds decoys under the names a plain `python -m` would import from it (`server.py`, `server/`,
`complex_edit/`, the other folders' names, a dependency's name); each writes a marker file and
exits if imported. Both launches, run with that workspace as their working directory, answer
`initialize` and import none of them. A plain `python -m complex_edit` in the same folder does
import a decoy, which proves the decoys would have caught it.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest

from tests.editor.decoys import marker, plant_decoys

ANSWER_TIMEOUT = 30.0
DECOYS = [
    "server.py",
    "server/__init__.py",
    "complex_edit/__init__.py",
    "complex_edit/__main__.py",
    "edit_tools/__init__.py",
    "prompts/__init__.py",
    "pygls.py",
]


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace of decoys, and the folder where an imported decoy leaves its marker."""
    workspace = tmp_path / "workspace"
    markers = tmp_path / "markers"
    markers.mkdir()
    plant_decoys(workspace, markers, DECOYS)
    return workspace, markers


def _send(stream: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps(message).encode("utf-8")
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def _read_messages(stream: IO[bytes], out: queue.Queue[dict[str, Any] | None]) -> None:
    while True:
        length = None
        while (line := stream.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("ascii").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        if line == b"" or length is None:
            out.put(None)
            return
        out.put(json.loads(stream.read(length)))


def _initialize(command: list[str], cwd: Path) -> tuple[dict[str, Any] | None, str]:
    """Starts `command` in `cwd`, sends `initialize`, returns its answer (None if the process
    ended first) and the process's stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPLEX_EDIT_")}
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
    threading.Thread(target=_read_messages, args=(proc.stdout, messages), daemon=True).start()
    answer = None
    try:
        _send(
            proc.stdin,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "processId": os.getpid(),
                    "rootUri": cwd.as_uri(),
                    "workspaceFolders": [{"uri": cwd.as_uri(), "name": cwd.name}],
                    "capabilities": {},
                },
            },
        )
        while (message := messages.get(timeout=ANSWER_TIMEOUT)) is not None:
            if message.get("id") == 1:
                answer = message
                _send(proc.stdin, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
                _send(proc.stdin, {"jsonrpc": "2.0", "method": "exit"})
                break
    except BrokenPipeError:
        pass  # the process ended before reading: no answer
    finally:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stderr = proc.stderr.read().decode("utf-8", "replace")
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
    return answer, stderr


def _console_script() -> Path:
    script = Path(sys.executable).parent / "complex-edit"
    if not script.is_file():
        pytest.skip("no complex-edit script beside the interpreter")
    return script


@pytest.mark.parametrize(
    "launch",
    [
        pytest.param([sys.executable, "-P", "-m", "complex_edit", "lsp"], id="python -P -m"),
        pytest.param(None, id="the interpreter's complex-edit script"),
    ],
)
def test_the_clients_launches_never_import_from_the_workspace(
    tmp_path: Path, launch: list[str] | None
) -> None:
    workspace, markers = _workspace(tmp_path)
    command = launch or [str(_console_script()), "lsp"]

    answer, stderr = _initialize(command, workspace)

    assert answer is not None, f"no answer to initialize; stderr: {stderr[-2000:]}"
    assert "result" in answer, answer
    commands = answer["result"]["capabilities"]["executeCommandProvider"]["commands"]
    assert "performComplexEdit" in commands
    assert answer["result"]["serverInfo"]["name"] == "complex-edit"
    assert sorted(p.name for p in markers.iterdir()) == [], stderr[-2000:]


def test_a_plain_python_m_in_the_workspace_imports_a_decoy(tmp_path: Path) -> None:
    """The control: without -P the decoys do replace the server."""
    workspace, markers = _workspace(tmp_path)

    answer, _ = _initialize([sys.executable, "-m", "complex_edit", "lsp"], workspace)

    assert answer is None
    assert (markers / marker("complex_edit/__init__.py")).exists()
