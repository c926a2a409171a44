"""find_in_files over ripgrep: each root's matching lines counted by `rg` (in the order of the
labels), the files the session or the editor holds a text for searched in Python instead of
their disk copies; then, in path order, each file checked against the workspace's rules again
and its matching lines found in its text until MAX_HITS are shown, each from the masked text
of its file, cut around the match. The count covers every file; a search past the deadline
says it is partial.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from complex_edit.server.workspace.reading import relative
from complex_edit.server.workspace.ripgrep import command, count
from complex_edit.server.workspace.search import MAX_HITS, Matcher, Stop, answer, masked_line
from complex_edit.server.workspace.secrets import Spot


@dataclass(frozen=True)
class Scope:
    """What a search of the workspace needs from it: its roots as (label prefix, folder) in
    label order, which labels may be read (`readable`: the real path, or None), the text of
    a file, the masking, and the rules ripgrep is given."""

    roots: Sequence[tuple[str, str]]
    readable: Callable[[str], str | None]
    text_of: Callable[[str], str | None]
    mask_line: Callable[[str, str, int, str], tuple[str, list[Spot]]]
    exclude: Sequence[str]
    max_bytes: int


@dataclass(frozen=True)
class Query:
    """One find_in_files: what to match, the glob (checked here, and given to ripgrep as
    `glob_text` when there is one root), the texts that stand for files (by real path), and
    when to stop."""

    matcher: Matcher
    glob: Callable[[str], bool] | None
    glob_text: str | None
    overlay: Mapping[str, str]
    deadline: float


@dataclass(frozen=True)
class _File:
    path: str  # the real file
    lines: int  # how many of its lines match
    text: str | None = None  # the session's or the editor's text; None: the disk's


def find_with_ripgrep(
    rg: str, scope: Scope, query: Query, seconds: float
) -> tuple[str, list[tuple[str, Spot]]]:
    """The answer and the values masked in it (`seconds`: the deadline's, for the answer);
    raises RipgrepFailed (search in Python)."""
    matcher, glob = query.matcher, query.glob
    files, timed_out = _counted(rg, scope, query)
    for path, text in query.overlay.items():
        label = _label(scope, path)
        if label is None:
            continue
        files.pop(label, None)  # its disk copy's count
        if glob is None or glob(label):
            lines = sum(1 for _ in matcher.lines(text))
            if lines:
                files[label] = _File(path, lines, text)
    total = sum(file.lines for file in files.values())
    hits: list[str] = []
    masked: list[tuple[str, Spot]] = []
    for label in sorted(files):
        if len(hits) >= MAX_HITS:
            break
        file = files[label]
        shown = _text(scope, label, file)
        if shown is None:
            total -= file.lines  # refused, not UTF-8 text, or gone: never shown nor counted
            continue
        for number, line, at in matcher.lines(shown):
            if len(hits) >= MAX_HITS:
                break
            hidden, spots = scope.mask_line(shown, label, number, line)
            masked.extend((label, spot) for spot in spots)
            hits.append(f"{label}:{number}: {masked_line(matcher, hidden, line, at)}")
    stop = Stop(seconds=seconds) if timed_out else None
    return answer(hits, max(total, len(hits)), matcher.pattern, None, 0, stop), masked


def _counted(rg: str, scope: Scope, query: Query) -> tuple[dict[str, _File], bool]:
    """The files of every root ripgrep found matching lines in, by label, and whether the
    deadline stopped it."""
    files: dict[str, _File] = {}
    for prefix, folder in scope.roots:
        args = command(
            rg,
            query.matcher.pattern,
            query.matcher.regex is not None,
            query.glob_text if len(scope.roots) == 1 else None,
            scope.exclude,
            scope.max_bytes,
        )
        counted = count(args, folder, query.deadline)
        for rel, lines in counted.lines.items():
            label = prefix + rel
            if query.glob is None or query.glob(label):
                files[label] = _File(folder + os.sep + rel.replace("/", os.sep), lines)
        if counted.timed_out:
            return files, True
    return files, False


def _text(scope: Scope, label: str, file: _File) -> str | None:
    """The text whose lines are shown, once the file passed the workspace's own rules
    (ripgrep applied them too)."""
    if scope.readable(label) is None:
        return None
    return file.text if file.text is not None else scope.text_of(file.path)


def _label(scope: Scope, path: str) -> str | None:
    """How the model names the file at `path` (a real path), when it lies in a root."""
    for prefix, folder in scope.roots:
        rel = relative(path, folder)
        if rel:
            return prefix + rel
    return None
