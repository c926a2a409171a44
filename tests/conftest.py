"""Shared fixtures: one emulator per provider per test session, and `model`, the scripted
model of each provider in turn, reset around every test."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

import pytest

from tests.fakes.anthropic_emulator import AnthropicEmulator
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.openai_emulator import OpenAIEmulator
from tests.hypothesis_profiles import load_profile
from tests.leftovers import mark_run, sweep
from tests.session.scripts import PROVIDERS, Harness, harness


class _BareFolderNames(MetaPathFinder):
    """The repository's folders are installed as `complex_edit.*`. The repository root is on
    `sys.path` while the tests run, so `server.x` would import a second copy of a module (a
    monkeypatch aimed at it would silently miss): refuse the bare names."""

    BARE = frozenset({"server", "edit_tools", "prompts"})

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname.split(".")[0] in self.BARE:
            raise ModuleNotFoundError(f"import complex_edit.{fullname}, not {fullname}")
        return None


sys.meta_path.insert(0, _BareFolderNames())
load_profile()  # HYPOTHESIS_PROFILE=ci → 2,000 examples per property; default "dev" → 150

TEST_KEY = "test-key-not-a-secret-0123456789"
_RUN_MARKER = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RUN_MARKER] = mark_run()
    # The edit history goes to the user's state directory: for the tests (and every server,
    # editor and CLI they start, which inherit it), a folder of their own.
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="complex-edit-tests-state-")
    os.environ.pop("COMPLEX_EDIT_HISTORY_DIR", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(os.environ.get("XDG_STATE_HOME", ""), ignore_errors=True)


@pytest.hookimpl(trylast=True)  # after the session-scoped fixtures are torn down
def pytest_sessionfinish(session: pytest.Session) -> None:
    """A process the tests leave behind (a server that did not exit when its editor went
    away, a Neovim a failed test did not end) is killed, and fails the run: a warning would
    scroll by, and such a process burns a core on the machine of whoever runs the tests."""
    marker = session.config.stash.get(_RUN_MARKER, None)
    if marker is None:
        return
    leftovers = sweep(marker)
    if not leftovers:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.line("")
        reporter.write_sep(
            "=", "processes left behind by the tests: killed, and the run fails", red=True
        )
        for leftover in leftovers:
            reporter.write_line(str(leftover))
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def emulator_server() -> Iterator[GeminiEmulator]:
    with GeminiEmulator() as emu:
        yield emu


@pytest.fixture
def emulator(emulator_server: GeminiEmulator) -> Iterator[GeminiEmulator]:
    emulator_server.reset()
    yield emulator_server
    emulator_server.reset()


@pytest.fixture(scope="session")
def openai_server() -> Iterator[OpenAIEmulator]:
    with OpenAIEmulator() as emu:
        yield emu


@pytest.fixture(scope="session")
def anthropic_server() -> Iterator[AnthropicEmulator]:
    with AnthropicEmulator() as emu:
        yield emu


@pytest.fixture(params=PROVIDERS)
def model(
    request: pytest.FixtureRequest,
    emulator: GeminiEmulator,
    openai_server: OpenAIEmulator,
    anthropic_server: AnthropicEmulator,
) -> Iterator[Harness]:
    """The scripted model of one provider, reset around the test."""
    chosen = harness(
        request.param,
        gemini_emulator=emulator,
        openai_emulator=openai_server,
        anthropic_emulator=anthropic_server,
    )
    chosen.reset()
    yield chosen
    chosen.reset()
