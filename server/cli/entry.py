"""Console entry point: `complex-edit COMMAND`. Builds the parser from the subcommands
(`commands.py`), loads the chosen one and runs it.

Ctrl-C at any moment once `main` runs (imports, settings, the model call) ends the command
with status 130 and no traceback; for `edit` it prints the usual one-line result. Only what the
interpreter has mostly loaded already is imported at module level, so that `main` starts as
early as it can.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, NoReturn

from complex_edit.server import __version__

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator

EXIT_INTERRUPTED = 130
INTERRUPTED = "Interrupted; the file was not changed."


def parser() -> argparse.ArgumentParser:
    """`complex-edit`'s parser, every subcommand's included; each sets `load` (its `load`)."""
    import argparse

    from complex_edit.server.cli.commands import SUBCOMMANDS

    whole = argparse.ArgumentParser(
        prog="complex-edit",
        description="An editing sub-agent: one instruction, one document (and the workspace's "
        "other files when asked), minimal edits.",
    )
    whole.add_argument("--version", action="version", version=f"complex-edit {__version__}")
    commands = whole.add_subparsers(dest="command", metavar="COMMAND")
    for subcommand in SUBCOMMANDS:
        subcommand.add(commands).set_defaults(load=subcommand.load)
    return whole


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(words)
    except KeyboardInterrupt:
        _interrupted(words)


def _dispatch(argv: list[str]) -> int:
    with _ctrl_c_deferred():
        whole = parser()
        args = whole.parse_args(argv)
        run = args.load(args) if args.command else None
    if run is None:
        whole.print_help(sys.stderr)
        return 2
    status: int = run()
    return status


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
