"""`complex-edit lsp`: the language server on stdio or TCP. The session process is launched
before the server is imported, so that both import side by side (on two cores)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from complex_edit.server.cli.subcommand import Subparsers
    from complex_edit.server.lsp.server import ComplexEditServer

LSP_ON_A_TERMINAL = (
    "complex-edit lsp: this is a language server; it waits for an editor to talk to it over "
    "stdin/stdout (see the README to set up VS Code, Neovim or Emacs). Press Ctrl-C or Ctrl-D to "
    "stop."
)


def add(commands: Subparsers) -> argparse.ArgumentParser:
    lsp = commands.add_parser("lsp", help="run the language server (stdio by default)")
    lsp.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    lsp.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="level of the server's own log on stderr (default INFO)",
    )
    return lsp


def load(args: argparse.Namespace) -> Callable[[], int]:
    import os

    from complex_edit.server.cli.logs import configure_logging
    from complex_edit.server.session.process import SessionProcess

    # First, so that its imports run beside the server's own (on another core).
    sessions = SessionProcess.launch(os.environ)
    from complex_edit.server.lsp.handlers import build_server
    from complex_edit.server.lsp.log import attach_client_log

    def serve() -> int:
        configure_logging(args.log_level)
        server = build_server(sessions=sessions)
        attach_client_log(server)
        try:
            return _listen(server, args.tcp)
        finally:
            sessions.stop_now()

    return serve


def _listen(server: ComplexEditServer, tcp: str | None) -> int:
    if tcp:
        host, _, port = str(tcp).rpartition(":")
        if not host or not port.isdigit():
            print("complex-edit lsp: --tcp expects HOST:PORT", file=sys.stderr)
            return 2
        server.start_tcp(host, int(port))
    else:
        if sys.stdin.isatty():
            print(LSP_ON_A_TERMINAL, file=sys.stderr, flush=True)
        server.start_io()
    return 0
