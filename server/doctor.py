"""What the server would use for an edit, as one object: `complex-edit doctor [--json]` prints
it, the LSP command `complexEdit.doctor` answers it (with the settings that client gives).

Version, provider, the model and its family's rules, the key (present or not and the variable's
name, never its value), the base URL, every setting with the layer it came from, the syntax
languages, and the problems that would make every edit fail with `config`. Pure: the caller
passes the environment and the settings layers; nothing here reads a key's value out.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from complex_edit.edit_tools.syntax.languages import GRAMMARS
from complex_edit.server import __version__
from complex_edit.server.outcome import RunError, scrub
from complex_edit.server.providers.access import (
    ACCESS,
    VERTEX_VARIABLE,
    base_url,
    base_url_variable,
    key_status,
)
from complex_edit.server.providers.base import effective_model
from complex_edit.server.providers.models import family_of, parameters_for, thinks
from complex_edit.server.settings import Settings, ThinkingLevel

DEFAULT_SOURCE = "default"
# The providers that apply the model-family rules (`models.parameters_for`) before a request.
_FAMILY_RULES = frozenset({"gemini"})


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class SettingReport(_Wire):
    """`source`: "default", an environment variable, a flag, or an editor's layer and key."""

    name: str
    value: Any
    source: str


class ModelReport(_Wire):
    """`name`: the model a run asks for (the provider's own default when `model` is left at
    its default); `family`: the family whose rules apply (None: no known rules, everything is
    sent as set); `thinking_levels`: the levels it accepts (None: not known);
    `thinking_level`: the one set (None: not sent, the model's own default)."""

    name: str
    family: str | None = None
    thinking_levels: list[ThinkingLevel] | None = None
    default_thinking_level: ThinkingLevel | None = None
    thinking_level: ThinkingLevel | None = None
    temperature_sent: bool = True
    thought_summaries: bool = False


class KeyReport(_Wire):
    """`variable`: the variable whose key is used; `ignored`: other key variables also set;
    `vertex`: Gemini through Vertex AI (no key); `needed`: a key is missing and the provider
    needs one (every edit fails with `config`)."""

    present: bool
    variable: str | None = None
    variables: list[str]
    ignored: list[str] = []
    vertex: bool = False
    needed: bool = False


class BaseUrlReport(_Wire):
    """`url`: None means the SDK's default service; `source`: a settings layer or `variable`."""

    url: str | None = None
    source: str | None = None
    variable: str


class Doctor(_Wire):
    version: str
    python: str
    executable: str
    provider: str
    providers: list[str]
    model: ModelReport
    key: KeyReport
    base_url: BaseUrlReport
    settings: list[SettingReport]
    syntax_languages: list[str]
    problems: list[str] = []
    notes: list[str] = []

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def examine(env: Mapping[str, str], *layers: Mapping[str, Any] | None) -> Doctor:
    """The report for the environment `env` and the settings `layers` (as `from_layers`)."""
    settings, origins, problem = Settings.traced_leniently(env, *layers)
    problems = [problem] if problem else []
    provider = settings.provider
    url = base_url(provider, settings.base_url, env)
    url_variable = base_url_variable(provider, env)
    url_source = (origins.get("base_url") or "baseUrl") if settings.base_url else url_variable
    key = key_status(provider, env, url)
    if key.missing:
        problems.append(_missing_key(provider, url_variable))
    model, notes = _model(settings, provider, problems)
    return Doctor(
        version=__version__,
        python=platform.python_version(),
        executable=sys.executable,
        provider=provider,
        providers=list(ACCESS),
        model=model,
        key=KeyReport(
            present=key.variable is not None,
            variable=key.variable,
            variables=list(ACCESS[provider].key_variables),
            ignored=list(key.ignored),
            vertex=key.vertex,
            needed=key.missing,
        ),
        base_url=BaseUrlReport(
            url=scrub(url, env) if url else None,
            source=url_source if url else None,
            variable=url_variable,
        ),
        settings=_settings(settings, origins, env),
        syntax_languages=sorted(GRAMMARS),
        problems=[scrub(text, env) for text in problems],
        notes=notes,
    )


