"""Path confinement for the MCP server (server/edit/roots.py), on a real directory tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from complex_edit.server.edit.roots import PathRefused, Roots


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/proj (the root), tmp/proj-evil (a sibling sharing its prefix), tmp/outside."""
    base = tmp_path.resolve()
    (base / "proj" / "src").mkdir(parents=True)
    (base / "proj" / "src" / "app.py").write_text("x = 1\n")
    (base / "proj-evil").mkdir()
    (base / "proj-evil" / "secret.txt").write_text("no\n")
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text("no\n")
    (base / "proj" / "link-out.txt").symlink_to(base / "outside" / "secret.txt")
    (base / "proj" / "dir-out").symlink_to(base / "outside")
    (base / "proj" / "link-in.py").symlink_to(base / "proj" / "src" / "app.py")
    return base


def test_relative_and_absolute_paths_inside_are_resolved(tree: Path) -> None:
    roots = Roots.from_dirs([tree / "proj"])
    app = tree / "proj" / "src" / "app.py"
    assert roots.resolve("src/app.py") == app
    assert roots.resolve(str(app)) == app
    assert roots.resolve("src/../src/app.py") == app
    assert roots.resolve("src/new.py") == tree / "proj" / "src" / "new.py"  # need not exist


def test_symlink_inside_pointing_inside_resolves_to_its_target(tree: Path) -> None:
    roots = Roots.from_dirs([tree / "proj"])
    assert roots.resolve("link-in.py") == tree / "proj" / "src" / "app.py"


@pytest.mark.parametrize(
    "raw",
    [
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        "../proj-evil/secret.txt",
        "link-out.txt",
        "dir-out/secret.txt",
        "..",
        "",
        "src/app.py\x00.txt",
    ],
)
def test_escapes_are_refused(tree: Path, raw: str) -> None:
    roots = Roots.from_dirs([tree / "proj"])
    with pytest.raises(PathRefused):
        roots.resolve(raw)


@pytest.mark.parametrize("target", ["outside/secret.txt", "proj-evil/secret.txt", "proj-evil", "."])
def test_absolute_paths_outside_are_refused(tree: Path, target: str) -> None:
    roots = Roots.from_dirs([tree / "proj"])
    with pytest.raises(PathRefused, match="outside the directories"):
        roots.resolve(str(tree / target))


def test_root_given_through_a_symlink_is_resolved(tree: Path) -> None:
    (tree / "alias").symlink_to(tree / "proj")
    roots = Roots.from_dirs([tree / "alias"])
    assert roots.paths == (tree / "proj",)
    assert roots.resolve(str(tree / "alias" / "src" / "app.py")) == tree / "proj/src/app.py"
    assert roots.resolve(str(tree / "proj" / "src" / "app.py")) == tree / "proj/src/app.py"


def test_relative_roots_come_from_cwd_and_default_to_it(tree: Path) -> None:
    assert Roots.from_dirs([], cwd=tree / "proj").paths == (tree / "proj",)
    assert Roots.from_dirs(["proj"], cwd=tree).paths == (tree / "proj",)


def test_several_roots_relative_paths_use_the_first(tree: Path) -> None:
    roots = Roots.from_dirs([tree / "proj", tree / "outside"])
    assert roots.resolve("secret.txt") == tree / "proj" / "secret.txt"
    assert roots.resolve(str(tree / "outside" / "secret.txt")) == tree / "outside/secret.txt"
    assert roots.resolve("link-out.txt") == tree / "outside" / "secret.txt"
    with pytest.raises(PathRefused):
        roots.resolve(str(tree / "proj-evil" / "secret.txt"))


def test_missing_root_is_refused(tree: Path) -> None:
    with pytest.raises(PathRefused, match="not an existing directory"):
        Roots.from_dirs([tree / "nope"])
    with pytest.raises(PathRefused):
        Roots.from_dirs([tree / "proj" / "src" / "app.py"])


def test_label_is_relative_to_the_root(tree: Path) -> None:
    roots = Roots.from_dirs([tree / "proj"])
    assert roots.label(tree / "proj" / "src" / "app.py") == "src/app.py"


def test_symlink_loop_is_refused_or_stays_inside(tree: Path) -> None:
    loop = tree / "proj" / "loop"
    os.symlink(loop, loop)
    roots = Roots.from_dirs([tree / "proj"])
    # realpath cannot resolve a loop; whatever it returns must still be inside the root
    resolved = roots.resolve("loop")
    assert resolved.is_relative_to(tree / "proj")
