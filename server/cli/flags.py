"""The settings flags of `edit`, `mcp` and `doctor`, one per setting (`setting_flags.py`,
generated from the settings schema by `flag_table.py`), and the settings layer they give. A
flag the command defines itself for a setting (`edit --review`, `edit --other-files`) is left
to it. Standard library only: the parsers stay cheap."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from complex_edit.server.cli.setting_flags import SETTING_FLAGS

if TYPE_CHECKING:
    import argparse

    from complex_edit.server.settings import SettingsLayer

_PREFIX = "setting_"


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per setting on `parser`, in a group of their own (those it has already left)."""
    group = parser.add_argument_group(
        "settings", "override the COMPLEX_EDIT_* environment variables of the same name"
    )
    taken = set(parser._option_string_actions)
    for setting, flag, metavar, text in SETTING_FLAGS:
        if flag not in taken:
            group.add_argument(flag, dest=_PREFIX + setting, metavar=metavar, help=text)


def setting_overrides(args: argparse.Namespace) -> SettingsLayer:
    """The settings layer the flags give (camelCase keys; None = not given), each value named
    by its flag in messages; also a command's own flags for a setting (`--review`,
    `--other-files`). Values are text, read by the schema as an environment variable's are."""
    from complex_edit.server.settings import SettingsLayer

    values: dict[str, Any] = {}
    flags: dict[str, str] = {}
    for setting, flag, _, _ in SETTING_FLAGS:
        value = getattr(args, _PREFIX + setting, None)
        if value is None:  # the command's own flag for it: `--other-files` → other_files
            value = getattr(args, re.sub(r"(?<!^)(?=[A-Z])", "_", setting).lower(), None)
        if value is not None and value is not False:
            values[setting], flags[setting] = value, flag
    return SettingsLayer.flags(values, flags)
