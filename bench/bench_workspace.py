"""find_in_files over a workspace of ~10,000 files / ~100 MB, and the server's added cost of a
3-file edit against a 1-file edit (issue 28 item 6).

The workspace is built in a temporary folder from the files of an installed site-packages
(this checkout's `.venv`, else the running Python's): files in path order, each under 2 MB,
`__pycache__/` left out, until 10,000 files (~94 MB here), plus a `.git/` folder, a
`.gitignore` (`*.pyc`, `__pycache__/`, one ignored folder) and a `.env` planted with a
secret. Times are wall and this process's CPU (user + system): on a shared machine the wall
time is the CPU time stretched by the load.

- cold: the first find_in_files of a command (a new `Workspace`: nothing listed, nothing read
  yet; the operating system's page cache as the copy left it);
- warm: the next calls of the same command (listing and contents kept, each file's time and
  size checked);
- refused files opened: an audit hook records every file the searches open; none may be in
  `.git/`, ignored, or excluded.
- 3 files against 1: a scripted session (no model, no HTTP) that reads and changes two other
  files besides its own, against one that changes only its own; the difference is what the
  server adds for the other files (in a small workspace of its own, so that it is not the
  search's cost).

    .venv/bin/python bench/bench_workspace.py [--files 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import shutil
import site
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._common import machine_summary  # noqa: E402
from complex_edit.server.session.request import EditRequest, WorkspaceRoot  # noqa: E402
from complex_edit.server.session.result import run_and_diff  # noqa: E402
from complex_edit.server.settings import Settings  # noqa: E402
from complex_edit.server.workspace.workspace import Workspace  # noqa: E402
from tests.fakes.scripted import ScriptedProvider, call, done  # noqa: E402

EXCLUDE = Settings().read_exclude
MAX_FILE_BYTES = 2_000_000
SECRET = "bench-secret-never-read"
PATTERNS = ("def __init__", "import os", r"class \w+Error\(", "no-such-text-anywhere-123")
COLD_GOAL, WARM_GOAL = 1.0, 0.25


def site_packages() -> Path:
    venv = sorted((ROOT / ".venv" / "lib").glob("python3*/site-packages"))
    return venv[0] if venv else Path(site.getsitepackages()[0])


def build(target: Path, count: int) -> tuple[int, int]:
    """Copy `count` files of site-packages into `target`; (files, bytes) copied."""
    source = site_packages()
    files = total = 0
    for folder, dirs, names in os.walk(source):
        dirs[:] = sorted(name for name in dirs if name != "__pycache__")
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                continue
            copy = target / path.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
            files += 1
            total += size
            if files >= count:
                return files, total
    return files, total


def plant(target: Path) -> None:
    (target / ".git").mkdir()
    (target / ".git" / "config").write_text(f"[core] {SECRET} def __init__\n")
    (target / ".gitignore").write_text("*.pyc\n__pycache__/\nignored-folder/\n")
    (target / "ignored-folder").mkdir()
    (target / "ignored-folder" / "x.py").write_text(f"def __init__(self): '{SECRET}'\n")
    (target / ".env").write_text(f"TOKEN={SECRET}  # def __init__ import os\n")


def refused(path: str) -> bool:
    parts = Path(path).parts
    return (
        ".git" in parts
        or "ignored-folder" in parts
        or "__pycache__" in parts
        or path.endswith((".pyc", ".env"))
    )


Timing = tuple[float, float]  # wall seconds, this process's CPU seconds


def timed(work: Callable[[], object]) -> Timing:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def median(timings: list[Timing]) -> Timing:
    return statistics.median(t[0] for t in timings), statistics.median(t[1] for t in timings)


def time_find(target: Path, runs: int) -> list[tuple[str, Timing, Timing, int]]:
    """(pattern, cold, warm median, lines found) for each pattern."""
    rows = []
    for pattern in PATTERNS:
        regex = "\\" in pattern
        colds: list[Timing] = []
        warms: list[Timing] = []
        for _ in range(runs):
            workspace = Workspace([("bench", str(target))], {}, EXCLUDE, 10_000_000)
            search = functools.partial(workspace.find, pattern, regex=regex)
            colds.append(timed(search))
            warms += [timed(search) for _ in range(3)]
        first = search().partition("\n")[0]
        found = int(first.split()[0].replace(",", "")) if first[0].isdigit() else 0
        rows.append((pattern, median(colds), median(warms), found))
    return rows


def opened_while_searching(target: Path) -> tuple[int, list[str]]:
    seen: list[str] = []
    active = [True]

    def hook(event: str, args: tuple[object, ...]) -> None:
        if active[0] and event == "open" and isinstance(args[0], str):
            seen.append(args[0])

    sys.addaudithook(hook)
    workspace = Workspace([("bench", str(target))], {}, EXCLUDE, 10_000_000)
    workspace.find("def __init__")
    workspace.find(SECRET)
    active[0] = False
    return len(seen), [path for path in seen if refused(path)]


async def session_seconds(target: Path, others: int, runs: int) -> Timing:
    """Median in-process time of a scripted session changing its own file and `others`."""
    own = target / "own.py"
    own.write_text("value = 1\n" * 2000)
    names = [f"other_{n}.py" for n in range(others)]
    for name in names:
        (target / name).write_text("value = 1\n" * 2000)
    turns = [
        [call("get_document", path=name) for name in names],
        [
            call("replace_text", old_text="value = 1\n", new_text="value = 2\n", path=name)
            for name in names
        ]
        + [call("find_in_files", pattern="value = 2", glob="other_*.py")]
        if names
        else [],
        [call("set_document", content="value = 2\n" * 2000), done()],
    ]
    settings = Settings()
    times: list[Timing] = []
    for _ in range(runs):
        request = EditRequest(
            instruction="bump",
            text=own.read_text(),
            settings=settings,
            path_label="own.py",
            language="python",
            other_files="edit",
            roots=(WorkspaceRoot("bench", str(target)),),
            document_path=str(own),
        )
        script = [turn for turn in turns if turn]
        wall, cpu = time.perf_counter(), time.process_time()
        finished = await run_and_diff(request, ScriptedProvider(script), lambda _e: None)
        times.append((time.perf_counter() - wall, time.process_time() - cpu))
        assert finished.outcome.success, finished.outcome
    return median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    print(machine_summary())
    with tempfile.TemporaryDirectory(prefix="ce-bench-ws-") as temp:
        target = Path(temp) / "workspace"
        files, size = build(target, options.files)
        plant(target)
        time.sleep(2.1)  # past the racy window of the last folder written
        print(f"workspace: {files:,} files, {size / 1e6:.0f} MB copied from {site_packages()}")
        print()
        print(
            "| find_in_files pattern | lines | cold: wall (CPU) s | warm: wall (CPU) s | goal | "
            "verdict (wall) |"
        )
        print("|---|---|---|---|---|---|")
        for pattern, cold, warm, found in time_find(target, options.runs):
            verdict = "PASS" if cold[0] <= COLD_GOAL and warm[0] <= WARM_GOAL else "MISS"
            print(
                f"| `{pattern}` | {found:,} | {cold[0]:.3f} ({cold[1]:.3f}) | "
                f"{warm[0]:.3f} ({warm[1]:.3f}) | ≤ {COLD_GOAL:g} s / ≤ {WARM_GOAL:g} s | "
                f"{verdict} |"
            )
        opened, wrong = opened_while_searching(target)
        print()
        print(f"files opened by two searches: {opened:,}; of them refused ones: {len(wrong)}")
        for path in wrong[:5]:
            print(f"  refused but opened: {path}")
        small = Path(temp) / "small"
        small.mkdir()
        one = asyncio.run(session_seconds(small, 0, 4 * options.runs))
        three = asyncio.run(session_seconds(small, 2, 4 * options.runs))
        print()
        print("| scripted session (no model) | median wall (CPU) ms |")
        print("|---|---|")
        print(f"| 1 file: set_document of a 2,000-line file | {_ms(one)} |")
        print(f"| 3 files: + read, change and search 2 other 2,000-line files | {_ms(three)} |")
        added = (three[0] - one[0], three[1] - one[1])
        print(f"| added by the 2 other files | {_ms(added)} |")


def _ms(timing: Timing) -> str:
    return f"{timing[0] * 1000:.1f} ({timing[1] * 1000:.1f})"


if __name__ == "__main__":
    main()
