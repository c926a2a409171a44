"""What the server would use for an edit, as one object: `complex-edit doctor [--json]` prints
it, the LSP command `complexEdit.doctor` answers it (with the settings that client gives), and
the editors' health checks show its `checks` as they are.

Version, provider, the model and its family's rules, the key (present or not and the variable's
name, never its value), the base URL, every setting with the layer it came from, the syntax
languages. Pure: the caller passes the environment and the settings layers.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from complex_edit.edit_tools.syntax.languages import GRAMMARS
from complex_edit.server import __version__
from complex_edit.server.check.discovery import configured
from complex_edit.server.outcome import RunError, scrub
from complex_edit.server.providers.access import (
    ACCESS,
    VERTEX_PLACE_VARIABLES,
    VERTEX_VARIABLE,
    KeyStatus,
    base_url,
    base_url_variable,
    key_status,
)
from complex_edit.server.providers.base import effective_model
from complex_edit.server.providers.models import family_of, parameters_for, thinks
from complex_edit.server.providers.probe import probe
from complex_edit.server.settings import Settings, ThinkingLevel

DEFAULT_SOURCE = "default"
FAILS = "Until then every edit fails with reason 'config'."
# The providers that apply the model-family rules (`models.parameters_for`) before a request.
_FAMILY_RULES = frozenset({"gemini"})

Level = Literal["ok", "info", "warn", "error"]
_ALIASES = {field: info.alias or field for field, info in Settings.model_fields.items()}


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class Check(_Wire):
    """One line of the report, as a health check shows it: `warn` and `error` are problems
    (`error`: every edit fails with `config`); `advice`: what to do about it."""

    level: Level
    text: str
    advice: list[str] = []


class SettingReport(_Wire):
    """`source`: "default", an environment variable, a flag, or an editor's layer and key."""

    name: str
    value: Any
    source: str


class ModelReport(_Wire):
    """`name`: the model a run asks for (the provider's own default when `model` is left at
    its default); `family`: the family whose rules apply (absent: no known rules, everything is
    sent as set); `thinkingLevels`: the levels it accepts (absent: not known);
    `thinkingLevel`: the one set (absent: not sent, the model's own default)."""

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
    """`url` (absent: the service's default) and its `source`: a settings layer or `variable`,
    the provider's base-URL variable."""

    url: str | None = None
    source: str | None = None
    variable: str


class ProbeReport(_Wire):
    """`complex-edit doctor --probe`: the models list of the endpoint in use, reached once
    (`url`); `answered`: an HTTP answer came back (`status`)."""

    url: str
    answered: bool
    status: int | None = None
    millis: int


class Doctor(_Wire):
    """`ok`: no check is a problem (`warn` or `error`); `probe`: with `--probe` only."""

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
    checks: list[Check]
    ok: bool
    probe: ProbeReport | None = None

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def examine(env: Mapping[str, str], *layers: Mapping[str, Any] | None) -> Doctor:
    """The report for the environment `env` and the settings `layers` (as `from_layers`)."""
    settings, named, problem = Settings.traced_leniently(env, *layers)
    # A layer without a name (a plain mapping) is named by the setting itself.
    origins = {field: origin or _ALIASES[field] for field, origin in named.items()}
    provider = settings.provider
    try:
        url = base_url(provider, settings.base_url, env)
    except RunError as refused:  # the provider's variable is not a URL: as the setting
        url, problem = None, "; ".join(filter(None, (problem, refused.message)))
    url_source = origins.get("base_url") if settings.base_url else None
    url_report = BaseUrlReport(
        url=scrub(url, env) if url else None,
        source=(url_source or base_url_variable(provider, env)) if url else None,
        variable=base_url_variable(provider, env),
    )
    key = key_status(provider, env, url)
    model, model_checks = _model(settings, origins, provider)
    checks = [
        Check(level="info", text=f"Server: complex-edit {__version__} ({sys.executable})"),
        *([Check(level="error", text=problem, advice=[FAILS])] if problem else []),
        Check(level="info", text=f"Provider: {provider} ({origin(origins.get('provider'))})"),
        *_base_url_checks(url_report),
        *_key_checks(provider, key, env, url_report),
        *model_checks,
        _syntax_check(settings),
        _checkers_check(settings, env),
        *_layers_check(origins),
    ]
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
            variables=list(ACCESS[provider].own_key_variables),
            ignored=list(key.ignored),
            vertex=key.vertex,
            needed=key.missing,
        ),
        base_url=url_report,
        settings=_settings(settings, origins, env),
        syntax_languages=sorted(GRAMMARS),
        checks=[_scrubbed(check, env) for check in checks],
        ok=all(check.level in ("ok", "info") for check in checks),
    )


