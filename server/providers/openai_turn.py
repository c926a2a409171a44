"""An OpenAI Chat Completions turn assembled from the chunks of its stream.

`delta.tool_calls[i]` carries `index`, then `id` and `function.name` once, then
`function.arguments` fragments to concatenate per index. A call is complete when a later index
starts or the finish reason arrives: it is handed to the loop then. Usage comes in a last chunk
without choices (`stream_options={"include_usage": true}`). The verdict on the whole turn, and
the assistant message echoed into the history, are the ones the whole completion gave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from complex_edit.server.outcome import RunError, Usage
from complex_edit.server.providers.base import ModelTurn, ToolCall, parse_arguments


@dataclass
class _Pending:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class TurnAssembly:
    """The chunks of one streamed completion so far. `new_id` names a call the server sent
    without an id; `host` is where the answer came from, for messages."""

    def __init__(self, new_id: Callable[[], str], host: str) -> None:
        self._new_id = new_id
        self._host = host
        self._pending: dict[int, _Pending] = {}
        self._handed = 0  # calls (by index order) already handed over
        self._calls: list[ToolCall] = []
        self._echoed: list[dict[str, Any]] = []
        self._content: list[str] = []
        self._refusal: list[str] = []
        self._finish: str | None = None
        self._usage = Usage()
        self._chunks = 0
        self._choices = False

    def add(self, chunk: Any) -> list[ToolCall]:
        """Take one chunk; return the calls it completed, in order."""
        self._chunks += 1
        if getattr(chunk, "usage", None) is not None:
            self._usage = _usage(chunk.usage)
        choices = getattr(chunk, "choices", None) or []
        if not choices:
            return []
        self._choices = True
        choice = choices[0]
        delta = choice.delta
        if delta is not None:
            if delta.content:
                self._content.append(delta.content)
            if getattr(delta, "refusal", None):
                self._refusal.append(str(delta.refusal))
            for fragment in delta.tool_calls or []:
                self._take(fragment)
        if choice.finish_reason is not None:
            self._finish = str(choice.finish_reason)
            if self._finish in ("length", "content_filter"):
                return []  # the turn is refused: its open calls never run
            return self._complete(len(self._pending))
        return self._complete(len(self._pending) - 1)

    def _take(self, fragment: Any) -> None:
        pending = self._pending.setdefault(int(fragment.index or 0), _Pending())
        if fragment.id:
            pending.id = fragment.id
        function = getattr(fragment, "function", None)
        if function is not None:
            if function.name:
                pending.name += function.name
            if function.arguments:
                pending.arguments.append(function.arguments)

    def _complete(self, upto: int) -> list[ToolCall]:
        """Hand over the calls before index `upto` not handed yet."""
        done: list[ToolCall] = []
        for index in sorted(self._pending)[self._handed : max(upto, self._handed)]:
            pending = self._pending[index]
            call_id = pending.id or self._new_id()
            raw = "".join(pending.arguments)
            args, problem = parse_arguments(pending.name, raw)
            call = ToolCall(name=pending.name, args=args, id=call_id, args_error=problem)
            self._calls.append(call)
            self._echoed.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": pending.name, "arguments": raw},
                }
            )
            done.append(call)
        self._handed += len(done)
        return done

    def end(self) -> list[ToolCall]:
        """The stream ended: the calls still open (a stream without a finish reason)."""
        if self._finish in ("length", "content_filter"):
            return []
        return self._complete(len(self._pending))

    def finish(self) -> tuple[ModelTurn, dict[str, Any] | None]:
        """The whole turn and the assistant message to append (None: append nothing). Raises
        `RunError` for a reply that ends the run."""
        if self._chunks == 0:  # an HTML page or plain text answered 200
            raise RunError(
                "model_error",
                f"The server at {self._host} did not answer with a chat completion stream. "
                "Check the 'baseUrl' setting.",
            )
        usage = self._usage
        if not self._choices:
            return ModelTurn(calls=[], usage=usage, problem="no choices"), None
        finish = self._finish or ""
        if finish == "content_filter":
            raise RunError(
                "blocked", "The model's reply was withheld (finish reason content_filter)."
            )
        if finish == "length":
            raise RunError(
                "model_error",
                "The model's reply was cut off (finish reason length); nothing was applied. "
                "Try a smaller instruction or selection.",
            )
        if not self._calls:
            refusal = "".join(self._refusal)
            if refusal:
                raise RunError("blocked", f"The model refused the request: {refusal[:300]}")
            empty = f"reply without a tool call (finish reason {finish or 'none'})"
            return ModelTurn(calls=[], usage=usage, problem=empty), None
        assistant: dict[str, Any] = {"role": "assistant", "tool_calls": self._echoed}
        if self._content:
            assistant["content"] = "".join(self._content)
        return ModelTurn(calls=list(self._calls), usage=usage), assistant


def _usage(usage: Any) -> Usage:
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        cached_tokens=(getattr(details, "cached_tokens", None) or 0) if details else 0,
    )
