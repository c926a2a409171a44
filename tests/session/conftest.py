"""Helpers to run a session in-process against the emulator through the real SDK."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import SessionEvent
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest, LineRange
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.session.scripts import KEY_VARIABLE, PROVIDERS, Harness

RunFn = Callable[..., Awaitable[tuple[SessionOutcome, list[SessionEvent]]]]
OutcomeFn = Callable[..., Awaitable[SessionOutcome]]


@pytest.fixture
def run(emulator: GeminiEmulator) -> RunFn:
    """`await run(text, instruction, **settings)` → (outcome, events)."""
    provider = GeminiProvider({"GEMINI_API_KEY": TEST_KEY})

    async def _run(
        text: str,
        instruction: str = "edit it",
        *,
        env: dict[str, str] | None = None,
        selection: LineRange | None = None,
        **overrides: Any,
    ) -> tuple[SessionOutcome, list[SessionEvent]]:
        layer = {"baseUrl": emulator.base_url, "requestTimeoutSeconds": 5, **overrides}
        settings = Settings.from_layers({}, layer)
        events: list[SessionEvent] = []
        chosen = GeminiProvider(env) if env is not None else provider
        request = EditRequest(
            instruction=instruction, text=text, settings=settings, selection=selection
        )
        outcome = await run_tool_loop(request, chosen, events.append)
        return outcome, events

    return _run


@pytest.fixture(scope="session")
def hubs() -> dict[str, ProviderHub]:
    """One hub per provider for the whole run: SDK clients take ~150 ms each to build."""
    return {name: ProviderHub({KEY_VARIABLE[name]: TEST_KEY}) for name in PROVIDERS}


@pytest.fixture
def outcome_of(model: Harness, hubs: dict[str, ProviderHub]) -> OutcomeFn:
    """`await outcome_of(text, language=None, **settings)`: "edit it" on `text` through the
    `model` fixture's provider, its real SDK and its emulator."""

    async def _run(text: str, language: str | None = None, **settings: Any) -> SessionOutcome:
        layer: dict[str, Any] = {
            "provider": model.provider,
            "baseUrl": model.base_url,
            "requestTimeoutSeconds": 5,
            **settings,
        }
        request = EditRequest(
            instruction="edit it",
            text=text,
            settings=Settings.from_layers({}, layer),
            language=language,
        )
        return await run_tool_loop(request, hubs[model.provider], lambda _event: None)

    return _run