def probed(doctor: Doctor, env: Mapping[str, str], *layers: Mapping[str, Any] | None) -> Doctor:
    """`doctor` with the probe of its endpoint (`complex-edit doctor --probe`): one request to
    its models list, no model call. Not made when the configuration is already refused."""
    if any(check.level == "error" for check in doctor.checks):
        skipped = Check(level="info", text="Probe: not made (the configuration is refused above)")
        return doctor.model_copy(update={"checks": [*doctor.checks, skipped]})
    settings, _, _ = Settings.traced_leniently(env, *layers)
    found = probe(doctor.provider, settings.base_url, env, settings.request_timeout_seconds)
    check = _scrubbed(Check(level=found.level, text=found.text), env)
    report = ProbeReport(
        url=scrub(found.url, env), answered=found.answered, status=found.status, millis=found.millis
    )
    return doctor.model_copy(
        update={
            "checks": [*doctor.checks, check],
            "probe": report,
            "ok": doctor.ok and found.level == "ok",
        }
    )


def origin(source: str | None) -> str:
    """Where a value came from, as the report says it."""
    return f"from {source}" if source and source != DEFAULT_SOURCE else DEFAULT_SOURCE


def _model(
    settings: Settings, origins: Mapping[str, str], provider: str
) -> tuple[ModelReport, list[Check]]:
    """The model a run uses, its rules, and what the server would refuse or leave out."""
    name = effective_model(settings, ACCESS[provider].default_model)
    family = family_of(name) if provider in _FAMILY_RULES else None
    where = origin(origins.get("model")) if name == settings.model else "the provider's default"
    checks = [Check(level="info", text=f"Model: {name} ({where})")]
    level = settings.thinking_level
    temperature_sent = settings.temperature is not None
    if family is not None:
        allowed = settings
        try:
            parameters_for(settings, name)
        except RunError as refused:
            checks.append(Check(level="error", text=refused.message, advice=[FAILS]))
            allowed = settings.model_copy(update={"thinking_level": None})
        parameters = parameters_for(allowed, name)
        temperature_sent = parameters.temperature is not None
        checks.extend(
            Check(
                level="warn",
                text=note,
                advice=["Remove the setting, or use thinkingLevel to trade speed for care."],
            )
            for note in parameters.notes
        )
    if level is None:
        own = f", {family.default_level}" if family and family.default_level else ""
        checks.append(
            Check(level="info", text=f"Thinking level: not set (the model's own default{own})")
        )
    elif not any(check.level == "error" for check in checks):
        where = origin(origins.get("thinking_level"))
        checks.append(Check(level="info", text=f"Thinking level: {level} ({where})"))
    report = ModelReport(
        name=name,
        family=family.name if family else None,
        thinking_levels=list(family.levels) if family and family.levels else None,
        default_thinking_level=family.default_level if family else None,
        thinking_level=level,
        temperature_sent=temperature_sent,
        thought_summaries=settings.thought_summaries and thinks(name),
    )
    return report, checks


def _base_url_checks(url: BaseUrlReport) -> list[Check]:
    if url.url is None:
        return []
    return [Check(level="info", text=f"{url.source} is set: requests go to a custom endpoint")]


