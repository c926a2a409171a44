"""`complex-edit edit PATH --prompt TEXT`: its arguments; the run is `server/cli_edit.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from complex_edit.server.cli.flags import add_setting_flags

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers


def add(commands: Subparsers) -> argparse.ArgumentParser:
    edit = commands.add_parser(
        "edit",
        help="run the sub-agent on a file on disk",
        description="Run one editing instruction on a file and write the result atomically. "
        "Exit status: 0 success, 1 the task failed, 2 usage or configuration error; the file "
        "is untouched unless the status is 0.",
    )
    edit.add_argument("path", metavar="PATH", help="the file to edit (UTF-8 text)")
    edit.add_argument(
        "--prompt", required=True, metavar="TEXT", help="the editing instruction ('-': stdin)"
    )
    shows = edit.add_mutually_exclusive_group()
    shows.add_argument(
        "--dry-run", action="store_true", help="print a unified diff and write nothing"
    )
    shows.add_argument(
        "--review",
        action="store_const",
        const=True,
        help="on a terminal, ask about each change (y/n/a/d/q) and write only the kept ones "
        "(setting review)",
    )
    edit.add_argument(
        "--json", action="store_true", help="print the result object as JSON on stdout"
    )
    edit.add_argument(
        "--range",
        metavar="START:END",
        help="1-based inclusive lines the instruction is about (context, not a fence)",
    )
    edit.add_argument(
        "--quiet", "-q", action="store_true", help="no progress on stderr (errors still are)"
    )
    edit.add_argument(
        "--other-files",
        choices=["off", "read", "edit"],
        metavar="off|read|edit",
        help="whether the sub-agent may read and search the other files under --root (read), "
        "change them too, every file written or none (edit), or neither (off) (setting "
        "otherFiles, default read)",
    )
    edit.add_argument(
        "--root",
        metavar="DIR",
        help="the workspace the sub-agent may read (and with --other-files edit, change); it "
        "must hold PATH and is never the home directory or / (default: PATH's git top "
        "level; outside any repository, PATH alone)",
    )
    add_setting_flags(edit)
    return edit


def load(args: argparse.Namespace) -> Callable[[], int]:
    from complex_edit.server.cli.flags import setting_overrides
    from complex_edit.server.cli.logs import configure_logging
    from complex_edit.server.cli_edit import run_edit

    def run() -> int:
        configure_logging("WARNING", lines=True)
        return run_edit(args, setting_overrides(args))

    return run
