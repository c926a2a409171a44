"""The eval's test runner: a separate, limited Python process per check program."""

from __future__ import annotations

import socket
import textwrap
import time
from pathlib import Path

import pytest

from complex_edit.server.eval.sandbox import CheckResult, Limits, run_check

FAST = Limits(time_seconds=10.0, memory_bytes=512 * 1024 * 1024)


def program(text: str) -> str:
    return textwrap.dedent(text).strip() + "\n"


async def check(text: str, limits: Limits = FAST) -> CheckResult:
    return await run_check(program(text), limits)


def exists_named_in(path: Path) -> bool:
    return Path(path.read_text()).exists()


def all_gone(pids: list[int], within: float) -> bool:
    """SIGKILL is immediate, but an orphan is reaped by init a moment later."""
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


async def test_a_passing_program_passes() -> None:
    result = await check(
        """
        def add(a, b):
            return a + b

        def check():
            assert add(2, 3) == 5

        check()
        """
    )
    assert result.status == "passed"
    assert result.passed
    assert result.exit_code == 0
    assert result.stderr_tail == ""


async def test_an_exception_fails_with_its_traceback_in_the_stderr_tail() -> None:
    result = await check(
        """
        def check():
            raise ValueError("the edit lost the 1e-5 tolerance")

        check()
        """
    )
    assert result.status == "failed"
    assert not result.passed
    assert result.exit_code == 1
    assert "ValueError: the edit lost the 1e-5 tolerance" in result.stderr_tail
    assert 'File "program.py", line 2, in check' in result.stderr_tail


async def test_a_failed_assertion_fails() -> None:
    result = await check("assert [3, 1, 2] == sorted([3, 1, 2]), 'not sorted'\n")
    assert result.status == "failed"
    assert "AssertionError: not sorted" in result.stderr_tail


async def test_an_endless_loop_is_killed_at_the_time_limit_with_its_children(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pids"
    started = time.monotonic()
    result = await check(
        f"""
        import os
        child = os.fork()
        with open({str(pids)!r}, "a") as file:
            file.write(f"{{os.getpid()}}\\n")
        while True:
            pass
        """,
        Limits(time_seconds=1.5),
    )
    assert result.status == "timeout"
    assert not result.passed
    assert 1.4 < result.seconds < 8
    assert time.monotonic() - started < 10
    recorded = [int(line) for line in pids.read_text().split()]
    assert len(recorded) == 2  # the program and its forked child
    assert all_gone(recorded, within=5.0)


async def test_an_unbounded_allocation_ends_in_a_memory_failure() -> None:
    result = await check(
        """
        hoard = []
        while True:
            hoard.append(bytearray(8 * 1024 * 1024))
        """,
        Limits(time_seconds=20.0, memory_bytes=256 * 1024 * 1024),
    )
    assert result.status == "memory"
    assert not result.passed
    assert "MemoryError" in result.stderr_tail


async def test_connecting_to_a_listening_socket_on_this_machine_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        result = await check(
            f"""
            import socket
            with socket.create_connection(("127.0.0.1", {port}), timeout=2) as conn:
                conn.sendall(b"leak")
            """
        )
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever connected
    assert result.status == "failed"
    assert "PermissionError" in result.stderr_tail
    assert "disabled in the eval sandbox" in result.stderr_tail


@pytest.mark.parametrize(
    "attempt",
    [
        "import socket; socket.getaddrinfo('example.com', 443)",
        "import urllib.request; urllib.request.urlopen('http://example.com/', timeout=2)",
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        "s.sendto(b'x', ('127.0.0.1', 9))",
        "import socket; socket.socket().bind(('127.0.0.1', 0))",
        "import subprocess; subprocess.run(['curl', 'http://example.com/'])",
        "import os; os.system('true')",
    ],
    ids=["dns", "urllib", "udp", "bind", "subprocess", "os-system"],
)
async def test_network_and_new_programs_are_refused(attempt: str) -> None:
    result = await check(attempt)
    assert result.status == "failed"
    assert "disabled in the eval sandbox" in result.stderr_tail


async def test_a_network_error_the_program_swallows_still_fails_its_check() -> None:
    result = await check(
        """
        import urllib.request

        def fetch():
            try:
                return urllib.request.urlopen("http://example.com/", timeout=2).read()
            except OSError:
                return None

        def check():
            assert fetch() is not None

        check()
        """
    )
    assert result.status == "failed"
    assert "AssertionError" in result.stderr_tail


async def test_the_parent_environment_is_not_visible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-a-secret-0123456789")
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    result = await check(
        """
        import os, sys
        assert "GEMINI_API_KEY" not in os.environ
        assert not any("not-a-secret" in value for value in os.environ.values())
        assert "/nowhere" not in sys.path
        assert sys.flags.isolated
        """
    )
    assert result.status == "passed", result.stderr_tail


async def test_the_working_directory_is_fresh_and_removed_afterwards(tmp_path: Path) -> None:
    seen = tmp_path / "cwd"
    result = await check(
        f"""
        import os
        names = sorted(name for name in os.listdir(".") if not name.startswith("."))
        assert names == ["program.py"], names
        open("scratch.txt", "w").write("tasks may write files here")
        open({str(seen)!r}, "w").write(os.getcwd())
        """
    )
    assert result.status == "passed", result.stderr_tail
    assert not exists_named_in(seen)


async def test_exiting_before_the_check_returns_does_not_pass() -> None:
    result = await check(
        """
        import sys

        def check():
            assert False

        sys.exit(0)
        check()
        """
    )
    assert result.status == "exited_early"
    assert result.exit_code == 0
    assert not result.passed


async def test_a_program_runs_as_main() -> None:
    result = await check(
        """
        ran = []
        if __name__ == "__main__":
            ran.append(True)
        assert ran
        """
    )
    assert result.passed, result.stderr_tail


async def test_a_missing_module_is_named() -> None:
    result = await check("import no_such_module_for_the_eval\n")
    assert result.status == "failed"
    assert result.missing_module == "no_such_module_for_the_eval"


async def test_flooding_the_output_is_bounded() -> None:
    result = await check(
        """
        import sys
        while True:
            sys.stdout.write("x" * 65536)
        """,
        Limits(time_seconds=20.0, output_bytes=1024 * 1024),
    )
    assert not result.passed
    assert result.status != "timeout"
    assert len(result.stderr_tail) <= 2000
