"""Console entry point: `complex-edit lsp|edit|mcp|eval|try`. Parses arguments and delegates.

Ctrl-C at any moment once `main` runs (imports, settings, the model call) ends the command
with status 130 and no traceback; for `edit` it prints the usual one-line result. Only what the
interpreter has mostly loaded already is imported at module level, so that `main` starts as
early as it can.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, NoReturn

from complex_edit.server import DEFAULT_MODEL, __version__

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator

    from complex_edit.server.session.process import SessionProcess
    from complex_edit.server.settings import SettingsLayer

EXIT_INTERRUPTED = 130
INTERRUPTED = "Interrupted; the file was not changed."
LSP_ON_A_TERMINAL = (
    "complex-edit lsp: this is a language server; it waits for an editor to talk to it over "
    "stdin/stdout (see the README to set up Neovim or VS Code). Press Ctrl-C or Ctrl-D to stop."
)


def _parser() -> argparse.ArgumentParser:
    import argparse

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
    _add_edit_parser(commands)
    _add_mcp_parser(commands)
    _add_eval_parser(commands)
    _add_try_parser(commands)
    _add_doctor_parser(commands)
    return parser


# Settings flags shared by `edit` and `mcp`: (flag, setting, type, metavar, help).
_SETTING_FLAGS: tuple[tuple[str, str, type, str, str], ...] = (
    ("--model", "model", str, "NAME", f"model name (setting model, default {DEFAULT_MODEL})"),
    (
        "--thinking-level",
        "thinkingLevel",
        str,
        "minimal|low|medium|high",
        "how much the model thinks (setting thinkingLevel; default: not sent, the model's own, "
        "medium on gemini-3.7/3.8-flash; they refuse minimal)",
    ),
    ("--max-turns", "maxTurns", int, "N", "model requests per edit (setting maxTurns, default 8)"),
    (
        "--temperature",
        "temperature",
        float,
        "T",
        "sampling temperature (setting temperature; not sent to Gemini 3.6+, where it is "
        "deprecated)",
    ),
    (
        "--request-timeout-seconds",
        "requestTimeoutSeconds",
        float,
        "SECONDS",
        "time a model request has to answer, default 60; each request also gets time to "
        "write an answer as long as the document (setting requestTimeoutSeconds)",
    ),
    (
        "--max-document-bytes",
        "maxDocumentBytes",
        int,
        "BYTES",
        "larger files are refused (setting maxDocumentBytes)",
    ),
    ("--base-url", "baseUrl", str, "URL", "model API base URL (setting baseUrl)"),
    ("--provider", "provider", str, "NAME", "model provider (setting provider, default gemini)"),
    ("--max-retries", "maxRetries", int, "N", "retries of transient faults (setting maxRetries)"),
    (
        "--wall-time-seconds",
        "wallTimeSeconds",
        float,
        "SECONDS",
        "budget for one edit, every turn and retry included, default 600 (setting wallTimeSeconds)",
    ),
    (
        "--thought-summaries",
        "thoughtSummaries",
        str,
        "true|false",
        "show a line of what the model is thinking about in the progress (setting "
        "thoughtSummaries, default true; models that can summarise their thoughts)",
    ),
    (
        "--validate",
        "validate",
        str,
        "syntax|off",
        "refuse a result with new syntax errors (setting validate, default syntax)",
    ),
    (
        "--checkers",
        "checkers",
        str,
        "off|auto|JSON",
        "language servers that check the edit before it lands (setting checkers, default "
        "auto; JSON: a list of {name, languages, command})",
    ),
)


def _add_setting_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "settings", "override the COMPLEX_EDIT_* environment variables of the same name"
    )
    for flag, setting, kind, metavar, text in _SETTING_FLAGS:
        group.add_argument(flag, dest=f"setting_{setting}", type=kind, metavar=metavar, help=text)


def setting_overrides(args: argparse.Namespace) -> SettingsLayer:
    """The settings layer given by the flags (camelCase keys; None = not given); a bad value
    is reported with the flag's name."""
    from complex_edit.server.settings import SettingsLayer

    values = {setting: getattr(args, f"setting_{setting}") for _, setting, *_ in _SETTING_FLAGS}
    flags = {setting: flag for flag, setting, *_ in _SETTING_FLAGS}
    if getattr(args, "review", None):
        values["review"], flags["review"] = True, "--review"
    if getattr(args, "other_files", None):
        values["otherFiles"], flags["otherFiles"] = args.other_files, "--other-files"
    return SettingsLayer.flags(values, flags)


def _add_edit_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        "must hold PATH (default: PATH's git top level, else its folder)",
    )
    _add_setting_flags(edit)


def _add_eval_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from complex_edit.server.eval.cli import DESCRIPTION, HELP, add_arguments

    add_arguments(commands.add_parser("eval", help=HELP, description=DESCRIPTION))


def _add_try_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tried = commands.add_parser(
        "try",
        help="see one edit land, with no key and no network (replayed model answers)",
        description="Copy a sample module into a new temporary folder and run one real edit "
        "on it: the real tools, checks, validation and write, against model answers replayed "
        "from a recording shipped with complex-edit (no key, no network). Exit status 0 when "
        "the edit landed.",
    )
    tried.add_argument(
        "--editor",
        choices=["nvim", "emacs", "code"],
        help="open the sample in this editor instead, its complex-edit client pointed at the "
        "replay (Neovim and Emacs: the clients of this checkout; VS Code: the extension)",
    )


def _add_mcp_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    _add_setting_flags(mcp)


