"""`complex-edit eval`'s arguments: standard library only, so that `complex-edit`'s parser
(server/cli/) can list them without loading the run (`cli.py`: asyncio, the runner).
"""

from __future__ import annotations

import argparse

RESULTS_DIR = "eval-results"
DEFAULT_CONCURRENCY = 4
DEFAULT_REPLAY_CONCURRENCY = 8
HELP = "measure how well a model edits through the tools, on a task suite"
DESCRIPTION = (
    "Measure how well a model edits through the sub-agent's tools: run a suite of instructed "
    "edits through the same session code the server uses, test each result in a separate, "
    "limited Python process, print a summary table and write one JSONL record per task. "
    "Exit status: 0 done, 1 pass rate below --fail-under (--replay: below 100%), 2 usage or "
    "configuration error, 130/143 interrupted."
)

# Settings flags: (flag, setting, type, help).
SETTING_FLAGS: tuple[tuple[str, str, type, str], ...] = (
    ("--model", "model", str, "model name (setting model)"),
    (
        "--thinking-level",
        "thinkingLevel",
        str,
        "minimal|low|medium|high (setting thinkingLevel; default: the model's own)",
    ),
    ("--provider", "provider", str, "model provider (setting provider, default gemini)"),
    ("--max-turns", "maxTurns", int, "model requests per task (setting maxTurns, default 8)"),
    ("--temperature", "temperature", float, "sampling temperature (setting temperature)"),
    ("--base-url", "baseUrl", str, "model API base URL (setting baseUrl)"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--suite",
        default="editeval",
        metavar="NAME|PATH",
        help="a built-in suite (editeval) or a suite JSONL file (default editeval)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="run only the first N tasks")
    parser.add_argument(
        "--task", action="append", default=[], metavar="ID", help="run only this task (repeatable)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        metavar="K",
        help=f"sessions at once (default {DEFAULT_CONCURRENCY}, "
        f"{DEFAULT_REPLAY_CONCURRENCY} with --replay)",
    )
    parser.add_argument(
        "--out",
        metavar="PATH",
        help=f"results JSONL (default {RESULTS_DIR}/SUITE-MODEL-TIMESTAMP.jsonl)",
    )
    parser.add_argument(
        "--replay",
        action="store_true",
        help="no model and no key: a built-in emulator plays each reference solution through "
        "the tools (checks the harness; must score 100%%)",
    )
    parser.add_argument(
        "--report",
        metavar="PATH",
        help="print the summary table of an existing results JSONL and exit",
    )
    parser.add_argument(
        "--compare",
        nargs="+",
        metavar="PATH",
        help="print one comparison table of several results JSONL files (a model and thinking "
        "level each) and exit",
    )
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="[MODEL=]IN/OUT",
        help="US dollars per million input/output tokens, for the cost per task (repeatable; "
        "without MODEL= for every model)",
    )
    parser.add_argument(
        "--fail-under",
        type=float,
        metavar="PERCENT",
        help="exit 1 when the pass rate is below PERCENT (--replay: 100)",
    )
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="no progress on stderr (errors still are)"
    )
    checks = parser.add_argument_group("test runs", "limits of each test run (a separate Python)")
    checks.add_argument(
        "--check-timeout", type=float, default=20.0, metavar="SECONDS", help="default 20"
    )
    checks.add_argument(
        "--check-memory-mb",
        type=int,
        default=1024,
        metavar="MB",
        help="address space limit, default 1024",
    )
    checks.add_argument(
        "--check-python",
        metavar="PATH",
        help="the interpreter that runs the tests (default: this one); give one that has the "
        "modules the tasks import",
    )
    group = parser.add_argument_group(
        "settings", "override the COMPLEX_EDIT_* environment variables of the same name"
    )
    for flag, setting, kind, text in SETTING_FLAGS:
        group.add_argument(flag, dest=f"setting_{setting}", type=kind, metavar="VALUE", help=text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="complex-edit eval", description=DESCRIPTION)
    add_arguments(parser)
    return parser
