"""The one settings schema shared by every front end, and how its layers combine.

Precedence, lowest first: built-in defaults, `COMPLEX_EDIT_*` environment variables, then the
layers a front end passes (LSP: initializationOptions, then the `complexEdit` configuration
section, then per-command overrides; CLI: flags).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

ENV_PREFIX = "COMPLEX_EDIT_"
DEFAULT_MODEL = "gemini-2.5-flash"

Provider = Literal["gemini", "openai", "anthropic"]


class SettingsError(ValueError):
    """A setting has a value that cannot be used; the message names the setting."""


class Settings(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, frozen=True, extra="ignore"
    )

    provider: Provider = "gemini"
    model: str = Field(default=DEFAULT_MODEL, min_length=1)
    max_turns: int = Field(default=8, ge=1, le=100)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    request_timeout_seconds: float = Field(default=60.0, gt=0, le=3600)
    max_document_bytes: int = Field(default=10_000_000, ge=1)
    base_url: str | None = None
    max_retries: int = Field(default=3, ge=0, le=10)
    wall_time_seconds: float = Field(default=600.0, gt=0)
    apply_timeout_seconds: float = Field(default=30.0, gt=0)
    max_prompt_bytes: int = Field(default=100_000, ge=1)

    @classmethod
    def env_name(cls, field: str) -> str:
        """`max_turns` → `COMPLEX_EDIT_MAX_TURNS`."""
        return ENV_PREFIX + field.upper()

    @classmethod
    def from_layers(cls, env: Mapping[str, str], *layers: Mapping[str, Any] | None) -> Settings:
        """Merge the environment and the given layers (camelCase or snake_case keys).

        `None` values in a layer mean "not set here". Raises SettingsError naming the setting.
        """
        merged: dict[str, Any] = {}
        for name in cls.model_fields:
            raw = env.get(cls.env_name(name))
            if raw is not None and raw != "":
                merged[name] = raw
        for layer in layers:
            if not layer:
                continue
            for key, value in layer.items():
                field = _field_name(key)
                if field is not None and value is not None:
                    merged[field] = value
        try:
            return cls.model_validate(merged)
        except ValidationError as exc:
            raise SettingsError(_describe(exc)) from None

    def public_dict(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True)


def _field_name(key: str) -> str | None:
    for name, info in Settings.model_fields.items():
        if key in (name, info.alias):
            return name
    return None


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        loc = str(error["loc"][0]) if error["loc"] else "settings"
        alias = Settings.model_fields[loc].alias if loc in Settings.model_fields else loc
        parts.append(f"setting '{alias}' ({Settings.env_name(loc)}): {error['msg']}")
    return "Invalid configuration: " + "; ".join(parts)
