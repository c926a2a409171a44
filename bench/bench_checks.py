"""What a check costs (issue 34 item 6): a 2-file Python edit checked by `ruff server` and by
basedpyright, cold (the checker started for the check) and warm (kept by the pool, as
`complex-edit lsp` and `mcp` keep it), and the cost with checkers "off" or none found.

The workspace: a package of 50 modules (`pkg/mod_N.py`, each calling the previous one). The
edit renames `f0` in `pkg/mod_0.py` and its use in `pkg/mod_1.py` (clean: nothing introduced).

- cold: a new pool; the session's warm-up (the checker's start, the command's document before
  the edit) and the check at complete_task, end to end;
- warm: the same pool, a new session each run: the warm-up done first (the command's document
  before the edit while the model works on its first turn, the other file's when it joins the
  edit), then the check at complete_task timed alone (both documents after) — what a check adds
  to the command;
- off / none found: `Checking` built and asked at complete_task with checkers "off", and with
  "auto" for a language no checker serves (the discovery's PATH look-ups included).

    .venv/bin/python bench/bench_checks.py [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from complex_edit.server.check.discovery import Checker  # noqa: E402
from complex_edit.server.check.pool import CheckerPool  # noqa: E402
from complex_edit.server.check.run import CheckedDocument, SessionCheck  # noqa: E402
from complex_edit.server.session.checking import Checking  # noqa: E402
from complex_edit.server.session.request import EditRequest, WorkspaceRoot  # noqa: E402
from complex_edit.server.settings import Settings  # noqa: E402

BIN = Path(sys.executable).parent
CHECKERS = {
    "ruff": ("ruff", "server"),
    "basedpyright": ("basedpyright-langserver", "--stdio"),
}


def package(root: Path, modules: int = 50) -> None:
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for n in range(modules):
        if n == 0:
            body = "def f0(x: int) -> int:\n    return x + 1\n"
        else:
            body = (
                f"from pkg.mod_{n - 1} import f{n - 1}\n\n\n"
                f"def f{n}(x: int) -> int:\n    return f{n - 1}(x) * 2\n"
            )
        (pkg / f"mod_{n}.py").write_text(body)


def documents(root: Path) -> list[CheckedDocument]:
    own, other = root / "pkg" / "mod_0.py", root / "pkg" / "mod_1.py"
    before_own, before_other = own.read_text(), other.read_text()
    return [
        CheckedDocument(
            str(own), "pkg/mod_0.py", "python", before_own, before_own.replace("f0", "g0")
        ),
        CheckedDocument(
            str(other), "pkg/mod_1.py", "python", before_other, before_other.replace("f0", "g0")
        ),
    ]


def checker(name: str) -> Checker | None:
    command, *rest = CHECKERS[name]
    path = shutil.which(command) or str(BIN / command)
    return Checker(name, ("python",), (path, *rest)) if Path(path).exists() else None


async def one_check(pool: CheckerPool, found: Checker, root: Path, warm_first: bool) -> float:
    docs = documents(root)
    check = SessionCheck(pool, [found], str(root), threshold=1, timeout=120)
    began = time.perf_counter()
    check.start(docs[0])
    check.start(docs[1])  # when it joined the edit
    if warm_first:
        await asyncio.gather(*check._warming)
        began = time.perf_counter()
    result = await check.check(docs)
    elapsed = time.perf_counter() - began
    check.close()
    assert result.checked, result.statuses
    assert not result.introduced, result.introduced
    return elapsed


async def bench_checker(name: str, root: Path, runs: int) -> None:
    found = checker(name)
    if found is None:
        print(f"{name:13s} not installed")
        return
    pool = CheckerPool()
    try:
        cold = await one_check(pool, found, root, warm_first=False)
        warm = sorted([await one_check(pool, found, root, warm_first=True) for _ in range(runs)])
    finally:
        await pool.close()
    p50 = statistics.median(warm) * 1000
    p90 = warm[int(len(warm) * 0.9) - 1] * 1000
    print(f"{name:13s} cold {cold * 1000:7.0f} ms   warm p50 {p50:6.0f} ms  p90 {p90:6.0f} ms")


async def bench_off(root: Path, runs: int) -> None:
    pool = CheckerPool()
    doc = root / "notes.txt"
    doc.write_text("hello\n")
    for label, value, path in (
        ("off", "off", root / "pkg" / "mod_0.py"),
        ("none found", "auto", doc),
    ):
        settings = Settings.from_layers({}, {"checkers": value})
        request = EditRequest(
            instruction="x",
            text=path.read_text(),
            settings=settings,
            path_label=path.name,
            roots=(WorkspaceRoot("w", str(root)),),
            document_path=str(path),
        )
        times = []
        for _ in range(runs):
            began = time.perf_counter()
            checking = Checking(request, pool)
            checking.start()
            await checking.judge(request.text + "# changed\n", ())
            checking.report()
            checking.close()
            times.append(time.perf_counter() - began)
        p50, worst = statistics.median(times) * 1000, max(times) * 1000
        print(f"{label:13s} p50 {p50:.3f} ms  max {worst:.3f} ms")
    await pool.close()


async def main(root: Path, runs: int) -> None:
    print(f"2-file edit in a 50-module package, {runs} warm runs; {sys.executable}")
    for name in CHECKERS:
        await bench_checker(name, root, runs)
    await bench_off(root, runs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder).resolve()
        package(workspace)
        asyncio.run(main(workspace, parser.parse_args().runs))
