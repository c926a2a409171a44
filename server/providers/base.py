"""The small protocol between the provider-agnostic loop and a model provider.

A provider opens a conversation; the conversation keeps its history in the provider's own wire
format (model turns appended unchanged), sends it, and turns each reply into tool calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from edit_tools.registry import ToolDeclaration
from server.outcome import Usage
from server.settings import Settings


@dataclass(frozen=True)
class ToolCall:
    name: str
    args: dict[str, Any]
    id: str | None = None


@dataclass(frozen=True)
class ToolResult:
    call: ToolCall
    ok: bool
    response: dict[str, Any]


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
