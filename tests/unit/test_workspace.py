"""The workspace as the model sees it (server/workspace/), on a real directory tree: what may
be read, every refusal naming its rule and never the content, find_in_files, and its cache."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from complex_edit.edit_tools.lines import line_contents
from complex_edit.server.workspace.rules import Refused
from complex_edit.server.workspace.search import MAX_HITS, Matcher
from complex_edit.server.workspace.workspace import NO_WORKSPACE, Workspace

SECRET = "hunter2-do-not-leak"
EXCLUDE = (".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "*.p12")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/proj (the root) with one file of each kind; tmp/outside beside it."""
    base = tmp_path.resolve()
    root = base / "proj"
    files = {
        "src/app.py": "def target():\n    return 1\n",
        "src/use.py": "from app import target\n\ntarget()\n",
        "README.md": "Call target() to start.\n",
        ".env": f"TOKEN={SECRET}\n",
        ".env.local": f"TOKEN={SECRET}\n",
        "certs/server.pem": f"{SECRET}\n",
        ".git/config": f"[remote] {SECRET} target\n",
        ".gitignore": "build/\n*.log\n!keep.log\n",
        "build/out.py": f"target = '{SECRET}'\n",
        "debug.log": f"target {SECRET}\n",
        "keep.log": "target kept\n",
        "sub/.gitignore": "generated.py\n",
        "sub/generated.py": f"target = '{SECRET}'\n",
        "sub/real.py": "target = 2\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "blob.bin").write_bytes(b"target\x00\x01" + SECRET.encode())
    (root / "latin.txt").write_bytes(b"target caf\xe9 " + SECRET.encode())
    (base / "outside").mkdir()
    (base / "outside" / "secret.txt").write_text(f"target {SECRET}\n")
    (root / "link-out.txt").symlink_to(base / "outside" / "secret.txt")
    (root / "dir-out").symlink_to(base / "outside")
    (root / "alias.py").symlink_to(root / "src" / "app.py")
    (root / "env-link").symlink_to(root / ".env")
    return root


def workspace(root: Path, *, max_bytes: int = 10_000, **open_docs: str) -> Workspace:
    documents = {str(root / rel): (text, 7) for rel, text in open_docs.items()}
    return Workspace([("proj", str(root))], documents, EXCLUDE, max_bytes)


def refusal(ws: Workspace, path: str) -> str:
    with pytest.raises(Refused) as caught:
        ws.read(path)
    message = caught.value.message
    assert SECRET not in message
    return message


def test_a_file_inside_is_read_from_disk(tree: Path) -> None:
    opened = workspace(tree).read("src/app.py")
    assert opened.text == "def target():\n    return 1\n"
    assert (opened.label, opened.path, opened.version) == (
        "src/app.py",
        str(tree / "src/app.py"),
        None,
    )
    assert workspace(tree).read("./src/../src/app.py").label == "src/app.py"


def test_an_open_document_is_read_from_the_editor_buffer(tree: Path) -> None:
    opened = workspace(tree, **{"src/app.py": "unsaved\n"}).read("src/app.py")
    assert (opened.text, opened.version, opened.from_editor) == ("unsaved\n", 7, True)


def test_a_link_inside_to_a_file_inside_is_read(tree: Path) -> None:
    assert workspace(tree).read("alias.py").text.startswith("def target")


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("../outside/secret.txt", "leaves the workspace"),
        ("src/../../outside/secret.txt", "leaves the workspace"),
        (str(Path("/etc/passwd")), "is absolute"),
        ("~/notes.txt", "is absolute"),
        ("link-out.txt", "link that leaves the workspace"),
        ("dir-out/secret.txt", "link that leaves the workspace"),
        (".git/config", "inside .git/"),
        (".env", "readExclude"),
        (".env.local", "readExclude"),
        ("certs/server.pem", "readExclude"),
        ("env-link", "readExclude"),
        ("build/out.py", ".gitignore"),
        ("debug.log", ".gitignore"),
        ("sub/generated.py", ".gitignore"),
        ("blob.bin", "binary"),
        ("latin.txt", "not UTF-8"),
        ("src", "is a folder"),
        ("missing.py", "does not exist"),
        ("", "empty"),
    ],
)
def test_each_refusal_names_its_rule_and_never_the_content(
    tree: Path, path: str, rule: str
) -> None:
    assert rule in refusal(workspace(tree), path)


