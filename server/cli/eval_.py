"""`complex-edit eval`: its arguments are `server/eval/arguments.py`, its run
`server/eval/cli.py` (loaded only when it runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers


def add(commands: Subparsers) -> argparse.ArgumentParser:
    from complex_edit.server.eval.arguments import DESCRIPTION, HELP, add_arguments

    evaluation = commands.add_parser("eval", help=HELP, description=DESCRIPTION)
    add_arguments(evaluation)
    return evaluation


def load(args: argparse.Namespace) -> Callable[[], int]:
    from complex_edit.server.eval.cli import run

    return lambda: run(args)
