"""Text files on disk for the CLI and MCP front ends: exact reads and atomic, checked writes.

A file is read as bytes and decoded as UTF-8 (a byte-order mark is kept as ``\\ufeff`` at the
start of the text, which the edit tools preserve). NUL bytes or bytes that are not UTF-8 make it
binary and refused; so does a size over the limit. The text keeps its line endings and final
newline as they are, so writing the unchanged text back gives the same bytes.

``write_atomic`` writes a temporary file in the same directory, fsyncs it, gives it the original
mode, checks that the file on disk still holds exactly the bytes that were read (and is still
writable), then renames over it and fsyncs the directory. A crash or kill at any point leaves
the old or the new content, never a mix; a failure leaves the original file byte-identical.

``write_all`` does the same for several files, every file or none: every temporary file is
written first, every file checked next, then each renamed over its file (the old one kept
under a hard link, or a copy where links are not possible); when a rename fails or the
process is interrupted half-way, the files renamed before are put back.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import secrets
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from complex_edit.server.outcome import Reason

BOM = "\ufeff"
TEMP_SUFFIX = ".complex-edit.tmp"
WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


class FileRefused(Exception):
    """The file cannot be edited (missing, not a regular file, binary, too large, unreadable).

    `reason` is a contract reason code; the message names the path, never the content.
    """

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = reason
        self.message = message


class FileChanged(Exception):
    """The file on disk no longer holds the bytes that were read; nothing was written.
    `path`: which file (of several)."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True)
class FileWrite:
    """One file of `write_all`: `data` replaces `path` if it still holds `expected`; the new
    file gets `mode`."""

    path: Path
    data: bytes
    expected: bytes
    mode: int


class WriteFailed(Exception):
    """Writing several files failed at `path` (`cause`), after `renamed` files had been
    replaced. Every file is as it was, except `lost`: files replaced before the failure that
    could not be put back (their old content is kept beside them, in `kept`)."""

    def __init__(
        self,
        path: Path,
        cause: OSError,
        renamed: int = 0,
        lost: Sequence[Path] = (),
        kept: Sequence[str] = (),
    ) -> None:
        super().__init__(f"{path}: {cause}")
        self.path = path
        self.cause = cause
        self.renamed = renamed
        self.lost = tuple(lost)
        self.kept = tuple(kept)


@dataclass(frozen=True)
class TextFile:
    path: Path
    raw: bytes
    text: str
    mode: int

    @property
    def has_bom(self) -> bool:
        return self.raw.startswith(codecs.BOM_UTF8)

    def conform(self, text: str) -> str:
        """`text` starting with a BOM exactly when this file does."""
        body = text[1:] if text.startswith(BOM) else text
        return BOM + body if self.has_bom else body

    def encode(self, text: str) -> bytes:
        """Bytes for `text` in this file's encoding: UTF-8, with a BOM exactly when the file
        had one. Raises UnicodeEncodeError for lone surrogates."""
        return self.conform(text).encode("utf-8")


def read_text_file(path: Path, max_bytes: int, name: str | None = None) -> TextFile:
    """Read `path` as UTF-8 text, refusing what cannot be edited as text.

    `name` is how messages call the file (default: the path)."""
    shown = name or str(path)
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise FileRefused("invalid_request", f"{shown} is not a regular file.")
            if info.st_size > max_bytes:
                raise _too_large(shown, info.st_size, max_bytes)
            raw = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise FileRefused("invalid_request", f"{shown} does not exist.") from None
    except IsADirectoryError:
        raise FileRefused("invalid_request", f"{shown} is a directory, not a file.") from None
    except PermissionError:
        raise FileRefused(
            "invalid_request", f"{shown} cannot be read: permission denied."
        ) from None
    except OSError as exc:
        raise FileRefused("invalid_request", f"{shown} cannot be read: {exc.strerror}.") from None
    if len(raw) > max_bytes:
        raise _too_large(shown, len(raw), max_bytes)
    if b"\x00" in raw:
        raise FileRefused(
            "invalid_request", f"{shown} looks binary (it contains NUL bytes); it is not edited."
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileRefused(
            "invalid_request",
            f"{shown} is not UTF-8 text (invalid byte 0x{raw[exc.start]:02x} at offset "
            f"{exc.start}); binary files and other encodings are not edited.",
        ) from None
    return TextFile(path=path, raw=raw, text=text, mode=stat.S_IMODE(info.st_mode))


def check_writable(path: Path, name: str | None = None) -> None:
    """Refuse early when the file or its directory is read-only.

    The mode bits count as well as `os.access`: root may write anything, but a file (or a
    directory) without a single write bit was made read-only on purpose and is left alone.
    """
    shown = name or str(path)
    if not _writable(path, os.W_OK):
        raise FileRefused("invalid_request", f"{shown} is read-only; it is not edited.")
    if not _writable(path.parent, os.W_OK | os.X_OK):
        raise FileRefused(
            "invalid_request",
            f"The directory of {shown} is read-only; the file cannot be replaced atomically, "
            "so it is not edited.",
        )


def _writable(path: Path, access: int) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & WRITE_BITS) and os.access(path, access)