def _model(settings: Settings, provider: str, problems: list[str]) -> tuple[ModelReport, list[str]]:
    """The model a run uses and its rules; a refused value joins `problems`."""
    name = effective_model(settings, ACCESS[provider].default_model)
    family = family_of(name) if provider in _FAMILY_RULES else None
    notes: list[str] = []
    temperature_sent = settings.temperature is not None
    if family is not None:
        allowed = settings
        try:
            parameters_for(settings, name)
        except RunError as refused:
            problems.append(refused.message)
            allowed = settings.model_copy(update={"thinking_level": None})
        parameters = parameters_for(allowed, name)
        notes.extend(parameters.notes)
        temperature_sent = parameters.temperature is not None
    report = ModelReport(
        name=name,
        family=family.name if family else None,
        thinking_levels=list(family.levels) if family and family.levels else None,
        default_thinking_level=family.default_level if family else None,
        thinking_level=settings.thinking_level,
        temperature_sent=temperature_sent,
        thought_summaries=settings.thought_summaries and thinks(name),
    )
    return report, notes


def _missing_key(provider: str, url_variable: str) -> str:
    access = ACCESS[provider]
    names = " or ".join(access.key_variables)
    text = f"No API key for provider {provider}: set {names} in the server's environment"
    if access.key_optional_with_base_url:
        text += f", or point baseUrl (or {url_variable}) at a server that needs none"
    if provider == "gemini":
        text += f", or use Vertex AI ({VERTEX_VARIABLE}=true)"
    return text + "; until then every edit fails with reason 'config'."


def _settings(
    settings: Settings, origins: Mapping[str, str], env: Mapping[str, str]
) -> list[SettingReport]:
    values = settings.model_dump(mode="json", by_alias=True)
    return [
        SettingReport(
            name=info.alias or field,
            value=_shown(values[info.alias or field], env),
            source=origins.get(field) or DEFAULT_SOURCE,
        )
        for field, info in Settings.model_fields.items()
    ]


def _shown(value: Any, env: Mapping[str, str]) -> Any:
    return scrub(value, env) if isinstance(value, str) else value


def render(doctor: Doctor) -> str:
    """The report as text for a terminal."""
    setting = {item.name: item for item in doctor.settings}
    lines = [
        f"complex-edit {doctor.version} (Python {doctor.python}, {doctor.executable})",
        f"provider   {doctor.provider} ({_from(setting['provider'].source)})",
        f"model      {doctor.model.name} ({_from(setting['model'].source)})",
        *(f"           {line}" for line in _rules(doctor.model)),
        f"key        {_key(doctor.key)}",
        f"base URL   {_base_url(doctor.base_url)}",
        f"syntax     {', '.join(doctor.syntax_languages)} (validate: {setting['validate'].value})",
        "settings",
    ]
    width = max(len(item.name) for item in doctor.settings)
    for item in doctor.settings:
        shown = "unset" if item.value is None else _value(item.value)
        lines.append(f"  {item.name:<{width}}  {shown:<20}  {_from(item.source)}")
    for title, texts in (("notes", doctor.notes), ("problems", doctor.problems)):
        if texts:
            lines.append(title)
            lines.extend(f"  {text}" for text in texts)
    if not doctor.problems:
        lines.append("no problems found")
    return "\n".join(lines) + "\n"


def _from(source: str) -> str:
    return source if source == DEFAULT_SOURCE else f"from {source}"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return str(value)


def _rules(model: ModelReport) -> list[str]:
    if model.family is None:
        return ["no known rules for this model: every setting is sent as set"]
    levels = ", ".join(model.thinking_levels) if model.thinking_levels else "not known"
    own = model.default_thinking_level or "not known"
    sent = model.thinking_level or f"not sent (the model's own: {own})"
    return [
        f"{model.family}: thinking levels {levels}; thinking level {sent}",
        f"temperature {'sent' if model.temperature_sent else 'not sent'}; "
        f"thought summaries {'on' if model.thought_summaries else 'off'}",
    ]


def _key(key: KeyReport) -> str:
    if key.variable is not None:
        ignored = f" ({', '.join(key.ignored)} also set, ignored)" if key.ignored else ""
        return f"present: {key.variable}{ignored}"
    if key.vertex:
        return f"none needed: Vertex AI ({VERTEX_VARIABLE})"
    if key.needed:
        return f"missing: none of {', '.join(key.variables)} is set"
    return f"none set ({', '.join(key.variables)}), not needed with a base URL"


def _base_url(url: BaseUrlReport) -> str:
    if url.url is None:
        return f"the service's default (neither baseUrl nor {url.variable} is set)"
    return f"{url.url} (from {url.source})"
