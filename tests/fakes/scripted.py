"""An in-process scripted model for loop tests where the wire is not the point.

`ScriptedProvider` implements the `Provider` protocol of `server/providers/base.py`: every
conversation it opens plays the same script, one step per `stream_turn`, and records what the loop
sent it (the request, and the tool results of each turn). A step is a `ModelTurn`, a list of
`ToolCall`s, or a function of the conversation returning either (sync or async): the place for a
side effect "while the model thinks" (the user types, a test cancels) or for an answer that
depends on what the loop sent. A loop asking for more turns than the script has fails the test.

No SDK, no HTTP, no retries: for those, point the real provider at an emulator of
``tests/fakes`` instead.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from complex_edit.server.providers.base import (
    ConversationRequest,
    ModelTurn,
    ToolCall,
    ToolReply,
    TurnItem,
    replay,
)

__all__ = ["ScriptedConversation", "ScriptedProvider", "Step", "call", "done"]

Answer: TypeAlias = ModelTurn | Sequence[ToolCall]
Step: TypeAlias = Answer | Callable[["ScriptedConversation"], Answer | Awaitable[Answer]]


def call(name: str, *, id: str | None = None, **args: Any) -> ToolCall:
    """``call("replace_text", old_text="a", new_text="b")``."""
    return ToolCall(name, args, id=id)


def done(success: bool = True, message: str = "Done.", *, id: str | None = None) -> ToolCall:
    """The ``complete_task`` call that ends a run."""
    return call("complete_task", id=id, success=success, message=message)


@dataclass
class ScriptedConversation:
    request: ConversationRequest
    script: Sequence[Step]
    results: list[list[ToolReply]] = field(default_factory=list)
    """The tool results of each turn, as the loop handed them back."""
    turns: int = 0
    """How many turns the loop asked for."""

    def stream_turn(self) -> AsyncIterator[TurnItem]:
        """The step's calls one by one, then the whole turn (as a streamed turn arrives)."""
        return replay(self._next_turn())

    async def _next_turn(self) -> ModelTurn:
        if self.turns >= len(self.script):
            raise AssertionError(
                f"the loop asked for turn {self.turns + 1}; the script has {len(self.script)}"
            )
        step = self.script[self.turns]
        self.turns += 1
        answer = step(self) if callable(step) else step
        if inspect.isawaitable(answer):
            answer = await answer
        return answer if isinstance(answer, ModelTurn) else ModelTurn(calls=list(answer))

    def add_tool_results(self, results: Sequence[ToolReply]) -> None:
        self.results.append(list(results))


@dataclass
class ScriptedProvider:
    """A `Provider` whose conversations all play ``script`` from its first step."""

    script: Sequence[Step]
    conversations: list[ScriptedConversation] = field(default_factory=list)

    def open(self, request: ConversationRequest) -> ScriptedConversation:
        conversation = ScriptedConversation(request, list(self.script))
        self.conversations.append(conversation)
        return conversation
