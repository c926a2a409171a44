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
import subprocess
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
        # Without negations, the order of patterns does not matter: the ones that look at a
        # name alone are decided by name, the others (`**/.docker/config.json`) by path.
        plain = not any(line.strip().startswith("!") for line in lines)
        by_path = [line for line in lines if plain and not _name_only(line)]
        named = [line for line in lines if line not in by_path]
        self._spec = GitIgnoreSpec.from_lines(named)
        self._paths = GitIgnoreSpec.from_lines(by_path) if by_path else None
        self._by_name: dict[tuple[str, bool], bool | None] | None = (
            {} if all(_name_only(line) for line in named) else None
        )

    def decide(self, rel: str, is_dir: bool = False) -> bool | None:
        """True: matched; False: matched by a negation; None: no pattern matches."""
        if self._paths is not None and self._paths.match_file(rel + ("/" if is_dir else "")):
            return True
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
    in "/"), or git's own excludes (`base`: the root relative to the repository's top, whose
    patterns they are)."""

    prefix: str
    spec: Patterns
    base: str = ""


def ignored_by(levels: Sequence[Level], rel: str, is_dir: bool) -> bool:
    """`rel` (relative to the root, no trailing slash) ignored by the `.gitignore` files of
    the folders holding it, `levels` from the root down; the deepest that decides wins."""
    for level in reversed(levels):
        if not rel.startswith(level.prefix):
            continue
        below = level.base + rel[len(level.prefix) :]
        decision = level.spec.decide(below, is_dir)
        if decision is not None:
            return decision
    return False


class IgnoreRules:
    """The `.gitignore` files of one root, read once per modification time, under git's own
    excludes (`.git/info/exclude`, then `core.excludesFile`), read once."""

    def __init__(self, root: str) -> None:
        self._root = root
        self._specs: dict[str, tuple[int, Patterns | None]] = {}
        self.base_levels, self._excludes = git_excludes(root)

    def excludes_changed(self) -> bool:
        """Git's excludes files changed (written, made or removed) since they were read."""
        return any(_stamp(path) != stamp for path, stamp in self._excludes)

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
        levels: list[Level] = list(self.base_levels)
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


def git_excludes(root: str) -> tuple[tuple[Level, ...], tuple[tuple[str, int | None], ...]]:
    """Git's excludes for the repository holding `root`, lowest precedence first: the global
    file (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`), then `.git/info/exclude`;
    and each file looked at with its modification time (None: missing)."""
    top, info = _git_paths(root)
    base = ""
    if top is not None:
        rel = os.path.relpath(root, top)
        base = "" if rel == "." else rel.replace(os.sep, "/") + "/"
    levels = []
    stamps = []
    for path in (_global_excludes(root), info):
        if path:
            stamps.append((path, _stamp(path)))
        spec = _read_spec(path) if path else None
        if spec is not None:
            levels.append(Level("", spec, base))
    return tuple(levels), tuple(stamps)


def _stamp(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _git(root: str, *args: str) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", "-C", root, *args], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.splitlines() if done.returncode == 0 else None


def _git_paths(root: str) -> tuple[str | None, str | None]:
    """The repository's top folder and its `info/exclude` file (None, None outside one)."""
    found = _git(root, "rev-parse", "--show-toplevel", "--git-path", "info/exclude")
    if found is not None and len(found) == 2:
        top = os.path.realpath(found[0])
        return top, os.path.join(root, found[1])
    folder = os.path.join(root, GIT)
    if os.path.isdir(folder):  # no git program: the common layout
        return root, os.path.join(folder, "info", "exclude")
    return None, None


def _global_excludes(root: str) -> str | None:
    configured = _git(root, "config", "--path", "--get", "core.excludesFile")
    if configured:
        return os.path.expanduser(configured[0])
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(config, "git", "ignore")
