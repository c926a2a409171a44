"""The small protocol between the provider-agnostic loop and a model provider.

A provider opens a conversation; the conversation keeps its history in the provider's own wire
format (model turns appended unchanged), sends it, and turns each reply into tool calls.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from edit_tools.registry import ToolDeclaration
from server.outcome import Usage
from server.settings import DEFAULT_MODEL, Settings


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
class ToolResult:
    call: ToolCall
    ok: bool
    response: dict[str, Any]

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
class ConversationRequest:
    system_instruction: str
    tools: Sequence[ToolDeclaration]
    first_message: str
    settings: Settings


class Conversation(Protocol):
    async def next_turn(self) -> ModelTurn:
        """Send the history, append the model's turn, return its calls.

        Raises `RunError` for faults that end the run (auth, quota, blocked, …).
        """
        ...

    def add_tool_results(self, results: Sequence[ToolResult]) -> None:
        """Append all function responses of one turn as one message."""
        ...


class Provider(Protocol):
    def open(self, request: ConversationRequest) -> Conversation:
        """Start a conversation. Raises `RunError('config', …)` before any request when the
        provider cannot be used (no API key, unknown provider)."""
        ...


def effective_model(settings: Settings, provider_default: str) -> str:
    """The `model` setting, or the provider's own default when the setting was left at the
    built-in (Gemini) default."""
    if "model" not in settings.model_fields_set and settings.model == DEFAULT_MODEL:
        return provider_default
    return settings.model
