"""The small protocol between the provider-agnostic loop and a model provider.

A provider opens a conversation; the conversation keeps its history in the provider's own wire
format (model turns appended unchanged), sends it, and turns each reply into tool calls.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

from complex_edit.edit_tools import errors as tool_errors
from complex_edit.edit_tools.registry import ToolDeclaration
from complex_edit.server.outcome import Usage
from complex_edit.server.providers._retry import RetryListener
from complex_edit.server.providers.limits import request_limit
from complex_edit.server.settings import DEFAULT_MODEL, Settings

# Sent as the key to a server at a configured base URL when no key is set: every SDK needs
# some key, and local servers ignore it.
PLACEHOLDER_KEY = "complex-edit-no-key"


@dataclass(frozen=True)
class ToolCall:
    """One call as the model sent it. `args_error` set means the adapter could not read the
    arguments (e.g. malformed JSON): the call fails with that message, which goes back to the
    model, and nothing runs."""

    name: str
    args: dict[str, Any]
    id: str | None = None
    args_error: str | None = None


@dataclass(frozen=True)
class ToolReply:
    """A tool call's answer as it goes back to the model (the toolbox's own result is
    `edit_tools.results.ToolResult`). `full_view`: the response shows the whole current
    document (a fresh full get_document)."""

    call: ToolCall
    ok: bool
    response: dict[str, Any]
    full_view: bool = False

    @property
    def text(self) -> str:
        """The response as one string, for APIs whose tool results are text."""
        value = self.response.get("result" if self.ok else "error")
        if isinstance(value, str):
            return value
        return json.dumps(self.response, ensure_ascii=False)


@dataclass(frozen=True)
class ModelTurn:
    """One model reply. `calls` empty means the reply held no usable call (`problem` says why);
    the loop may ask again within its turn budget."""

    calls: list[ToolCall]
    usage: Usage = field(default_factory=Usage)
    problem: str | None = None


@dataclass(frozen=True)
class Thought:
    """What the model is thinking about, as one short scrubbed line (`thought_line`): shown
    in progress only, never in the document, the result or the logs above DEBUG."""

    summary: str


TurnItem: TypeAlias = ToolCall | Thought | ModelTurn
"""What a streamed turn yields: each complete call as it arrives, in order (the loop runs it at
once), thought lines, and last the whole `ModelTurn` (all its calls, usage, problem)."""


@dataclass(frozen=True)
class ConversationRequest:
    """`on_retry` is told of each retry of a model request before its wait. `answer_bytes`:
    the size of the largest answer the model may legitimately write (the whole document, for a
    rewrite), which sets how long one request may take (`limits.request_limit`)."""

    system_instruction: str
    tools: Sequence[ToolDeclaration]
    first_message: str
    settings: Settings
    on_retry: RetryListener | None = None
    answer_bytes: int = 0

    @property
    def limit(self) -> float:
        """Seconds one model request of this conversation may take."""
        return request_limit(self.settings, self.answer_bytes)


class Conversation(Protocol):
    def stream_turn(self) -> AsyncIterator[TurnItem]:
        """Send the history and stream the model's turn: each call as soon as it is complete,
        then the whole turn, which is appended to the history. A stream that fails before any
        call was yielded is retried from scratch; once a call was yielded (and so ran), the
        turn is never asked for again: the failure ends the run as `model_error`.

        Raises `RunError` for faults that end the run (auth, quota, blocked, …).
        """
        ...

    def add_tool_results(self, results: Sequence[ToolReply]) -> None:
        """Append all function responses of one turn as one message. When they hold a fresh
        full view of the document, the older full views in the history become the
        `STALE_VIEW` stub (see `FullViews`)."""
        ...


class Provider(Protocol):
    def open(self, request: ConversationRequest) -> Conversation:
        """Start a conversation. Raises `RunError('config', …)` before any request when the
        provider cannot be used (no API key, unknown provider)."""
        ...


async def replay(turn: Awaitable[ModelTurn]) -> AsyncIterator[TurnItem]:
    """A turn known whole, streamed as `Conversation.stream_turn` does (for in-process
    conversations: scripted tests, the evaluation's replays)."""
    whole = await turn
    for call in whole.calls:
        yield call
    yield whole


def parse_arguments(name: str, raw: str | None) -> tuple[dict[str, Any], str | None]:
    """The arguments of a call from their JSON string, or `({}, message for the model)`.

    An empty string means no arguments; a JSON string holding a JSON object (double-encoded,
    as some models send) is unwrapped once."""
    if raw is None or not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
        if isinstance(value, str) and value.lstrip().startswith("{"):
            value = json.loads(value)
    except json.JSONDecodeError as exc:
        return {}, (
            f"The arguments of {name} are not valid JSON ({exc.msg} at character {exc.pos}). "
            "Call it again with the arguments as one JSON object, every string escaped "
            '(\\" for quotes, \\\\ for backslashes, \\n for line breaks). Nothing was changed.'
        )
    if not isinstance(value, dict):
        return {}, tool_errors.arguments_not_object(name, value).message
    return value, None


THOUGHT_LINE_CHARS = 80


def thought_line(text: str) -> str:
    """The first heading or sentence of a thought summary, on one line, at most 80 chars
    (`**Locating the loop**\n\nI will…` → `Locating the loop`)."""
    for raw in text.splitlines():
        line = raw.replace("**", "").replace("__", "").strip().strip("#*_` ").strip()
        if line:
            break
    else:
        return ""
    end = next(
        (i + 1 for i, ch in enumerate(line) if ch in ".!?" and line[i + 1 : i + 2] in ("", " ")),
        len(line),
    )
    line = " ".join(line[:end].split())
    return line if len(line) <= THOUGHT_LINE_CHARS else line[: THOUGHT_LINE_CHARS - 1] + "…"


STALE_VIEW = (
    "[An older full view of the document was here. It is out of date and was removed; "
    "the latest full view is further down.]"
)

Slot = TypeVar("Slot")


class FullViews(Generic[Slot]):
    """Keeps at most one full view of the document among a conversation's tool responses.

    A `Slot` is where the conversation put one response in its history (an index, or a pair
    of indices). Only our own responses are ever replaced, never a model turn, and each
    replacement keeps the call's id and name so the history stays valid for the API."""

    def __init__(self) -> None:
        self._latest: tuple[Slot, ToolCall] | None = None

    def outdated(self, placed: Sequence[tuple[Slot, ToolReply]]) -> list[tuple[Slot, ToolReply]]:
        """Record where one turn's results went; when one of them is a fresh full view,
        return the stubs to put in place of every older full view (the previous turns' and
        any earlier one in this turn)."""
        views = [(slot, result.call) for slot, result in placed if result.full_view]
        if not views:
            return []
        older = views[:-1] if self._latest is None else [self._latest, *views[:-1]]
        self._latest = views[-1]
        return [
            (slot, ToolReply(call=call, ok=True, response={"result": STALE_VIEW}))
            for slot, call in older
        ]


def effective_model(settings: Settings, provider_default: str) -> str:
    """The `model` setting, or the provider's own default when the setting was left at the
    built-in (Gemini) default."""
    if "model" not in settings.model_fields_set and settings.model == DEFAULT_MODEL:
        return provider_default
    return settings.model
