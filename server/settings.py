"""The one settings schema shared by every front end, and how its layers combine.

Precedence, lowest first: built-in defaults, `COMPLEX_EDIT_*` environment variables, then the
layers a front end passes (LSP: initializationOptions, then the pushed configuration, then the
`complexEdit` section of `workspace/configuration`, then per-command overrides; CLI and MCP:
flags). Every setting is read the same way from every layer, and a bad value is reported with
the setting and the layer it came from (`setting 'maxTurns' (--max-turns): ...`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.alias_generators import to_camel, to_snake
from pydantic_core import PydanticCustomError

from complex_edit.server import DEFAULT_MODEL as DEFAULT_MODEL
from complex_edit.server.settings_help import describe_settings

ENV_PREFIX = "COMPLEX_EDIT_"
SECTION = "complexEdit"
# Why a base URL (the setting, or a provider's variable) is refused; `{url}` is its repr.
NOT_AN_HTTP_URL = (
    "{url} is not an http:// or https:// URL with a host (for example http://127.0.0.1:11434/v1)"
)

Provider = Literal["gemini", "openai", "anthropic"]
Validate = Literal["syntax", "off"]
ThinkingLevel = Literal["minimal", "low", "medium", "high"]
OtherFiles = Literal["off", "read", "edit"]
CheckSeverity = Literal["error", "warning"]
# Never read by the model, whatever the .gitignore files say: the files and folders secrets
# and credentials live in (the lists of secret scanners and peers). A user's readExclude adds
# to these unless readExcludeReplace is true.
READ_EXCLUDE = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.keystore",
    "*.jks",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".git-credentials",
    ".terraformrc",
    "terraform.rc",
    "*.tfstate",
    "*.tfstate.*",
    "*.tfvars",
    "credentials*.json",
    "service-account*.json",
    ".vault-token",
    ".htpasswd",
    ".ssh/",
    ".gnupg/",
    ".aws/",
    ".azure/",
    ".kube/",
    "**/.config/gcloud/",
    "**/.config/git/credentials",
    "**/.docker/config.json",
)


class SettingsError(ValueError):
    """A setting has a value that cannot be used; the message names the setting."""


class SettingsLayer(Mapping[str, Any]):
    """The values one source gives (camelCase or snake_case keys; `None` = not set here), and
    where each came from, for messages: `names[key]` when given, else `prefix + key`
    (`"workspace/configuration complexEdit." + "maxTurns"`)."""

    def __init__(
        self,
        values: Mapping[str, Any] | None,
        prefix: str = "",
        names: Mapping[str, str] | None = None,
    ) -> None:
        self._values = dict(values or {})
        self._prefix = prefix
        self._names = dict(names or {})

    @classmethod
    def environment(cls, env: Mapping[str, str]) -> SettingsLayer:
        """The `COMPLEX_EDIT_*` variables (an empty one counts as unset)."""
        values = {
            name: env[var]
            for name in Settings.model_fields
            if env.get(var := Settings.env_name(name))
        }
        return cls(values, names={name: Settings.env_name(name) for name in values})

    @classmethod
    def client(cls, source: str, value: Any) -> SettingsLayer:
        """An editor's settings object: its `complexEdit` section when it has one, else the
        object itself; anything but an object sets nothing."""
        if not isinstance(value, Mapping):
            return cls(None)
        inner = value.get(SECTION)
        if isinstance(inner, Mapping):
            return cls(inner, f"{source} {SECTION}.")
        return cls(value, f"{source} ")

    @classmethod
    def flags(cls, values: Mapping[str, Any], flags: Mapping[str, str]) -> SettingsLayer:
        """Command-line flags: `values` and `flags` (the flag of each setting) by setting."""
        return cls(values, names=flags)

    def origin(self, key: str) -> str:
        """Where the value of `key` came from ("" when the layer has no name)."""
        if key in self._names:
            return self._names[key]
        return self._prefix + key if self._prefix else ""

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


class CheckerSpec(BaseModel):
    """A checker named in the `checkers` setting: a stdio language server the server starts
    itself (`command`: its argv, never a shell line) for the documents of `languages`."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    name: str = Field(min_length=1)
    languages: tuple[str, ...] = Field(min_length=1)
    command: tuple[str, ...] = Field(min_length=1)
    initialization_options: Any = None


