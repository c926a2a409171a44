"""`complex-edit`'s command line: one module per subcommand (see README.md)."""

from complex_edit.server.cli.entry import main

__all__ = ["main"]
