"""A real `emacs -nw` in a pseudo-terminal, driven with keys, for tests/e2e/test_emacs.py.

Emacs loads `tests/e2e/emacs/harness.el` (the package set up by a block of its README, as a
user would, plus events in `events.jsonl`) and opens one file; eglot (or lsp-mode) starts the
venv's `complex-edit lsp`.
The test types keys into the terminal and waits on events, never on fixed sleeps.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

HARNESS = Path(__file__).parent / "emacs" / "harness.el"
REPOSITORY = Path(__file__).resolve().parents[2]
CLIENT_DIR = REPOSITORY / "emacs-client"
# The set-up blocks of emacs-client/README.md the tests load, by the marker line above each.
SETUP_REQUIRE = "tests/e2e/test_emacs.py loads this block"
SETUP_USE_PACKAGE = "tests/e2e/test_emacs.py loads this block with use-package"
# Where the README's blocks say the repository is cloned.
README_CHECKOUT = "~/src/complex-edit"
EVENT_TIMEOUT = 20.0
ROWS, COLUMNS = 30, 120

KEYS = {"RET": "\r", "C-g": "\x07", "C-_": "\x1f", "M-x": "\x1bx", "C-SPC": "\x00"}


def find_emacs() -> str | None:
    return shutil.which("emacs")


def missing_packages(emacs: str, features: tuple[str, ...]) -> list[str]:
    """The features (eglot, lsp-mode) this Emacs cannot load, site packages included."""
    missing = []
    for feature in features:
        probe = subprocess.run(
            [emacs, "--batch", "-q", "--eval", f"(require '{feature})"],
            capture_output=True,
            timeout=30,
            check=False,
        )
        if probe.returncode != 0:
            missing.append(feature)
    return missing


def readme_setup(marker: str, into: Path) -> Path:
    """The init file a user makes from emacs-client/README.md: the elisp block under
    `<!-- MARKER -->`, verbatim but for the checkout's place, written to INTO/init.el."""
    text = (CLIENT_DIR / "README.md").read_text(encoding="utf-8")
    after = text.split(f"<!-- {marker} -->\n", 1)
    block = re.match(r"```elisp\n(.*?)```", after[1], re.DOTALL) if len(after) == 2 else None
    if block is None:
        raise AssertionError(f"emacs-client/README.md has no elisp block under <!-- {marker} -->")
    init = into / "init.el"
    init.write_text(block[1].replace(README_CHECKOUT, str(REPOSITORY)), encoding="utf-8")
    return init


def server_executable() -> Path:
    return Path(sys.executable).parent / "complex-edit"


def _controlling_terminal() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class EmacsTerminal:
    """One `emacs -nw` process on a pseudo-terminal; its screen output is drained, not read."""

    def __init__(self, emacs: str, file: Path, out: Path, env: Mapping[str, str]) -> None:
        self.out = out
        self.events_file = out / "events.jsonl"
        self.seen = 0
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.proc = subprocess.Popen(
            [emacs, "-nw", "-q", "-l", str(HARNESS), str(file)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=file.parent,
            env=dict(env),
            preexec_fn=_controlling_terminal,  # the pty becomes its controlling terminal
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.screen = bytearray()
        self._reader = threading.Thread(target=self._drain, daemon=True, name="emacs-pty")
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.screen.extend(chunk)
            del self.screen[:-200_000]

    # -- keys ----------------------------------------------------------------------------

    def keys(self, *sequence: str) -> None:
        """Type each item: a name from KEYS (RET, C-g, M-x, ...) or literal text."""
        for item in sequence:
            os.write(self.master, KEYS.get(item, item).encode())
            time.sleep(0.02)  # one terminal read per key, as a person types

    def command(self, name: str, *answers: str) -> None:
        """M-x NAME RET, then each minibuffer answer followed by RET."""
        self.keys("M-x", name, "RET")
        for answer in answers:
            self.keys(answer, "RET")

    # -- events --------------------------------------------------------------------------

    def events(self) -> list[dict[str, Any]]:
        if not self.events_file.exists():
            return []
        lines = self.events_file.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def wait_event(
        self,
        name: str,
        within: float = EVENT_TIMEOUT,
        where: Callable[[dict[str, Any]], bool] = lambda _: True,
    ) -> dict[str, Any]:
        """The next event NAME after the ones already waited for."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            events = self.events()
            for index in range(self.seen, len(events)):
                if events[index]["event"] == name and where(events[index]):
                    self.seen = index + 1
                    return events[index]
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(
            f"no {name!r} event within {within:g} s; events: {self.events()}\n"
            f"screen (tail): {self.screen[-1500:].decode('utf-8', 'replace')!r}"
        )

    def wait_screen(self, text: str, within: float = EVENT_TIMEOUT) -> None:
        """Until Emacs has drawn TEXT (in one piece) on the terminal."""
        deadline = time.monotonic() + within
        while text.encode() not in self.screen:
            if time.monotonic() > deadline:
                tail = self.screen[-1500:].decode("utf-8", "replace")
                raise AssertionError(f"{text!r} never drawn within {within:g} s: {tail!r}")
            time.sleep(0.02)

    def dump(self) -> dict[str, Any]:
        self.command("ce-test-dump")
        return self.wait_event("state")

    # -- end -----------------------------------------------------------------------------

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.command("ce-test-quit")
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        with contextlib.suppress(OSError):
            os.close(self.master)
        self._reader.join(timeout=2)