def write_atomic(path: Path, data: bytes, expected: bytes, mode: int) -> None:
    """Replace `path` with `data` if it still holds exactly `expected`.

    Raises FileChanged (nothing written) when the file changed or disappeared, OSError when the
    file system refuses or the file was made read-only meanwhile; the original file is
    untouched in all cases.
    """
    temp = _temp_copy(path, data, mode)
    try:
        _check_unchanged(path, expected)
        os.replace(temp, path)
    except BaseException:
        _remove(temp)
        raise
    _fsync_directory(path.parent)


def write_all(writes: Sequence[FileWrite]) -> None:
    """Replace every file of `writes` (in order), or none.

    Raises FileChanged (nothing written) when a file changed or disappeared, and WriteFailed
    when the file system refuses (before any file was replaced, or half-way: the files
    replaced before are put back). Interrupted half-way (KeyboardInterrupt), it puts them
    back too before the interruption goes on."""
    temps: list[str] = []
    try:
        for write in writes:
            try:
                temps.append(_temp_copy(write.path, write.data, write.mode))
                _check_unchanged(write.path, write.expected)
            except OSError as exc:
                raise WriteFailed(write.path, exc) from exc
        _rename_all(writes, temps)
    finally:
        for temp in temps:
            _remove(temp)


def _rename_all(writes: Sequence[FileWrite], temps: list[str]) -> None:
    """Rename each temporary file over its file, keeping the old one until all are; on any
    failure put back those already renamed. `temps` are emptied as they are renamed."""
    backups: list[str] = []
    renamed: list[Path] = []
    try:
        for index, write in enumerate(writes):
            backups.append(_backup(write))
            os.replace(temps[index], write.path)
            temps[index] = ""
            renamed.append(write.path)
    except BaseException as exc:
        failed = writes[len(renamed)].path
        lost, kept = _put_back(renamed, backups)
        if not isinstance(exc, OSError):
            raise
        raise WriteFailed(failed, exc, len(renamed), lost, kept) from exc
    for backup in backups:
        _remove(backup)
    for directory in dict.fromkeys(write.path.parent for write in writes):
        _fsync_directory(directory)


def _backup(write: FileWrite) -> str:
    """The file's old content under a new name beside it: a hard link (the same file), or,
    where the file system has none, a copy of the bytes that were read."""
    name = str(write.path.with_name(f".{write.path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"))
    try:
        os.link(write.path, name)
    except OSError:
        return _temp_copy(write.path, write.expected, write.mode)
    return name


def _put_back(renamed: Sequence[Path], backups: Sequence[str]) -> tuple[list[Path], list[str]]:
    """Rename each backup over its renamed file, latest first; the files and backups that
    could not be (their backups are left in place, for the user)."""
    lost: list[Path] = []
    kept: list[str] = []
    for path, backup in reversed(list(zip(renamed, backups, strict=False))):
        try:
            os.replace(backup, path)
        except OSError:
            lost.append(path)
            kept.append(backup)
    for backup in backups[len(renamed) :]:
        _remove(backup)
    return lost, kept


def _temp_copy(path: Path, data: bytes, mode: int) -> str:
    """A new file beside `path` holding `data`, fsynced, with `mode` (and `path`'s owner)."""
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        _keep_owner(temp_name, path)
    except BaseException:
        _remove(temp_name)
        raise
    return temp_name


def _check_unchanged(path: Path, expected: bytes) -> None:
    if _current_bytes(path, len(expected)) != expected:
        raise FileChanged(f"{path} changed on disk while the edit was running.", path)
    if not _writable(path, os.W_OK):
        raise PermissionError(errno.EACCES, "it was made read-only during the edit", str(path))


def _remove(name: str) -> None:
    if name:
        with contextlib.suppress(OSError):
            os.unlink(name)


def _current_bytes(path: Path, expected_size: int) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(expected_size + 1)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _keep_owner(temp_name: str, path: Path) -> None:
    """Give the new file the old file's owner when this process may (root); otherwise the
    new file belongs to whoever runs the edit, as with any editor's atomic save."""
    if not hasattr(os, "chown"):
        return
    try:
        info = os.stat(path)
        mine = os.stat(temp_name)
        if (info.st_uid, info.st_gid) != (mine.st_uid, mine.st_gid):
            os.chown(temp_name, info.st_uid, info.st_gid)
    except OSError:
        pass


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _too_large(shown: str, size: int, limit: int) -> FileRefused:
    return FileRefused(
        "too_large",
        f"{shown} is {size} bytes, over the limit of {limit} bytes (setting maxDocumentBytes).",
    )
