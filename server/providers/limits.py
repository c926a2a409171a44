"""How long one model request may take, and what a request that outlived it ends with.

A request may legitimately take as long as its largest answer takes to write: for a whole-file
rewrite, the whole document. So its limit is `requestTimeoutSeconds` (the time to the first
token of a short answer, thinking included) plus the document's size in tokens at a pace slower
than any current model writes. A request that outlives its limit is not sent again: the service
accepted it and either was still writing (a second try would pay for the same answer and most
likely take as long) or never answers at all (a second try would wait as long again). So a
service that accepts and never answers is reported after one limit, with one error.
"""

from __future__ import annotations

from complex_edit.server.outcome import RunError
from complex_edit.server.settings import Settings

# Source code runs 3–4 bytes per token: 3 counts more tokens, so more time.
BYTES_PER_TOKEN = 3.0
# Output tokens per second: half of Gemini 3.x Flash's published ~160, below 3.1 Pro's ~120.
SLOWEST_TOKENS_PER_SECOND = 80.0
# No current model writes more in one answer.
MAX_OUTPUT_TOKENS = 65_536


def request_limit(settings: Settings, answer_bytes: int) -> float:
    """Seconds one request may take when its answer may be `answer_bytes` long."""
    tokens = min(answer_bytes / BYTES_PER_TOKEN, MAX_OUTPUT_TOKENS)
    return settings.request_timeout_seconds + tokens / SLOWEST_TOKENS_PER_SECOND


def timed_out(settings: Settings, limit: float) -> RunError:
    """The one error of a request that outlived `limit`."""
    floor = settings.request_timeout_seconds
    extra = limit - floor
    allowance = (
        f" ({seconds(floor)} from setting requestTimeoutSeconds, plus {seconds(extra)} to "
        "write an answer as long as the document)"
        if extra >= 0.05
        else " (setting requestTimeoutSeconds)"
    )
    return RunError(
        "model_error",
        f"The model did not answer within {seconds(limit)}{allowance}; the request was not "
        "sent again and nothing was applied. If the service is alive but this slow, raise "
        "requestTimeoutSeconds; otherwise check the service and the 'baseUrl' setting.",
    )


def seconds(value: float) -> str:
    """A duration for people: `45 s`, `3 s`, `2.5 s`, `0.4 s`."""
    if value >= 9.5:
        return f"{value:.0f} s"
    return f"{value:.1f}".removesuffix(".0") + " s"


def stalled(settings: Settings, limit: float) -> RunError:
    """The one error of a streamed answer that began and then sent nothing for `limit`."""
    failure = timed_out(settings, limit)
    return RunError(
        "model_error",
        failure.message.replace(
            "The model did not answer within", "The model's answer stalled: nothing more came for"
        ),
    )
