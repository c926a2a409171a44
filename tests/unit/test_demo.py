"""`complex-edit try`'s parts: the bundled sample and its recording, the replay model built
from them, and the editor command lines (the runs themselves: tests/e2e/test_try.py)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.demo.editors import command_line, replay_env, server_command
from complex_edit.server.demo.recording import (
    ACROSS,
    first_message,
    load_recording,
    replay_model,
    sample_bytes,
)
from complex_edit.server.demo.run import replay_settings, without_proxy_for_local
from complex_edit.server.session.loop import build_first_message
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings

URL = "http://127.0.0.1:8123"
ENV = {
    "PATH": "/usr/bin",
    "HOME": "/home/u",
    "GEMINI_API_KEY": "secret-key-value",
    "GOOGLE_GENAI_USE_VERTEXAI": "true",
    "OPENAI_BASE_URL": "http://elsewhere/v1",
    "COMPLEX_EDIT_PROVIDER": "anthropic",
}


def _first_message(instruction: str, label: str = "inventory.py") -> str:
    recording = load_recording()
    request = EditRequest(
        instruction=instruction,
        text=sample_bytes(recording).decode("utf-8"),
        settings=Settings(),
        path_label=label,
    )
    return build_first_message(request)


def _request(*turns: list[dict[str, Any]], first: str) -> dict[str, Any]:
    """A generateContent body: the first message, then model turns and their responses."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": first}]}]
    for calls in turns:
        contents.append({"role": "model", "parts": [{"functionCall": c} for c in calls]})
        responses = [
            {"functionResponse": {"name": c["name"], "response": {"result": "ok"}}} for c in calls
        ]
        contents.append({"role": "user", "parts": responses})
    return {"contents": contents}


def test_the_sample_is_a_valid_module_and_the_recording_edits_it_once() -> None:
    recording = load_recording()
    text = sample_bytes(recording).decode("utf-8")
    ast.parse(text)
    (replace,), (complete,) = recording.turns
    assert replace.name == "replace_text"
    assert text.count(replace.args["old_text"]) == 1
    edited = text.replace(replace.args["old_text"], replace.args["new_text"])
    ast.parse(edited)
    assert "def reorder_list(self, threshold: int = 5)" in edited
    assert complete.name == "complete_task"
    assert complete.args["success"] is True


def test_the_replay_plays_the_recording_for_the_sample_s_first_message() -> None:
    recording = load_recording()
    model = replay_model(recording)
    first = _first_message(recording.instruction)
    status, answer = model.reply(_request(first=first))
    assert status == 200
    parts = answer["candidates"][0]["content"]["parts"]
    assert [part["functionCall"]["name"] for part in parts] == ["replace_text"]
    turn_one = [part["functionCall"] for part in parts]
    status, answer = model.reply(_request(turn_one, first=first))
    (part,) = answer["candidates"][0]["content"]["parts"]
    assert part["functionCall"]["args"]["success"] is True


@pytest.mark.parametrize(
    ("instruction", "label"),
    [("rename Item to Product", "inventory.py"), (None, "other.py")],
    ids=["another-instruction", "another-file"],
)
def test_anything_else_is_a_failed_task_that_says_what_the_replay_knows(
    instruction: str | None, label: str
) -> None:
    recording = load_recording()
    first = _first_message(instruction or recording.instruction, label)
    status, answer = replay_model(recording).reply(_request(first=first))
    assert status == 200
    (part,) = answer["candidates"][0]["content"]["parts"]
    call = part["functionCall"]
    assert call["name"] == "complete_task"
    assert call["args"]["success"] is False
    assert recording.instruction in call["args"]["error"]
    assert "set a key" in call["args"]["error"]


def test_the_settings_are_the_defaults_at_the_replay() -> None:
    settings = replay_settings(URL)
    assert (settings.provider, settings.base_url, settings.max_retries) == ("gemini", URL, 0)
    assert settings.model == Settings().model


def test_the_replay_is_never_sent_through_a_proxy() -> None:
    assert without_proxy_for_local({}) == {
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    assert without_proxy_for_local({"NO_PROXY": ".corp"})["NO_PROXY"] == ".corp,127.0.0.1,localhost"


def test_an_editor_s_environment_has_no_key_and_points_at_the_replay() -> None:
    env = replay_env(ENV, URL)
    assert env == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "COMPLEX_EDIT_PROVIDER": "gemini",
        "COMPLEX_EDIT_BASE_URL": URL,
        "COMPLEX_EDIT_CHECKERS": "off",
    }


