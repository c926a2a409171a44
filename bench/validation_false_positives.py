"""False positives of the syntax check (issue 14, part 3) on real source files.

For every file found (one language per file, from its name as the CLI would see it):

1. `unchanged`: the snapshot itself has syntax errors for its grammar (a grammar that rejects
   valid files: these never block, but they show where a grammar is weak); `skipped` when it
   has so many that the check is off for it.
2. `harmless`: edits that cannot break syntax (insert a blank line between two lines; append
   `_x` to an identifier; replace a span with itself), each checked incrementally with its
   change and again with the changed span found by diff. Any "errors" verdict is a false
   positive (goal 0).
3. `broken+elsewhere`: the file with an error injected (a line cut in half), used as the
   snapshot, then a harmless edit at least 20 lines away. Any "errors" verdict is a false
   positive: a pre-existing error must never block (goal 0).
4. `incr≠full`: edited texts whose incremental tree and a fresh full parse disagree on
   whether there are errors (before the checker's own confirmation by a full parse).

    .venv/bin/python bench/validation_false_positives.py [--max-files 1500] [--root DIR ...]
        [--corpus LANG=DIR ...] [--seed 1] [--show 3]

`--root` adds a directory scanned for every known extension; `--corpus LANG=DIR` checks
every file under DIR as LANG. Prints a Markdown table per language and the roots used.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import sysconfig
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from complex_edit.edit_tools.syntax import SyntaxCheck, language_for_path  # noqa: E402
from complex_edit.edit_tools.syntax.checker import MAX_ORIGINAL_ERRORS, parse  # noqa: E402
from complex_edit.edit_tools.syntax.offsets import TextChange, edits_from_changes, encode  # noqa: E402
from complex_edit.edit_tools.syntax.problems import describe  # noqa: E402

MAX_BYTES = 1_000_000
IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{0,40}")
_LITERALS = {"true", "false", "null", "none", "nil", "boolean", "integer", "float", "number"}
_RENAMABLE = ("identifier", "name", "key", "word", "scalar", "content", "value")
# Names that come in pairs: renaming one of them is not harmless (an HTML end tag).
_PAIRED = {"tag_name"}


def default_roots() -> list[Path]:
    candidates = [
        Path(sysconfig.get_paths()["stdlib"]),
        ROOT / "vscode-client",
        Path("/usr/lib/node_modules"),
        Path("/usr/include"),
        Path("/usr/share/doc"),
        Path("/usr/lib/google-cloud-sdk"),
        Path(sys.prefix) / "lib",
    ]
    return [path for path in candidates if path.is_dir()]


@dataclass
class Tally:
    files: int = 0
    size: int = 0
    unchanged: int = 0
    skipped: int = 0
    harmless: int = 0
    harmless_fp: int = 0
    broken: int = 0
    broken_fp: int = 0
    mismatched: int = 0
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)
    broken_files: list[str] = field(default_factory=list)


def scan(roots: list[Path], forced: list[tuple[str, Path]]) -> dict[str, list[Path]]:
    files: dict[str, set[Path]] = defaultdict(set)
    for root in roots:
        for path in _walk(root):
            language = language_for_path(path)
            if language:
                files[language].add(path)
    for language, root in forced:
        files[language].update(_walk(root))
    return {language: sorted(paths) for language, paths in files.items()}


def _walk(root: Path) -> Iterator[Path]:
    for directory, _dirs, names in os.walk(root):
        for name in names:
            path = Path(directory, name)
            if path.is_file() and not path.is_symlink():
                yield path


def read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) > MAX_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def line_starts(text: str) -> list[int]:
    return [0, *(match.end() for match in re.finditer(r"\r\n|\r|\n", text))]


def blank_line_edit(text: str, rng: random.Random, avoid: range | None) -> tuple[int, str] | None:
    """Where to insert a line break: the start of a line whose previous line does not end
    with a backslash (a continuation), outside `avoid` (line indexes)."""
    starts = line_starts(text)[1:]
    choices = [
        (index + 1, start)
        for index, start in enumerate(starts)
        if not text[:start].rstrip("\r\n").endswith("\\")
        and (avoid is None or index + 1 not in avoid)
        and start < len(text)
    ]
    if not choices:
        return None
    _, offset = rng.choice(choices)
    newline = "\r\n" if "\r\n" in text[: offset + 1] else "\n"
    return offset, newline


def identifier_edit(check: SyntaxCheck, rng: random.Random) -> int | None:
    """Code-point offset just after an identifier-like leaf of the checked text."""
    parsed = check._parsed  # the bench looks inside on purpose
    if parsed is None or parsed.tree is None:
        return None
    data = parsed.data
    leaves: list[int] = []
    stack = [parsed.tree.root_node]
    while stack and len(leaves) < 5000:
        node = stack.pop()
        if node.child_count:
            stack.extend(node.children)
            continue
        kind = node.type.lower()
        if not node.is_named or kind in _LITERALS or kind in _PAIRED:
            continue
        if not any(k in kind for k in _RENAMABLE):
            continue
        if IDENTIFIER.fullmatch(data[node.start_byte : node.end_byte]):
            leaves.append(node.end_byte)
    if not leaves:
        return None
    end = rng.choice(leaves)
    return len(data[:end].decode("utf-8"))


def inject_error(text: str, rng: random.Random) -> tuple[str, int] | None:
    """The text with one line cut in half (its second half deleted), and that line's index."""
    starts = line_starts(text)
    candidates = [i for i in range(len(starts) - 1) if starts[i + 1] - starts[i] > 12]
    if not candidates:
        return None
    index = rng.choice(candidates)
    start, end = starts[index], starts[index + 1]
    body = text[start:end].rstrip("\r\n")
    cut = start + len(body) // 2
    return text[:cut] + text[start + len(body) :], index


