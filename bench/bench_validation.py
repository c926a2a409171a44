"""Issue 14, part 3: the cost of syntax validation (`edit_tools.syntax.SyntaxCheck`).

Documents of real code (Python standard-library modules, and JavaScript from npm when it is
on the machine, concatenated to 10 KB, 1 MB and 10 MB; each checked to parse without errors):

* critical path: `check()` after the model's last turn, the snapshot already parsed by
  `start()` while the model worked (the incremental parse from the edited snapshot tree,
  with the encoding of the text, the diff when no changes are given, and the verdict).
  Cases: one word renamed; a 20-line block rewritten; 20 one-line changes spread over the
  document; each with its changes given, and with `changes=None` (the changed span found by
  comparing bytes). Median of several runs; goal ≤ 20 ms per MB (10 KB: ≤ 20 ms per MB or
  1 ms, whichever is more: fixed costs dominate there);
* the refusal path: a change that adds an error (found incrementally, then confirmed by a
  full parse), and a snapshot with an error plus a one-word change elsewhere;
* full parse (`start()`; what the critical path would cost without the incremental parse),
  and `check(incremental=False)`;
* memory: bytes held by a started check (tracemalloc: tree-sitter allocates through
  PyMem, so its trees are counted) and the peak of `start()`; the peak of a check above
  what was held before it (the new text being the caller's), as multiples of the document;
  the text copies held (one: its UTF-8 bytes);
* the GIL: the longest pause of a thread ticking every 1 ms while another thread parses
  10 MB, through `Feeder` (16 KB blocks via a read callback, what the checker does) and
  through one `Parser.parse(bytes)`.

    .venv/bin/python bench/bench_validation.py [--quick]
"""

from __future__ import annotations

import gc
import re
import statistics
import sys
import sysconfig
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _common import Table, run, size_label, verdict  # noqa: E402

from complex_edit.edit_tools.syntax import SyntaxCheck  # noqa: E402
from complex_edit.edit_tools.syntax.checker import Feeder, parse  # noqa: E402
from complex_edit.edit_tools.syntax.offsets import TextChange, encode  # noqa: E402

GOAL_MS_PER_MB = 20.0
FLOOR_MS = 1.0
SIZES = (10_000, 1_000_000, 10_000_000)
WORD = re.compile(r"\b[a-z_][a-z0-9_]{3,}\b")
TOP_LEVEL = re.compile(r"^(?:def|class|function|const|let|var) ", re.MULTILINE)

Case = tuple[str, list[TextChange]]


def sources(language: str) -> list[Path]:
    if language == "python":
        return sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    roots = [ROOT / "vscode-client" / "node_modules", Path("/usr/lib/node_modules")]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*.js"))[:4000]


def valid_files(language: str) -> list[str]:
    """Files of `language` on this machine that parse without errors (no CR)."""
    texts: list[str] = []
    for path in sources(language):
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if text.startswith("#!"):  # a shebang is only valid on a file's first line
            text = text[text.find("\n") + 1 :]
        if text and "\r" not in text and not SyntaxCheck.start(text, language).original_errors:
            # `;` ends a JavaScript file's last statement before the next file's first one.
            end = "\n" if language == "python" else "\n;\n"
            texts.append(text.rstrip("\n") + end)
    return texts


def build_document(files: list[str], size: int) -> str | None:
    """Whole valid files concatenated (repeated when needed) to 95–100% of `size`."""
    parts: list[str] = []
    total = 0
    while files and total < 0.95 * size:
        added = False
        for text in files:
            if total + len(text) <= size:
                parts.append(text)
                total += len(text)
                added = True
            if total >= 0.95 * size:
                break
        if not added:
            return None
    return "".join(parts) or None


def line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer("\n", text))]


def one_word(text: str) -> Case:
    middle = len(text) // 2
    match = WORD.search(text, middle)
    assert match is not None
    return "one word", [(match.end(), match.end(), "_x")]


