"""Only projects are workspaces (issue 36): the CLI's default root is the file's git top
level, none outside a repository; the home directory and `/` are never a root, from the CLI,
MCP or an editor's workspace folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from complex_edit.server.edit.roots import PathRefused, not_a_project, workspace_root
from complex_edit.server.lsp.folders import _named


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path.resolve() / "home"
    (home / "repo" / ".git").mkdir(parents=True)
    (home / "repo" / "src").mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def test_the_default_root_is_the_git_top_level_else_none(home: Path) -> None:
    assert workspace_root(home / "repo" / "src" / "a.py", None) == home / "repo"
    assert workspace_root(home / "notes.txt", None) is None


def test_a_repository_at_the_home_directory_is_no_workspace(home: Path) -> None:
    (home / ".git").mkdir()
    assert workspace_root(home / "notes.txt", None) is None


@pytest.mark.parametrize("given", ["home", "/"])
def test_root_at_home_or_slash_is_refused_naming_the_flag(home: Path, given: str) -> None:
    root = str(home) if given == "home" else "/"
    with pytest.raises(PathRefused, match=r"never a workspace.*--root"):
        workspace_root(home / "notes.txt", root)
    assert not_a_project(home / "repo", "--root") is None


def test_editor_folders_at_home_or_slash_are_left_out(home: Path) -> None:
    roots = _named(
        [("home", home.as_uri()), ("root", "file:///"), ("repo", (home / "repo").as_uri())]
    )
    assert [root.path for root in roots] == [str(home / "repo")]
