"""The one table of model-family parameter rules (`server.providers.models`)."""

from __future__ import annotations

import pytest

from complex_edit.server.outcome import RunError
from complex_edit.server.providers.models import family_of, parameters_for
from complex_edit.server.settings import Settings


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("gemini-3.8-flash", "Gemini 3.7/3.8 Flash"),
        ("models/gemini-3.7-flash-001", "Gemini 3.7/3.8 Flash"),
        ("gemini-3.8-flash-preview-09-2026", "Gemini 3.7/3.8 Flash"),
        ("gemini-3.6-flash", "Gemini 3.6 Flash"),
        ("gemini-3.5-flash-lite", "Gemini 3.5 Flash-Lite"),
        ("gemini-3.1-pro-preview", "Gemini 3.1 Pro"),
        ("gemini-3.8-flash-lite", None),
        ("gemini-2.5-flash", None),
        ("gpt-5.4-mini", None),
    ],
)
def test_families(model: str, family: str | None) -> None:
    found = family_of(model)
    assert (found.name if found else None) == family


def test_minimal_is_refused_on_37_and_38_flash_naming_what_to_use() -> None:
    for model in ("gemini-3.8-flash", "gemini-3.7-flash"):
        with pytest.raises(RunError) as caught:
            parameters_for(Settings(thinking_level="minimal"), model)
        assert caught.value.reason == "config"
        assert "thinkingLevel" in caught.value.message
        assert model in caught.value.message
        assert "Use 'low' instead" in caught.value.message


def test_temperature_is_left_out_from_36_on_and_kept_before_and_outside() -> None:
    settings = Settings(temperature=0.3, thinking_level="high")
    for model in ("gemini-3.8-flash", "gemini-3.6-flash"):
        sent = parameters_for(settings, model)
        assert (sent.temperature, sent.thinking_level) == (None, "high")
        assert "deprecated" in sent.notes[0]
    for model in ("gemini-3.5-flash-lite", "gemini-3.1-pro-preview", "local-model"):
        sent = parameters_for(settings, model)
        assert (sent.temperature, sent.notes) == (0.3, ())


def test_nothing_is_sent_that_the_user_did_not_set() -> None:
    sent = parameters_for(Settings(), "gemini-3.8-flash")
    assert (sent.thinking_level, sent.temperature, sent.notes) == (None, None, ())