def test_gitignore_negation_and_nested_files_follow_git(tree: Path) -> None:
    ws = workspace(tree)
    assert ws.read("keep.log").text == "target kept\n"
    assert ws.read("sub/real.py").text == "target = 2\n"


def test_a_file_over_max_document_bytes_is_refused(tree: Path) -> None:
    (tree / "big.py").write_text("x = 1\n" * 100)
    assert "maxDocumentBytes" in refusal(workspace(tree, max_bytes=100), "big.py")
    big_buffer = workspace(tree, max_bytes=100, **{"src/app.py": "y\n" * 100})
    assert "maxDocumentBytes" in refusal(big_buffer, "src/app.py")


def test_an_ignored_file_is_refused_even_when_open_in_the_editor(tree: Path) -> None:
    assert ".gitignore" in refusal(workspace(tree, **{"debug.log": "open"}), "debug.log")


def test_without_roots_reading_and_searching_are_refused() -> None:
    ws = Workspace([], {}, EXCLUDE, 1000)
    assert not ws.has_roots
    with pytest.raises(Refused, match="No workspace folder"):
        ws.read("a.py")
    with pytest.raises(Refused) as caught:
        ws.find("x")
    assert caught.value.message == NO_WORKSPACE


def test_several_roots_name_paths_by_their_folder(tree: Path, tmp_path: Path) -> None:
    other = tmp_path / "lib"
    other.mkdir()
    (other / "util.py").write_text("def target(): pass\n")
    ws = Workspace([("proj", str(tree)), ("lib", str(other))], {}, EXCLUDE, 10_000)
    assert ws.read("lib/util.py").label == "lib/util.py"
    assert ws.read("proj/src/app.py").label == "proj/src/app.py"
    with pytest.raises(Refused, match=r"names no workspace folder.*\(proj, lib\)"):
        ws.read("src/app.py")
    found = ws.find("def target")
    assert found.splitlines()[1:] == [
        "lib/util.py:1: def target(): pass",
        "proj/alias.py:1: def target():",
        "proj/src/app.py:1: def target():",
    ]


def test_find_lists_matching_lines_in_path_order_and_skips_every_refused_file(
    tree: Path,
) -> None:
    found = workspace(tree).find("target")
    lines = found.splitlines()
    assert lines[1:] == [
        "README.md:1: Call target() to start.",
        "alias.py:1: def target():",
        "keep.log:1: target kept",
        "src/app.py:1: def target():",
        "src/use.py:1: from app import target",
        "src/use.py:3: target()",
        "sub/real.py:1: target = 2",
    ]
    assert lines[0].startswith("7 matching lines")
    assert SECRET not in found


@contextmanager
def opened_files() -> Iterator[list[str]]:
    """The paths this process opens meanwhile (an audit hook, switched off afterwards)."""
    seen: list[str] = []
    active = [True]

    def hook(event: str, args: tuple[object, ...]) -> None:
        if active[0] and event == "open" and isinstance(args[0], str | bytes):
            seen.append(os.fsdecode(args[0]))

    sys.addaudithook(hook)
    try:
        yield seen
    finally:
        active[0] = False


def test_find_never_opens_a_file_it_must_refuse(tree: Path) -> None:
    ws = workspace(tree)
    with opened_files() as seen:
        ws.find("target")
        ws.find("hunter", regex=True)
    names = {Path(path).name for path in seen}
    assert not names & {".env", ".env.local", "server.pem", "config", "out.py", "debug.log"}
    assert "generated.py" not in names
    assert "secret.txt" not in names
    assert "app.py" in names


