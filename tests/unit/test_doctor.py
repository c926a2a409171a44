"""The doctor's report (`server/doctor.py`): what an edit would use, each setting with the layer
it came from, the providers' own key rules (`providers/access.py`), and never a key's value."""

from __future__ import annotations

import json

import pytest

from complex_edit.server import __version__
from complex_edit.server.cli.doctor import render
from complex_edit.server.doctor import Doctor, examine
from complex_edit.server.providers.access import ACCESS, key_status
from complex_edit.server.settings import DEFAULT_MODEL, SettingsLayer

KEY = "planted-key-7f3a9c"


def sources(doctor: Doctor) -> dict[str, tuple[object, str]]:
    return {item.name: (item.value, item.source) for item in doctor.settings}


def problems(doctor: Doctor) -> list[tuple[str, str]]:
    return [(check.level, check.text) for check in doctor.checks if check.level in PROBLEMS]


PROBLEMS = ("warn", "error")


def test_defaults_without_a_key_say_what_is_missing() -> None:
    doctor = examine({})
    assert doctor.version == __version__
    assert doctor.provider == "gemini"
    assert doctor.model.name == DEFAULT_MODEL
    assert doctor.model.family == "Gemini 3.7/3.8 Flash"
    assert doctor.model.thinking_levels == ["low", "medium", "high"]
    assert doctor.model.default_thinking_level == "medium"
    assert doctor.key.present is False
    assert doctor.key.needed is True
    assert doctor.base_url.url is None
    assert {source for _, source in sources(doctor).values()} == {"default"}
    assert problems(doctor) == [
        ("warn", "No API key: neither GEMINI_API_KEY nor GOOGLE_API_KEY is set")
    ]
    assert doctor.ok is False
    assert "python" in doctor.syntax_languages


def test_every_setting_is_listed_with_the_layer_it_came_from() -> None:
    doctor = examine(
        {"GEMINI_API_KEY": KEY, "COMPLEX_EDIT_MAX_TURNS": "3", "COMPLEX_EDIT_REVIEW": "true"},
        SettingsLayer.client("initializationOptions", {"complexEdit": {"maxTurns": 5}}),
        SettingsLayer.flags({"validate": "off"}, {"validate": "--validate"}),
    )
    found = sources(doctor)
    assert found["maxTurns"] == (5, "initializationOptions complexEdit.maxTurns")
    assert found["review"] == (True, "COMPLEX_EDIT_REVIEW")
    assert found["validate"] == ("off", "--validate")
    assert found["model"] == (DEFAULT_MODEL, "default")
    assert set(found) == {item.name for item in doctor.settings}
    assert len(found) == len(doctor.settings) >= 15
    assert doctor.ok is True
    assert (
        "Settings not at their default: maxTurns (from initializationOptions complexEdit.maxTurns),"
        " review (from COMPLEX_EDIT_REVIEW), validate (from --validate)"
    ) in [check.text for check in doctor.checks]


def test_the_key_is_named_never_shown() -> None:
    env = {"GEMINI_API_KEY": KEY, "GOOGLE_API_KEY": KEY + "-google", "OPENAI_API_KEY": KEY}
    doctor = examine(env, {"baseUrl": f"http://127.0.0.1:9/?key={KEY}"})
    wire = json.dumps(doctor.to_wire())
    assert KEY not in wire
    assert KEY not in render(doctor)
    assert doctor.key.variable == "GOOGLE_API_KEY"  # the SDK's rule: it wins
    assert doctor.key.ignored == ["GEMINI_API_KEY"]
    assert "[redacted]" in (doctor.base_url.url or "")


def test_an_editors_stored_key_is_used_first_and_never_listed_as_missing() -> None:
    doctor = examine({"COMPLEX_EDIT_STORED_KEY": KEY, "GEMINI_API_KEY": KEY + "-env"})
    assert doctor.key.variable == "COMPLEX_EDIT_STORED_KEY"
    assert doctor.key.ignored == ["GEMINI_API_KEY"]
    assert doctor.key.variables == ["GEMINI_API_KEY", "GOOGLE_API_KEY"]
    assert KEY not in json.dumps(doctor.to_wire())


