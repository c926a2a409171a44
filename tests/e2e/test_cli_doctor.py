"""`complex-edit doctor [--json] [--probe]` as a real process: the report on stdout, the exit
status (1 when every edit would fail with `config`), flags as a settings layer, never a key;
with `--probe`, one request to the endpoint's models list and whether it answered."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.gemini_emulator import Reply as GeminiReply
from tests.fakes.rawlsp import ambient_free_env

DOCTOR = [sys.executable, "-m", "complex_edit", "doctor"]


def doctor(*args: str, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DOCTOR, *args],
        env={**ambient_free_env(), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_json_report_with_a_key_and_settings_from_each_layer() -> None:
    run = doctor(
        "--json",
        "--max-turns",
        "5",
        env={"GEMINI_API_KEY": TEST_KEY, "COMPLEX_EDIT_MODEL": "gemini-3.7-flash"},
    )
    assert run.returncode == 0, run.stderr
    assert TEST_KEY not in run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["key"]["present"] is True
    assert report["key"]["variable"] == "GEMINI_API_KEY"
    assert report["model"]["name"] == "gemini-3.7-flash"
    settings = {item["name"]: (item["value"], item["source"]) for item in report["settings"]}
    assert settings["maxTurns"] == (5, "--max-turns")
    assert settings["model"] == ("gemini-3.7-flash", "COMPLEX_EDIT_MODEL")
    assert settings["review"] == (False, "default")
    assert report["ok"] is True
    assert {check["level"] for check in report["checks"]} == {"ok", "info"}


def test_text_report_without_a_key_exits_1_and_says_why() -> None:
    run = doctor(env={})
    assert run.returncode == 1, run.stderr
    assert "WARN  No API key: neither GEMINI_API_KEY nor GOOGLE_API_KEY is set" in run.stdout
    assert run.stdout.endswith("problems found: see WARN and ERROR above\n")
    assert run.stderr == ""


def test_a_bad_flag_value_is_a_problem_naming_the_flag() -> None:
    run = doctor("--json", "--provider", "nope", env={"GEMINI_API_KEY": TEST_KEY})
    assert run.returncode == 1
    (problem,) = [c for c in json.loads(run.stdout)["checks"] if c["level"] == "error"]
    assert problem["text"].startswith("Invalid configuration: setting 'provider' (--provider)")


# -- issue 38: every base-URL source validated alike; --probe --------------------------------


def test_a_malformed_base_url_variable_is_a_config_error_naming_it(tmp_path: Path) -> None:
    env = {"GEMINI_API_KEY": TEST_KEY, "GOOGLE_GEMINI_BASE_URL": "not a url"}
    run = doctor("--json", env=env)
    assert run.returncode == 1, run.stderr
    (problem,) = [c for c in json.loads(run.stdout)["checks"] if c["level"] == "error"]
    assert problem["text"].startswith("Invalid configuration: GOOGLE_GEMINI_BASE_URL: 'not a url'")
    assert "is not an http:// or https:// URL" in problem["text"]
    # The edit path refuses it the same way, before any request: config, exit 2.
    target = tmp_path / "a.py"
    target.write_text("x = 1\n", encoding="utf-8")
    edit = subprocess.run(
        [sys.executable, "-m", "complex_edit", "edit", str(target), "--prompt", "p", "--json"],
        env={**ambient_free_env(), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert edit.returncode == 2, edit.stderr
    answer = json.loads(edit.stdout)
    assert answer["reason"] == "config"
    assert "GOOGLE_GEMINI_BASE_URL" in answer["error"]
    assert target.read_text(encoding="utf-8") == "x = 1\n"


def test_the_same_value_in_the_setting_is_refused_the_same_way() -> None:
    run = doctor("--json", env={"GEMINI_API_KEY": TEST_KEY, "COMPLEX_EDIT_BASE_URL": "not a url"})
    assert run.returncode == 1
    (problem,) = [c for c in json.loads(run.stdout)["checks"] if c["level"] == "error"]
    assert "'not a url' is not an http:// or https:// URL" in problem["text"]


def test_probe_reaches_the_models_list_once_without_showing_the_key(
    emulator: GeminiEmulator,
) -> None:
    emulator.enqueue(GeminiReply.json({"models": [{"name": "models/gemini-3.8-flash"}]}))
    env = {"GEMINI_API_KEY": TEST_KEY, "GOOGLE_GEMINI_BASE_URL": emulator.base_url}
    run = doctor("--json", "--probe", env=env)
    assert run.returncode == 0, run.stdout
    assert TEST_KEY not in run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["probe"]["answered"] is True
    assert report["probe"]["status"] == 200
    assert report["probe"]["url"] == emulator.base_url + "/v1beta/models"
    (request,) = emulator.requests
    assert (request.method, request.path) == ("GET", "/v1beta/models")
    assert request.headers["x-goog-api-key"] == TEST_KEY
    (said,) = [c for c in report["checks"] if c["text"].startswith("Probe:")]
    assert said["level"] == "ok"
    assert "answered HTTP 200" in said["text"]


def test_probe_says_when_the_key_is_refused(emulator: GeminiEmulator) -> None:
    emulator.enqueue(GeminiReply.error(403, "API key not valid"))
    env = {"GEMINI_API_KEY": TEST_KEY, "GOOGLE_GEMINI_BASE_URL": emulator.base_url}
    run = doctor("--probe", env=env)
    assert run.returncode == 1
    assert "answered HTTP 403" in run.stdout
    assert "the key was refused" in run.stdout


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_probe_names_a_local_server_that_is_not_running() -> None:
    url = closed_port_url()
    port = url.rsplit(":", 1)[1].removesuffix("/v1")
    run = doctor("--probe", env={"COMPLEX_EDIT_PROVIDER": "openai", "OPENAI_BASE_URL": url})
    assert run.returncode == 1
    assert (
        f"ERROR Probe: nothing is listening at 127.0.0.1:{port}: start your local server "
        "(ollama serve, llama-server …)." in run.stdout
    )


def test_without_probe_nothing_is_reached(emulator: GeminiEmulator) -> None:
    env = {"GEMINI_API_KEY": TEST_KEY, "GOOGLE_GEMINI_BASE_URL": emulator.base_url}
    run = doctor("--json", env=env)
    assert run.returncode == 0
    assert json.loads(run.stdout)["probe"] is None
    assert emulator.requests == []