def test_find_with_glob_regex_and_the_editor_buffers(tree: Path) -> None:
    ws = workspace(tree, **{"README.md": "no match here\n"})
    assert ws.find("target", glob="*.py").count("\n") == 5
    assert "README.md" not in ws.find("target")
    assert ws.find(r"^target\(\)$", regex=True).splitlines()[1:] == ["src/use.py:3: target()"]
    current = {str(tree / "src/use.py"): "changed()\n"}
    assert "src/use.py" not in ws.find("target", current=current)


@pytest.mark.parametrize(
    ("pattern", "regex", "message"),
    [("", False, "empty"), ("a\nb", False, "line break"), ("(", True, "regular expression")],
)
def test_a_bad_pattern_is_refused(tree: Path, pattern: str, regex: bool, message: str) -> None:
    with pytest.raises(Refused, match=message):
        workspace(tree).find(pattern, regex=regex)


def test_find_shows_at_most_200_lines_then_how_many_more(tree: Path) -> None:
    (tree / "many.txt").write_text("needle\n" * (MAX_HITS + 50))
    found = workspace(tree).find("needle").splitlines()
    assert found[0].startswith(f"{MAX_HITS + 50} matching lines")
    assert len(found) == MAX_HITS + 2
    assert found[-1].startswith("… and 50 more matching lines")


def test_a_long_line_is_shown_around_the_match(tree: Path) -> None:
    (tree / "min.js").write_text("x" * 3000 + "needle" + "y" * 3000 + "\n")
    (line,) = workspace(tree).find("needle").splitlines()[1:]
    assert "needle" in line
    assert len(line) < 360


def test_nothing_found_says_how_many_files_were_searched(tree: Path) -> None:
    found = workspace(tree).find("no-such-text-anywhere")
    assert found.startswith("No line contains 'no-such-text-anywhere' (")
    assert "not readable" in found  # the binary and the Latin-1 file


def test_the_listing_is_kept_and_invalidated_by_modification_times(tree: Path) -> None:
    ws = workspace(tree)
    assert "fresh" not in ws.find("target")
    (tree / "src" / "fresh.py").write_text("target = 3\n")
    assert "src/fresh.py:1: target = 3" in ws.find("target")
    (tree / "src" / "fresh.py").write_text("target = 4  # longer\n")
    assert "src/fresh.py:1: target = 4  # longer" in ws.find("target")
    (tree / ".gitignore").write_text("build/\n*.log\n!keep.log\nsrc/fresh.py\n")
    assert "fresh" not in ws.find("target")
    (tree / "sub" / "real.py").unlink()
    assert "sub/real.py" not in ws.find("target")


def test_a_folder_matching_read_exclude_is_excluded_with_everything_in_it(tree: Path) -> None:
    (tree / "keys.pem").mkdir()
    (tree / "keys.pem" / "note.txt").write_text(f"target {SECRET}\n")
    ws = workspace(tree)
    assert "readExclude" in refusal(ws, "keys.pem/note.txt")
    assert SECRET not in ws.find("target")


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="ab \r\n", max_size=40),
    pattern=st.sampled_from(["a", "ab", "b a", "^a", "b$", "a\\s*b", "^$"]),
)
def test_matching_lines_are_the_lines_a_per_line_search_finds(text: str, pattern: str) -> None:
    regex = re.compile(pattern)
    expected = [
        (number, line)
        for number, line in enumerate(line_contents(text), start=1)
        if regex.search(line)
    ]
    found = [(number, line) for number, line, _ in Matcher.of(pattern, True).lines(text)]
    assert found == expected
    if "\\" not in pattern and "^" not in pattern and "$" not in pattern:
        literal = [(n, line) for n, line, _ in Matcher.of(pattern, False).lines(text)]
        assert literal == [(n, line) for n, line in expected]


def test_a_pipe_is_refused_and_never_opened(tree: Path) -> None:
    os.mkfifo(tree / "pipe.py")
    (tree / "pipe-link.py").symlink_to(tree / "pipe.py")
    ws = workspace(tree)
    assert "not a regular file" in refusal(ws, "pipe.py")
    assert "not a regular file" in refusal(ws, "pipe-link.py")
    found = ws.find("target")
    assert "pipe" not in found
