"""What the model may read: the rules a path must pass before any byte of it is read, each
refusal a `Refused` whose message names the rule and the path, never the content.

- `.git/` anywhere in the path;
- the setting `readExclude` (gitignore-style patterns: `*.pem` matches at any depth);
- the workspace's `.gitignore` files, with git's semantics (`pathspec`): each file's patterns
  apply below its folder, a deeper file wins, a negation re-includes, and nothing inside an
  ignored folder can be re-included.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from pathspec import GitIgnoreSpec

GIT = ".git"
GITIGNORE = ".gitignore"


class Refused(Exception):
    """The model may not read this; `message` says which rule, for the model."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Patterns:
    """Gitignore-style patterns. When none has a `/` inside, what they decide depends on the
    last name of a path alone (git matches such a pattern at any depth), so each decision is
    kept by name: a workspace repeats names (`__init__.py`) far more than its patterns."""

    def __init__(self, lines: Sequence[str]) -> None:
        self._spec = GitIgnoreSpec.from_lines(lines)
        self._by_name: dict[tuple[str, bool], bool | None] | None = (
            {} if all(_name_only(line) for line in lines) else None
        )

    def decide(self, rel: str, is_dir: bool = False) -> bool | None:
        """True: matched; False: matched by a negation; None: no pattern matches."""
        by_name = self._by_name
        if by_name is None:
            return self._spec.check_file(rel + ("/" if is_dir else "")).include
        key = (rel.rpartition("/")[2], is_dir)
        if key not in by_name:
            by_name[key] = self._spec.check_file(key[0] + ("/" if is_dir else "")).include
        return by_name[key]

    def matches(self, rel: str) -> bool:
        """The file `rel`, or a folder on its way, matched."""
        parts = rel.split("/")
        return any(
            self.decide("/".join(parts[: depth + 1]), depth < len(parts) - 1) is True
            for depth in range(len(parts))
        )


def _name_only(line: str) -> bool:
    """A pattern (or a comment, a blank line) that looks at a path's last name alone."""
    text = line.strip()
    if not text or text.startswith("#"):
        return True
    return "/" not in text.removeprefix("!").removeprefix("\\").rstrip("/")


def excluded_spec(patterns: Sequence[str]) -> Patterns:
    return Patterns(patterns)


def in_git_folder(rel: str) -> bool:
    return GIT in rel.split("/")


@dataclass(frozen=True)
class Level:
    """One folder's `.gitignore` (`prefix`: the folder relative to the root, "" or ending
    in "/")."""

    prefix: str
    spec: Patterns


def ignored_by(levels: Sequence[Level], rel: str, is_dir: bool) -> bool:
    """`rel` (relative to the root, no trailing slash) ignored by the `.gitignore` files of
    the folders holding it, `levels` from the root down; the deepest that decides wins."""
    for level in reversed(levels):
        if not rel.startswith(level.prefix):
            continue
        below = rel[len(level.prefix) :]
        decision = level.spec.decide(below, is_dir)
        if decision is not None:
            return decision
    return False


class IgnoreRules:
    """The `.gitignore` files of one root, read once per modification time."""

    def __init__(self, root: str) -> None:
        self._root = root
        self._specs: dict[str, tuple[int, Patterns | None]] = {}

    def level(self, prefix: str) -> Level | None:
        """The `.gitignore` of the folder `prefix` ("" for the root), if it has one."""
        path = os.path.join(self._root, prefix, GITIGNORE)
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError:
            self._specs.pop(prefix, None)
            return None
        cached = self._specs.get(prefix)
        if cached is None or cached[0] != stamp:
            cached = (stamp, _read_spec(path))
            self._specs[prefix] = cached
        spec = cached[1]
        return None if spec is None else Level(prefix, spec)

    def stamps(self) -> dict[str, int]:
        """The modification time of each `.gitignore` read so far, by folder."""
        return {prefix: stamp for prefix, (stamp, _) in self._specs.items()}

    def ignored(self, rel: str) -> bool:
        """`rel`, a file, or any folder on its way, ignored."""
        parts = rel.split("/")
        levels: list[Level] = []
        for depth in range(len(parts)):
            prefix = "".join(part + "/" for part in parts[:depth])
            level = self.level(prefix)
            if level is not None:
                levels.append(level)
            is_dir = depth < len(parts) - 1
            if ignored_by(levels, "/".join(parts[: depth + 1]), is_dir):
                return True
        return False


def _read_spec(path: str) -> Patterns | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    return Patterns(lines)
