"""`complex-edit eval`: run a suite of instructed edits through the session, test each result,
print the summary table, and write one JSONL record per task.

Exit status: 0 the run completed (with `--replay` or `--fail-under`: and scored high enough),
1 the score was too low, 2 usage or configuration error, 130/143 interrupted (SIGINT/SIGTERM).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import sys
import time
from collections.abc import Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from complex_edit.server.eval.arguments import (
    DEFAULT_CONCURRENCY,
    DEFAULT_REPLAY_CONCURRENCY,
    RESULTS_DIR,
    SETTING_FLAGS,
    build_parser,
)

if TYPE_CHECKING:
    from complex_edit.server.eval.compare import Price
    from complex_edit.server.eval.record import TaskRecord
    from complex_edit.server.eval.report import Summary
    from complex_edit.server.eval.runner import EvalOptions
    from complex_edit.server.eval.suite import Task
    from complex_edit.server.settings import Settings

T = TypeVar("T")

EXIT_OK = 0
EXIT_LOW_SCORE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # SIGINT
EXIT_TERMINATED = 143  # SIGTERM
REPLAY_MODEL = "replay"
REPLAY_KEY = "replay-needs-no-key"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Run `complex-edit eval` with parsed arguments."""
    from complex_edit.server.eval import report
    from complex_edit.server.eval.compare import PriceError, parse_prices

    try:
        prices = parse_prices(args.price)
    except PriceError as exc:
        return _usage(str(exc))
    if args.compare:
        return _compare(args.compare, prices)
    if args.report:
        records = _records(args.report)
        if isinstance(records, str):
            return _usage(records)
        first = records[0]
        summary = report.summarize(records)
        sys.stdout.write(
            report.render(
                summary,
                suite=first.suite,
                provider=first.provider,
                model=first.model,
                thinking=first.thinking_level or "default",
                cost=_cost(summary, prices, first.model),
            )
        )
        return EXIT_OK
    problem = _check_numbers(args)
    if problem:
        return _usage(problem)
    return _run_suite(args)


def _records(path: str) -> list[TaskRecord] | str:
    """The records of a results file, or what is wrong with it."""
    from complex_edit.server.eval.record import read_records

    try:
        records = list(read_records(Path(path)))
    except (OSError, ValueError) as exc:
        return f"{path}: cannot be read as eval results ({exc})."
    return records or f"{path}: no records."


def _compare(paths: Sequence[str], prices: Mapping[str | None, Price]) -> int:
    from complex_edit.server.eval.compare import Run, render_comparison

    runs = []
    for path in paths:
        records = _records(path)
        if isinstance(records, str):
            return _usage(records)
        runs.append(Run.of(path, records))
    sys.stdout.write(render_comparison(runs, prices))
    return EXIT_OK


def _cost(
    summary: Summary, prices: Mapping[str | None, Price], model: str
) -> tuple[float, str] | None:
    from complex_edit.server.eval.compare import cost_per_task, price_for

    price = price_for(prices, model)
    cost = cost_per_task(summary, price)
    if price is None or cost is None:
        return None
    return cost, f"at ${price.input:g} / ${price.output:g} per 1M tokens in / out (--price)"


def _check_numbers(args: argparse.Namespace) -> str | None:
    if args.limit is not None and args.limit < 1:
        return "--limit must be 1 or more."
    if args.concurrency is not None and args.concurrency < 1:
        return "--concurrency must be 1 or more."
    if args.check_timeout <= 0 or args.check_memory_mb < 64:
        return "--check-timeout must be positive and --check-memory-mb at least 64."
    return None