def incremental_agrees(check: SyntaxCheck, new_text: str, change: TextChange) -> bool:
    """Whether an incremental parse of `new_text` from the checker's current tree (what the
    checker does before confirming errors with a full parse) and a fresh full parse agree on
    whether there are errors."""
    parsed = check._parsed  # the bench looks inside on purpose
    if parsed is None or parsed.tree is None:
        return True
    tree = parsed.tree.copy()
    new = encode(new_text)
    for edit in edits_from_changes(parsed.data, parsed.ascii, new_text, new, [change]):
        tree.edit(
            edit.start_byte,
            edit.old_end_byte,
            edit.new_end_byte,
            edit.start_point,
            edit.old_end_point,
            edit.new_end_point,
        )
    incremental = parse(parsed.parser, new, tree)
    full = parse(parsed.parser, new)
    return full.root_node.has_error == incremental.root_node.has_error


def run_file(path: Path, language: str, text: str, rng: random.Random, tally: Tally) -> None:
    tally.files += 1
    tally.size += len(text)
    check = SyntaxCheck.start(text, language)
    if check.original_errors:
        tally.unchanged += 1
        tally.broken_files.append(f"{path} ({check.original_errors} errors){first_error(check)}")
    if check.language is not None and check._skipped is not None:
        tally.skipped += 1
        return
    edits: list[tuple[str, tuple[int, int, str]]] = []
    blank = blank_line_edit(text, rng, None)
    if blank:
        edits.append(("blank line", (blank[0], blank[0], blank[1])))
    after = identifier_edit(check, rng)
    if after is not None:
        edits.append(("rename", (after, after, "_x")))
    if text:
        at = rng.randrange(len(text))
        edits.append(("same text", (at, at + 1, text[at])))
    for label, (start, end, inserted) in edits:
        new_text = text[:start] + inserted + text[end:]
        undo = (start, start + len(inserted), text[start:end])
        for changes, back in (([(start, end, inserted)], [undo]), (None, None)):
            if changes is not None and not incremental_agrees(check, new_text, changes[0]):
                tally.mismatched += 1
            verdict = check.check(new_text, changes)
            tally.harmless += 1
            if verdict.syntax == "errors":
                tally.harmless_fp += 1
                tally.examples.append(f"{path} [{label}] {verdict.errors[0]}")
            check.check(text, back)
    run_broken(path, language, text, rng, tally)


