"""The workspace's ignore rules and listings kept between commands, by a process that runs
many (the language server's session worker, which owns one `Kept`; the MCP server's runner).

A command's `Workspace` takes the listing kept for its roots and `readExclude` (or builds
one), and gives it back when the command ends. Nothing here is trusted blindly: each
`.gitignore` is read again when its modification time changed (`IgnoreRules.level`), the
listing is walked again when a folder or a `.gitignore` changed its time (`Tree`), and the
whole listing is dropped when git's excludes files changed (`IgnoreRules.excludes_changed`).
A command running while another holds the listing builds its own: a listing is used by one
command at a time (tool calls run on threads).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from complex_edit.server.workspace.rules import IgnoreRules, Patterns
from complex_edit.server.workspace.tree import Tree

# Workspaces (roots and readExclude) kept at most; the oldest given back is dropped first.
MAX_KEPT = 8

Key = tuple[tuple[tuple[str, str], ...], tuple[str, ...]]


@dataclass(frozen=True)
class Listing:
    """What one workspace keeps between commands: each root's ignore rules and listing."""

    ignores: tuple[IgnoreRules, ...]
    trees: tuple[Tree, ...]


class Kept:
    """The listings given back, by workspace (its roots' (name, real folder) pairs and its
    `readExclude` lines)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listings: dict[Key, Listing] = {}

    def take(self, key: Key, exclude: Patterns, target_allowed: Callable[[str], bool]) -> Listing:
        """The listing kept for `key`, taken out until `give_back`, else a new one;
        `target_allowed` is the taking workspace's (see `Tree`)."""
        with self._lock:
            listing = self._listings.pop(key, None)
        if listing is None or any(rules.excludes_changed() for rules in listing.ignores):
            ignores = tuple(IgnoreRules(path) for _, path in key[0])
            trees = tuple(
                Tree(path, rules, exclude, target_allowed)
                for (_, path), rules in zip(key[0], ignores, strict=True)
            )
            return Listing(ignores, trees)
        for tree in listing.trees:
            tree.target_allowed = target_allowed
        return listing

    def give_back(self, key: Key, listing: Listing) -> None:
        with self._lock:
            self._listings.pop(key, None)
            self._listings[key] = listing
            while len(self._listings) > MAX_KEPT:
                del self._listings[next(iter(self._listings))]