def _plan(editor: str, tmp_path: Path) -> Any:
    path = tmp_path / "inventory.py"
    return command_line(
        editor,
        path,
        URL,
        "do it",
        program=f"/bin/{editor}",
        client=tmp_path / "client dir",
        env=ENV,
    )


def test_neovim_gets_the_client_the_replay_and_the_instruction_typed(tmp_path: Path) -> None:
    plan = _plan("nvim", tmp_path)
    program, clean, cmd, setup, c, prefill, path = plan.argv
    assert (program, clean, cmd, c, path) == (
        "/bin/nvim",
        "--clean",
        "--cmd",
        "-c",
        str(tmp_path / "inventory.py"),
    )
    assert f'vim.opt.runtimepath:prepend("{tmp_path / "client dir"}")' in setup
    assert f"baseUrl = {json.dumps(URL)}" in setup
    assert "vim.g.complex_edit_cmd = {" + ", ".join(map(json.dumps, server_command())) in setup
    assert setup.endswith("vim.lsp.enable('complex_edit')")
    assert prefill == "lua vim.api.nvim_feedkeys(\":ComplexEdit do it\", 'n', false)"
    assert plan.env == replay_env(ENV, URL)


def test_emacs_gets_the_package_on_eglot_and_the_instruction_in_its_history(
    tmp_path: Path,
) -> None:
    plan = _plan("emacs", tmp_path)
    program, quick, evaluate, setup, path = plan.argv
    assert (program, quick, evaluate, path) == (
        "/bin/emacs",
        "-q",
        "--eval",
        str(tmp_path / "inventory.py"),
    )
    assert f"(add-to-list 'load-path {json.dumps(str(tmp_path / 'client dir'))})" in setup
    assert ":baseUrl " + json.dumps(URL) in setup
    assert "(complex-edit-eglot-register '(python-mode python-ts-mode))" in setup
    assert '(add-to-history \'complex-edit-instruction-history "do it")' in setup
    assert setup.count("(") == setup.count(")")


def test_vscode_gets_a_window_on_the_folder_and_settings_pointing_at_the_replay(
    tmp_path: Path,
) -> None:
    plan = _plan("code", tmp_path)
    folder = str(tmp_path)
    assert plan.argv == ["/bin/code", "--new-window", "--wait", folder, f"{folder}/inventory.py"]
    ((settings_path, text),) = plan.files.items()
    assert settings_path == tmp_path / ".vscode" / "settings.json"
    settings = json.loads(text)
    assert settings["complexEdit.baseUrl"] == URL
    assert settings["complexEdit.provider"] == "gemini"
    assert plan.env == replay_env(ENV, URL)


def test_the_second_sample_s_recording_changes_its_three_files() -> None:
    recording = load_recording(ACROSS)
    assert (recording.file, recording.others) == ("orders.py", ["invoice.py", "report.py"])
    for name in (recording.file, *recording.others):
        text = sample_bytes(recording, name).decode("utf-8")
        ast.parse(text.replace("total_price", "order_total"))
        assert "total_price" in text
    model = replay_model(load_recording(), recording)  # one replay serves both samples
    status, answer = model.reply(_request(first=first_message(recording)))
    assert status == 200
    (part,) = answer["candidates"][0]["content"]["parts"]
    assert part["functionCall"]["name"] == "find_in_files"
    status, answer = model.reply(_request(first=first_message(load_recording())))
    assert answer["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] == "replace_text"


@pytest.mark.parametrize("editor", ["nvim", "emacs", "code"])
def test_across_files_the_editors_get_other_files_edit(editor: str, tmp_path: Path) -> None:
    plan = command_line(
        editor,
        tmp_path / "orders.py",
        URL,
        "do it",
        program=f"/bin/{editor}",
        client=tmp_path,
        env=ENV,
        other_files=True,
    )
    said = " ".join(plan.argv) + "".join(plan.files.values())
    assert {
        "nvim": "otherFiles = 'edit'",
        "emacs": ':otherFiles "edit"',
        "code": '"complexEdit.otherFiles": "edit"',
    }[editor] in said
    assert "otherFiles = 'off'" not in said
    assert ':otherFiles "off"' not in said
