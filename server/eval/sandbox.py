"""Run a task's check program in a separate, limited Python process.

The guard is against a model's mistakes (an endless loop, an unbounded allocation, a stray
network call), not against hostile code. Without any privilege:

* **time**: a wall-clock limit; at the limit the whole process group is killed (SIGKILL).
  `RLIMIT_CPU` backs it up inside the child.
* **memory**: `RLIMIT_AS` (address space), so a runaway allocation ends in `MemoryError`.
  Output files are capped with `RLIMIT_FSIZE`; no core dumps.
* **no network, no new programs**: an audit hook (PEP 578, which cannot be removed once
  installed) refuses every socket `connect`, `bind`, `sendto` and `sendmsg`, every name lookup,
  and every `subprocess`/`os.system`/`exec`/`spawn` call with a `PermissionError`.
* **isolation**: `python -I` (no user site, no `PYTHON*` variables, no working directory on
  `sys.path`), a fresh temporary working directory that is deleted afterwards, an environment
  with none of the parent's variables (so no API key), stdin closed.

Limits: the child runs as the same user and can read and write what that user can outside its
directory; code loaded through `ctypes` or a C extension can make system calls the audit hook
never sees; the limits are applied by the child's first statements (before the program runs).
For hostile code, run the eval inside a container or VM as well.

The program passes when it runs to its end and exits with status 0: a bootstrap runs it as
`__main__` and marks completion afterwards, so a program that calls `sys.exit(0)` (or
`os._exit(0)`) before its `check()` returns does not pass.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import re
import secrets
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

CheckStatus = Literal["passed", "failed", "timeout", "memory", "crashed", "exited_early"]

PROGRAM_NAME = "program.py"
STDERR_TAIL_CHARS = 2000
_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")
_MEMORY_HINTS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")

# Runs first in the child (as `python -I -c BOOTSTRAP MEMORY CPU FSIZE MARKER PROGRAM`): limits,
# the audit hook, then the program in `__main__`, then the completion marker.
BOOTSTRAP = r"""
def _sandbox_main():
    import os, resource, sys
    memory, cpu, fsize = (int(value) for value in sys.argv[1:4])
    marker, program = os.path.abspath(sys.argv[4]), sys.argv[5]
    for kind, soft, hard in (
        (resource.RLIMIT_AS, memory, memory),
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_FSIZE, fsize, fsize),
        (resource.RLIMIT_CORE, 0, 0),
    ):
        resource.setrlimit(kind, (soft, hard))

    refused = frozenset({
        "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
        "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr",
        "socket.getnameinfo", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
        "os.spawn", "os.startfile",
    })

    def guard(event, args):
        if event in refused:
            raise PermissionError(
                13, "network access and new processes are disabled in the eval sandbox", event
            )

    sys.addaudithook(guard)
    path = os.path.abspath(program)
    with open(path, encoding="utf-8") as file:
        source = file.read()
    code = compile(source, program, "exec")
    namespace = sys.modules["__main__"].__dict__
    namespace.pop("_sandbox_main", None)
    namespace["__file__"] = path
    sys.argv[:] = [path]
    exec(code, namespace)
    open(marker, "w").close()


_sandbox_main()
"""


@dataclass(frozen=True)
class Limits:
    time_seconds: float = 20.0
    memory_bytes: int = 1024 * 1024 * 1024
    output_bytes: int = 8 * 1024 * 1024


@dataclass(frozen=True)
class CheckResult:
    status: CheckStatus
    seconds: float
    exit_code: int | None
    stderr_tail: str
    attempts: int = 1

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def missing_module(self) -> str | None:
        """The module a failed run could not import, if that is why it failed."""
        if self.status != "failed":
            return None
        found = _MISSING_MODULE.findall(self.stderr_tail)
        return found[-1] if found else None


def child_environment(workdir: str) -> dict[str, str]:
    """Nothing of the parent's environment: no API keys, no proxies, no PYTHON* variables."""
    return {
        "PATH": os.defpath,
        "HOME": workdir,
        "TMPDIR": workdir,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


async def run_check(
    program: str, limits: Limits | None = None, python: str | None = None
) -> CheckResult:
    """Run `program` as `__main__` in a fresh `python -I` process under `limits`."""
    limits = limits or Limits()
    with tempfile.TemporaryDirectory(prefix="complex-edit-eval-") as workdir:
        root = Path(workdir)
        marker = f".done-{secrets.token_hex(8)}"
        out, err = _prepare(root, program)
        started = time.monotonic()
        try:
            process = await asyncio.create_subprocess_exec(
                python or sys.executable,
                "-I",
                "-c",
                BOOTSTRAP,
                str(limits.memory_bytes),
                str(max(1, math.ceil(limits.time_seconds))),
                str(limits.output_bytes),
                marker,
                PROGRAM_NAME,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                cwd=workdir,
                env=child_environment(workdir),
                start_new_session=True,
            )
        finally:
            os.close(out)
            os.close(err)
        timed_out = False
        try:
            await asyncio.wait_for(process.wait(), limits.time_seconds)
        except TimeoutError:
            timed_out = True
        finally:
            _kill_group(process.pid)
            if process.returncode is None:
                await process.wait()
        seconds = time.monotonic() - started
        tail = _tail(root / ".stderr")
        completed = (root / marker).exists()
    return CheckResult(
        status=_classify(process.returncode, completed, timed_out, tail),
        seconds=seconds,
        exit_code=process.returncode,
        stderr_tail=tail,
    )


def _prepare(root: Path, program: str) -> tuple[int, int]:
    """Write the program; open the files that take the child's stdout and stderr."""
    (root / PROGRAM_NAME).write_text(program, encoding="utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    return os.open(root / ".stdout", flags, 0o600), os.open(root / ".stderr", flags, 0o600)


def _kill_group(pid: int) -> None:
    """Kill the child and anything it forked (the child leads its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _tail(path: Path) -> str:
    with open(path, "rb") as file:
        file.seek(0, os.SEEK_END)
        size = file.tell()
        file.seek(max(0, size - STDERR_TAIL_CHARS * 2))
        data = file.read()
    text = data.decode("utf-8", errors="replace")
    return text[-STDERR_TAIL_CHARS:]


def _classify(
    returncode: int | None, completed: bool, timed_out: bool, stderr_tail: str
) -> CheckStatus:
    if timed_out or returncode == -signal.SIGXCPU:
        return "timeout"
    if returncode == 0:
        return "passed" if completed else "exited_early"
    if any(hint in stderr_tail for hint in _MEMORY_HINTS):
        return "memory"
    if returncode is not None and returncode < 0:
        return "crashed"
    return "failed"
