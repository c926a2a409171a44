"""`complex-edit doctor --probe`: one request to the endpoint the configured provider would
use, its models list (a GET: no model is called, nothing is generated), and whether it
answered. The key goes in the request's header, as the provider's SDK sends it, and never into
what is said. Standard library only: nothing here imports an SDK.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from complex_edit.server.providers._retry import service_host
from complex_edit.server.providers.access import (
    VERTEX_PLACE_VARIABLES,
    base_url,
    key_status,
    nothing_listening,
    uses_vertex,
)

# The service each provider reaches without a base URL, and the path of its models list
# below the base URL (the SDKs add the same).
_DEFAULT_URL = {
    "gemini": "https://generativelanguage.googleapis.com",
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
_MODELS_PATH = {"gemini": "/v1beta/models", "openai": "/models", "anthropic": "/v1/models"}
_ANTHROPIC_VERSION = "2023-06-01"
_AUTH_STATUS = (401, 403)
# The probe waits at most this long (or requestTimeoutSeconds when shorter).
MAX_WAIT_SECONDS = 10.0

Level = Literal["ok", "warn", "error"]


@dataclass(frozen=True)
class Probe:
    """`answered`: an HTTP answer came back (any status); `status`: its code; `text`: one line
    for people (never the key); `level`: "ok" (it answered and took the request), "warn" (it
    answered, refusing it), "error" (no answer: every edit would fail as well)."""

    url: str
    answered: bool
    status: int | None
    level: Level
    text: str
    millis: int


def probe(provider: str, setting: str | None, env: Mapping[str, str], wait: float) -> Probe:
    """Reach the models list of `provider` once (`setting`: the `baseUrl` setting)."""
    url, headers = _request(provider, setting, env)
    host = service_host(url, urlsplit(url).hostname or url)
    started = time.monotonic()
    request = urllib.request.Request(url, headers=headers, method="GET")
    limit = min(wait, MAX_WAIT_SECONDS)
    try:
        with urllib.request.urlopen(request, timeout=limit) as answer:
            status = int(answer.status)
    except urllib.error.HTTPError as refused:
        status = refused.code
    except (urllib.error.URLError, OSError) as failed:
        reason = getattr(failed, "reason", failed)
        if isinstance(reason, TimeoutError):
            said = f"{host} did not answer within {limit:g} s"
        elif isinstance(reason, ConnectionRefusedError) and nothing_listening(host):
            said = nothing_listening(host)
        else:
            said = f"could not reach {host} ({type(reason).__name__}): check the network"
        return _silent(url, said, started)
    return _answered(url, host, status, started)


def _request(
    provider: str, setting: str | None, env: Mapping[str, str]
) -> tuple[str, dict[str, str]]:
    """The URL of the models list and the headers the provider's SDK would send."""
    configured = base_url(provider, setting, env)
    vertex = uses_vertex(provider, env)
    if vertex and not configured:
        location = env.get(VERTEX_PLACE_VARIABLES[1]) or "us-central1"
        return f"https://{location}-aiplatform.googleapis.com/", {}
    root = (configured or _DEFAULT_URL[provider]).rstrip("/")
    variable = key_status(provider, env, configured).variable
    key = env.get(variable, "") if variable else ""
    headers: dict[str, str] = {}
    if provider == "gemini" and key:
        headers["x-goog-api-key"] = key
    elif provider == "openai" and key:
        headers["Authorization"] = f"Bearer {key}"
    elif provider == "anthropic":
        headers["anthropic-version"] = _ANTHROPIC_VERSION
        if variable == "ANTHROPIC_AUTH_TOKEN":
            headers["Authorization"] = f"Bearer {key}"
        elif key:
            headers["x-api-key"] = key
    return root + _MODELS_PATH[provider], headers


def _since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def _silent(url: str, said: str, started: float) -> Probe:
    text = f"Probe: {said[0].lower()}{said[1:]}"
    return Probe(url, False, None, "error", text, _since(started))


def _answered(url: str, host: str, status: int, started: float) -> Probe:
    millis = _since(started)
    head = f"Probe: {host} answered HTTP {status} in {millis} ms"
    if 200 <= status < 300:
        return Probe(url, True, status, "ok", f"{head} (its models list)", millis)
    if status in _AUTH_STATUS:
        return Probe(url, True, status, "warn", f"{head}: the key was refused", millis)
    return Probe(
        url,
        True,
        status,
        "warn",
        f"{head} to its models list: it is up; if edits fail, check the base URL's path",
        millis,
    )
