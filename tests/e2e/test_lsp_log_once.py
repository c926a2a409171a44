"""Each line of the language server's own log reaches the editor once: as `window/logMessage`
while the editor is connected, on stderr otherwise. Editors show both streams in one place (VS
Code's output channel, Neovim's lsp.log), so a line sent both ways appeared twice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
UNKNOWN_URI = "file:///never/opened/log-once.py"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frames(data: bytes) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        headers = dict(line.split(b":", 1) for line in head.split(b"\r\n"))
        size = int(headers[b"Content-Length"])
        messages.append(json.loads(rest[:size]))
        data = rest[size:]
    return messages


def test_a_line_sent_as_log_message_is_not_also_written_to_stderr() -> None:
    session = b"".join(
        frame(message)
        for message in (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": None, "capabilities": {}},
            },
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            # Logged by the server ("didChange for a document that is not open").
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": UNKNOWN_URI, "version": 2},
                    "contentChanges": [{"text": "x = 1\n"}],
                },
            },
            {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None},
            {"jsonrpc": "2.0", "method": "exit", "params": None},
        )
    )

    proc = subprocess.run(
        [sys.executable, "-m", "complex_edit", "lsp", "--log-level", "INFO"],
        input=session,
        capture_output=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )

    stderr = proc.stderr.decode("utf-8", "replace")
    logged = [
        str(message["params"]["message"])
        for message in read_frames(proc.stdout)
        if message.get("method") == "window/logMessage"
    ]
    explain = f"exit {proc.returncode}\nlogMessage: {logged}\nstderr: {stderr[-3000:]}"
    assert proc.returncode == 0, explain
    assert any(UNKNOWN_URI in line for line in logged), explain
    assert UNKNOWN_URI not in stderr, explain
