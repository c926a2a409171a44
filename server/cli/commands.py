"""The subcommands, in the order `complex-edit --help` lists them: adding one is a module of
this folder (see `subcommand.py`) and its name on the line below."""

from __future__ import annotations

from complex_edit.server.cli import doctor, edit, eval_, lsp, mcp, try_
from complex_edit.server.cli.subcommand import Subcommand

SUBCOMMANDS: tuple[Subcommand, ...] = (lsp, edit, mcp, eval_, try_, doctor)
