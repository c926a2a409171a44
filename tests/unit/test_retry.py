"""The shared retry budget and the message helpers of the provider adapters."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

import pytest

from complex_edit.server.outcome import RunError, redact
from complex_edit.server.providers._retry import (
    Classifier,
    Retry,
    RetryBudget,
    RetryNotice,
    backoff,
    connection_failure,
    retry_after_seconds,
    service_host,
    status_retry,
    transport_failure,
)
from complex_edit.server.providers.streaming import stream_with_retries
from complex_edit.server.session.events import ModelRetrying, ModelWaiting, TurnStarted, describe
from complex_edit.server.settings import Settings


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def budget(fake: FakeTime, **settings: object) -> RetryBudget:
    return RetryBudget(Settings.from_layers({}, settings), clock=fake.clock, sleep=fake.sleep)


def failing(*outcomes: Exception | str) -> tuple[list[int], Callable[[], Awaitable[str]]]:
    """A send function raising the given exceptions in turn, then returning the string."""
    calls: list[int] = []

    async def send() -> str:
        calls.append(1)
        item = outcomes[len(calls) - 1]
        if isinstance(item, Exception):
            raise item
        return item

    return calls, send


async def call(
    run: RetryBudget, send: Callable[[], Awaitable[str]], classify: Classifier
) -> object:
    """`send`'s answer, as the one item of a streamed turn (`stream_with_retries`)."""

    async def attempt() -> AsyncIterator[Any]:
        yield await send()

    items = [item async for item in stream_with_retries(run, attempt, classify)]
    return items[0]


def transient(exc: Exception) -> Retry | RunError:
    if isinstance(exc, ConnectionError):
        return Retry(RunError("model_error", "Could not reach the service."))
    if isinstance(exc, LookupError):
        return Retry(RunError("quota", "Rate limited."), delay=float(str(exc.args[0])))
    return RunError("auth", "Refused.")


async def test_success_after_transient_failures() -> None:
    fake = FakeTime()
    calls, send = failing(ConnectionError(), ConnectionError(), "ok")
    assert await call(budget(fake), send, transient) == "ok"
    assert len(calls) == 3
    assert len(fake.sleeps) == 2
    assert 0.25 <= fake.sleeps[0] <= 0.5
    assert 0.5 <= fake.sleeps[1] <= 1.0


async def test_gives_up_after_max_retries() -> None:
    fake = FakeTime()
    calls, send = failing(*[ConnectionError()] * 5)
    with pytest.raises(RunError) as caught:
        await call(budget(fake, maxRetries=2), send, transient)
    assert caught.value.reason == "model_error"
    assert "Gave up after 3 attempts" in caught.value.message
    assert len(calls) == 3


async def test_a_final_failure_is_not_retried() -> None:
    fake = FakeTime()
    calls, send = failing(ValueError("bad key"))
    with pytest.raises(RunError) as caught:
        await call(budget(fake), send, transient)
    assert caught.value.reason == "auth"
    assert len(calls) == 1
    assert fake.sleeps == []


async def test_the_server_delay_is_honoured() -> None:
    fake = FakeTime()
    _, send = failing(LookupError("7"), "ok")
    assert await call(budget(fake), send, transient) == "ok"
    assert fake.sleeps == [7.0]


async def test_a_server_delay_beyond_the_budget_fails_fast() -> None:
    fake = FakeTime()
    calls, send = failing(LookupError("3600"), "ok")
    with pytest.raises(RunError) as caught:
        await call(budget(fake, wallTimeSeconds=60), send, transient)
    assert caught.value.reason == "quota"
    assert "3600" in caught.value.message
    assert len(calls) == 1
    assert fake.sleeps == []


async def test_out_of_time_for_the_backoff() -> None:
    fake = FakeTime()
    _, send = failing(ConnectionError(), "ok")
    run = budget(fake, wallTimeSeconds=0.1)
    with pytest.raises(RunError) as caught:
        await call(run, send, transient)
    assert "Out of time" in caught.value.message


async def test_run_errors_and_cancellation_pass_through() -> None:
    fake = FakeTime()
    _, send = failing(RunError("blocked", "no"))
    with pytest.raises(RunError) as caught:
        await call(budget(fake), send, transient)
    assert caught.value.reason == "blocked"

    async def cancelled() -> str:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await call(budget(fake), cancelled, transient)


async def test_a_hung_send_is_abandoned_after_the_hard_timeout() -> None:
    async def forever() -> str:
        await asyncio.sleep(3600)
        return "never"

    settings = Settings.from_layers({}, {"requestTimeoutSeconds": 0.01, "maxRetries": 0})
    run = RetryBudget(settings)
    run.limit = -4.95  # the 5 s slack leaves 50 ms

    def classify(exc: Exception) -> Retry | RunError:
        return transport_failure(exc, settings, {}, ())

    with pytest.raises(RunError) as caught:
        await call(run, forever, classify)
    assert "requestTimeoutSeconds" in caught.value.message


