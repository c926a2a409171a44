"""`complex-edit doctor`: what an edit would use (server/doctor.py), as text or JSON."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from complex_edit.server.cli.flags import add_setting_flags

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers
    from complex_edit.server.doctor import Doctor


def add(commands: Subparsers) -> argparse.ArgumentParser:
    doctor = commands.add_parser(
        "doctor",
        help="show what the server would use: provider, model, key, base URL, settings",
        description="What an edit would use: version, provider, the model and its rules, "
        "whether a key is present (never the key), the base URL, every setting with the layer "
        "it came from, the syntax languages. Exit status: 0 when no check is a problem, 1 when "
        "one is (WARN or ERROR: an ERROR makes every edit fail with reason config).",
    )
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    doctor.add_argument(
        "--probe",
        action="store_true",
        help="also reach the endpoint in use once (its models list: no model call) and say "
        "whether it answered",
    )
    add_setting_flags(doctor)
    return doctor


def load(args: argparse.Namespace) -> Callable[[], int]:
    from complex_edit.server.cli.flags import setting_overrides
    from complex_edit.server.doctor import examine, probed

    def run() -> int:
        import json
        import os

        doctor = examine(os.environ, setting_overrides(args))
        if args.probe:
            doctor = probed(doctor, os.environ, setting_overrides(args))
        if args.json:
            sys.stdout.write(json.dumps(doctor.to_wire(), ensure_ascii=False, indent=2) + "\n")
        else:
            sys.stdout.write(render(doctor))
        return 0 if doctor.ok else 1

    return run


def render(doctor: Doctor) -> str:
    """The report as text for a terminal: the checks, the base URL, then every setting."""
    from complex_edit.server.doctor import origin

    lines = [f"complex-edit {doctor.version} (Python {doctor.python}, {doctor.executable})"]
    for check in doctor.checks[1:]:
        lines.append(f"{check.level.upper():<6}{check.text}")
        lines.extend(f"      {advice}" for advice in check.advice)
    if doctor.base_url.url is not None:
        lines.append(f"base URL: {doctor.base_url.url} (from {doctor.base_url.source})")
    lines.append("settings:")
    width = max(len(item.name) for item in doctor.settings)
    for item in doctor.settings:
        shown = "unset" if item.value is None else _value(item.value)
        lines.append(f"  {item.name:<{width}}  {shown:<20}  {origin(item.source)}")
    lines.append("no problems found" if doctor.ok else "problems found: see WARN and ERROR above")
    return "\n".join(lines) + "\n"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return str(value)
