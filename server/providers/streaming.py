"""One streamed model turn with bounded retries, shared by every provider adapter.

An adapter gives `stream_with_retries` a function that opens one attempt (an async iterator of
`TurnItem`s read from the service's stream) and its error classifier. Every wait for the next
item is bounded by the request's limit (`limits.request_limit`): the time to the first chunk
and the time between chunks, since on the Gemini API a long function call still arrives whole
in one chunk. A stream that keeps sending is alive and is bounded only by `wallTimeSeconds`.

A failed attempt is retried from scratch (`RetryBudget.wait`) only while no call of it was
yielded: a yielded call has run, so asking for the turn again could run its calls twice. A
failure after that ends the run as `model_error`, and nothing is applied. Closing the iterator
(cancel) closes the open stream at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from complex_edit.server.outcome import RunError
from complex_edit.server.providers._retry import (
    HARD_TIMEOUT_SLACK_SECONDS,
    Classifier,
    Retry,
    RetryBudget,
    is_timeout,
)
from complex_edit.server.providers.base import ToolCall, TurnItem
from complex_edit.server.providers.limits import stalled, timed_out

Attempt = Callable[[], AsyncIterator[TurnItem]]


async def stream_with_retries(
    budget: RetryBudget, attempt: Attempt, classify: Classifier
) -> AsyncIterator[TurnItem]:
    """The items of the first attempt that gets through (see the module's docstring)."""
    tries = 0
    while True:
        tries += 1
        items = attempt()
        ran = 0
        received = False
        try:
            while True:
                try:
                    async with asyncio.timeout(budget.limit + HARD_TIMEOUT_SLACK_SECONDS):
                        item = await anext(items)
                except StopAsyncIteration:
                    return
                received = True
                ran += isinstance(item, ToolCall)
                yield item
        except RunError:
            raise
        except Exception as exc:
            verdict = _verdict(budget, exc, classify, ran=ran, received=received)
        finally:
            await aclose(items)
        if isinstance(verdict, RunError):
            raise verdict
        await budget.wait(tries, verdict)


def _verdict(
    budget: RetryBudget, exc: Exception, classify: Classifier, *, ran: int, received: bool
) -> Retry | RunError:
    if is_timeout(exc):
        return (stalled if received else timed_out)(budget.settings, budget.limit)
    verdict = classify(exc)
    if not ran:
        return verdict
    failure = verdict if isinstance(verdict, RunError) else verdict.failure
    calls = "1 call" if ran == 1 else f"{ran} calls"
    return RunError(
        "model_error",
        f"The model's answer broke off after {calls} of it had already run, so it was not "
        f"asked for again (that could run them twice) and nothing was applied. "
        f"{failure.message}",
    )


async def aclose(iterator: object) -> None:
    """Close an async iterator that has an `aclose` (an async generator, an SDK stream)."""
    close = getattr(iterator, "aclose", None) or getattr(iterator, "close", None)
    if close is not None:
        result = close()
        if asyncio.iscoroutine(result):
            await result
