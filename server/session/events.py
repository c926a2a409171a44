"""Progress events a session emits, and their one-line rendering for progress UIs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.providers.limits import seconds
from complex_edit.server.text.diff import TextChange


@dataclass(frozen=True)
class TurnStarted:
    """Turn `turn` asks the model. `added`/`removed`: lines of the working text changed so
    far (against the snapshot); `last_calls`: the tools the previous turn called;
    `input_tokens`/`cached_tokens`: the usage so far, of which read from the prompt cache."""

    turn: int
    max_turns: int
    added: int = 0
    removed: int = 0
    last_calls: tuple[str, ...] = ()
    input_tokens: int = 0
    cached_tokens: int = 0


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
class ModelWaiting:
    """The model request of the turn `started` began has been outstanding for `seconds`
    (sent every few seconds while it is, so a person sees the edit is alive)."""

    started: TurnStarted
    seconds: float


@dataclass(frozen=True)
class ModelThinking:
    """What the model of `turn` is thinking about: a short scrubbed line of its latest thought
    summary (setting `thoughtSummaries`). Progress only: never in the document, the result,
    or the logs above DEBUG."""

    turn: int
    max_turns: int
    summary: str


@dataclass(frozen=True)
class WorkingChanged:
    """After a call that changed the working text: the change so far against the snapshot,
    as minimal changes (offsets into the snapshot's text, `compute_edits(snapshot, working)`),
    and the lines added/removed so far (as TurnStarted counts them)."""

    turn: int
    max_turns: int
    changes: tuple[TextChange, ...]
    added: int
    removed: int


@dataclass(frozen=True)
class OtherChanged:
    """After a call that changed another file of the workspace (`otherFiles` "edit"): that
    file's change so far against its snapshot, as `WorkingChanged` gives the command's own.
    `path`: the file's absolute path; `label`: how the model names it. `disk_text`: on the
    file's first `OtherChanged` only, when it was read from disk (not open in the editor), the
    text read, which `changes` are against (a live preview's coordinates); None otherwise."""

    turn: int
    max_turns: int
    path: str
    label: str
    changes: tuple[TextChange, ...]
    added: int
    removed: int
    disk_text: str | None = None


@dataclass(frozen=True)
class SessionFinished:
    outcome: SessionOutcome


SessionEvent = (
    TurnStarted
    | ModelWaiting
    | ModelRetrying
    | ModelThinking
    | ToolStarted
    | ToolFinished
    | WorkingChanged
    | OtherChanged
    | SessionFinished
)
EventSink = Callable[[SessionEvent], None]


def describe(event: SessionEvent) -> str:
    """`Turn 2/8 · replace_text 'foo' → 'bar'` and friends."""
    match event:
        case TurnStarted(turn, max_turns, added, removed, last_calls, input_tokens, cached):
            so_far = f"+{added} −{removed} lines · " if added or removed else ""
            calls = f"last turn: {_calls(last_calls)} · " if last_calls else ""
            saved = f"{cached:,} of {input_tokens:,} input tokens cached · " if cached else ""
            return f"Turn {turn}/{max_turns} · {so_far}{calls}{saved}waiting for the model…"
        case ModelWaiting(started, waited):
            return f"{describe(started).removesuffix('…')} · {seconds(waited)}"
        case ModelRetrying(turn, max_turns, why, retry, max_retries, delay):
            wait = seconds(delay)
            return f"Turn {turn}/{max_turns} · {why}; retry {retry}/{max_retries} in {wait}"
        case ModelThinking(turn, max_turns, summary):
            return f"Turn {turn}/{max_turns} · thinking: {summary}"
        case WorkingChanged(turn, max_turns, _, added, removed):
            return f"Turn {turn}/{max_turns} · +{added} −{removed} lines so far"
        case ToolStarted(turn, max_turns, _, summary):
            return f"Turn {turn}/{max_turns} · {summary}"
        case ToolFinished(turn, max_turns, _, ok, summary):
            mark = "✓" if ok else "✗"
            return f"Turn {turn}/{max_turns} · {mark} {summary}"
        case OtherChanged(turn, max_turns, _, label, _, added, removed):
            return f"Turn {turn}/{max_turns} · +{added} −{removed} lines so far in {label}"
        case SessionFinished(outcome):
            if outcome.success:
                return "Done: " + (outcome.message or "edit complete")
            return f"Failed ({outcome.reason}): {outcome.error or ''}".rstrip(": ")


def _calls(names: tuple[str, ...]) -> str:
    """`replace_text ×2, get_document` (in order of first call)."""
    counts = Counter(names)
    return ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in counts.items())
