"""The settings layers: precedence, every setting from every layer, and errors naming the
setting and the layer its bad value came from."""

from __future__ import annotations

import pytest

from complex_edit.server.edit.checks import check_before_model
from complex_edit.server.lsp.arguments import PerformArgs
from complex_edit.server.outcome import EditRefused
from complex_edit.server.settings import READ_EXCLUDE, Settings, SettingsError, SettingsLayer

# A valid value of each setting, as text (the rest take "7").
SAMPLES = {
    "provider": "openai",
    "model": "m",
    "base_url": "http://127.0.0.1:9",
    "temperature": "1.5",
    "validate_result": "off",
    "review": "true",
    "thinking_level": "high",
    "thought_summaries": "false",
    "other_files": "edit",
    "read_exclude": "*.secret, .env",
    "checkers": "off",
    "check_severity": "warning",
    "read_exclude_replace": "true",
}


def error_of(env: dict[str, str], *layers: SettingsLayer | dict[str, object]) -> str:
    with pytest.raises(SettingsError) as caught:
        Settings.from_layers(env, *layers)
    return str(caught.value)


def test_later_layers_win_over_the_environment() -> None:
    settings = Settings.from_layers(
        {"COMPLEX_EDIT_MAX_TURNS": "2", "COMPLEX_EDIT_MODEL": "from-env"},
        SettingsLayer.client("initializationOptions", {"complexEdit": {"maxTurns": 3}}),
        SettingsLayer.client("workspace/didChangeConfiguration", {"maxTurns": 4}),
        SettingsLayer({"maxTurns": 5, "model": None}, "workspace/configuration complexEdit."),
    )
    assert settings.max_turns == 5
    assert settings.model == "from-env"  # None means "not set in this layer"


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_read_from_the_environment_and_from_a_client_layer(name: str) -> None:
    alias = Settings.model_fields[name].alias
    assert alias is not None
    value = SAMPLES.get(name, "7")
    from_env = Settings.from_layers({Settings.env_name(name): value})
    from_client = Settings.from_layers(
        {}, SettingsLayer.client("initializationOptions", {alias: value})
    )
    assert getattr(from_env, name) == getattr(from_client, name)
    assert name in from_env.model_fields_set
    assert name in from_client.model_fields_set


@pytest.mark.parametrize(
    "url",
    ["notaurl", "ftp://example.com/v1", "http://", "http://host:port/v1", "localhost:11434"],
)
def test_a_base_url_that_is_not_http_is_a_config_error(url: str) -> None:
    """Refused at once, naming the layer: a request to it could only fail, retried or not."""
    message = error_of({}, SettingsLayer.client("initializationOptions", {"baseUrl": url}))
    assert f"setting 'baseUrl' (initializationOptions baseUrl): {url!r} is not an http" in message


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:11434/v1", "https://proxy.example/gemini", " HTTPS://host:8080 "]
)
def test_an_http_base_url_is_kept(url: str) -> None:
    assert Settings.from_layers({}, {"baseUrl": url}).base_url == url.strip()


def test_an_empty_base_url_is_unset() -> None:
    assert Settings.from_layers({}, {"baseUrl": " "}).base_url is None


def test_an_empty_environment_variable_is_unset() -> None:
    assert Settings.from_layers({"COMPLEX_EDIT_MAX_TURNS": ""}).max_turns == 8


@pytest.mark.parametrize(
    ("layer", "named"),
    [
        (
            SettingsLayer.client("initializationOptions", {"complexEdit": {"maxTurns": "x"}}),
            "setting 'maxTurns' (initializationOptions complexEdit.maxTurns)",
        ),
        (
            SettingsLayer.client("initializationOptions", {"max_turns": "x"}),
            "setting 'maxTurns' (initializationOptions max_turns)",
        ),
        (
            SettingsLayer.client(
                "workspace/didChangeConfiguration", {"complexEdit": {"maxTurns": 0}}
            ),
            "setting 'maxTurns' (workspace/didChangeConfiguration complexEdit.maxTurns)",
        ),
        (
            SettingsLayer({"maxTurns": "x"}, "workspace/configuration complexEdit."),
            "setting 'maxTurns' (workspace/configuration complexEdit.maxTurns)",
        ),
        (
            SettingsLayer.flags({"provider": "nobody"}, {"provider": "--provider"}),
            "setting 'provider' (--provider)",
        ),
    ],
)
def test_a_bad_value_names_the_setting_and_its_layer(layer: SettingsLayer, named: str) -> None:
    assert named in error_of({}, layer)


