"""`complexEdit.doctor` over LSP: the object `complex-edit doctor --json` prints, computed with
the settings this client gives (initializationOptions, workspace/configuration), never a key."""

from __future__ import annotations

import asyncio
import json

from lsprotocol import types

from tests.conftest import TEST_KEY
from tests.editor.fixtures import SessionFactory
from tests.editor.servers import SERVER_COMMAND
from tests.editor.session import EditorSession
from tests.fakes.rawlsp import server_env

DOCTOR = "complexEdit.doctor"


async def doctor(session: EditorSession, *arguments: object) -> dict[str, object]:
    answer = await session.client.protocol.send_request_async(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command=DOCTOR, arguments=list(arguments)),
    )
    assert isinstance(answer, dict)
    return answer


def settings_of(answer: dict[str, object]) -> dict[str, tuple[object, object]]:
    items = answer["settings"]
    assert isinstance(items, list)
    return {item["name"]: (item["value"], item["source"]) for item in items}


async def test_the_server_offers_the_doctor_command(vscode: EditorSession) -> None:
    assert vscode.init_result is not None
    provider = vscode.init_result.capabilities.execute_command_provider
    assert provider is not None
    assert DOCTOR in provider.commands


async def test_doctor_answers_with_the_clients_layers_and_never_the_key(
    make_editor: SessionFactory,
) -> None:
    session = await make_editor(
        "neovim",
        env={"COMPLEX_EDIT_MAX_TURNS": "4"},
        init_options={"complexEdit": {"thinkingLevel": "minimal", "model": "gemini-3.7-flash"}},
    )
    session.client.set_configuration({"complexEdit": {"maxTurns": 6}})
    answer = await doctor(session)
    assert TEST_KEY not in json.dumps(answer)
    assert answer["key"] == {
        "present": True,
        "variable": "GEMINI_API_KEY",
        "variables": ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        "ignored": [],
        "vertex": False,
        "needed": False,
    }
    settings = settings_of(answer)
    assert settings["maxTurns"] == (6, "workspace/configuration complexEdit.maxTurns")
    assert settings["model"] == ("gemini-3.7-flash", "initializationOptions complexEdit.model")
    assert settings["review"] == (False, "default")
    model = answer["model"]
    assert isinstance(model, dict)
    assert model["name"] == "gemini-3.7-flash"
    assert model["thinkingLevels"] == ["low", "medium", "high"]
    assert answer["baseUrl"]["source"] == "GOOGLE_GEMINI_BASE_URL"  # type: ignore[index]
    checks = answer["checks"]
    assert isinstance(checks, list)
    (problem,) = [check for check in checks if check["level"] in ("warn", "error")]
    assert problem["level"] == "error"
    assert "refuses thinking level 'minimal'" in problem["text"]


async def test_doctor_over_lsp_answers_what_the_command_line_prints(
    make_editor: SessionFactory,
) -> None:
    env = {"COMPLEX_EDIT_PROVIDER": "openai", "COMPLEX_EDIT_TEMPERATURE": "0.3"}
    session = await make_editor("vscode", env=env)
    answer = await doctor(session, {"textDocument": {"uri": session.new_uri()}})
    cli_env = server_env("http://127.0.0.1:9", TEST_KEY, env)
    cli_env.pop("GOOGLE_GEMINI_BASE_URL")
    line = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND[:-1], "doctor", "--json", env=cli_env, stdout=asyncio.subprocess.PIPE
    )
    async with asyncio.timeout(60):
        out, _ = await line.communicate()
    assert line.returncode == 1  # openai without a key or base URL
    assert json.loads(out) == answer