def _add_doctor_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    doctor = commands.add_parser(
        "doctor",
        help="show what the server would use: provider, model, key, base URL, settings",
        description="What an edit would use: version, provider, the model and its rules, "
        "whether a key is present (never the key), the base URL, every setting with the layer "
        "it came from, the syntax languages. Exit status: 0 when no check is a problem, 1 when "
        "one is (WARN or ERROR: an ERROR makes every edit fail with reason config).",
    )
    doctor.add_argument("--json", action="store_true", help="print the report as JSON")
    _add_setting_flags(doctor)


def configure_logging(level: str, *, lines: bool = False) -> None:
    """The process's log on stderr: timestamped records for the servers, or with `lines`
    (`edit`) lines like the command's own ("complex-edit: ..."), the Python warnings an SDK
    raises included. The Gemini SDK's own records are left out below ERROR: its one warning
    (both key variables set) is told by the provider, naming the key in use."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    shape = (
        "complex-edit: %(message)s" if lines else "%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    handler.setFormatter(logging.Formatter(shape))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("complex_edit").setLevel(level)
    for noisy in ("pygls", "httpx", "httpcore", "google"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("google_genai").setLevel(logging.ERROR)
    if lines:
        logging.captureWarnings(True)


def _run_lsp(args: argparse.Namespace, sessions: SessionProcess) -> int:
    from complex_edit.server.lsp.handlers import build_server
    from complex_edit.server.lsp.log import attach_client_log

    configure_logging(args.log_level)
    server = build_server(sessions=sessions)
    attach_client_log(server)
    try:
        if args.tcp:
            host, _, port = str(args.tcp).rpartition(":")
            if not host or not port.isdigit():
                print("complex-edit lsp: --tcp expects HOST:PORT", file=sys.stderr)
                return 2
            server.start_tcp(host, int(port))
        else:
            if sys.stdin.isatty():
                print(LSP_ON_A_TERMINAL, file=sys.stderr, flush=True)
            server.start_io()
    finally:
        sessions.stop_now()
    return 0


def _run_edit(args: argparse.Namespace) -> int:
    from complex_edit.server.cli_edit import run_edit

    configure_logging("WARNING", lines=True)
    return run_edit(args, setting_overrides(args))


def _run_mcp(args: argparse.Namespace) -> int:
    from complex_edit.server.mcp.main import serve

    configure_logging(args.log_level)
    return serve(args.root, setting_overrides(args))


def _run_doctor(args: argparse.Namespace) -> int:
    import json
    import os

    from complex_edit.server.doctor import examine, render

    doctor = examine(os.environ, setting_overrides(args))
    if args.json:
        sys.stdout.write(json.dumps(doctor.to_wire(), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(render(doctor))
    return 0 if doctor.ok else 1


# The modules each command needs, loaded while Ctrl-C is deferred (`_ctrl_c_deferred`).
_COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "lsp": ("complex_edit.server.lsp.handlers", "complex_edit.server.lsp.log"),
    "edit": ("complex_edit.server.cli_edit",),
    "mcp": ("complex_edit.server.mcp.main",),
    "eval": ("complex_edit.server.eval.cli",),
    "try": ("complex_edit.server.demo.run",),
    "doctor": ("complex_edit.server.doctor",),
}


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(words)
    except KeyboardInterrupt:
        _interrupted(words)


def _dispatch(argv: list[str]) -> int:
    import importlib

    with _ctrl_c_deferred():
        parser = _parser()
        args = parser.parse_args(argv)
        if args.command == "lsp":
            # First, so that its imports run beside the server's own (on another core).
            sessions = _launch_session_process()
        for module in _COMMAND_MODULES.get(args.command, ()):
            importlib.import_module(module)
    if args.command == "lsp":
        return _run_lsp(args, sessions)
    if args.command == "edit":
        return _run_edit(args)
    if args.command == "mcp":
        return _run_mcp(args)
    if args.command == "doctor":
        return _run_doctor(args)
    if args.command == "eval":
        from complex_edit.server.eval.cli import run as run_eval

        return run_eval(args)
    if args.command == "try":
        from complex_edit.server.demo.run import run_try

        configure_logging("WARNING", lines=True)
        return run_try(args.editor)
    parser.print_help(sys.stderr)
    return 2


def _launch_session_process() -> SessionProcess:
    import os

    from complex_edit.server.session.process import SessionProcess

    return SessionProcess.launch(os.environ)


@contextlib.contextmanager
def _ctrl_c_deferred() -> Iterator[None]:
    """Ctrl-C is recorded while the body runs and raised as KeyboardInterrupt after it.

    For the loading of modules: raised inside an import, KeyboardInterrupt can leave a module
    half-initialized or come out as another error (pydantic turns it into a SchemaError).
    Loading takes a fraction of a second. Nothing changes when Ctrl-C is not Python's to
    handle (ignored by whoever started the process)."""
    import signal

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    received: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if received:
        raise KeyboardInterrupt


def _interrupted(argv: list[str]) -> NoReturn:
    """Ctrl-C that the command did not handle itself: exit 130 without a traceback. For `edit`
    this is before the model call (later ones it reports itself): print its usual result."""
    import os
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt this
    if next((word for word in argv if not word.startswith("-")), None) == "edit":
        if "--json" in argv:
            import json

            from complex_edit.server.outcome import EditResult

            wire = EditResult.failure("cancelled", INTERRUPTED).to_wire()
            sys.stdout.write(json.dumps(wire, ensure_ascii=False, indent=2) + "\n")
        sys.stderr.write(f"complex-edit: {INTERRUPTED} [cancelled]\n")
    sys.stdout.flush()
    sys.stderr.flush()
    # Leave at once: nothing is left to clean up, and CPython turns a KeyboardInterrupt raised
    # inside exec'd source (dataclasses, namedtuple) into death by SIGINT at a normal exit,
    # even when it was caught.
    os._exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    sys.exit(main())
