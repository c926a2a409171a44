"""No planted secret reaches the model from a real Neovim (issue 36): the fake home directory
of `tests/fakes/planted.py` (every credential file, a project with a source file holding one
planted secret of each kind), Neovim's own LSP client, the real server and SDK, the Gemini
emulator's recorded request bodies searched for every value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_neovim import run_edit
from tests.editor.turns import calls, done
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.planted import PLAIN_LINE, PLANTED, leaked, make_home

pytestmark = pytest.mark.nvim

OWN = b"from settings import TIMEOUT\n"


def bodies(emulator: GeminiEmulator) -> list[Any]:
    return [request.body for request in emulator.requests]


def test_a_project_s_secrets_reach_the_model_masked_and_stay_in_the_file(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    home = make_home(tmp_path.resolve())
    emulator.enqueue(
        calls(
            ("get_document", {"path": "settings.py"}),
            ("find_in_files", {"pattern": "pL4nt3d"}),
            ("get_document", {"path": "../.netrc"}),
        ),
        calls(
            (
                "replace_text",
                {"path": "settings.py", "old_text": PLAIN_LINE, "new_text": "DEBUG = 1"},
            ),
        ),
        calls(done("debugging on")),
    )
    run = run_edit(
        nvim,
        emulator,
        home,
        OWN,
        "turn debugging on",
        name="app.py",
        arguments={"otherFiles": "edit"},
        attach_loaded=True,
        env={"HOME": str(home)},
    )
    assert leaked(bodies(emulator)) == [], run.explain()
    read, found, netrc = (r["response"] for r in emulator.requests[1].function_responses)
    assert "«secret: github-token, 40 chars»" in read["result"]
    assert "secret values masked" in found["result"]
    assert "leaves the workspace" in netrc["error"]
    assert run.result["success"] is True, run.explain()
    (other,) = run.report["others"]
    assert "DEBUG = 1" in other["text"]
    assert "«secret" not in other["text"]
    assert all(value in other["text"] for value in PLANTED.values())


def test_the_home_directory_as_the_editor_s_root_gets_the_document_alone(
    nvim: str, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    home = make_home(tmp_path.resolve())
    emulator.enqueue(
        calls(("find_in_files", {"pattern": "password"}), ("get_document", {"path": ".netrc"})),
        calls(done("nothing to do")),
    )
    run = run_edit(
        nvim, emulator, home, b"notes\n", "look around", name="../notes.md", env={"HOME": str(home)}
    )
    assert leaked(bodies(emulator)) == [], run.explain()
    found, netrc = (r["response"] for r in emulator.requests[1].function_responses)
    assert "No workspace folder is open" in found["error"]
    assert "No workspace folder is open" in netrc["error"]