def _run_suite(args: argparse.Namespace) -> int:
    from complex_edit.server.eval.replay import replay_model
    from complex_edit.server.eval.replay_server import ReplayServer
    from complex_edit.server.eval.runner import EvalOptions
    from complex_edit.server.eval.sandbox import Limits
    from complex_edit.server.eval.suite import SuiteError, load_suite
    from complex_edit.server.settings import Settings, SettingsError, SettingsLayer

    env = os.environ
    try:
        suite = load_suite(args.suite)
    except SuiteError as exc:
        return _usage(str(exc))
    tasks = list(suite.tasks)
    if args.task:
        known = {task.task_id for task in tasks}
        unknown = [task_id for task_id in args.task if task_id not in known]
        if unknown:
            return _usage(f"No task {', '.join(map(repr, unknown))} in {suite.source}.")
        tasks = [task for task in tasks if task.task_id in set(args.task)]
    tasks = tasks[: args.limit] if args.limit else tasks
    options = EvalOptions(
        concurrency=args.concurrency
        or (DEFAULT_REPLAY_CONCURRENCY if args.replay else DEFAULT_CONCURRENCY),
        limits=Limits(
            time_seconds=args.check_timeout, memory_bytes=args.check_memory_mb * 1024 * 1024
        ),
        python=args.check_python,
    )
    overrides = SettingsLayer.flags(
        {setting: getattr(args, f"setting_{setting}") for _, setting, *_ in SETTING_FLAGS},
        {setting: flag for flag, setting, *_ in SETTING_FLAGS},
    )
    if args.replay:
        given = [flag for flag, setting, _, _ in SETTING_FLAGS if overrides[setting] is not None]
        if given:
            return _usage(f"--replay plays the references itself; drop {', '.join(given)}.")
        with ReplayServer(replay_model(tasks).reply) as server:
            settings = Settings(model=REPLAY_MODEL, base_url=server.base_url, max_retries=0)
            fail_under = 100.0 if args.fail_under is None else args.fail_under
            replay_env = {"GEMINI_API_KEY": REPLAY_KEY}
            return _execute(args, suite.name, tasks, settings, replay_env, options, fail_under)
    try:
        settings = Settings.from_layers(env, overrides)
    except SettingsError as exc:
        return _usage(str(exc))
    return _execute(args, suite.name, tasks, settings, env, options, args.fail_under)


def _execute(
    args: argparse.Namespace,
    suite_name: str,
    tasks: Sequence[Task],
    settings: Settings,
    provider_env: Mapping[str, str],
    options: EvalOptions,
    fail_under: float | None,
) -> int:
    from complex_edit.server.eval import report
    from complex_edit.server.eval.compare import parse_prices
    from complex_edit.server.eval.progress import Progress
    from complex_edit.server.eval.record import RecordWriter
    from complex_edit.server.eval.runner import EvalAborted, run_eval
    from complex_edit.server.outcome import scrub
    from complex_edit.server.providers.select import ProviderHub

    prices = parse_prices(args.price)  # checked by `run`
    provider = ProviderHub(provider_env)
    out = Path(args.out) if args.out else _default_out(suite_name, settings.model)
    progress = Progress(len(tasks), sys.stderr, quiet=args.quiet)
    records: list[TaskRecord] = []
    started = time.monotonic()
    status = EXIT_OK
    try:
        with RecordWriter(out, os.environ) as writer:

            def keep(record: TaskRecord) -> None:
                records.append(record)
                writer.write(record)

            run = run_eval(suite_name, tasks, settings, provider, options, keep, progress)
            asyncio.run(_stop_on_sigterm(run))
    except EvalAborted as exc:
        progress.close()
        if not records:
            out.unlink(missing_ok=True)
        message = scrub(exc.message, os.environ)
        sys.stderr.write(f"complex-edit eval: {message} [{exc.reason}]\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    except asyncio.CancelledError:
        status = EXIT_TERMINATED
    except OSError as exc:
        progress.close()
        return _usage(f"{out}: cannot write the results ({exc.strerror or exc}).")
    progress.close()
    summary = report.summarize(records)
    sys.stdout.write(
        report.render(
            summary,
            suite=suite_name,
            provider=settings.provider,
            model=settings.model,
            seconds=time.monotonic() - started,
            results=str(out),
            thinking=None if args.replay else settings.thinking_level or "default",
            cost=_cost(summary, prices, settings.model),
        )
    )
    if status in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        sys.stderr.write(f"complex-edit eval: interrupted after {len(records)} tasks.\n")
        return status
    rate = summary.pass_rate
    if fail_under is not None and (rate is None or rate * 100 < fail_under):
        shown = "n/a" if rate is None else f"{rate * 100:.1f}%"
        sys.stderr.write(f"complex-edit eval: pass rate {shown} is below {fail_under:g}%.\n")
        return EXIT_LOW_SCORE
    return EXIT_OK


async def _stop_on_sigterm(run: Coroutine[Any, Any, T]) -> T:
    """SIGTERM cancels the run like Ctrl-C does: running tests are killed, records kept."""
    task = asyncio.current_task()
    if task is not None:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    return await run


def _default_out(suite: str, model: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{suite}-{model}-{stamp}")
    return Path(RESULTS_DIR) / f"{name}.jsonl"


def _usage(message: str) -> int:
    sys.stderr.write(f"complex-edit eval: {message}\n")
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
