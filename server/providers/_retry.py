"""Bounded retries for model requests, shared by every provider adapter.

An adapter streams one turn through `streaming.stream_with_retries` with a classifier that
turns each exception into either a `Retry` (a transient fault: 408, 429, 5xx, connection) or a
`RunError` that ends the run at once. A request that outlives its limit
(`limits.request_limit`) ends the run with one error and is never sent again (see `limits`).
Retries are capped by `maxRetries` and by the run's wall-time budget; a server-given retry
delay is honoured, and one longer than the remaining budget fails fast with that delay in the
message. Each retry is announced (`RetryNotice`) before its wait, so the user sees why the
model is slow. The SDKs' own retries are always switched off.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from complex_edit.server.outcome import RunError, redact
from complex_edit.server.providers.access import nothing_listening
from complex_edit.server.providers.limits import timed_out
from complex_edit.server.settings import Settings

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
MAX_BACKOFF_SECONDS = 8.0
FIRST_BACKOFF_SECONDS = 0.5
# Slack on top of a request's limit before a wait for its stream is abandoned from the outside
# (the SDK's own timeout should fire first).
HARD_TIMEOUT_SLACK_SECONDS = 5.0

# Exception class names (anywhere in the MRO) that mean "the request did not get through".
TRANSIENT_ERROR_NAMES = frozenset(
    {
        "TransportError",
        "TimeoutException",
        "NetworkError",
        "ProtocolError",
        "ClientConnectionError",
        "ClientPayloadError",
        "ServerDisconnectedError",
        "APIConnectionError",
        "APITimeoutError",
    }
)


@dataclass(frozen=True)
class Retry:
    """A transient failure: try again after `delay` seconds (the server's), or after the
    backoff when `delay` is None. `failure` is what the run ends with if no retry is left;
    `why` says what happened in a few words, for progress lines ("rate limited")."""

    failure: RunError
    delay: float | None = None
    why: str = "the request failed"


@dataclass(frozen=True)
class RetryNotice:
    """Retry `retry` of `max_retries` is made after `delay` seconds, because of `why`."""

    why: str
    retry: int
    max_retries: int
    delay: float


Classifier = Callable[[Exception], "Retry | RunError"]
RetryListener = Callable[[RetryNotice], None]


def backoff(attempt: int) -> float:
    """Exponential backoff with jitter: 0.25–0.5 s, 0.5–1 s, … capped at 8 s."""
    base = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2.0 ** (attempt - 1))
    return base * (0.5 + random.random() / 2)


class RetryBudget:
    """The retry allowance of one conversation: `maxRetries` per request, and a deadline
    `wallTimeSeconds` after the conversation opened. `limit`: seconds one request may take
    (default `requestTimeoutSeconds`)."""

    def __init__(
        self,
        settings: Settings,
        *,
        limit: float | None = None,
        on_retry: RetryListener | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._on_retry = on_retry
        self._clock = clock
        self._sleep = sleep
        self.max_retries = settings.max_retries
        self.settings = settings
        self.limit = settings.request_timeout_seconds if limit is None else limit
        self.deadline = clock() + settings.wall_time_seconds

    async def wait(self, attempt: int, retry: Retry) -> None:
        """Announce retry `attempt` and sleep before it, or raise the failure when none is
        allowed. The sleep is cancellable."""
        failure = retry.failure
        if attempt > self.max_retries:
            tries = "1 attempt" if attempt == 1 else f"{attempt} attempts"
            raise RunError(failure.reason, f"{failure.message} Gave up after {tries}.")
        remaining = self.deadline - self._clock()
        if retry.delay is not None and retry.delay > remaining:
            raise RunError(
                failure.reason,
                f"{failure.message} The service asked to retry after {retry.delay:g} s, "
                f"beyond the remaining time budget of {max(remaining, 0):.0f} s.",
            )
        delay = retry.delay if retry.delay is not None else backoff(attempt)
        if delay >= remaining:
            raise RunError(failure.reason, f"{failure.message} Out of time for retries.")
        if self._on_retry is not None:
            self._on_retry(RetryNotice(retry.why, attempt, self.max_retries, delay))
        await self._sleep(delay)


def status_retry(status: int, failure: RunError, delay: float | None = None) -> Retry:
    """A retryable HTTP status (see RETRYABLE_STATUS), named for progress lines."""
    if status == 429:
        why = "rate limited"
    elif status == 529:
        why = "the service is overloaded (529)"
    else:
        why = f"the service answered {status}"
    return Retry(failure, delay, why)


def timeout_failure(settings: Settings) -> RunError:
    """A timeout the budget did not see as one (it handles timeouts first): final too."""
    return timed_out(settings, settings.request_timeout_seconds)


def connection_failure(message: str) -> Retry:
    """The service could not be reached: retried; `message` is the failure if it lasts."""
    return Retry(RunError("model_error", message), why="could not reach the model service")


def transport_failure(
    exc: Exception,
    settings: Settings,
    env: Mapping[str, str],
    key_names: Iterable[str],
    host: str | None = None,
) -> Retry | RunError:
    """Connection faults are retried, timeouts are final; anything else (an unreadable response, an
    SDK surprise) ends the run as `model_error` with the exception named, keys removed.
    `host` (never with credentials: see `service_host`) makes the message say where."""
    where = f" at {host}" if host else ""
    if is_timeout(exc):
        return timeout_failure(settings)
    if is_transient(exc):
        local = nothing_listening(host) if host else ""
        advice = f". {local}" if local else "; check the network and the 'baseUrl' setting."
        return connection_failure(
            f"Could not reach the model service{where} ({type(exc).__name__}){advice}"
        )
    return RunError(
        "model_error",
        f"The answer of the model service{where} could not be read "
        f"({type(exc).__name__}: {readable(redact(str(exc), env, key_names), 200)}); if "
        "something other than the model's API answered, check the 'baseUrl' setting.",
    )


def is_timeout(exc: BaseException) -> bool:
    """A request that got no answer in time. An HTTP status the service answered (the
    Anthropic SDK's `RequestTimeoutError` for 408, `GatewayTimeoutError` for 504) is not one."""
    if isinstance(getattr(exc, "status_code", None), int):
        return False
    return isinstance(exc, TimeoutError) or any(
        "Timeout" in cls.__name__ for cls in type(exc).__mro__
    )


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, ConnectionError | TimeoutError):
        return True
    return any(cls.__name__ in TRANSIENT_ERROR_NAMES for cls in type(exc).__mro__)


def retry_after_seconds(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """The delay an HTTP error asks for: `retry-after-ms`, or `retry-after` in seconds or as
    an HTTP date. None when absent or unreadable."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(float(raw_ms) / 1000, 0.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)


def service_host(base_url: str | None, default: str) -> str:
    """The service's host and port for messages (never the userinfo or the path of the URL)."""
    if not base_url:
        return default
    parts = urlsplit(base_url)
    if not parts.hostname:
        return "the configured baseUrl"
    return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname


def readable(detail: str, limit: int = 300) -> str:
    """A service's error text fit for a one-line message: an HTML page (a proxy or gateway
    answered instead of the API) is named rather than quoted; whitespace is collapsed."""
    lowered = detail.lstrip()[:200].lower()
    if lowered.startswith(("<!doctype html", "<html")) or "<html" in lowered:
        return (
            "an HTML page instead of an API error (a proxy or gateway answered; "
            "check the 'baseUrl' setting and the network)"
        )
    flat = " ".join(detail.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def sentence(text: str) -> str:
    """`text` ending with a full stop, so that another sentence can follow it."""
    text = text.strip()
    return text if not text or text.endswith((".", "!", "?")) else text + "."
