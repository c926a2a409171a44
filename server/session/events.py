"""Progress events a session emits, and their one-line rendering for progress UIs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.outcome import SessionOutcome


@dataclass(frozen=True)
class TurnStarted:
    turn: int
    max_turns: int


@dataclass(frozen=True)
class ToolStarted:
    turn: int
    max_turns: int
    name: str
    summary: str


@dataclass(frozen=True)
class ToolFinished:
    turn: int
    max_turns: int
    name: str
    ok: bool
    summary: str
    adjustments: tuple[str, ...] = ()  # see ToolOutcome.adjustments


@dataclass(frozen=True)
class ModelRetrying:
    """The model request of `turn` failed for a transient reason (`why`: "rate limited",
    "no answer in 60 s", …); retry `retry` of `max_retries` follows in `delay_seconds`."""

    turn: int
    max_turns: int
    why: str
    retry: int
    max_retries: int
    delay_seconds: float


@dataclass(frozen=True)
class SessionFinished:
    outcome: SessionOutcome


SessionEvent = TurnStarted | ModelRetrying | ToolStarted | ToolFinished | SessionFinished
EventSink = Callable[[SessionEvent], None]


def describe(event: SessionEvent) -> str:
    """`Turn 2/8 · replace_text 'foo' → 'bar'` and friends."""
    match event:
        case TurnStarted(turn, max_turns):
            return f"Turn {turn}/{max_turns} · waiting for the model…"
        case ModelRetrying(turn, max_turns, why, retry, max_retries, delay):
            wait = _seconds(delay)
            return f"Turn {turn}/{max_turns} · {why}; retry {retry}/{max_retries} in {wait}"
        case ToolStarted(turn, max_turns, _, summary):
            return f"Turn {turn}/{max_turns} · {summary}"
        case ToolFinished(turn, max_turns, _, ok, summary):
            mark = "✓" if ok else "✗"
            return f"Turn {turn}/{max_turns} · {mark} {summary}"
        case SessionFinished(outcome):
            if outcome.success:
                return "Done: " + (outcome.message or "edit complete")
            return f"Failed ({outcome.reason}): {outcome.error or ''}".rstrip(": ")


def _seconds(value: float) -> str:
    """`45 s`, `3 s`, `2.5 s`, `0.4 s`."""
    if value >= 9.5:
        return f"{value:.0f} s"
    return f"{value:.1f}".removesuffix(".0") + " s"
