"""`complex-edit try`: one replayed edit of the bundled sample (server/demo/). The module's
name ends with `_` because `try` is a Python keyword."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers


def add(commands: Subparsers) -> argparse.ArgumentParser:
    tried = commands.add_parser(
        "try",
        help="see one edit land, with no key and no network (replayed model answers)",
        description="Copy a sample module into a new temporary folder and run one real edit "
        "on it: the real tools, checks, validation and write, against model answers replayed "
        "from a recording shipped with complex-edit (no key, no network). Exit status 0 when "
        "the edit landed. The folder is removed on exit unless --keep.",
    )
    tried.add_argument(
        "--editor",
        choices=["nvim", "emacs", "code"],
        help="open the sample in this editor instead, its complex-edit client pointed at the "
        "replay (Neovim and Emacs: the clients of this checkout; VS Code: the extension)",
    )
    tried.add_argument(
        "--other-files",
        action="store_true",
        help="the second sample: one instruction that changes three files (combined diff)",
    )
    tried.add_argument(
        "--keep",
        action="store_true",
        help="keep the temporary folder with the edited sample (removed on exit otherwise)",
    )
    return tried


def load(args: argparse.Namespace) -> Callable[[], int]:
    from complex_edit.server.cli.logs import configure_logging
    from complex_edit.server.demo.run import run_try

    def run() -> int:
        configure_logging("WARNING", lines=True)
        return run_try(args.editor, other_files=args.other_files, keep=args.keep)

    return run
