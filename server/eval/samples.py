"""The output samples of docs/eval.md, made by running what they show, never pasted: each
block under a `<!-- sample NAME: ARGS -->` line is the stdout of `complex-edit eval ARGS`,
run in a temporary folder (ARGS `{results}` is the results file of the samples run before).

    python -m complex_edit.server.eval.samples           # rewrite the samples in docs/eval.md

tests/e2e/test_eval_replay.py checks the summary sample's figures against its own replay.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
DOCUMENT = Path("docs/eval.md")
# <!-- sample NAME: ARGS -->, then a ```text block, indented like the marker.
SAMPLE = re.compile(
    r"^(?P<indent> *)<!-- sample (?P<name>\w+): (?P<args>[^\n]*?) -->\n"
    r"(?P=indent)```text\n.*?^(?P=indent)```\n",
    re.MULTILINE | re.DOTALL,
)
# The figures of a summary table that vary from run to run (the time taken, latency, the
# results file's timestamp, the tasks a busy machine cannot score): the rest is the same
# on every replay.
STEADY_LABELS = (
    "well-formed rate",
    "mean turns",
    "mean tool calls",
    "tokens in / out",
    "slips tolerated",
    "elisions expanded",
    "elisions refused",
    "syntax refusals",
    "turns saved",
)


def steady_lines(summary: str) -> list[str]:
    """The lines of a summary table that every replay of the same suite prints alike."""
    return [line.strip() for line in summary.splitlines() if line.strip().startswith(STEADY_LABELS)]


def samples(document: str) -> dict[str, str]:
    """The sample blocks of `document`, by name, without their indentation."""
    found = {}
    for match in SAMPLE.finditer(document):
        lines = match[0].splitlines()[2:-1]
        found[match["name"]] = "\n".join(line[len(match["indent"]) :] for line in lines) + "\n"
    return found


def _run(args: str, folder: Path) -> str:
    newest = sorted((folder / "eval-results").glob("*.jsonl"))
    results = newest[-1].relative_to(folder).as_posix() if newest else "{results}"
    words = [results if word == "{results}" else word for word in shlex.split(args)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPLEX_EDIT_", "GEMINI_"))}
    proc = subprocess.run(
        [sys.executable, "-m", "complex_edit", "eval", *words],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"complex-edit eval {args} failed: {proc.stderr[-2000:]}")
    return proc.stdout


def regenerate(document: str) -> str:
    """`document` with every sample block made anew."""
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)

        def block(match: re.Match[str]) -> str:
            output = _run(match["args"], folder)
            indent = match["indent"]
            body = "".join(f"{indent}{line}".rstrip() + "\n" for line in output.splitlines())
            marker = f"{indent}<!-- sample {match['name']}: {match['args']} -->\n"
            return f"{marker}{indent}```text\n{body}{indent}```\n"

        return SAMPLE.sub(block, document)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m complex_edit.server.eval.samples")
    parser.add_argument("--root", type=Path, default=REPOSITORY, help="the repository")
    args = parser.parse_args(argv)
    path = args.root / DOCUMENT
    path.write_text(regenerate(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"{DOCUMENT}: samples written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
