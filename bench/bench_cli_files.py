"""The server's added cost of a 3-file edit against a 1-file edit through the CLI's path
(issue 28 item 6): `server/edit/disk.py` `edit_file`, in-process, with a scripted model (no
HTTP, no model time), so what is timed is ours: reading the file, the flow and the session
(the other files read from disk, changed, searched), the diffs, and the write (one file
atomically; three files every one or none: `files.write_all`).

Each run starts from the same files (2,000 lines each, in a fresh folder): 1 file: the model
sets the file whole; 3 files: the same, and it also reads two other files of the root,
changes each with replace_text and searches them with find_in_files. The process start-up of
`complex-edit edit` (the same for both) is left out. Times are wall and this process's CPU
(user + system), medians of `--runs` alternating runs.

    .venv/bin/python bench/bench_cli_files.py [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._common import machine_summary  # noqa: E402
from complex_edit.server.edit.disk import edit_file  # noqa: E402
from complex_edit.server.session.result import InProcess  # noqa: E402
from complex_edit.server.settings import Settings  # noqa: E402
from tests.fakes.scripted import ScriptedProvider, call, done  # noqa: E402

LINES = 2000
OLD, NEW = "value = 1\n" * LINES, "value = 2\n" * LINES
HEAD = "first = 'line'\n"  # the other files' first line, which each change replaces
Timing = tuple[float, float]


def script(others: list[str]) -> list[list[object]]:
    turns: list[list[object]] = []
    if others:
        turns.append([call("get_document", path=name) for name in others])
        turns.append(
            [
                call("replace_text", old_text=HEAD, new_text=HEAD.upper(), path=name)
                for name in others
            ]
            + [call("find_in_files", pattern="FIRST", glob="other_*.py")]
        )
    turns.append([call("set_document", content=NEW), done()])
    return turns


async def one_run(folder: Path, others: int) -> Timing:
    own = folder / "own.py"
    own.write_text(OLD)
    names = [f"other_{n}.py" for n in range(others)]
    for name in names:
        (folder / name).write_text(HEAD + OLD)
    runner = InProcess(ScriptedProvider(script(names)))  # type: ignore[arg-type]
    wall, cpu = time.perf_counter(), time.process_time()
    result = await edit_file(
        own,
        "bump",
        Settings(),
        runner,
        label="own.py",
        other_files="edit",
        root=folder,
    )
    timing = (time.perf_counter() - wall, time.process_time() - cpu)
    assert result.success, result
    assert result.applied, result
    assert len(result.documents or [own]) == others + 1
    assert own.read_text() == NEW
    assert all((folder / name).read_text() == HEAD.upper() + OLD for name in names)
    return timing


def median(timings: list[Timing]) -> Timing:
    return (
        statistics.median(t[0] for t in timings),
        statistics.median(t[1] for t in timings),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    options = parser.parse_args()
    print(machine_summary())
    one: list[Timing] = []
    three: list[Timing] = []
    with tempfile.TemporaryDirectory(prefix="ce-bench-cli-files-") as temp:
        for run in range(options.runs + 2):
            for others, timings in ((0, one), (2, three)):
                folder = Path(temp) / f"{others}-{run}"
                folder.mkdir()
                timing = asyncio.run(one_run(folder, others))
                if run >= 2:  # the first runs warm the imports and tree-sitter up
                    timings.append(timing)
    a, b = median(one), median(three)
    print()
    print("| edit_file, scripted model | median wall (CPU) ms |")
    print("|---|---|")
    print(f"| 1 file: set_document of a {LINES:,}-line file, written | {_ms(a)} |")
    three = f"3 files: + read, change, search 2 other {LINES:,}-line files, all written"
    print(f"| {three} | {_ms(b)} |")
    print(f"| added by the 2 other files | {_ms((b[0] - a[0], b[1] - a[1]))} |")


def _ms(timing: Timing) -> str:
    return f"{timing[0] * 1000:.1f} ({timing[1] * 1000:.1f})"


if __name__ == "__main__":
    main()
