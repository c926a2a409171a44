"""Codex CLI, installed from npm, calling `complex-edit mcp` registered with the doc's own
`codex mcp add` line plus its two lines for `codex exec` (issue 31 items 1 and 7). The OpenAI
emulator (Responses API, streamed) answers Codex's model, the Gemini emulator the sub-agent's.
Without the doc's `default_tools_approval_mode = "approve"`, `codex exec` refuses the call."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import TEST_KEY
from tests.e2e.agents import (
    EDITED,
    ORIGINAL,
    RENAME_CALLS,
    Workspace,
    agent,
    recipe,
    scratch_env,
)
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.gemini_emulator import Reply as GeminiReply
from tests.fakes.openai_emulator import ChatRequest, OpenAIEmulator
from tests.fakes.openai_emulator import Reply as OpenAIReply

TOOL = "perform_complex_edit"
TABLE = "[mcp_servers.complex-edit]\n"


def _answer(request: ChatRequest) -> OpenAIReply:
    """Call the tool once (in the namespace Codex gives the server's tools), then finish."""
    answered = any(item.get("type") == "function_call_output" for item in request.input_items)
    namespace = next((name for name, tools in request.namespaces.items() if TOOL in tools), None)
    if namespace is None or answered:
        return OpenAIReply.response_text("app.py is renamed.")
    arguments = {"path": "app.py", "prompt": "rename foo to bar"}
    return OpenAIReply.response_calls([(TOOL, arguments)], namespace=namespace)


def _configure(
    config: Path, openai: OpenAIEmulator, gemini: GeminiEmulator, *, exec_lines: bool = True
) -> None:
    """The doc's `codex exec` lines go into the table `codex mcp add` wrote; the emulators'
    addresses are the test's own (Codex passes the server only the variables it is given)."""
    written = config.read_text()
    assert TABLE in written, written
    lines = recipe("codex-exec").removeprefix(TABLE) if exec_lines else ""
    emulated = f'GOOGLE_GEMINI_BASE_URL = "{gemini.base_url}"\n'
    provider = (
        'model = "gpt-emulated"\nmodel_provider = "emulator"\n\n[model_providers.emulator]\n'
        f'name = "emulator"\nbase_url = "{openai.base_url}"\nenv_key = "OPENAI_API_KEY"\n'
        'wire_api = "responses"\n\n'
    )
    env_table = "[mcp_servers.complex-edit.env]\n"
    assert env_table in written, written
    merged = written.replace(TABLE, f"{TABLE}{lines}\n", 1).replace(
        env_table, env_table + emulated, 1
    )
    config.write_text(provider + merged)


def _tool_output(requests: list[ChatRequest]) -> str:
    for request in requests:
        for item in request.input_items:
            if item.get("type") == "function_call_output":
                return str(item.get("output"))
    raise AssertionError("Codex's model never got the tool's answer")


def _codex_exec(
    openai: OpenAIEmulator, gemini: GeminiEmulator, space: Workspace, *, exec_lines: bool
) -> tuple[subprocess.CompletedProcess[str], list[ChatRequest]]:
    codex = agent("codex")
    openai.reset()
    openai.set_responder(_answer)
    gemini.set_responder(lambda _request: GeminiReply.function_calls(list(RENAME_CALLS)))
    env = scratch_env(space.home, OPENAI_API_KEY=TEST_KEY, GEMINI_API_KEY=TEST_KEY)
    space.register("codex", env)
    _configure(space.home / ".codex" / "config.toml", openai, gemini, exec_lines=exec_lines)
    try:
        run = space.run(
            [codex, "exec", "--skip-git-repo-check", "Rename foo to bar in app.py"], env
        )
        return run, openai.requests
    finally:
        openai.reset()


def test_codex_exec_refuses_the_call_without_the_docs_exec_lines(
    openai_server: OpenAIEmulator, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """What issue 31 item 1 found: registered with `codex mcp add` alone, `codex exec`
    refuses the destructive tool before it reaches the server."""
    space = Workspace.make(tmp_path)
    run, requests = _codex_exec(openai_server, emulator, space, exec_lines=False)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "requires approval" in _tool_output(requests)
    assert emulator.request_count == 0
    assert space.app.read_bytes() == ORIGINAL


def test_codex_exec_edits_through_complex_edit_mcp(
    openai_server: OpenAIEmulator, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    space = Workspace.make(tmp_path)
    run, requests = _codex_exec(openai_server, emulator, space, exec_lines=True)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "requires approval" not in run.stderr
    assert space.app.read_bytes() == EDITED
    assert run.stdout.strip() == "app.py is renamed."
    assert emulator.request_count == 1
    output = _tool_output(requests)
    result = json.loads(output[output.index("{") :])
    assert (result["success"], result["applied"], result["turns"]) == (True, True, 1)
    assert result["validation"]["syntax"] == "ok"
    assert "+print(bar())" in result["diff"]
    # the server was ready for Codex's first request (`required = true`)
    assert TOOL in requests[0].namespaces.get("mcp__complex_edit", [])
