"""`complex-edit doctor [--json]` as a real process: the report on stdout, the exit status (1
when every edit would fail with `config`), flags as a settings layer, and never a key."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping

from tests.conftest import TEST_KEY
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
