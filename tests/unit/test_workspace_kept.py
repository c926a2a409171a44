"""The workspace's ignore rules and listing kept between commands (server/workspace/kept.py):
a second command's find_in_files neither walks the tree nor asks git again, and a changed
`.gitignore` or git excludes file is seen at once."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.workspace import rules
from complex_edit.server.workspace.kept import Kept
from complex_edit.server.workspace.tree import Tree
from complex_edit.server.workspace.workspace import Workspace

EXCLUDE = (".env",)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A root whose files and folders all changed 10 s ago (a listing of it is not racy)."""
    root = tmp_path.resolve() / "proj"
    files = {
        "src/app.py": "target = 1\n",
        "src/use.py": "target()\n",
        "notes.txt": "target notes\n",
        ".gitignore": "*.log\n",
        "debug.log": "target log\n",
        ".env": "target=secret\n",
        ".git/config": "[core]\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    age(root)
    return root


def age(root: Path) -> None:
    past = time.time() - 10
    for folder, names, files in os.walk(root):
        for name in [*names, *files]:
            os.utime(os.path.join(folder, name), (past, past))
    os.utime(root, (past, past))


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often a folder was walked and git was asked (for its excludes)."""
    counted = {"walks": 0, "git": 0}

    def counting(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            counted[name] += 1
            return original(*args)

        return call

    monkeypatch.setattr(Tree, "_walk", counting("walks", Tree._walk))
    monkeypatch.setattr(rules, "_git", counting("git", rules._git))
    return counted


def find(kept: Kept, root: Path, pattern: str = "target") -> str:
    """One command's find_in_files (in Python: the listing is what is kept)."""
    workspace = Workspace([("proj", str(root))], {}, EXCLUDE, 10_000, kept=kept)
    try:
        return workspace.find(pattern)
    finally:
        workspace.close()


def test_a_second_search_reuses_the_rules_and_the_listing(
    root: Path, counts: dict[str, int]
) -> None:
    kept = Kept()
    first = find(kept, root)
    assert "src/app.py:1" in first
    assert "debug.log" not in first
    assert ".env" not in first
    assert counts["walks"] > 0
    assert counts["git"] > 0
    counts.update(walks=0, git=0)
    assert find(kept, root) == first
    assert counts == {"walks": 0, "git": 0}


def test_a_changed_gitignore_is_seen_by_the_next_command(
    root: Path, counts: dict[str, int]
) -> None:
    kept = Kept()
    assert "src/use.py:1" in find(kept, root)
    (root / ".gitignore").write_text("*.log\nsrc/use.py\n")
    counts.update(walks=0, git=0)
    after = find(kept, root)
    assert "src/use.py" not in after
    assert "src/app.py:1" in after
    assert counts["walks"] > 0  # walked again
    assert counts["git"] == 0  # git's excludes did not change: kept


def test_a_changed_git_exclude_drops_the_kept_listing(root: Path, counts: dict[str, int]) -> None:
    kept = Kept()
    assert "notes.txt:1" in find(kept, root)
    (root / ".git" / "info").mkdir()
    (root / ".git" / "info" / "exclude").write_text("notes.txt\n")
    counts.update(walks=0, git=0)
    assert "notes.txt" not in find(kept, root)
    assert counts["git"] > 0
    assert counts["walks"] > 0


def test_a_listing_serves_one_command_at_a_time_and_one_read_exclude(root: Path) -> None:
    kept = Kept()
    first = Workspace([("proj", str(root))], {}, EXCLUDE, 10_000, kept=kept)
    meanwhile = Workspace([("proj", str(root))], {}, EXCLUDE, 10_000, kept=kept)
    assert meanwhile._trees[0] is not first._trees[0]  # built its own
    trees = first._trees
    first.close()
    again = Workspace([("proj", str(root))], {}, EXCLUDE, 10_000, kept=kept)
    assert again._trees is trees
    other = Workspace([("proj", str(root))], {}, (), 10_000, kept=kept)
    assert other._trees is not trees
    assert ".env:1" in other.find("target")