def block_of_lines(text: str, language: str, count: int = 20) -> Case:
    """`count` lines in the middle each ending with a new comment: one changed span."""
    starts = line_starts(text)
    first = len(starts) // 2
    begin, end = starts[first], starts[first + count]
    comment = "  # edited" if language == "python" else "  // edited"
    block = "".join(
        line + ("" if line.endswith("\\") else comment) + "\n"
        for line in text[begin:end].splitlines()
    )
    return f"{count}-line block", [(begin, end, block)]


def scattered_lines(text: str, count: int = 20) -> Case:
    starts = line_starts(text)
    step = len(starts) // (count + 1)
    changes: list[TextChange] = []
    for k in range(count):
        end = starts[step * (k + 1) + 1] - 1
        changes.append((end, end, " "))  # a trailing space: invisible to every grammar here
    return f"{count} scattered lines", changes


def apply(text: str, changes: list[TextChange]) -> str:
    pieces, previous = [], 0
    for start, end, inserted in changes:
        pieces += [text[previous:start], inserted]
        previous = end
    pieces.append(text[previous:])
    return "".join(pieces)


def inverse(text: str, changes: list[TextChange]) -> list[TextChange]:
    out: list[TextChange] = []
    shift = 0
    for start, end, inserted in changes:
        out.append((start + shift, start + shift + len(inserted), text[start:end]))
        shift += len(inserted) - (end - start)
    return out


def timed(action: Callable[[], object]) -> tuple[float, object]:
    began = time.perf_counter()
    result = action()
    return time.perf_counter() - began, result


def critical_path(
    checker: SyntaxCheck, text: str, case: Case, given: bool, runs: int
) -> tuple[float, str]:
    """Median seconds of `check` for the case (each run from the snapshot again)."""
    _, changes = case
    new_text = apply(text, changes)
    back = inverse(text, changes)
    times: list[float] = []
    outcome = ""
    for _ in range(runs):
        gc.collect()
        seconds, validation = timed(lambda: checker.check(new_text, changes if given else None))
        times.append(seconds)
        outcome = getattr(validation, "syntax", "?")
        checker.check(text, back if given else None)
    return statistics.median(times), outcome


def goal_ms(size: int) -> float:
    return max(FLOOR_MS, GOAL_MS_PER_MB * size / 1e6)


def bench_language(language: str, quick: bool) -> None:
    table = Table(
        f"{language}: check() on the critical path (snapshot parsed by start())",
        ["size", "change", "changes", "verdict", "median ms", "ms per MB", "goal ms", "result"],
    )
    other = Table(
        f"{language}: full parse and other paths (ms)",
        ["size", "start()", "per MB", "check(incremental=False)", "new error", "edit elsewhere"],
    )
    files = valid_files(language)
    for size in SIZES[:2] if quick else SIZES:
        text = build_document(files, size)
        if text is None:
            print(f"({language}: not enough source on this machine for {size_label(size)})")
            continue
        if SyntaxCheck.start(text, language).original_errors:
            print(f"({language}: the {size_label(size)} document does not parse cleanly)")
            continue
        measure(language, text, size, table, other)
        gc.collect()
    table.print()
    other.print()


