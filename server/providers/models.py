"""What each model family accepts, in one table, and the request parameters a run sends.

Rules as Google documents them (checked 2026-11-24; see TECH_NOTES "Gemini models in late 2026"):
a thinking level the family refuses (`minimal` on 3.7/3.8 Flash) ends the run as `config` before
any request; `temperature` is deprecated from 3.6 on and is then not sent (the log says so). A
thinking budget is never sent to any model: the `thinkingLevel` setting is the only thinking
control, and 3.x refuses a budget beside a level (from 3.5 on, a budget at all). A model outside
the table is sent what the user set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from complex_edit.server.outcome import RunError
from complex_edit.server.settings import Settings, ThinkingLevel

# A family's name followed by nothing or a version / preview / date suffix: `gemini-3.8-flash`,
# `gemini-3.8-flash-001`, `gemini-3.1-pro-preview-11-2026`; never a sibling (`...-flash-lite`).
_SUFFIX = r"(-\d{3}|-latest|-preview[-\w.]*|-exp[-\w.]*)?"


@dataclass(frozen=True)
class Family:
    """`levels`: the thinking levels the family accepts (None: not known, sent as set);
    `default_level`: the family's own default; `sampling`: temperature/top_p/top_k are still
    accepted (deprecated from 3.6 on)."""

    name: str
    pattern: str
    levels: tuple[ThinkingLevel, ...] | None
    default_level: ThinkingLevel | None
    sampling: bool

    def matches(self, model: str) -> bool:
        return re.fullmatch(self.pattern + _SUFFIX, model) is not None


FAMILIES: tuple[Family, ...] = (
    Family(
        "Gemini 3.7/3.8 Flash", r"gemini-3\.[78]-flash", ("low", "medium", "high"), "medium", False
    ),
    Family("Gemini 3.6 Flash", r"gemini-3\.6-flash", None, None, False),
    Family("Gemini 3.5 Flash-Lite", r"gemini-3\.5-flash-lite", None, None, True),
    Family("Gemini 3.1 Pro", r"gemini-3\.1-pro", None, "high", True),
)


@dataclass(frozen=True)
class ModelParameters:
    """What a request for `model` carries: `thinking_level` (None: not sent, the model's own
    default) and `temperature` (None: not sent); `include_thoughts`: ask for thought summaries
    (setting `thoughtSummaries`, for models that think: Gemini 2.5 and 3.x); `notes` say what
    was left out and why."""

    model: str
    thinking_level: ThinkingLevel | None
    temperature: float | None
    notes: tuple[str, ...] = ()
    include_thoughts: bool = False


# Models that think and can summarise their thoughts: Gemini 2.5 and every 3.x and later.
_THINKING_MODELS = r"gemini-(2\.5|[3-9]\.\d+)-[-\w.]+"


def thinks(model: str) -> bool:
    return re.fullmatch(_THINKING_MODELS, model.removeprefix("models/").strip().lower()) is not None


def family_of(model: str) -> Family | None:
    name = model.removeprefix("models/").strip().lower()
    return next((family for family in FAMILIES if family.matches(name)), None)


def parameters_for(settings: Settings, model: str) -> ModelParameters:
    """The parameters to send for `model`; `RunError('config')` for a value it refuses."""
    family = family_of(model)
    level = settings.thinking_level
    if family is not None and family.levels is not None and level not in (None, *family.levels):
        instead = family.levels[0]
        raise RunError(
            "config",
            f"The model {model} ({family.name}) refuses thinking level '{level}' (setting "
            f"'thinkingLevel'); it accepts {', '.join(family.levels)}. Use '{instead}' instead, "
            f"or leave thinkingLevel unset for the model's default ({family.default_level}).",
        )
    temperature = settings.temperature
    notes: list[str] = []
    if family is not None and not family.sampling and temperature is not None:
        notes.append(
            f"setting 'temperature' ({temperature:g}) is not sent: it is deprecated for "
            f"{family.name} ({model})"
        )
        temperature = None
    include_thoughts = settings.thought_summaries and thinks(model)
    return ModelParameters(model, level, temperature, tuple(notes), include_thoughts)
