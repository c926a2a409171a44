"""Running one session in-process against a provider's wire emulator (helpers shared by the
transport and model-output fault tests)."""

from __future__ import annotations

from typing import Any, get_args

from complex_edit.server.outcome import Reason, SessionOutcome
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import SessionEvent
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.session.scripts import KEY_VARIABLE

CONTRACT_REASONS: frozenset[str] = frozenset(get_args(Reason))


_HUBS: dict[str, ProviderHub] = {}


def hub_for(provider: str) -> ProviderHub:
    """One hub per provider for the whole run (SDK clients are slow to build)."""
    if provider not in _HUBS:
        _HUBS[provider] = ProviderHub({KEY_VARIABLE[provider]: TEST_KEY})
    return _HUBS[provider]


async def run_model(
    provider: str,
    base_url: str,
    text: str,
    instruction: str = "edit it",
    *,
    events: list[SessionEvent] | None = None,
    hub: ProviderHub | None = None,
    **overrides: Any,
) -> SessionOutcome:
    layer = {
        "provider": provider,
        "baseUrl": base_url,
        "requestTimeoutSeconds": 5,
        "maxRetries": 2,
        **overrides,
    }
    settings = Settings.from_layers({}, layer)
    request = EditRequest(instruction=instruction, text=text, settings=settings)
    sink = events.append if events is not None else (lambda _event: None)
    return await run_tool_loop(request, hub or hub_for(provider), sink)


def assert_failed_cleanly(outcome: SessionOutcome, reason: str | None = None) -> None:
    """A failure with a contract reason and a readable message; nothing to apply."""
    assert not outcome.success, outcome
    assert outcome.final_text is None, "a failed run carries a result"
    assert outcome.reason in CONTRACT_REASONS, outcome
    if reason is not None:
        assert outcome.reason == reason, outcome
    assert outcome.error, outcome
    assert TEST_KEY not in outcome.error
    assert "Traceback" not in outcome.error
