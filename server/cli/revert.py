"""`complex-edit revert [ID] [--dry-run] [--force] [--json] [--root DIR]`: its arguments; the
run is `server/cli_history.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from complex_edit.server.cli.log import ROOT_HELP

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers


def add(commands: Subparsers) -> argparse.ArgumentParser:
    revert = commands.add_parser(
        "revert",
        help="take back a landed edit (default: the latest), every file or none",
        description="Take back a landed edit: the inverse change of every file it changed, "
        "kept apart from what changed since. A file whose changed lines changed again is a "
        "conflict: nothing is written (exit 1) unless --force, which leaves those files alone.",
    )
    revert.add_argument("id", nargs="?", default=None, metavar="ID", help="the edit (`log`)")
    revert.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    revert.add_argument("--force", action="store_true", help="revert what does not conflict")
    revert.add_argument("--json", action="store_true", help="print the answer as JSON")
    revert.add_argument("--root", metavar="DIR", help=ROOT_HELP)
    return revert


def load(args: argparse.Namespace) -> Callable[[], int]:
    from complex_edit.server.cli_history import run

    return lambda: run(args)
