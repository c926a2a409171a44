"""Console entry point: `complex-edit lsp|edit|mcp`. Parses arguments and delegates."""

from __future__ import annotations

import argparse
import logging
import sys

from server import __version__


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="complex-edit",
        description="An editing sub-agent: one instruction, one document, minimal edits.",
    )
    parser.add_argument("--version", action="version", version=f"complex-edit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    lsp = commands.add_parser("lsp", help="run the language server (stdio by default)")
    lsp.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    lsp.add_argument(
        "--log-level",
        default="INFO",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="level of the server's own log on stderr (default INFO)",
    )
    return parser


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("complex_edit").setLevel(level)
    for noisy in ("pygls", "httpx", "httpcore", "google_genai", "google"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _run_lsp(args: argparse.Namespace) -> int:
    from server.lsp import build_server
    from server.lsp_log import attach_client_log

    configure_logging(args.log_level)
    server = build_server()
    attach_client_log(server)
    if args.tcp:
        host, _, port = str(args.tcp).rpartition(":")
        if not host or not port.isdigit():
            print("complex-edit lsp: --tcp expects HOST:PORT", file=sys.stderr)
            return 2
        server.start_tcp(host, int(port))
    else:
        server.start_io()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "lsp":
        return _run_lsp(args)
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
