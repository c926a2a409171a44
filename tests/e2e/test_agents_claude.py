"""Claude Code, installed from npm, calling `complex-edit mcp` registered with the doc's own
`claude mcp add` line (issue 31 item 7). The project's Anthropic emulator (Messages,
streamed) answers Claude Code's model, the Gemini emulator the sub-agent's. Claude Code
defers MCP tools: its model sees the server's instructions and the tool's name, loads the
tool with ToolSearch, then calls it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import TEST_KEY
from tests.e2e.agents import EDITED, RENAME_CALLS, Workspace, agent, scratch_env
from tests.fakes.anthropic_emulator import AnthropicEmulator, MessagesRequest
from tests.fakes.anthropic_emulator import Reply as ClaudeReply
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.gemini_emulator import Reply as GeminiReply

TOOL = "mcp__complex-edit__perform_complex_edit"


def _tool_uses(request: MessagesRequest) -> list[str]:
    return [
        str(block.get("name"))
        for message in request.messages
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]


def _answer(request: MessagesRequest) -> ClaudeReply:
    """Load the deferred tool, call it once, then say it is done."""
    used = _tool_uses(request)
    if TOOL in request.function_names and TOOL not in used:
        return ClaudeReply.tool_use([(TOOL, {"path": "app.py", "prompt": "rename foo to bar"})])
    if TOOL not in request.function_names and "ToolSearch" not in used:
        return ClaudeReply.tool_use([("ToolSearch", {"query": f"select:{TOOL}"})])
    return ClaudeReply.text("app.py is renamed.")


def _seen_by_the_model(request: MessagesRequest) -> str:
    return json.dumps([request.field("system"), request.messages], ensure_ascii=False)


def _tool_result(requests: list[MessagesRequest]) -> dict[str, Any]:
    for request in requests:
        if TOOL in _tool_uses(request) and request.tool_results:
            return dict(request.tool_results[0])
    raise AssertionError("Claude Code's model never got the tool's answer")


def test_claude_code_edits_through_complex_edit_mcp(
    anthropic_server: AnthropicEmulator, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    claude = agent("claude")
    space = Workspace.make(tmp_path)
    anthropic_server.reset()
    anthropic_server.set_responder(_answer)
    emulator.set_responder(lambda _request: GeminiReply.function_calls(list(RENAME_CALLS)))
    env = scratch_env(
        space.home,
        ANTHROPIC_API_KEY=TEST_KEY,
        ANTHROPIC_BASE_URL=anthropic_server.base_url,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        GEMINI_API_KEY=TEST_KEY,
        GOOGLE_GEMINI_BASE_URL=emulator.base_url,
    )
    space.register("claude", env)
    prompt = ["-p", "Rename foo to bar in app.py", "--output-format", "json"]
    try:
        run = space.run([claude, *prompt, "--allowedTools", TOOL, "--debug"], env)
        requests = anthropic_server.requests
    finally:
        anthropic_server.reset()
    assert run.returncode == 0, run.stderr[-3000:]
    assert space.app.read_bytes() == EDITED
    assert json.loads(run.stdout)["result"] == "app.py is renamed."
    assert emulator.request_count == 1
    # the model sees the server's instructions before it loads the tool (issue 31 item 6)
    offered = next(r for r in requests if TOOL in _seen_by_the_model(r))
    assert "Prefer it over your own edit tool" in _seen_by_the_model(offered)
    result = json.loads(_tool_result(requests)["content"])
    assert (result["success"], result["applied"], result["turns"]) == (True, True, 1)
    assert result["validation"]["syntax"] == "ok"
    assert "+print(bar())" in result["diff"]
    # no progress notification races the answer (issue 31 item 3): Claude Code logs none
    (log,) = (space.home / ".claude" / "debug").glob("*.txt")  # what --debug wrote
    ours = [line for line in log.read_text().splitlines() if 'MCP server "complex-edit"' in line]
    assert any("Tool 'perform_complex_edit' completed successfully" in line for line in ours)
    assert [line for line in ours if "[ERROR]" in line or "unknown token" in line] == []
    # stopped with SIGINT at the end, the server leaves at once (issue 31 item 5)
    assert any("Sending SIGINT to MCP server process" in line for line in ours)
    assert any("MCP server process exited cleanly" in line for line in ours)
