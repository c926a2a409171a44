"""Issue 38: every setting has a CLI flag, generated from the settings schema, on `edit`,
`mcp` and `doctor`; its value is read by the schema and a bad one is refused naming the flag."""

from __future__ import annotations

import pytest

from complex_edit.server.cli.entry import parser as _parser
from complex_edit.server.cli.flag_table import flag_of, setting_names
from complex_edit.server.cli.flags import setting_overrides
from complex_edit.server.settings import Settings, SettingsError

COMMANDS = {"edit": ["edit", "f.py", "--prompt", "p"], "mcp": ["mcp"], "doctor": ["doctor"]}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_setting_has_a_flag(command: str) -> None:
    parser = _parser()
    (actions,) = [
        a
        for a in parser._subparsers._group_actions  # type: ignore[union-attr]
    ]
    flags = set(actions.choices[command]._option_string_actions)  # type: ignore[attr-defined]
    missing = [name for name in setting_names() if flag_of(name) not in flags]
    assert missing == []
    assert {"--max-files", "--read-exclude", "--apply-timeout-seconds", "--max-prompt-bytes"} <= (
        flags
    )


def test_flags_are_read_by_the_schema() -> None:
    args = _parser().parse_args(
        [
            *COMMANDS["edit"],
            "--max-files",
            "2",
            "--read-exclude",
            "*.secret, notes/*",
            "--apply-timeout-seconds",
            "4.5",
            "--max-prompt-bytes",
            "900",
            "--review",
            "--other-files",
            "edit",
        ]
    )
    settings = Settings.from_layers({}, setting_overrides(args))
    assert settings.max_files == 2
    # A value of yours adds to the credential defaults.
    assert settings.read_exclude[-2:] == ("*.secret", "notes/*")
    assert ".netrc" in settings.read_exclude
    assert settings.apply_timeout_seconds == 4.5
    assert settings.max_prompt_bytes == 900
    assert settings.review is True
    assert settings.other_files == "edit"


def test_a_bad_value_names_the_flag() -> None:
    args = _parser().parse_args([*COMMANDS["mcp"], "--max-files", "0"])
    with pytest.raises(SettingsError, match=r"setting 'maxFiles' \(--max-files\)"):
        Settings.from_layers({}, setting_overrides(args))


def test_flag_names() -> None:
    assert flag_of("maxFiles") == "--max-files"
    assert flag_of("requestTimeoutSeconds") == "--request-timeout-seconds"
    assert flag_of("validate") == "--validate"