def _key_checks(
    provider: str, key: KeyStatus, env: Mapping[str, str], url: BaseUrlReport
) -> list[Check]:
    """The key the provider would use, by name; what to do when there is none."""
    variables = ACCESS[provider].own_key_variables
    if key.variable is not None:
        checks = [Check(level="ok", text=f"API key set: {key.variable}")]
        if key.ignored:
            checks.append(
                Check(
                    level="info",
                    text=f"{' and '.join((key.variable, *key.ignored))} are set: the key in use "
                    f"is {key.variable} (the SDK's rule); {', '.join(key.ignored)} ignored.",
                )
            )
        return checks
    if key.vertex:
        return [
            Check(level="ok", text=f"Vertex AI selected ({VERTEX_VARIABLE}); no API key needed"),
            *(
                Check(
                    level="warn",
                    text=f"{name} is not set: Vertex AI needs a project and a location",
                )
                for name in VERTEX_PLACE_VARIABLES
                if not env.get(name)
            ),
        ]
    if not key.missing:
        return [
            Check(
                level="info",
                text=f"No {variables[0]}: not needed with a base URL ({url.source}), local "
                f"servers usually need none. If yours asks for one, set {variables[0]}.",
            )
        ]
    names = (
        f"neither {variables[0]} nor {variables[1]} is set"
        if len(variables) == 2
        else f"{' or '.join(variables)} is not set"
    )
    advice = [
        "Set it in the environment the server is started with.",
        f"Or point baseUrl (or {url.variable}) at a local server that needs no key.",
    ]
    if provider == "gemini":
        advice.append(
            f"Or use Vertex AI: {VERTEX_VARIABLE}=true, {', '.join(VERTEX_PLACE_VARIABLES)}."
        )
    advice.append("Without a key every edit fails with reason 'config'.")
    return [Check(level="warn", text=f"No API key: {names}", advice=advice)]


def _syntax_check(settings: Settings) -> Check:
    if settings.validate_result == "off":
        return Check(level="info", text="Syntax check: off (setting validate)")
    return Check(
        level="info",
        text=f"Syntax check of results in {len(GRAMMARS)} languages: {', '.join(sorted(GRAMMARS))}",
    )


def _checkers_check(settings: Settings, env: Mapping[str, str]) -> Check:
    """The checkers an edit would use, by language (README "Checks")."""
    if settings.checkers == "off":
        return Check(level="info", text="Checkers: off (setting checkers)")
    found = configured(settings, env)
    missing = [checker.argv[0] for checker in found if not checker.found]
    by_languages: dict[tuple[str, ...], list[str]] = {}
    for checker in found:
        if checker.found:
            by_languages.setdefault(checker.languages, []).append(checker.name)
    used = "; ".join(
        f"{', '.join(langs)}: {', '.join(names)}" for langs, names in by_languages.items()
    )
    text = f"Checkers ({'auto' if settings.checkers == 'auto' else 'setting checkers'}): "
    text += used or "none found (no language server on PATH or beside the server)"
    if missing:
        return Check(
            level="warn",
            text=f"{text}; not found: {', '.join(missing)}",
            advice=["Install them or fix their command in the setting checkers."],
        )
    return Check(level="info", text=text)


def _layers_check(origins: Mapping[str, str]) -> list[Check]:
    if not origins:
        return []
    changed = ", ".join(
        f"{_ALIASES[field]} ({origin(source)})" for field, source in origins.items()
    )
    return [Check(level="info", text=f"Settings not at their default: {changed}")]


def _settings(
    settings: Settings, origins: Mapping[str, str], env: Mapping[str, str]
) -> list[SettingReport]:
    values = settings.model_dump(mode="json", by_alias=True)
    return [
        SettingReport(
            name=name,
            value=_shown(values[name], env),
            source=origins.get(field, DEFAULT_SOURCE),
        )
        for field, name in _ALIASES.items()
    ]


def _shown(value: Any, env: Mapping[str, str]) -> Any:
    return scrub(value, env) if isinstance(value, str) else value


def _scrubbed(check: Check, env: Mapping[str, str]) -> Check:
    return Check(
        level=check.level,
        text=scrub(check.text, env),
        advice=[scrub(line, env) for line in check.advice],
    )