def run_broken(path: Path, language: str, text: str, rng: random.Random, tally: Tally) -> None:
    for _attempt in range(5):  # until a cut breaks the file (a cut comment does not)
        injected = inject_error(text, rng)
        if injected is None:
            return
        broken, index = injected
        check = SyntaxCheck.start(broken, language)
        if check._skipped is None and check.original_errors:
            break
    else:
        return
    blank = blank_line_edit(broken, rng, range(index - 20, index + 21))
    if blank is None:
        return
    new_text = broken[: blank[0]] + blank[1] + broken[blank[0] :]
    verdict = check.check(new_text, [(blank[0], blank[0], blank[1])])
    tally.broken += 1
    if verdict.syntax == "errors":
        tally.broken_fp += 1
        tally.examples.append(f"{path} [broken line {index + 1}, blank line] {verdict.errors[0]}")


def first_error(check: SyntaxCheck) -> str:
    """The snapshot's first error, described (the bench looks inside the checker)."""
    parsed = check._parsed
    if parsed is None or parsed.tree is None or not check._original:
        return ""
    problem = describe(check._original[0], parsed.data, parsed.tree.root_node.type)
    return f": line {problem.line}: {problem.problem} | {problem.text.strip()[:100]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-files", type=int, default=1500, help="per language")
    parser.add_argument("--root", action="append", type=Path, default=[])
    parser.add_argument("--corpus", action="append", default=[], help="LANG=DIR")
    parser.add_argument("--only", action="append", default=[], help="languages to run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=3, help="examples printed per language")
    args = parser.parse_args()
    roots = default_roots() + args.root
    forced = [(spec.split("=", 1)[0], Path(spec.split("=", 1)[1])) for spec in args.corpus]
    print(f"roots: {', '.join(map(str, roots))}")
    for language, directory in forced:
        print(f"corpus: {language}={directory}")
    print(f"MAX_ORIGINAL_ERRORS={MAX_ORIGINAL_ERRORS}; files over {MAX_BYTES} bytes skipped\n")
    corpora = scan(roots, forced)
    rng = random.Random(args.seed)
    tallies: dict[str, Tally] = {}
    for language in sorted(corpora):
        if args.only and language not in args.only:
            continue
        paths = corpora[language]
        if len(paths) > args.max_files:
            paths = sorted(random.Random(args.seed).sample(paths, args.max_files))
        tally = tallies[language] = Tally()
        began = time.perf_counter()
        for path in paths:
            text = read_text(path)
            if text is not None:
                run_file(path, language, text, rng, tally)
        tally.seconds = time.perf_counter() - began
        print(f"{language}: {tally.files} files in {tally.seconds:.1f} s", file=sys.stderr)
    print_table(tallies, args.show)


def print_table(tallies: dict[str, Tally], show: int) -> None:
    print(
        "| language | files | MB | unchanged with errors | skipped (>limit) | harmless edits "
        "| harmless FP | broken+elsewhere | broken FP | incr≠full | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for language, t in tallies.items():
        print(
            f"| {language} | {t.files} | {t.size / 1e6:.1f} | {t.unchanged} | {t.skipped} "
            f"| {t.harmless} | {t.harmless_fp} | {t.broken} | {t.broken_fp} | {t.mismatched} "
            f"| {t.seconds:.0f} |"
        )
    for language, t in tallies.items():
        for example in t.examples[:show]:
            print(f"- {language}: {example}")
    print("\nUnchanged files with errors (first few per language):")
    for language, t in tallies.items():
        for example in t.broken_files[:show]:
            print(f"- {language}: {example}")


if __name__ == "__main__":
    main()
