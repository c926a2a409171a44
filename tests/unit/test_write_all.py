"""Writing several files every one or none (server/edit/files.py `write_all`), on real files:
the temporary files first, every file checked, then the renames; a failure or an interruption
half-way puts back the files already replaced."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from complex_edit.server.edit import files
from complex_edit.server.edit.files import FileChanged, FileWrite, WriteFailed, write_all

OLD = {"a.py": b"a = 1\n", "sub/b.py": b"b = 1\r\n", "sub/c.txt": b"\xef\xbb\xbfc\n"}
NEW = {"a.py": b"a = 2\n", "sub/b.py": b"b = 2\r\n", "sub/c.txt": b"\xef\xbb\xbfC\n"}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    for name, data in OLD.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "sub" / "b.py").chmod(0o600)
    return tmp_path


def writes(root: Path) -> list[FileWrite]:
    return [
        FileWrite(root / name, NEW[name], OLD[name], (root / name).stat().st_mode & 0o777)
        for name in OLD
    ]


def contents(root: Path) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in OLD}


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*.tmp"))


def test_every_file_is_written_with_its_mode(tree: Path) -> None:
    write_all(writes(tree))
    assert contents(tree) == NEW
    assert (tree / "sub" / "b.py").stat().st_mode & 0o777 == 0o600
    assert leftovers(tree) == []


@pytest.mark.parametrize("how", ["changed", "deleted", "directory"])
def test_a_file_changed_on_disk_means_nothing_is_written(tree: Path, how: str) -> None:
    planned = writes(tree)
    target = tree / "sub" / "c.txt"
    if how == "changed":
        target.write_bytes(b"the user's\n")
    else:
        target.unlink()
        if how == "directory":
            target.mkdir()
    with pytest.raises(FileChanged) as caught:
        write_all(planned)
    assert caught.value.path == target
    assert (tree / "a.py").read_bytes() == OLD["a.py"]
    assert (tree / "sub" / "b.py").read_bytes() == OLD["sub/b.py"]
    assert leftovers(tree) == []


def test_a_folder_that_cannot_take_a_file_means_nothing_is_written(tree: Path) -> None:
    planned = [*writes(tree), FileWrite(tree / "gone" / "d.py", b"d\n", b"", 0o644)]
    with pytest.raises(WriteFailed) as caught:
        write_all(planned)
    assert caught.value.renamed == 0
    assert caught.value.path == tree / "gone" / "d.py"
    assert contents(tree) == OLD
    assert leftovers(tree) == []


def _failing_rename(
    monkeypatch: pytest.MonkeyPatch, at: int, fault: Callable[[str], None]
) -> list[int]:
    """os.replace, with `fault` run once, on its destination, before the `at`-th rename of a
    temporary file over a file (0-based; putting a file back counts too, and runs as is)."""
    real = os.replace
    seen: list[int] = []

    def replace(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
        if str(source).endswith(files.TEMP_SUFFIX) and not str(destination).endswith(
            files.TEMP_SUFFIX
        ):
            seen.append(len(seen))
            if len(seen) == at + 1:
                fault(str(destination))
        real(source, destination)

    monkeypatch.setattr(os, "replace", replace)
    return seen


def _into_a_directory(path: str) -> None:
    """The file is replaced by a folder with something inside: a rename over it fails."""
    os.unlink(path)
    os.mkdir(path)
    Path(path, "inside.txt").write_text("x\n")


def test_a_rename_failing_half_way_puts_back_the_files_replaced_before(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inodes = {name: (tree / name).stat().st_ino for name in OLD}
    _failing_rename(monkeypatch, 2, _into_a_directory)
    with pytest.raises(WriteFailed) as caught:
        write_all(writes(tree))
    failed = caught.value
    assert (failed.path, failed.renamed, failed.lost) == (tree / "sub" / "c.txt", 2, ())
    assert isinstance(failed.cause, IsADirectoryError)
    assert (tree / "a.py").read_bytes() == OLD["a.py"]
    assert (tree / "sub" / "b.py").read_bytes() == OLD["sub/b.py"]
    # put back as the same files (their hard links), with their modes
    assert (tree / "a.py").stat().st_ino == inodes["a.py"]
    assert (tree / "sub" / "b.py").stat().st_mode & 0o777 == 0o600
    assert leftovers(tree) == []


def test_an_interrupt_half_way_puts_back_the_files_replaced_before(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(_: str) -> None:
        raise KeyboardInterrupt

    _failing_rename(monkeypatch, 1, interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_all(writes(tree))
    assert contents(tree) == OLD
    assert leftovers(tree) == []
