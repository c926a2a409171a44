"""`complex-edit log [--json] [--limit N] [--root DIR]`: its arguments; the run is
`server/cli_history.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers

ROOT_HELP = "the workspace (default: the current folder's git top level, else the folder)"


def add(commands: Subparsers) -> argparse.ArgumentParser:
    log = commands.add_parser(
        "log",
        help="list the landed edits of this workspace, newest first",
        description="The history of landed edits under the workspace root, newest first: id, "
        "time, lines added and removed, files, instruction.",
    )
    log.add_argument("--json", action="store_true", help="print a JSON list")
    log.add_argument("--limit", type=int, default=None, metavar="N", help="at most N edits")
    log.add_argument("--root", metavar="DIR", help=ROOT_HELP)
    return log


def load(args: argparse.Namespace) -> Callable[[], int]:
    from complex_edit.server.cli_history import run

    return lambda: run(args)
