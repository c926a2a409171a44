"""No planted secret reaches the model from a real Emacs (eglot; issue 36): credential files
and a source file holding one planted secret of each kind (`tests/fakes/planted.py`) in the
folder of the edited file, which eglot makes a (transient) project. Whether the server takes
that folder as the workspace (then the credential files are refused and the values masked) or
refuses it (then every other file is), no planted value is in any request body the Gemini
emulator recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_emacs import Start, emacs, start
from tests.editor.turns import calls, done
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.planted import CREDENTIALS, leaked, make_home

pytestmark = pytest.mark.emacs
__all__ = ["emacs", "start"]  # the fixtures this module uses


def test_no_planted_value_reaches_the_model(
    start: Start, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    make_home(project)  # the credential files and project/settings.py, beside the file
    emulator.enqueue(
        calls(
            ("get_document", {"path": "project/settings.py"}),
            ("find_in_files", {"pattern": "pL4nt3d"}),
            *(("get_document", {"path": name}) for name in sorted(CREDENTIALS)[:6]),
        ),
        calls(done("looked")),
    )
    editor = start(b"notes = 1\n", name="notes.py")

    editor.command("complex-edit", "look at the settings")
    answer = editor.wait_event("done")

    assert answer["answer"]["success"] is True, answer
    bodies: list[Any] = [request.body for request in emulator.requests]
    assert len(bodies) == 2
    assert leaked(bodies) == []
    read = emulator.requests[1].function_responses[0]["response"]
    # masked (the folder taken as the workspace) or refused (a transient project refused)
    assert "«secret: github-token" in read.get("result", "") or "No workspace" in read["error"]
