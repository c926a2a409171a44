"""Goal 3: computing the minimal edits for a large document with scattered changes.

``server.text.diff.compute_edits(old, new)`` on documents of 10 KB, 1 MB and 10 MB with 20 changes
spread evenly, of four kinds: characters changed inside a line, lines inserted, lines
deleted, and a mix (including a 3-line block rewritten as 5 lines). For each case:

* time: median wall time of several runs (and the fastest thread CPU time, which other load
  on the machine disturbs less); goal ≤ 50 ms at 10 MB;
* size: the edits' replaced text (sum of ``end - start``) and inserted text must not exceed
  the changed lines (old lines touched, new lines written): no whole-document or
  whole-region replacement for local changes;
* correctness: applying the edits to ``old`` gives ``new``.

``to_text_edits`` (with the store's line index) and ``unified_diff`` are timed alongside, for
information. Run: ``.venv/bin/python bench/bench_diff.py [--quick]``
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from _common import Table, make_document, run, size_label, verdict

from complex_edit.server.lsp.bridge import to_text_edits
from complex_edit.server.text.diff import apply_changes, compute_edits
from complex_edit.server.text.positions import LineIndex
from complex_edit.server.text.unified import unified_diff

GOAL_SECONDS = 0.050
CHANGES = 20
SIZES = (10_000, 1_000_000, 10_000_000)
KINDS = ("in-line", "insert lines", "delete lines", "mixed")


def changed(text: str, kind: str) -> tuple[str, int, int]:
    """``text`` with CHANGES scattered changes of ``kind``; also the size of the old lines
    touched and of the new lines written (the budget for the edits)."""
    lines = text.splitlines(keepends=True)
    step = len(lines) // (CHANGES + 1)
    targets = [step * (k + 1) for k in range(CHANGES)]
    old_budget = new_budget = 0
    out: list[str] = []
    previous = 0
    for number, index in enumerate(targets):
        out.extend(lines[previous:index])
        mode = kind if kind != "mixed" else KINDS[number % 3] if number % 4 else "block"
        line = lines[index]
        if mode == "in-line":
            new = line.replace("accumulate(", "accumulate_fast(", 1).replace("# step", "# pass")
            old_budget += len(line)
            new_budget += len(new)
            out.append(new)
            previous = index + 1
        elif mode == "insert lines":
            new = f"    inserted_{number} = check(values)\n"
            new_budget += len(new)
            out.extend((line, new))
            previous = index + 1
        elif mode == "delete lines":
            old_budget += len(line)
            previous = index + 1
        else:  # a 3-line block rewritten as 5 lines
            block = lines[index : index + 3]
            new_block = [b.replace("factor=", "scale=") for b in block] + [
                f"    extra_{number}_{i} = 0\n" for i in range(2)
            ]
            old_budget += sum(map(len, block))
            new_budget += sum(map(len, new_block))
            out.extend(new_block)
            previous = index + 3
    out.extend(lines[previous:])
    return "".join(out), old_budget, new_budget


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    """(median wall seconds, fastest thread CPU seconds, last result)."""
    walls: list[float] = []
    cpus: list[float] = []
    result: Any = None
    for _ in range(runs):
        cpu, started = time.thread_time(), time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - started)
        cpus.append(time.thread_time() - cpu)
    return statistics.median(walls), min(cpus), result


def main(quick: bool) -> None:
    runs = 3 if quick else 15
    table = Table(
        f"Goal 3 — compute_edits with {CHANGES} scattered changes (median of {runs} runs)",
        [
            "document",
            "changes",
            "edits",
            "compute_edits ms",
            "CPU ms (best)",
            "goal ms",
            "replaced / old lines (chars)",
            "inserted / new lines (chars)",
            "to_text_edits ms",
            "unified_diff ms",
            "verdict",
        ],
    )
    for size in SIZES:
        old = make_document(size)
        index = LineIndex(old)
        for kind in KINDS if size == SIZES[-1] or not quick else KINDS[:1]:
            new, old_budget, new_budget = changed(old, kind)
            wall, cpu, edits = timed(lambda old=old, new=new: compute_edits(old, new), runs)
            if apply_changes(old, edits) != new:
                raise RuntimeError(f"compute_edits is wrong for {kind} at {size}")
            replaced = sum(e.end - e.start for e in edits)
            inserted = sum(len(e.new_text) for e in edits)
            lsp_wall, _, _ = timed(
                lambda old=old, edits=edits, index=index: to_text_edits(
                    old, edits, "utf-16", line_index=index
                ),
                runs,
            )
            diff_wall, _, _ = timed(
                lambda old=old, new=new: unified_diff(old, new, "bench.py"), max(1, runs // 3)
            )
            small = replaced <= old_budget and inserted <= new_budget
            fast = wall <= GOAL_SECONDS or size < SIZES[-1]
            table.add(
                size_label(size),
                kind,
                len(edits),
                f"{wall * 1000:.1f}",
                f"{cpu * 1000:.1f}",
                "≤ 50" if size == SIZES[-1] else "—",
                f"{replaced:,} / {old_budget:,}",
                f"{inserted:,} / {new_budget:,}",
                f"{lsp_wall * 1000:.2f}",
                f"{diff_wall * 1000:.1f}",
                verdict(small and fast),
            )
    table.print()


if __name__ == "__main__":
    run(main)
