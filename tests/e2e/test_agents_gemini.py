"""Gemini CLI, installed from npm, calling `complex-edit mcp` registered as docs/cli-and-mcp.md
says (issue 31 item 7). The project's Gemini emulator answers both Gemini CLI's own model and
the sub-agent's: the agent's model calls the tool once, the sub-agent renames, and the test
checks the file byte for byte and the text Gemini CLI hands its model back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import TEST_KEY
from tests.e2e.agents import EDITED, RENAME_CALLS, Workspace, agent, recipe, scratch_env
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply

TOOL = "perform_complex_edit"
# Gemini CLI's own settings for a run without a person and without the network.
QUIET_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
}


def _answer(request: RecordedRequest) -> Reply:
    """The sub-agent's requests (its tools include complete_task) get the rename; Gemini CLI's
    main model calls the tool once, then says it is done; its routing classifier gets a
    score."""
    names = [declaration.get("name", "") for declaration in request.function_declarations]
    if "complete_task" in names:
        return Reply.function_calls(list(RENAME_CALLS))
    tool = next((name for name in names if name.endswith(TOOL)), None)
    if tool is not None and not request.function_responses:
        return Reply.function_calls([(tool, {"path": "app.py", "prompt": "rename foo to bar"})])
    if tool is not None:
        return Reply.text("app.py is renamed.")
    if (request.generation_config or {}).get("responseMimeType") == "application/json":
        return Reply.text(json.dumps({"complexity_reasoning": "small", "complexity_score": 5}))
    return Reply.text("ok")


def _write_settings(home: Path, project: Path) -> None:
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(QUIET_SETTINGS))
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(recipe("gemini"))


def _tool_output(requests: list[RecordedRequest]) -> dict[str, Any]:
    """What Gemini CLI handed its model back from the tool."""
    for request in requests:
        for response in request.function_responses:
            if response.get("name", "").endswith(TOOL):
                return dict(response["response"])
    raise AssertionError("Gemini CLI's model never got the tool's answer")


def test_gemini_cli_edits_through_complex_edit_mcp(
    emulator: GeminiEmulator, tmp_path: Path
) -> None:
    gemini = agent("gemini")
    space = Workspace.make(tmp_path)
    _write_settings(space.home, space.project)
    emulator.set_responder(_answer)
    env = scratch_env(
        space.home,
        GEMINI_API_KEY=TEST_KEY,
        GOOGLE_GEMINI_BASE_URL=emulator.base_url,
        GEMINI_CLI_TRUST_WORKSPACE="true",
    )
    run = space.run([gemini, "-p", "Rename foo to bar in app.py", "--output-format", "json"], env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert space.app.read_bytes() == EDITED
    assert json.loads(run.stdout)["response"] == "app.py is renamed."
    requests = emulator.requests
    sub_agent = [r for r in requests if "complete_task" in str(r.function_declarations)]
    assert len(sub_agent) == 1
    assert {r.api_key for r in requests} == {TEST_KEY}
    output = json.dumps(_tool_output(requests), ensure_ascii=False)
    for fact in (
        "Edited app.py: renamed foo to bar",
        "Syntax check: ok (python)",
        "Turns: 1 · tool calls: 3",
        "-def foo():",
        "+print(bar())",
    ):
        assert fact in output, output
