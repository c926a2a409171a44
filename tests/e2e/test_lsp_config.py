"""Settings through every LSP layer: environment, initializationOptions, the pushed
configuration, `workspace/configuration` (re-read on every command) and per-command overrides."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from lsprotocol import types
from pydantic.alias_generators import to_snake

from tests.editor.checks import assert_failure, assert_success
from tests.editor.client import CommandError
from tests.editor.fixtures import SessionFactory
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = "value = 1\n"


def endless(emulator: GeminiEmulator) -> None:
    """A model that never calls complete_task: the run ends at the turn cap."""
    emulator.enqueue(calls(("get_document", {})).repeat(None))


async def test_workspace_configuration_sets_the_turn_cap(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.client.set_configuration({"complexEdit": {"maxTurns": 2}})
    uri = editor.open(DOC)
    endless(emulator)
    result = await editor.run(uri, "loop")
    assert_failure(result, "max_turns")
    assert result["turns"] == 2
    assert len(emulator.requests) == 2
    assert editor.applies == []


async def test_the_command_overrides_the_configuration(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.client.set_configuration({"complexEdit": {"maxTurns": 2}})
    uri = editor.open(DOC)
    endless(emulator)
    result = await editor.run(uri, "loop", maxTurns=3)
    assert_failure(result, "max_turns")
    assert len(emulator.requests) == 3


async def test_configuration_is_read_again_for_every_command(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = vscode.open(DOC)
    endless(emulator)
    vscode.client.set_configuration({"complexEdit": {"maxTurns": 1}})
    assert_failure(await vscode.run(uri, "loop"), "max_turns")
    assert len(emulator.requests) == 1
    vscode.client.set_configuration({"complexEdit": {"maxTurns": 3}})
    assert_failure(await vscode.run(uri, "loop"), "max_turns")
    assert len(emulator.requests) == 4


async def test_configured_model_is_used(editor: EditorSession, emulator: GeminiEmulator) -> None:
    editor.client.set_configuration({"complexEdit": {"model": "gemini-from-settings"}})
    uri = editor.open(DOC)
    emulator.enqueue(calls(done()), calls(done()))
    assert (await editor.run(uri, "nothing"))["success"] is True
    assert emulator.requests[0].model == "gemini-from-settings"
    assert (await editor.run(uri, "nothing", model="gemini-from-command"))["success"] is True
    assert emulator.requests[1].model == "gemini-from-command"


async def test_invalid_configuration_is_a_config_failure_before_any_model_call(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.client.set_configuration({"complexEdit": {"maxTurns": "lots"}})
    uri = editor.open(DOC)
    emulator.enqueue(calls(done()))
    result = await editor.run(uri, "anything")
    assert_failure(result, "config")
    assert "maxTurns" in result["error"]
    assert emulator.requests == []


async def test_document_size_cap(vscode: EditorSession, emulator: GeminiEmulator) -> None:
    vscode.client.set_configuration({"complexEdit": {"maxDocumentBytes": 64}})
    emulator.enqueue(calls(done()).repeat(None))
    at_cap = vscode.open("x" * 63 + "\n")
    assert (await vscode.run(at_cap, "anything"))["success"] is True
    over = vscode.open("é" * 32 + "\n")  # 65 bytes in UTF-8
    result = await vscode.run(over, "anything")
    assert_failure(result, "too_large")
    assert len(emulator.requests) == 1


async def test_request_timeout_setting(vscode: EditorSession, emulator: GeminiEmulator) -> None:
    vscode.client.set_configuration({"complexEdit": {"requestTimeoutSeconds": 0.5}})
    uri = vscode.open(DOC)
    emulator.enqueue(Reply.hang())
    result = await vscode.run(uri, "wait forever")
    assert_failure(result, "model_error")
    assert "timeout" in result["error"].lower()
    assert vscode.applies == []


@pytest.fixture
async def pushed(vscode: EditorSession) -> AsyncIterator[EditorSession]:
    """The VS Code server; settings pushed with didChangeConfiguration are undone after."""
    yield vscode
    vscode.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"complexEdit": {}})
    )
    await vscode.barrier()


async def test_pushed_configuration(pushed: EditorSession, emulator: GeminiEmulator) -> None:
    pushed.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"complexEdit": {"maxTurns": 1}})
    )
    uri = pushed.open(DOC)
    endless(emulator)
    assert_failure(await pushed.run(uri, "loop"), "max_turns")
    assert len(emulator.requests) == 1
    # workspace/configuration is the more specific layer
    pushed.client.set_configuration({"complexEdit": {"maxTurns": 2}})
    assert_failure(await pushed.run(uri, "loop"), "max_turns")
    assert len(emulator.requests) == 3


@pytest.mark.parametrize(
    "init_options",
    [{"complexEdit": {"maxTurns": 1}}, {"maxTurns": 1}],
    ids=["nested", "flat"],
)
async def test_initialization_options(
    init_options: dict[str, object], make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    editor = await make_editor("vscode", init_options=init_options)
    uri = editor.open(DOC)
    endless(emulator)
    assert_failure(await editor.run(uri, "loop"), "max_turns")
    assert len(emulator.requests) == 1
    # workspace/configuration wins over initializationOptions, the command over both
    editor.client.set_configuration({"complexEdit": {"maxTurns": 2}})
    assert_failure(await editor.run(uri, "loop"), "max_turns")
    assert len(emulator.requests) == 3
    assert_failure(await editor.run(uri, "loop", maxTurns=3), "max_turns")
    assert len(emulator.requests) == 6


async def test_environment_variables_are_the_defaults(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    editor = await make_editor("vscode", env={"COMPLEX_EDIT_MAX_TURNS": "2"})
    uri = editor.open(DOC)
    endless(emulator)
    assert_failure(await editor.run(uri, "loop"), "max_turns")
    assert len(emulator.requests) == 2
    editor.client.set_configuration({"complexEdit": {"maxTurns": 1}})
    assert_failure(await editor.run(uri, "loop"), "max_turns")
    assert len(emulator.requests) == 3


async def test_base_url_setting_and_the_sdk_variable(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    """GOOGLE_GEMINI_BASE_URL is honoured as is (here: a closed port, so the call fails), and
    the baseUrl setting overrides it."""
    editor = await make_editor("vscode", env={"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"})
    uri = editor.open(DOC)
    result = await editor.run(uri, "anything")
    assert_failure(result, "model_error")
    assert emulator.requests == []
    editor.client.set_configuration({"complexEdit": {"baseUrl": emulator.base_url}})
    emulator.enqueue(calls(replace("value = 1", "value = 2"), done()))
    result = await editor.run(uri, "bump")
    assert_success(result)
    assert editor.text(uri) == "value = 2\n"
    assert len(emulator.requests) == 1


# -- one rule for every layer: each setting from each layer, a bad value named with its layer ---

INVALID_PARAMS = -32602
# 44 bytes: over the 16-byte limit the tests below set.
LONG_PROMPT = "make every value in this file twice as large"


async def configure(
    layer: str, values: dict[str, object], make_editor: SessionFactory
) -> EditorSession:
    """A server given `values` through `layer` (env, init, pushed or workspace)."""
    if layer == "env":
        env = {f"COMPLEX_EDIT_{to_snake(key).upper()}": str(v) for key, v in values.items()}
        return await make_editor("vscode", env=env)
    if layer == "init":
        return await make_editor("vscode", init_options={"complexEdit": values})
    editor = await make_editor("vscode")
    if layer == "pushed":
        editor.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"complexEdit": values})
        )
    else:
        editor.client.set_configuration({"complexEdit": values})
    return editor


async def unpush(editor: EditorSession) -> None:
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"complexEdit": {}})
    )
    await editor.barrier()


@pytest.mark.parametrize("layer", ["env", "init", "pushed", "workspace"])
async def test_max_prompt_bytes_applies_from_every_layer(
    layer: str, make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    editor = await configure(layer, {"maxPromptBytes": 16}, make_editor)
    try:
        uri = editor.open(DOC)
        emulator.enqueue(calls(done()))
        with pytest.raises(CommandError) as caught:
            await editor.run(uri, LONG_PROMPT)
        assert caught.value.code == INVALID_PARAMS, caught.value
        assert "maxPromptBytes" in caught.value.message
        assert emulator.requests == []
        result = await editor.run(uri, "no change")  # within the limit
        assert result["success"] is True, result
        assert len(emulator.requests) == 1
    finally:
        await unpush(editor)


@pytest.mark.parametrize(
    ("layer", "values", "named"),
    [
        ("env", {"provider": "nobody"}, "setting 'provider' (COMPLEX_EDIT_PROVIDER)"),
        ("env", {"maxTurns": "lots"}, "setting 'maxTurns' (COMPLEX_EDIT_MAX_TURNS)"),
        (
            "init",
            {"maxPromptBytes": 0},
            "setting 'maxPromptBytes' (initializationOptions complexEdit.maxPromptBytes)",
        ),
        (
            "pushed",
            {"maxTurns": "lots"},
            "setting 'maxTurns' (workspace/didChangeConfiguration complexEdit.maxTurns)",
        ),
        (
            "workspace",
            {"maxTurns": "lots"},
            "setting 'maxTurns' (workspace/configuration complexEdit.maxTurns)",
        ),
        (
            "workspace",
            {"maxPromptBytes": -1},
            "setting 'maxPromptBytes' (workspace/configuration complexEdit.maxPromptBytes)",
        ),
    ],
)
async def test_a_bad_value_in_any_layer_is_a_config_failure_naming_setting_and_layer(
    layer: str,
    values: dict[str, object],
    named: str,
    make_editor: SessionFactory,
    emulator: GeminiEmulator,
) -> None:
    editor = await configure(layer, values, make_editor)
    try:
        uri = editor.open(DOC)
        emulator.enqueue(calls(done()))
        result = await editor.run(uri, "anything")
        assert_failure(result, "config")
        assert named in result["error"], result["error"]
        assert emulator.requests == []
        assert editor.applies == []
    finally:
        await unpush(editor)


async def test_flat_initialization_options_are_named_as_given(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    editor = await make_editor("vscode", init_options={"maxTurns": 0})
    uri = editor.open(DOC)
    result = await editor.run(uri, "anything")
    assert_failure(result, "config")
    assert "setting 'maxTurns' (initializationOptions maxTurns)" in result["error"]
    assert emulator.requests == []
