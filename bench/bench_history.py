"""The edit history's cost (issue 35 item 5), in-process, on a fresh state folder:

- record: one record of an edit of 3 files of 50 KB each (texts hashed and stored, lines ±
  from the changes the flow applied, the record written, pruning past 100) — goal ≤ 20 ms p95;
- history: listing a root's 100 records (what `complexEdit.history` and `log --json` answer)
  — goal ≤ 50 ms;
- revert planning: the record and its texts read back and the revert of a 3-file edit worked
  out over later changes to other lines (`plan_revert`) — goal ≤ 100 ms (the editor's apply
  comes on top).

    .venv/bin/python bench/bench_history.py [--runs 50]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._common import machine_summary  # noqa: E402
from complex_edit.server.history.plan import plan_revert  # noqa: E402
from complex_edit.server.history.record import Change  # noqa: E402
from complex_edit.server.history.store import HistoryStore  # noqa: E402
from complex_edit.server.text.diff import compute_edits  # noqa: E402

SIZE = 50_000


def _text(seed: int) -> str:
    lines, size = [], 0
    number = 0
    while size < SIZE:
        line = f"def function_{seed}_{number}(value):  return value * {number} + {seed}\n"
        lines.append(line)
        size += len(line)
        number += 1
    return "".join(lines)


def _edited(text: str, tag: str) -> str:
    lines = text.splitlines(keepends=True)
    for index in range(5, len(lines), 97):
        lines[index] = lines[index].replace("return", f"return {tag} and")
    return "".join(lines)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        (base / "work").mkdir()
        store = HistoryStore.for_root(base / "work", str(base / "state"), max_records=100)
        names = [f"file_{n}.py" for n in range(3)]
        befores = [_text(n) for n in range(3)]
        record_ms, ids = [], []
        for run in range(max(runs, 100)):
            changes = []
            for name, before in zip(names, befores, strict=True):
                after = _edited(before, f"r{run}")
                # (the flow hands the recorder the changes it applied)
                edits = compute_edits(before, after)
                changes.append(Change(str(base / "work" / name), name, name, before, after, edits))
            started = time.perf_counter()
            ids.append(store.record(f"edit {run}", changes).id)
            record_ms.append((time.perf_counter() - started) * 1000)
        history_ms = []
        for _ in range(runs):
            started = time.perf_counter()
            entries = [record.entry() for record in store.records(100)]
            history_ms.append((time.perf_counter() - started) * 1000)
        assert len(entries) == 100
        plan_ms = []
        for _ in range(runs):
            started = time.perf_counter()
            record = store.get(ids[-1])
            texts = {d.path: (store.text(d.before), store.text(d.after)) for d in record.documents}
            current = {
                path: "# typed at the top\n" + (after or "") for path, (_, after) in texts.items()
            }
            planned = plan_revert(record, texts, current)
            plan_ms.append((time.perf_counter() - started) * 1000)
        assert len(planned.documents) == 3
        assert not planned.conflicts
    print(machine_summary())
    print("| measure | goal | p50 | p95 | verdict |")
    print("|---|---|---|---|---|")
    for name, goal, values in (
        ("record an edit of 3 × 50 KB", 20.0, record_ms),
        ("history of 100 records", 50.0, history_ms),
        ("plan the revert of 3 × 50 KB", 100.0, plan_ms),
    ):
        verdict = "PASS" if p95(values) <= goal else "MISS"
        print(
            f"| {name} | ≤ {goal:g} ms p95 | {statistics.median(values):.1f} ms | "
            f"{p95(values):.1f} ms | {verdict} |"
        )


if __name__ == "__main__":
    main()
