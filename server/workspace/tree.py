"""The files of one root the model may search, listed once and kept while nothing changed.

The walk skips `.git/`, what the `.gitignore` files ignore (an ignored folder is not entered),
what `readExclude` matches and links that leave the roots; folders behind links are not
entered (each file inside the roots is listed once, by its own path). The list is kept with
the modification time of every folder walked and every `.gitignore` read: a later call stats
those and walks again only when one changed (a file added, removed or renamed changes its
folder's time). A folder changed less than RACY_NS before the walk may change again within
the same tick of its clock unseen ("racy git"): such a listing is walked again next time.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from complex_edit.server.workspace.rules import GIT, IgnoreRules, Level, Patterns, ignored_by

RACY_NS = 2_000_000_000


@dataclass(frozen=True)
class Listed:
    rel: str  # relative to the root, forward slashes
    path: str  # absolute, links resolved


class Tree:
    """One root's listing. `target_allowed(path)`: a link's resolved target passes every
    rule (inside the roots, not in `.git/`, not ignored or excluded in its own root); the
    workspace using a kept tree sets its own (`kept.py`)."""

    def __init__(
        self,
        root: str,
        ignore: IgnoreRules,
        exclude: Patterns,
        target_allowed: Callable[[str], bool],
    ) -> None:
        self._root = root
        self._ignore = ignore
        self._exclude = exclude
        self.target_allowed = target_allowed
        self._files: list[Listed] | None = None
        self._folders: dict[str, int] = {}
        self._ignores: dict[str, int] = {}
        self._racy = True
        self._lock = threading.Lock()

    def files(self) -> list[Listed]:
        """The listing, walked again when a folder or a `.gitignore` changed since (one
        caller at a time: a search cancelled may still run on its thread while the next
        command has taken the tree back from `kept.py`)."""
        with self._lock:
            return self._files_now()

    def _files_now(self) -> list[Listed]:
        if self._files is None or self._racy or self._stale():
            began = time.time_ns()
            self._folders = {}
            found: list[Listed] = []
            self._walk("", list(self._ignore.base_levels), found)
            found.sort(key=lambda listed: listed.rel)
            self._files = found
            self._ignores = self._ignore.stamps()
            stamps = [*self._folders.values(), *self._ignores.values()]
            self._racy = racy(max(stamps, default=0), began)
        return self._files

    def _stale(self) -> bool:
        for prefix, stamp in self._folders.items():
            if _mtime(os.path.join(self._root, prefix)) != stamp:
                return True
        current = self._ignore.stamps()
        for prefix, stamp in self._ignores.items():
            if _mtime(os.path.join(self._root, prefix, ".gitignore")) != stamp:
                return True
        return current.keys() != self._ignores.keys()

    def _walk(self, prefix: str, levels: list[Level], found: list[Listed]) -> None:
        folder = os.path.join(self._root, prefix)
        try:
            self._folders[prefix] = os.stat(folder).st_mtime_ns
            entries = list(os.scandir(folder))
        except OSError:
            return
        level = self._ignore.level(prefix)
        here = [*levels, level] if level is not None else levels
        for entry in entries:
            name = entry.name
            if name == GIT:
                continue
            rel = prefix + name
            try:
                if entry.is_symlink():
                    self._linked(rel, entry.path, here, found)
                elif entry.is_dir(follow_symlinks=False):
                    if not ignored_by(here, rel, True) and not self._exclude.decide(rel, True):
                        self._walk(rel + "/", here, found)
                elif entry.is_file(follow_symlinks=False) and self._allowed(here, rel):
                    found.append(Listed(rel, entry.path))
            except OSError:
                continue

    def _allowed(self, levels: list[Level], rel: str) -> bool:
        return not ignored_by(levels, rel, False) and not self._exclude.decide(rel)

    def _linked(self, rel: str, path: str, levels: list[Level], found: list[Listed]) -> None:
        """A link to a file inside the roots is listed under its own path; its target must
        pass the rules too."""
        if not self._allowed(levels, rel):
            return
        target = os.path.realpath(path)
        if not self.target_allowed(target):
            return
        if stat.S_ISREG(os.stat(target).st_mode):
            found.append(Listed(rel, target))


def racy(mtime_ns: int, seen_ns: int) -> bool:
    """A change at `mtime_ns` too close to `seen_ns` for a later change to show in the time."""
    return seen_ns - mtime_ns < RACY_NS


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None
