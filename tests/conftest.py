"""Shared fixtures: one emulator per provider per test session, and `model`, the scripted
model of each provider in turn, reset around every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.anthropic_emulator import AnthropicEmulator
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.openai_emulator import OpenAIEmulator
from tests.hypothesis_profiles import load_profile
from tests.session.scripts import PROVIDERS, Harness, harness

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