def measure(language: str, text: str, size: int, table: Table, other: Table) -> None:
    mb = len(encode(text)) / 1e6
    runs = 3 if size >= 10_000_000 else 9
    start_seconds, checker = timed(lambda: SyntaxCheck.start(text, language))
    assert isinstance(checker, SyntaxCheck)
    for case in (one_word(text), block_of_lines(text, language), scattered_lines(text)):
        for given in (True, False):
            seconds, outcome = critical_path(checker, text, case, given, runs)
            ms_value = seconds * 1000
            table.add(
                size_label(size),
                case[0],
                "given" if given else "found (None)",
                outcome,
                f"{ms_value:.2f}",
                f"{ms_value / mb:.1f}",
                f"{goal_ms(size):.1f}",
                verdict(ms_value <= goal_ms(size)),
            )
    full_seconds, _ = timed(lambda: checker.check(text, incremental=False))
    # The refusal path: a new error, found incrementally then confirmed by a full parse.
    top_level = TOP_LEVEL.search(text, len(text) // 2)
    assert top_level is not None
    at = top_level.start()
    error: list[TextChange] = [(at, at, "(\n")]
    broken = apply(text, error)
    error_seconds, refused = timed(lambda: checker.check(broken, error))
    assert getattr(refused, "syntax", "") == "errors", refused
    # A snapshot with that error, and an edit elsewhere: never blocked.
    broken_checker = SyntaxCheck.start(broken, language)
    elsewhere = block_of_lines(broken, language)[1][0][0]
    edit: list[TextChange] = [(elsewhere, elsewhere, "\n")]
    edited = apply(broken, edit)
    elsewhere_seconds, kept = timed(lambda: broken_checker.check(edited, edit))
    assert getattr(kept, "syntax", "") == "ok", kept
    other.add(
        size_label(size),
        f"{start_seconds * 1000:.0f}",
        f"{start_seconds * 1000 / mb:.0f}",
        f"{full_seconds * 1000:.0f}",
        f"{error_seconds * 1000:.0f}",
        f"{elsewhere_seconds * 1000:.1f}",
    )


def bench_memory(quick: bool) -> None:
    table = Table(
        "memory (tracemalloc; tree-sitter allocates through PyMem)",
        [
            "language",
            "size",
            "held after start() MB",
            "× document",
            "start() peak MB",
            "of which bytes copy MB",
            "check() peak above held MB",
            "× document",
            "keep_tree=False held MB",
        ],
    )
    for language in ("python", "javascript"):
        files = valid_files(language)
        for size in SIZES[:2] if quick else SIZES:
            text = build_document(files, size)
            if text is None:
                continue
            doc_mb = len(encode(text)) / 1e6
            gc.collect()
            tracemalloc.start()
            checker = SyntaxCheck.start(text, language)
            held, start_peak = tracemalloc.get_traced_memory()
            _, changes = one_word(text)
            new_text = apply(text, changes)
            before = tracemalloc.get_traced_memory()[0]  # with the new text (the caller's)
            tracemalloc.reset_peak()
            checker.check(new_text, changes)
            peak = tracemalloc.get_traced_memory()[1] - before
            del checker
            gc.collect()
            base = tracemalloc.get_traced_memory()[0]
            light = SyntaxCheck.start(text, language, keep_tree=False)
            light_held = tracemalloc.get_traced_memory()[0] - base
            del light
            tracemalloc.stop()
            del new_text
            table.add(
                language,
                size_label(size),
                f"{held / 1e6:.1f}",
                f"{held / 1e6 / doc_mb:.1f}",
                f"{start_peak / 1e6:.1f}",
                f"{doc_mb:.1f}",
                f"{peak / 1e6:.1f}",
                f"{peak / 1e6 / doc_mb:.1f}",
                f"{light_held / 1e6:.2f}",
            )
    table.print()


def bench_gil(quick: bool) -> None:
    size = 1_000_000 if quick else 10_000_000
    text = build_document(valid_files("python"), size)
    if text is None:
        return
    data = encode(text)
    checker = SyntaxCheck.start(text[:1000], "python")
    parser = checker._parsed.parser if checker._parsed else None  # the bench looks inside
    assert parser is not None
    table = Table(
        f"GIL: a thread ticking every 1 ms while another parses {size_label(size)} of Python",
        ["parse", "parse s", "ticks", "longest pause between ticks ms"],
    )
    for label, action in (
        ("Parser.parse(bytes)", lambda: parser.parse(data)),
        ("Feeder (read callback, 16 KB blocks)", lambda: parse(parser, data, None, Feeder())),
    ):
        stop = threading.Event()
        pauses: list[float] = []

        def tick(pauses: list[float] = pauses, stop: threading.Event = stop) -> None:
            last = time.perf_counter()
            while not stop.is_set():
                time.sleep(0.001)
                now = time.perf_counter()
                pauses.append(now - last)
                last = now

        ticker = threading.Thread(target=tick)
        ticker.start()
        time.sleep(0.05)
        seconds, _ = timed(action)
        stop.set()
        ticker.join()
        table.add(label, f"{seconds:.2f}", len(pauses), f"{max(pauses) * 1000:.0f}")
    table.print()


def main(quick: bool) -> None:
    for language in ("python", "javascript"):
        bench_language(language, quick)
    bench_memory(quick)
    bench_gil(quick)


if __name__ == "__main__":
    run(main)