def test_the_environment_is_named_by_its_variable() -> None:
    message = error_of({"COMPLEX_EDIT_PROVIDER": "nobody"})
    assert "setting 'provider' (COMPLEX_EDIT_PROVIDER)" in message


def test_the_layer_that_set_the_bad_value_is_named_not_an_earlier_one() -> None:
    message = error_of(
        {"COMPLEX_EDIT_MAX_TURNS": "3"},
        SettingsLayer.flags({"maxTurns": 0}, {"maxTurns": "--max-turns"}),
    )
    assert "setting 'maxTurns' (--max-turns)" in message
    assert "COMPLEX_EDIT_MAX_TURNS" not in message


def test_a_bad_value_overridden_by_a_later_layer_is_no_error() -> None:
    settings = Settings.from_layers(
        {"COMPLEX_EDIT_MAX_TURNS": "lots"}, SettingsLayer({"maxTurns": 2}, "x ")
    )
    assert settings.max_turns == 2


def test_every_bad_setting_is_reported() -> None:
    message = error_of(
        {"COMPLEX_EDIT_TEMPERATURE": "hot"},
        SettingsLayer({"maxTurns": 0}, "workspace/configuration complexEdit."),
    )
    assert "setting 'temperature' (COMPLEX_EDIT_TEMPERATURE)" in message
    assert "setting 'maxTurns' (workspace/configuration complexEdit.maxTurns)" in message


def test_a_plain_mapping_is_an_unnamed_layer() -> None:
    assert "setting 'maxTurns': " in error_of({}, {"maxTurns": 0})


def test_a_client_layer_that_is_not_an_object_sets_nothing() -> None:
    assert (
        Settings.from_layers({}, SettingsLayer.client("initializationOptions", [1])).max_turns == 8
    )


def test_command_arguments_are_the_most_specific_layer() -> None:
    args = PerformArgs.model_validate(
        {"textDocument": {"uri": "file:///a"}, "prompt": "p", "maxTurns": 4}
    )
    settings = Settings.from_layers(
        {"COMPLEX_EDIT_MAX_TURNS": "2"}, SettingsLayer({"maxTurns": 3}, "x "), args.overrides()
    )
    assert settings.max_turns == 4


def test_the_command_s_checkers_argument_is_a_layer_and_a_bad_one_names_it() -> None:
    args = PerformArgs.model_validate(
        {"textDocument": {"uri": "file:///a"}, "prompt": "p", "checkers": "off"}
    )
    settings = Settings.from_layers({"COMPLEX_EDIT_CHECKERS": "auto"}, args.overrides())
    assert settings.checkers == "off"
    bad = PerformArgs.model_validate(
        {"textDocument": {"uri": "file:///a"}, "prompt": "p", "checkers": [{"name": "x"}]}
    )
    assert "performComplexEdit argument checkers" in error_of({}, bad.overrides())


def test_the_prompt_limit_comes_from_the_settings() -> None:
    args = PerformArgs.model_validate({"textDocument": {"uri": "file:///a"}, "prompt": "é" * 8})

    def limit(size: int) -> Settings:
        return Settings.from_layers({}, SettingsLayer({"maxPromptBytes": size}, "x "))

    check_before_model(args.prompt, None, "", limit(16))
    with pytest.raises(EditRefused, match="maxPromptBytes"):
        check_before_model(args.prompt, None, "", limit(15))


@pytest.mark.parametrize("command", [["edit", "f.py", "--prompt", "p"], ["mcp"]])
def test_the_flags_of_edit_and_mcp_are_named_by_their_flag(command: list[str]) -> None:
    from complex_edit.server.cli.entry import parser
    from complex_edit.server.cli.flags import setting_overrides

    args = parser().parse_args([*command, "--provider", "nobody", "--wall-time-seconds", "0"])
    message = error_of({"COMPLEX_EDIT_PROVIDER": "openai"}, setting_overrides(args))
    assert "setting 'provider' (--provider)" in message
    assert "setting 'wallTimeSeconds' (--wall-time-seconds)" in message


