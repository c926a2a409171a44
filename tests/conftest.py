"""Shared fixtures: one Gemini emulator per test session, reset for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.gemini_emulator import GeminiEmulator
from tests.hypothesis_profiles import load_profile

load_profile()  # HYPOTHESIS_PROFILE=ci → 2,000 examples per property; default "dev" → 150

TEST_KEY = "test-key-not-a-secret-0123456789"


@pytest.fixture(scope="session")
def emulator_server() -> Iterator[GeminiEmulator]:
    with GeminiEmulator() as emu:
        yield emu


@pytest.fixture
def emulator(emulator_server: GeminiEmulator) -> Iterator[GeminiEmulator]:
    emulator_server.reset()
    yield emulator_server
    emulator_server.reset()
