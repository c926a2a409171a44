"""Reading text files exactly and replacing them atomically (server/edit/files.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from complex_edit.server.edit.files import (
    FileChanged,
    FileRefused,
    check_writable,
    read_text_file,
    write_atomic,
)

LIMIT = 1_000_000

SAMPLES = {
    "lf": b"def f():\n    return 1\n",
    "crlf": b"one\r\ntwo\r\n",
    "lone-cr": b"one\rtwo\r",
    "mixed": b"a\r\nb\nc\rd",
    "bom": b"\xef\xbb\xbfhello\r\nworld\r\n",
    "bom-only": b"\xef\xbb\xbf",
    "no-final-newline": b"last line",
    "empty": b"",
    "form-feed-and-friends": "x\f\v\x1c\x85\u2028y\n".encode(),
    "astral": "caf\u00e9 \U0001f600\u200d\U0001f469\n".encode(),
}


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_read_then_encode_gives_the_same_bytes(tmp_path: Path, name: str) -> None:
    raw = SAMPLES[name]
    path = tmp_path / "f.txt"
    path.write_bytes(raw)
    document = read_text_file(path, LIMIT)
    assert document.raw == raw
    assert document.encode(document.text) == raw


def test_bom_is_kept_in_the_text_and_line_endings_are_untouched(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(SAMPLES["bom"])
    document = read_text_file(path, LIMIT)
    assert document.text == "\ufeffhello\r\nworld\r\n"
    assert document.has_bom


def test_encode_keeps_the_files_bom_choice(tmp_path: Path) -> None:
    with_bom = tmp_path / "bom.txt"
    with_bom.write_bytes(b"\xef\xbb\xbfa\n")
    without = tmp_path / "plain.txt"
    without.write_bytes(b"a\n")
    # a result that lost the BOM gets it back; a result that gained one loses it
    assert read_text_file(with_bom, LIMIT).encode("b\n") == b"\xef\xbb\xbfb\n"
    assert read_text_file(without, LIMIT).encode("\ufeffb\n") == b"b\n"
    assert read_text_file(with_bom, LIMIT).conform("b\n") == "\ufeffb\n"
    assert read_text_file(without, LIMIT).conform("\ufeffb\n") == "b\n"


def test_lone_surrogate_cannot_be_encoded(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"a\n")
    with pytest.raises(UnicodeEncodeError):
        read_text_file(path, LIMIT).encode("a\ud800\n")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"PK\x03\x04\x00\x00binary", "NUL"),
        (b"caf\xe9 latin-1\n", "not UTF-8"),
        (b"\xff\xfeh\x00i\x00", "NUL"),  # UTF-16 has NUL bytes: refused as binary
    ],
)
def test_binary_and_non_utf8_are_refused(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(content)
    with pytest.raises(FileRefused) as caught:
        read_text_file(path, LIMIT)
    assert caught.value.reason == "invalid_request"
    assert words in caught.value.message


def test_size_limit_is_inclusive(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"x" * 100)
    assert read_text_file(path, 100).text == "x" * 100
    with pytest.raises(FileRefused) as caught:
        read_text_file(path, 99)
    assert caught.value.reason == "too_large"
    assert "100 bytes" in caught.value.message
    assert "maxDocumentBytes" in caught.value.message


def test_missing_file_and_directory_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="does not exist"):
        read_text_file(tmp_path / "nope.txt", LIMIT)
    with pytest.raises(FileRefused, match="directory"):
        read_text_file(tmp_path, LIMIT)


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_write_atomic_replaces_content_and_keeps_mode(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"old\r\n")
    path.chmod(mode)
    write_atomic(path, b"new\r\n", b"old\r\n", mode)
    assert path.read_bytes() == b"new\r\n"
    assert path.stat().st_mode & 0o7777 == mode
    assert _leftovers(tmp_path) == []


def test_write_atomic_refuses_when_the_file_changed(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"someone else wrote this\n")
    with pytest.raises(FileChanged):
        write_atomic(path, b"ours\n", b"what we read\n", 0o644)
    assert path.read_bytes() == b"someone else wrote this\n"
    assert _leftovers(tmp_path) == []


def test_write_atomic_refuses_when_the_file_grew_by_an_appended_byte(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"read\n!")
    with pytest.raises(FileChanged):
        write_atomic(path, b"ours\n", b"read\n", 0o644)
    assert path.read_bytes() == b"read\n!"


def test_write_atomic_refuses_when_the_file_was_deleted(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    with pytest.raises(FileChanged):
        write_atomic(path, b"ours\n", b"read\n", 0o644)
    assert not path.exists()
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("mode", [0o444, 0o400, 0o000, 0o555])
def test_a_file_without_a_write_bit_is_read_only_even_for_root(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"x\n")
    path.chmod(mode)
    with pytest.raises(FileRefused, match=r"f\.txt is read-only") as refused:
        check_writable(path, "f.txt")
    assert refused.value.reason == "invalid_request"


@pytest.mark.parametrize("mode", [0o555, 0o500])
def test_a_directory_without_a_write_bit_is_read_only_even_for_root(
    tmp_path: Path, mode: int
) -> None:
    directory = tmp_path / "locked"
    directory.mkdir()
    path = directory / "f.txt"
    path.write_bytes(b"x\n")
    directory.chmod(mode)
    try:
        with pytest.raises(FileRefused, match=r"directory of f\.txt is read-only"):
            check_writable(path, "f.txt")
    finally:
        directory.chmod(0o755)


@pytest.mark.parametrize("mode", [0o644, 0o600, 0o200, 0o464])
def test_a_file_with_a_write_bit_in_a_writable_directory_is_accepted(
    tmp_path: Path, mode: int
) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"x\n")
    path.chmod(mode)
    if os.geteuid() != 0 and not os.access(path, os.W_OK):
        pytest.skip("only root may write a file whose owner has no write bit")
    check_writable(path, "f.txt")


def test_write_atomic_refuses_a_file_made_read_only_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"read\n")
    path.chmod(0o444)
    with pytest.raises(PermissionError, match="made read-only"):
        write_atomic(path, b"ours\n", b"read\n", 0o644)
    assert path.read_bytes() == b"read\n"
    assert path.stat().st_mode & 0o777 == 0o444
    assert _leftovers(tmp_path) == []


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from complex_edit.server.edit.files import write_atomic

    path = Path(sys.argv[1])
    contents = [b"A" * 4_000_000 + b"\\n", b"B" * 3_000_000 + b"\\n"]
    current = path.read_bytes()
    index = 0
    while True:
        index = 1 - index
        write_atomic(path, contents[index], current, 0o644)
        current = contents[index]
        print("wrote", flush=True)
    """
)


@pytest.mark.parametrize("writes_before_kill", [1, 3, 6])
def test_kill_during_writes_leaves_old_or_new_content(
    tmp_path: Path, writes_before_kill: int
) -> None:
    """SIGKILL while a process keeps replacing a file: the file is always one whole version."""
    path = tmp_path / "big.txt"
    versions = {b"start\n", b"A" * 4_000_000 + b"\n", b"B" * 3_000_000 + b"\n"}
    path.write_bytes(b"start\n")
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        assert child.stdout is not None
        for _ in range(writes_before_kill):
            assert child.stdout.readline() == b"wrote\n"
        child.kill()  # lands somewhere inside the next write
    finally:
        child.kill()
        child.wait(timeout=10)
    assert path.read_bytes() in versions
    assert os.stat(path).st_mode & 0o777 == 0o644