def test_validate_is_named_validate_in_every_layer() -> None:
    assert Settings().validate_result == "syntax"
    assert Settings.env_name("validate_result") == "COMPLEX_EDIT_VALIDATE"
    assert Settings.from_layers({"COMPLEX_EDIT_VALIDATE": "off"}).validate_result == "off"
    assert "setting 'validate' (COMPLEX_EDIT_VALIDATE)" in error_of(
        {"COMPLEX_EDIT_VALIDATE": "lint"}
    )


def test_the_default_model_is_current_and_no_thinking_level_is_set() -> None:
    settings = Settings()
    assert settings.model == "gemini-3.8-flash"
    assert settings.thinking_level is None


@pytest.mark.parametrize("command", [["edit", "f.py", "--prompt", "p"], ["mcp"]])
def test_the_thinking_level_from_every_layer(command: list[str]) -> None:
    from complex_edit.server.cli.entry import parser
    from complex_edit.server.cli.flags import setting_overrides

    assert Settings.env_name("thinking_level") == "COMPLEX_EDIT_THINKING_LEVEL"
    env = {"COMPLEX_EDIT_THINKING_LEVEL": "HIGH"}
    assert Settings.from_layers(env).thinking_level == "high"
    client = SettingsLayer.client(
        "initializationOptions", {"complexEdit": {"thinkingLevel": "Low"}}
    )
    assert Settings.from_layers(env, client).thinking_level == "low"
    args = parser().parse_args([*command, "--thinking-level", "medium"])
    assert Settings.from_layers(env, setting_overrides(args)).thinking_level == "medium"
    assert Settings.from_layers({}, {"thinkingLevel": ""}).thinking_level is None
    bad = parser().parse_args([*command, "--thinking-level", "extreme"])
    assert "setting 'thinkingLevel' (--thinking-level)" in error_of({}, setting_overrides(bad))
    assert "setting 'thinkingLevel' (COMPLEX_EDIT_THINKING_LEVEL)" in error_of(
        {"COMPLEX_EDIT_THINKING_LEVEL": "max"}
    )


@pytest.mark.parametrize("command", [["edit", "f.py", "--prompt", "p"], ["mcp"]])
def test_thought_summaries_from_every_layer(command: list[str]) -> None:
    from complex_edit.server.cli.entry import parser
    from complex_edit.server.cli.flags import setting_overrides

    assert Settings().thought_summaries is True
    env = {"COMPLEX_EDIT_THOUGHT_SUMMARIES": "false"}
    assert Settings.from_layers(env).thought_summaries is False
    args = parser().parse_args([*command, "--thought-summaries", "true"])
    assert Settings.from_layers(env, setting_overrides(args)).thought_summaries is True
    bad = parser().parse_args([*command, "--thought-summaries", "sometimes"])
    assert "setting 'thoughtSummaries' (--thought-summaries)" in error_of(
        {}, setting_overrides(bad)
    )


def test_read_exclude_from_text_is_a_json_list_or_comma_separated() -> None:
    from_json = Settings.from_layers({"COMPLEX_EDIT_READ_EXCLUDE": '["*.a", "b c"]'})
    from_commas = Settings.from_layers({}, {"readExclude": "*.a, b c"})
    from_list = Settings.from_layers({}, {"readExclude": ["*.a", "b c"]})
    assert from_json.read_exclude == from_commas.read_exclude == from_list.read_exclude
    assert from_json.read_exclude[-2:] == ("*.a", "b c")


def test_read_exclude_adds_to_the_credential_defaults_unless_replace_is_set() -> None:
    added = Settings.from_layers({}, {"readExclude": ["*.mine"]})
    assert added.read_exclude == (*READ_EXCLUDE, "*.mine")
    for credential in (".netrc", ".aws/", ".ssh/", "*.tfstate", "**/.docker/config.json"):
        assert credential in added.read_exclude
    replaced = Settings.from_layers(
        {"COMPLEX_EDIT_READ_EXCLUDE_REPLACE": "true"}, {"readExclude": ["*.mine"]}
    )
    assert replaced.read_exclude == ("*.mine",)


def test_other_files_defaults_to_reading_with_secrets_excluded() -> None:
    settings = Settings()
    assert settings.other_files == "read"
    assert settings.max_files == 10
    assert ".env" in settings.read_exclude
    assert "*.pem" in settings.read_exclude
    assert "setting 'otherFiles'" in error_of({}, {"otherFiles": "write"})