class Settings(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        extra="ignore",
        json_schema_extra=describe_settings,  # what each setting does (`settings_help.py`)
    )

    provider: Provider = "gemini"
    model: str = Field(default=DEFAULT_MODEL, min_length=1)
    max_turns: int = Field(default=8, ge=1, le=100)
    thinking_level: ThinkingLevel | None = None
    thought_summaries: bool = True
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    request_timeout_seconds: float = Field(default=60.0, gt=0, le=3600)
    max_document_bytes: int = Field(default=10_000_000, ge=1)
    base_url: str | None = None
    max_retries: int = Field(default=3, ge=0, le=10)
    wall_time_seconds: float = Field(default=600.0, gt=0)
    apply_timeout_seconds: float = Field(default=30.0, gt=0)
    max_prompt_bytes: int = Field(default=100_000, ge=1)
    validate_result: Validate = Field(default="syntax", alias="validate")
    review: bool = False
    other_files: OtherFiles = "read"
    read_exclude_replace: bool = False  # validated before read_exclude, which reads it
    read_exclude: tuple[str, ...] = READ_EXCLUDE
    max_files: int = Field(default=10, ge=1, le=1000)
    search_timeout_seconds: float = Field(default=10.0, gt=0, le=3600)
    # The edit history (server/history/): records kept per workspace root (0: none recorded),
    # for how many days, and where (default: the user's state directory).
    history_max: int = Field(default=100, ge=0, le=100_000)
    history_days: float = Field(default=30.0, gt=0)
    history_dir: str | None = None
    checkers: Literal["off", "auto"] | tuple[CheckerSpec, ...] = "auto"
    check_rounds: int = Field(default=2, ge=0, le=10)
    check_severity: CheckSeverity = "error"
    check_timeout_seconds: float = Field(default=3.0, gt=0, le=600)

    @field_validator("checkers", mode="before")
    @classmethod
    def _checkers_from_text(cls, value: Any) -> Any:
        """From an environment variable or a flag: `off`, `auto` or a JSON list."""
        return _from_text(value, str.lower)

    @field_validator("read_exclude", mode="before")
    @classmethod
    def _patterns_from_text(cls, value: Any) -> Any:
        """From an environment variable or a flag: a JSON list, else comma-separated."""
        return _from_text(value, lambda text: [p.strip() for p in text.split(",") if p.strip()])

    @field_validator("read_exclude", mode="after")
    @classmethod
    def _patterns_add_to_defaults(cls, value: tuple[str, ...], info: ValidationInfo) -> Any:
        """A value of yours adds to the defaults (the credential files), unless
        readExcludeReplace is true."""
        if info.data.get("read_exclude_replace"):
            return value
        return READ_EXCLUDE + tuple(pattern for pattern in value if pattern not in READ_EXCLUDE)

    @field_validator("thinking_level", mode="before")
    @classmethod
    def _level_in_any_case(cls, value: Any) -> Any:
        """`LOW`, `Low` and ` low ` mean `low` (the SDK's enum is upper case); "" is unset."""
        if isinstance(value, str):
            return value.strip().lower() or None
        return value

    @field_validator("base_url", mode="before")
    @classmethod
    def _http_url(cls, value: Any) -> Any:
        """An http(s) URL with a host, or unset (""): anything else could only fail on every
        request, and retrying would not help."""
        if not isinstance(value, str):
            return value
        url = value.strip()
        if url and not is_http_url(url):
            raise PydanticCustomError("base_url", NOT_AN_HTTP_URL, {"url": repr(url[:200])})
        return url or None

    @classmethod
    def env_name(cls, field: str) -> str:
        """`max_turns` → `COMPLEX_EDIT_MAX_TURNS` (from the setting's public name)."""
        return ENV_PREFIX + to_snake(cls.model_fields[field].alias or field).upper()

    @classmethod
    def from_layers(cls, env: Mapping[str, str], *layers: Mapping[str, Any] | None) -> Settings:
        """Merge the environment and the given layers, later layers winning.

        A layer is a `SettingsLayer` (its values are reported with their origin) or a plain
        mapping. Raises SettingsError naming each bad setting and where its value came from.
        """
        return cls.traced(env, *layers)[0]

    @classmethod
    def traced(
        cls, env: Mapping[str, str], *layers: Mapping[str, Any] | None
    ) -> tuple[Settings, dict[str, str]]:
        """`from_layers`, and where each setting that is not at its default came from (by
        field name: `COMPLEX_EDIT_MODEL`, `initializationOptions complexEdit.model`, ...)."""
        merged, origins = _merge(env, layers)
        try:
            return cls.model_validate(merged), origins
        except ValidationError as exc:
            raise SettingsError(_describe(exc, origins)) from None

    @classmethod
    def traced_leniently(
        cls, env: Mapping[str, str], *layers: Mapping[str, Any] | None
    ) -> tuple[Settings, dict[str, str], str | None]:
        """`traced` for a report: instead of raising, the settings with every bad value left
        at its default, and the SettingsError's text (None when every value was good)."""
        merged, origins = _merge(env, layers)
        try:
            return cls.model_validate(merged), origins, None
        except ValidationError as exc:
            problem = str(SettingsError(_describe(exc, origins)))
            bad = {_field_name(str(error["loc"][0])) for error in exc.errors() if error["loc"]}
            kept = {field: value for field, value in merged.items() if field not in bad}
            good = {field: origin for field, origin in origins.items() if field not in bad}
            return cls.model_validate(kept), good, problem


def _merge(
    env: Mapping[str, str], layers: tuple[Mapping[str, Any] | None, ...]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The values of the environment and `layers`, later layers winning, and their origins."""
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for layer in (SettingsLayer.environment(env), *layers):
        if not layer:
            continue
        named = layer if isinstance(layer, SettingsLayer) else SettingsLayer(layer)
        for key, value in named.items():
            field = _field_name(key)
            if field is not None and value is not None:
                merged[field] = value
                origins[field] = named.origin(key)
    return merged, origins


def _from_text(value: Any, otherwise: Callable[[str], Any]) -> Any:
    """A setting given as text (an environment variable, a flag): a JSON list when it looks
    like one (left as it is when it is not JSON: the validation then says so), else
    `otherwise(text)`."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text.startswith("["):
        return otherwise(text)
    try:
        return json.loads(text)
    except ValueError:
        return value


def is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError on a port that is not a number)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def _field_name(key: str) -> str | None:
    for name, info in Settings.model_fields.items():
        if key in (name, info.alias):
            return name
    return None


def _describe(exc: ValidationError, origins: Mapping[str, str]) -> str:
    parts = []
    for error in exc.errors():
        loc = str(error["loc"][0]) if error["loc"] else "settings"
        alias = Settings.model_fields[loc].alias if loc in Settings.model_fields else loc
        where = origins.get(loc, "")
        parts.append(f"setting '{alias}'{f' ({where})' if where else ''}: {error['msg']}")
    return "Invalid configuration: " + "; ".join(parts)
