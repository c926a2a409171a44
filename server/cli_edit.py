"""`complex-edit edit PATH --prompt TEXT`: one file, one instruction, an exit status.

stdout carries only the result (the summary, the diff with `--dry-run`, or the JSON object with
`--json`); progress and errors go to stderr. Exit status: 0 success, 1 the task failed,
2 usage or configuration error, 130/143 interrupted (SIGINT/SIGTERM); the file is written only on 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, TextIO

from complex_edit.server.check.pool import CheckerPool
from complex_edit.server.check.run import answer_lines
from complex_edit.server.cli_review import Terminal, choose, terminal_problem
from complex_edit.server.edit.apply import FlowEvent
from complex_edit.server.edit.disk import edit_file, from_root
from complex_edit.server.edit.review import Proposals, land_review
from complex_edit.server.edit.roots import NO_PROJECT, PathRefused, file_path, workspace_root
from complex_edit.server.outcome import EditRefused, EditResult, Reason, scrub
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import SessionEvent, SessionFinished, describe
from complex_edit.server.session.request import LineRange
from complex_edit.server.session.result import InProcess
from complex_edit.server.settings import Settings, SettingsError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # SIGINT
EXIT_TERMINATED = 143  # SIGTERM
# Failures that no retry fixes: the invocation or the environment must change.
USAGE_REASONS: frozenset[Reason] = frozenset({"config", "auth"})


def run_edit(args: argparse.Namespace, overrides: Mapping[str, Any]) -> int:
    env = os.environ
    printer = _Printer(env, as_json=args.json, quiet=args.quiet, dry_run=args.dry_run)
    try:
        settings = Settings.from_layers(env, overrides)
        selection = parse_range(args.range) if args.range else None
        prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
        path = Path(os.path.realpath(args.path))
        root = _root(path, args.root, settings.other_files, args.quiet)
        proposals = _review_here(settings, args)
    except SettingsError as exc:
        return printer.finish(EditResult.failure("config", str(exc)), EXIT_USAGE)
    except EditRefused as exc:
        return printer.finish(exc.result(), EXIT_USAGE)

    checks = CheckerPool()  # this run's checkers, stopped when it ends
    try:
        result = _execute(
            _stopping(
                checks,
                edit_file(
                    path,
                    prompt,
                    settings,
                    InProcess(ProviderHub(env), checks),
                    printer.progress,
                    dry_run=args.dry_run,
                    selection=selection,
                    label=args.path,
                    proposals=proposals,
                    other_files=settings.other_files,
                    root=root,
                ),
            )
        )
        if proposals is not None and result.proposal_id is not None:
            kept = choose(result.hunks or [], Terminal.of(sys.stdin, sys.stderr, env))
            keep = [number for number, kept_it in enumerate(kept) if kept_it]
            landing = land_review(
                proposals, result.proposal_id, keep, _ignore, unchanged="the file was not changed"
            )
            result = from_root(_execute(landing), root)
    except EditRefused as exc:
        return printer.finish(exc.result(), EXIT_USAGE)
    except KeyboardInterrupt:
        return printer.finish(_interrupted(), EXIT_INTERRUPTED)
    except asyncio.CancelledError:
        return printer.finish(_interrupted(), EXIT_TERMINATED)
    # The result stands: a Ctrl-C from here on must not report "not changed" after a write.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return printer.finish(result, exit_status(result))


def _execute(run: Coroutine[Any, Any, EditResult]) -> EditResult:
    """Run `run` to its result; SIGTERM cancels it like Ctrl-C (raised as CancelledError and
    KeyboardInterrupt)."""
    main = _stop_on_sigterm(run)
    try:
        return asyncio.run(main)
    except KeyboardInterrupt:
        main.close()  # Ctrl-C before the loop started them: no "never awaited" warnings
        run.close()
        raise


async def _stopping(checks: CheckerPool, run: Coroutine[Any, Any, EditResult]) -> EditResult:
    """`run`, then its checkers stopped."""
    try:
        return await run
    finally:
        await checks.close()


def _ignore(_: FlowEvent) -> None:
    return None


def _root(path: Path, given: str | None, other_files: str, quiet: bool) -> Path | None:
    """The workspace (`--root`, else the file's git top level; None: the document alone, said
    once on stderr unless --quiet); raises EditRefused."""
    try:
        root = workspace_root(path, given)
    except PathRefused as exc:
        raise EditRefused("invalid_request", str(exc)) from None
    if root is None and other_files != "off" and not quiet:
        print(f"complex-edit: {NO_PROJECT}", file=sys.stderr)
    return root


def _review_here(settings: Settings, args: argparse.Namespace) -> Proposals | None:
    """Where the proposal waits while review asks on this terminal (None without review, or
    with --dry-run: it wins over the setting). Raises EditRefused before any model call when
    there is no terminal to ask on."""
    if not settings.review or args.dry_run:
        return None
    origin = "--review" if args.review else Settings.env_name("review")
    problem = terminal_problem(sys.stdin, sys.stderr, origin)
    if problem is not None:
        raise EditRefused("invalid_request", problem)
    return Proposals()


def exit_status(result: EditResult) -> int:
    if result.success:
        return EXIT_OK
    return EXIT_USAGE if result.reason in USAGE_REASONS else EXIT_FAILED


def parse_range(text: str) -> LineRange:
    """`START:END` or `LINE` (1-based, inclusive) → LineRange; raises EditRefused."""
    start_text, _, end_text = text.partition(":")
    try:
        start = int(start_text)
        end = int(end_text) if end_text else start
    except ValueError:
        raise EditRefused(
            "invalid_request", f"--range expects START:END (1-based line numbers), not {text!r}."
        ) from None
    if start < 1 or end < start:
        raise EditRefused(
            "invalid_request",
            f"--range {text}: lines start at 1 and END must not be before START.",
        )
    return LineRange(start_line=start, end_line=end)


class _Printer:
    def __init__(
        self, env: Mapping[str, str], *, as_json: bool, quiet: bool, dry_run: bool
    ) -> None:
        self._out: TextIO = sys.stdout
        self._err: TextIO = sys.stderr
        self._env = env
        self._json = as_json
        self._quiet = quiet
        self._dry_run = dry_run

    def progress(self, event: SessionEvent) -> None:
        if not self._quiet and not isinstance(event, SessionFinished):
            self._note(describe(event))

    def finish(self, result: EditResult, status: int) -> int:
        wire = result.with_validation().scrubbed_wire(self._env)
        if result.error:
            self._err.write(f"complex-edit: {wire['error']} [{result.reason}]\n")
        message = result.message or "Edit complete."
        if self._json:
            self._out.write(json.dumps(wire, ensure_ascii=False, indent=2) + "\n")
        elif result.success and self._dry_run:
            self._out.write(result.diff)
            if not self._quiet:
                self._note(message)
        elif result.success:
            self._out.write(scrub(message, self._env) + "\n")
            if result.documents:
                self._out.write("".join(f"  {_shown(d.uri)}\n" for d in result.documents))
        if result.diagnostics is not None and not self._json:
            for line in answer_lines(result.diagnostics, _shown):
                self._note(line)
        self._out.flush()
        self._err.flush()
        return status

    def _note(self, text: str) -> None:
        self._err.write(f"complex-edit: {scrub(text, self._env)}\n")
        self._err.flush()


async def _stop_on_sigterm(run: Coroutine[Any, Any, EditResult]) -> EditResult:
    """SIGTERM cancels the run like Ctrl-C does: the model call stops and nothing is written
    afterwards (a write already under way has no await in it and completes)."""
    task = asyncio.current_task()
    if task is not None:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    return await run


def _shown(uri: str) -> str:
    """A changed file's path: from the working directory when it is below it."""
    path = Path(file_path(uri))
    return os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path)


def _interrupted() -> EditResult:
    return EditResult.failure("cancelled", "Interrupted; the file was not changed.")