def test_a_refused_thinking_level_is_a_problem_and_the_temperature_a_note() -> None:
    doctor = examine({"GEMINI_API_KEY": KEY}, {"thinkingLevel": "minimal", "temperature": 0.4})
    assert doctor.model.thinking_level == "minimal"
    (refused, temperature) = problems(doctor)
    assert refused[0] == "error"
    assert "refuses thinking level 'minimal'" in refused[1]
    assert doctor.model.temperature_sent is False
    assert temperature == (
        "warn",
        "setting 'temperature' (0.4) is not sent: it is deprecated for Gemini 3.7/3.8 Flash "
        "(gemini-3.8-flash)",
    )


def test_other_providers_use_their_default_model_and_no_family_rules() -> None:
    doctor = examine({"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}, {"provider": "openai"})
    assert doctor.model.name == ACCESS["openai"].default_model
    assert doctor.model.family is None
    assert doctor.key == doctor.key.model_copy(update={"present": False, "needed": False})
    assert doctor.base_url.url == "http://127.0.0.1:11434/v1"
    assert doctor.base_url.source == "OPENAI_BASE_URL"
    assert doctor.ok is True
    assert "INFO  No OPENAI_API_KEY: not needed with a base URL (OPENAI_BASE_URL)" in render(doctor)
    assert "Model: gpt-5.4-mini (the provider's default)" in render(doctor)


def test_gemini_with_a_base_url_needs_no_key() -> None:
    """A local proxy (or `complex-edit try`'s replay): the run sends a placeholder, so the
    report has no missing key; the same environment without the URL warns."""
    doctor = examine({"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9"})
    assert (doctor.key.present, doctor.key.needed) == (False, False)
    assert problems(doctor) == []
    assert doctor.ok is True
    assert "INFO  No GEMINI_API_KEY: not needed with a base URL (GOOGLE_GEMINI_BASE_URL)" in (
        render(doctor)
    )
    alone = examine({})
    assert problems(alone)[0] == (
        "warn",
        "No API key: neither GEMINI_API_KEY nor GOOGLE_API_KEY is set",
    )
    assert alone.ok is False


def test_a_bad_value_is_a_problem_and_the_rest_still_reported() -> None:
    doctor = examine({"COMPLEX_EDIT_PROVIDER": "bogus", "GEMINI_API_KEY": KEY}, {"maxTurns": 4})
    assert doctor.provider == "gemini"
    assert problems(doctor) == [
        (
            "error",
            "Invalid configuration: setting 'provider' (COMPLEX_EDIT_PROVIDER): Input should be "
            "'gemini', 'openai' or 'anthropic'",
        )
    ]
    assert sources(doctor)["provider"] == ("gemini", "default")
    assert sources(doctor)["maxTurns"][0] == 4


@pytest.mark.parametrize(
    ("provider", "env", "base_url", "variable", "missing"),
    [
        ("gemini", {}, None, None, True),
        ("gemini", {}, "http://127.0.0.1:9", None, False),
        ("gemini", {"GOOGLE_GENAI_USE_VERTEXAI": "True"}, None, None, False),
        ("openai", {}, "http://127.0.0.1:9", None, False),
        ("openai", {"OPENAI_API_KEY": KEY}, None, "OPENAI_API_KEY", False),
        ("anthropic", {"ANTHROPIC_AUTH_TOKEN": KEY}, None, "ANTHROPIC_AUTH_TOKEN", False),
        ("anthropic", {}, None, None, True),
    ],
)
def test_key_status_follows_each_providers_rule(
    provider: str, env: dict[str, str], base_url: str | None, variable: str | None, missing: bool
) -> None:
    status = key_status(provider, env, base_url)
    assert (status.variable, status.missing) == (variable, missing)


def test_the_text_report_names_every_part() -> None:
    text = render(examine({"GEMINI_API_KEY": KEY}, {"thinkingLevel": "high"}))
    for part in ("complex-edit ", "INFO  Provider: gemini (default)", "OK    API key set: "):
        assert part in text
    assert "INFO  Thinking level: high (from thinkingLevel)" in text
    assert "  maxTurns " in text
    assert text.endswith("no problems found\n")


def test_a_local_host_that_does_not_answer_is_told_what_to_start() -> None:
    from complex_edit.server.providers.access import nothing_listening

    for host in ("localhost:11434", "127.0.0.1:8080", "::1:8080", "0.0.0.0:1", "a.localhost"):
        assert nothing_listening(host).startswith(f"Nothing is listening at {host}: start your")
    for host in ("generativelanguage.googleapis.com", "10.0.0.1:11434", "api.openai.com:443"):
        assert nothing_listening(host) == ""
