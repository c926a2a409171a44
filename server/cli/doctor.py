"""`complex-edit doctor`: what an edit would use (server/doctor.py), as text or JSON."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from complex_edit.server.cli.flags import add_setting_flags

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers


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
    from complex_edit.server.doctor import examine, probed, render

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
