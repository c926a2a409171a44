"""Reading a file for the model: its bytes without blocking (a file replaced by a pipe cannot
hang a search), UTF-8 or refused, and the checks of a find_in_files pattern and glob."""

from __future__ import annotations

import os
import re
import stat
import time

from pathspec import GitIgnoreSpec

from complex_edit.server.workspace.rules import Refused
from complex_edit.server.workspace.search import Matcher
from complex_edit.server.workspace.tree import racy

# Contents kept between find_in_files calls of one command, at most this many bytes.
CACHED_BYTES = 128_000_000


def read_regular(path: str, limit: int) -> tuple[bytes, os.stat_result] | None:
    """The bytes of the regular file at `path` and its stat, None when it is not a regular
    file (any more) or holds more than `limit` bytes. Opened without blocking: a file replaced
    by a pipe since it was listed cannot hang the search."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        total = 0
        want = info.st_size + 1
        while chunk := os.read(fd, want):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                return None
            want = 1 << 20
        return b"".join(chunks), info
    finally:
        os.close(fd)


def pattern_matcher(pattern: str, regex: bool) -> Matcher:
    if not pattern:
        raise Refused("pattern is empty; give the text to look for.")
    if "\n" in pattern or "\r" in pattern:
        raise Refused("pattern holds a line break; find_in_files matches within one line.")
    try:
        return Matcher.of(pattern, regex)
    except re.error as exc:
        raise Refused(f"pattern is not a valid regular expression: {exc}.") from None


def glob_spec(glob: str | None) -> GitIgnoreSpec | None:
    if glob is None or not glob.strip():
        return None
    return GitIgnoreSpec.from_lines([glob.strip()])


def text_of(data: bytes) -> str | None:
    """The UTF-8 text `data` holds, None for binary (NUL bytes) or other encodings."""
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decoded(data: bytes, label: str) -> str:
    """`_text_of`, or the refusal that names why there is none."""
    text = text_of(data)
    if text is None:
        if b"\x00" in data:
            raise binary(label)
        raise Refused(f"{label} is not UTF-8 text; it is not read.")
    return text


def binary(label: str) -> Refused:
    return Refused(f"{label} looks binary (it holds NUL bytes); it is not read.")


def too_large(label: str, limit: int) -> Refused:
    return Refused(f"{label} is over {limit:,} bytes (setting maxDocumentBytes); it is not read.")


def relative(real: str, folder: str) -> str | None:
    """`real` relative to `folder` with forward slashes ("" for the folder itself), or None
    when it is not inside."""
    if real == folder:
        return ""
    if real.startswith(folder.rstrip(os.sep) + os.sep):
        return real[len(folder.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
    return None


class Contents:
    """The texts find_in_files read over one command, kept up to CACHED_BYTES."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._kept: dict[str, tuple[int, int, str | None]] = {}
        self._bytes = 0

    def text(self, path: str) -> str | None:
        """The file's text, None when it cannot be searched (gone, not a regular file, over
        maxDocumentBytes, binary, not UTF-8). Kept, up to CACHED_BYTES, while the file's time
        and size stay, unless it changed too recently for the next change to show."""
        cached = self._kept.get(path)
        if cached is not None:
            try:
                info = os.stat(path)
            except OSError:
                return None
            if cached[:2] == (info.st_mtime_ns, info.st_size):
                return cached[2]
            del self._kept[path]
            self._bytes -= cached[1]
        try:
            read = read_regular(path, self._max_bytes)
        except OSError:
            return None
        if read is None:
            return None
        data, info = read
        text = text_of(data)
        if self._bytes + len(data) <= CACHED_BYTES and not racy(info.st_mtime_ns, time.time_ns()):
            self._kept[path] = (info.st_mtime_ns, info.st_size, text)
            self._bytes += info.st_size
        return text
