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


@dataclass(frozen=True)
class SessionFinished:
    outcome: SessionOutcome


SessionEvent = TurnStarted | ToolStarted | ToolFinished | SessionFinished
EventSink = Callable[[SessionEvent], None]


def describe(event: SessionEvent) -> str:
    """`Turn 2/8 · replace_text 'foo' → 'bar'` and friends."""
    match event:
        case TurnStarted(turn, max_turns):
            return f"Turn {turn}/{max_turns} · waiting for the model…"
        case ToolStarted(turn, max_turns, _, summary):
            return f"Turn {turn}/{max_turns} · {summary}"
        case ToolFinished(turn, max_turns, _, ok, summary):
            mark = "✓" if ok else "✗"
            return f"Turn {turn}/{max_turns} · {mark} {summary}"
        case SessionFinished(outcome):
            if outcome.success:
                return "Done: " + (outcome.message or "edit complete")
            return f"Failed ({outcome.reason}): {outcome.error or ''}".rstrip(": ")