def test_backoff_grows_and_is_capped() -> None:
    assert 0.25 <= backoff(1) <= 0.5
    assert 4.0 <= backoff(5) <= 8.0
    assert backoff(30) <= 8.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "soon"}, None),
    ],
)
def test_retry_after_header(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_seconds(headers) == expected


def test_retry_after_as_an_http_date() -> None:
    when = datetime(2030, 1, 1, 0, 0, 30, tzinfo=UTC)
    now = datetime(2030, 1, 1, 0, 0, 0, tzinfo=UTC).timestamp()
    header = {"retry-after": format_datetime(when, usegmt=True)}
    assert retry_after_seconds(header, now=now) == pytest.approx(30.0)


def test_transport_failures() -> None:
    settings = Settings()
    # A timeout is final since issue 20 (the request was accepted: never sent again).
    timed_out = transport_failure(TimeoutError(), settings, {}, ())
    assert isinstance(timed_out, RunError)
    assert "requestTimeoutSeconds" in timed_out.message
    assert isinstance(transport_failure(ConnectionResetError(), settings, {}, ()), Retry)
    env = {"SOME_KEY": "secret-value-123"}
    failure = transport_failure(ValueError("bad secret-value-123"), settings, env, ["SOME_KEY"])
    assert isinstance(failure, RunError)
    assert failure.reason == "model_error"
    assert "secret-value-123" not in failure.message


def test_redact_only_long_enough_values() -> None:
    env = {"A": "abcdef", "B": "xy"}
    assert redact("abcdef xy", env, ["A", "B"]) == "[redacted] xy"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (None, "api.example.com"),
        ("http://localhost:11434/v1", "localhost:11434"),
        ("https://user:pass@proxy.internal/v1", "proxy.internal"),
        ("not a url", "the configured baseUrl"),
    ],
)
def test_service_host_never_shows_credentials(url: str | None, expected: str) -> None:
    assert service_host(url, "api.example.com") == expected


# -- each retry is announced before its wait ------------------------------------------------


async def test_each_retry_is_announced_before_its_wait() -> None:
    fake = FakeTime()
    notices: list[tuple[RetryNotice, int]] = []

    def on_retry(notice: RetryNotice) -> None:
        notices.append((notice, len(fake.sleeps)))  # how many waits came before it

    _, send = failing(LookupError("3"), ConnectionError(), "ok")
    run = RetryBudget(
        Settings(max_retries=4), on_retry=on_retry, clock=fake.clock, sleep=fake.sleep
    )
    assert await call(run, send, transient) == "ok"
    assert [(n.retry, n.max_retries, n.delay, before) for n, before in notices] == [
        (1, 4, 3.0, 0),
        (2, 4, fake.sleeps[1], 1),
    ]
    assert notices[0][0].why == "the request failed"  # the classifier above names nothing


async def test_no_announcement_when_the_run_gives_up() -> None:
    fake = FakeTime()
    notices: list[RetryNotice] = []
    _, send = failing(LookupError("3600"), ConnectionError(), ConnectionError())
    run = RetryBudget(
        Settings(wall_time_seconds=60), on_retry=notices.append, clock=fake.clock, sleep=fake.sleep
    )
    with pytest.raises(RunError):
        await call(run, send, transient)
    assert notices == []


@pytest.mark.parametrize(
    ("retry", "why"),
    [
        (status_retry(429, RunError("quota", "q"), 3.0), "rate limited"),
        (status_retry(503, RunError("model_error", "m")), "the service answered 503"),
        (status_retry(529, RunError("model_error", "m")), "the service is overloaded (529)"),
        (connection_failure("Could not reach it."), "could not reach the model service"),
        (
            transport_failure(ConnectionResetError(), Settings(), {}, ()),
            "could not reach the model service",
        ),
    ],
)
def test_retries_say_why_in_a_few_words(retry: Retry | RunError, why: str) -> None:
    assert isinstance(retry, Retry)
    assert retry.why == why


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (
            ModelRetrying(2, 8, "rate limited", 2, 4, 3.0),
            "Turn 2/8 · rate limited; retry 2/4 in 3 s",
        ),
        (
            ModelRetrying(1, 8, "no answer in 60 s", 1, 3, 0.37),
            "Turn 1/8 · no answer in 60 s; retry 1/3 in 0.4 s",
        ),
        (
            ModelRetrying(1, 8, "rate limited", 1, 3, 45.2),
            "Turn 1/8 · rate limited; retry 1/3 in 45 s",
        ),
        (
            ModelRetrying(1, 8, "rate limited", 1, 3, 2.5),
            "Turn 1/8 · rate limited; retry 1/3 in 2.5 s",
        ),
    ],
)
def test_the_retry_progress_line(event: ModelRetrying, line: str) -> None:
    assert describe(event) == line


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (
            ModelWaiting(TurnStarted(1, 8), 45.2),
            "Turn 1/8 · waiting for the model · 45 s",
        ),
        (
            ModelWaiting(TurnStarted(2, 8, 3, 1, ("replace_text",)), 5.0),
            "Turn 2/8 · +3 −1 lines · last turn: replace_text · waiting for the model · 5 s",
        ),
    ],
)
def test_the_waiting_progress_line(event: ModelWaiting, line: str) -> None:
    assert describe(event) == line
