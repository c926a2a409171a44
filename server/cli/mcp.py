"""`complex-edit mcp`: the MCP server on stdio (server/mcp/)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from complex_edit.server.cli.flags import add_setting_flags

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers


def add(commands: Subparsers) -> argparse.ArgumentParser:
    mcp = commands.add_parser(
        "mcp",
        help="run the MCP server (stdio) with the perform_complex_edit tool",
        description="An MCP server over stdio. Its tool edits only files inside the --root "
        "directories (default: the working directory), after resolving symlinks.",
    )
    mcp.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory the tool may edit in (repeatable; default: the working directory); "
        "relative tool paths are taken from the first one",
    )
    mcp.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="level of the server's own log on stderr (default WARNING)",
    )
    add_setting_flags(mcp)
    return mcp


def load(args: argparse.Namespace) -> Callable[[], int]:
    from complex_edit.server.cli.flags import setting_overrides
    from complex_edit.server.cli.logs import configure_logging
    from complex_edit.server.mcp.main import serve

    def run() -> int:
        configure_logging(args.log_level)
        return serve(args.root, setting_overrides(args))

    return run
