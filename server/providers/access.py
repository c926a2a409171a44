"""What each provider needs to reach its model, in one table: the variables it reads for a key
and a base URL, and its default model; and `key_status`, the one rule saying whether a run has
the key it needs (the adapters refuse a run by it, `complex-edit doctor` reports it). A base URL
makes the key optional for every provider: a local server usually needs none, and the adapters
send `base.PLACEHOLDER_KEY`. Names only: nothing here returns a key's value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from ipaddress import ip_address
from types import MappingProxyType

from complex_edit.server.outcome import CREDENTIALS, STORED_KEY, RunError
from complex_edit.server.settings import DEFAULT_MODEL, NOT_AN_HTTP_URL, is_http_url

VERTEX_VARIABLE = "GOOGLE_GENAI_USE_VERTEXAI"
VERTEX_BASE_URL_VARIABLE = "GOOGLE_VERTEX_BASE_URL"
# What Vertex AI needs besides VERTEX_VARIABLE (the SDK reads them).
VERTEX_PLACE_VARIABLES = ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")
_TRUE = ("1", "true", "yes")


@dataclass(frozen=True)
class ProviderAccess:
    """`key_variables`: the variables a key is read from (`outcome.CREDENTIALS`), and
    `own_key_variables` those of the provider itself (not an editor's `STORED_KEY`), to name
    to users; `preference`: their order when several are set (the first one set is the key
    used), when it is not that one."""

    name: str
    base_url_variable: str
    default_model: str
    preference: tuple[str, ...] = ()

    @property
    def key_variables(self) -> tuple[str, ...]:
        return CREDENTIALS[self.name]

    @property
    def own_key_variables(self) -> tuple[str, ...]:
        return tuple(name for name in self.key_variables if name != STORED_KEY)


ACCESS: Mapping[str, ProviderAccess] = MappingProxyType(
    {
        # An editor's stored key first; then the SDK's rule: GOOGLE_API_KEY before GEMINI_API_KEY.
        "gemini": ProviderAccess(
            "gemini",
            "GOOGLE_GEMINI_BASE_URL",
            DEFAULT_MODEL,
            preference=(STORED_KEY, "GOOGLE_API_KEY", "GEMINI_API_KEY"),
        ),
        "openai": ProviderAccess("openai", "OPENAI_BASE_URL", "gpt-5.4-mini"),
        "anthropic": ProviderAccess("anthropic", "ANTHROPIC_BASE_URL", "claude-sonnet-4-6"),
    }
)


@dataclass(frozen=True)
class KeyStatus:
    """`variable`: the one whose key is used (None: none is set); `ignored`: other key
    variables that are set; `vertex`: Gemini through Vertex AI (no key); `missing`: no key
    and the provider needs one (neither Vertex AI nor a base URL), so a run is refused with
    `config` before any request."""

    variable: str | None
    ignored: tuple[str, ...]
    vertex: bool
    missing: bool


def uses_vertex(provider: str, env: Mapping[str, str]) -> bool:
    return provider == "gemini" and env.get(VERTEX_VARIABLE, "").lower() in _TRUE


def base_url_variable(provider: str, env: Mapping[str, str]) -> str:
    """The variable the provider (or its SDK) reads a base URL from."""
    if uses_vertex(provider, env):
        return VERTEX_BASE_URL_VARIABLE
    return ACCESS[provider].base_url_variable


def base_url(provider: str, setting: str | None, env: Mapping[str, str]) -> str | None:
    """The base URL in effect: the `baseUrl` setting, else the provider's variable. Raises
    `RunError('config')` naming the variable when that is what is in effect and it is not an
    http(s) URL with a host (as the setting is refused): every request could only fail."""
    if setting:
        return setting
    variable = base_url_variable(provider, env)
    url = env.get(variable, "").strip()
    if url and not is_http_url(url):
        refused = NOT_AN_HTTP_URL.format(url=repr(url[:200]))
        raise RunError("config", f"Invalid configuration: {variable}: {refused}")
    return url or None


def key_status(provider: str, env: Mapping[str, str], base_url: str | None) -> KeyStatus:
    """What the provider would use for a key, `base_url` being the one in effect (the
    `baseUrl` setting, else the provider's variable)."""
    access = ACCESS[provider]
    present = [name for name in access.preference or access.key_variables if env.get(name)]
    vertex = uses_vertex(provider, env)
    keyless_allowed = vertex or bool(base_url)
    return KeyStatus(
        variable=present[0] if present else None,
        ignored=tuple(present[1:]),
        vertex=vertex,
        missing=not present and not keyless_allowed,
    )


def nothing_listening(host: str) -> str:
    """For a service `host` ("name:port", as `_retry.service_host` writes it) on this machine,
    the sentence saying that nothing listens there and what to start; "" for any other host."""
    name, _, port = host.rpartition(":")
    if not port.isdigit():
        name = host
    name = name.strip("[]").lower()
    try:
        local = ip_address(name).is_loopback or ip_address(name).is_unspecified
    except ValueError:
        local = name == "localhost" or name.endswith(".localhost")
    if not local:
        return ""
    return (
        f"Nothing is listening at {host}: start your local server (ollama serve, llama-server …)."
    )
