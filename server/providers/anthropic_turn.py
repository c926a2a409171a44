"""An Anthropic Messages turn assembled from the events of its stream.

`content_block_start` opens a block (a `tool_use` with its id and name), `content_block_delta`
adds to it (`input_json_delta.partial_json` fragments, text, thinking, signature), and
`content_block_stop` closes it. A closed `tool_use` block is handed to the loop when the next
block starts, or, for the last one, when the stop reason is known and does not refuse the turn
(a reply cut at `max_tokens` is cut in its last block), as with OpenAI's streams. Usage comes in
`message_start` (input) and `message_delta` (output), with the stop reason. The verdict on the
whole turn, and the content echoed into the history, are the ones the whole message gave.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from complex_edit.server.outcome import RunError, Usage
from complex_edit.server.providers.base import (
    ModelTurn,
    Thought,
    ToolCall,
    parse_arguments,
    thought_line,
)

REFUSING_STOP = frozenset({"refusal", "max_tokens", "model_context_window_exceeded"})


class TurnAssembly:
    """The events of one streamed message so far; `host` is where it came from; `scrub`
    removes credentials from thought lines."""

    def __init__(self, host: str, scrub: Callable[[str], str]) -> None:
        self._host = host
        self._scrub = scrub
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self._calls: list[ToolCall] = []
        self._waiting: ToolCall | None = None  # closed, not handed yet
        self._input = Usage()
        self._output: int | None = None
        self._stop = ""
        self._events = 0

    def add(self, event: Any) -> list[ToolCall | Thought]:
        """Take one event; return the call or thought line it completed."""
        self._events += 1
        kind = getattr(event, "type", "")
        if kind == "message_start":
            self._input = _usage(event.message.usage)
        elif kind == "content_block_start":
            self._blocks[event.index] = event.content_block.to_dict(mode="json")
            return self._hand()
        elif kind == "content_block_delta":
            self._extend(event.index, event.delta)
        elif kind == "content_block_stop":
            return self._close(event.index)
        elif kind == "message_delta":
            self._stop = str(event.delta.stop_reason or "")
            if event.usage is not None and event.usage.output_tokens is not None:
                self._output = event.usage.output_tokens
            return self.end()
        return []

    def _hand(self) -> list[ToolCall | Thought]:
        waiting, self._waiting = self._waiting, None
        return [waiting] if waiting is not None else []

    def end(self) -> list[ToolCall | Thought]:
        """The stop reason came, or the stream ended: the last call, unless refused."""
        if self._stop in REFUSING_STOP:
            return []
        return self._hand()

    def _extend(self, index: int, delta: Any) -> None:
        block = self._blocks.setdefault(index, {})
        kind = getattr(delta, "type", "")
        if kind == "input_json_delta":
            self._json.setdefault(index, []).append(delta.partial_json)
        elif kind == "text_delta":
            block["text"] = block.get("text", "") + delta.text
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.thinking
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + delta.signature

    def _close(self, index: int) -> list[ToolCall | Thought]:
        block = self._blocks.get(index, {})
        if block.get("type") == "thinking":
            line = thought_line(self._scrub(str(block.get("thinking", ""))))
            return [Thought(line)] if line else []
        if block.get("type") != "tool_use":
            return []
        name = str(block.get("name") or "")
        args, problem = parse_arguments(name, "".join(self._json.get(index, [])))
        block["input"] = args
        self._waiting = ToolCall(name=name, args=args, id=block.get("id"), args_error=problem)
        self._calls.append(self._waiting)
        return []

    def finish(self) -> tuple[ModelTurn, dict[str, Any] | None]:
        """The whole turn and the assistant message to append (None: append nothing). Raises
        `RunError` for a reply that ends the run."""
        if self._events == 0:  # an HTML page or plain text answered 200
            raise RunError(
                "model_error",
                f"The server at {self._host} did not answer with a message stream. Check the "
                "'baseUrl' setting.",
            )
        output = self._output if self._output is not None else self._input.output_tokens
        usage = Usage(
            input_tokens=self._input.input_tokens,
            output_tokens=output,
            cached_tokens=self._input.cached_tokens,
        )
        stop = self._stop
        if stop == "refusal":
            raise RunError("blocked", "The model refused the request (stop reason refusal).")
        if stop == "max_tokens":
            raise RunError(
                "model_error",
                "The model's reply was cut off (stop reason max_tokens); nothing was applied. "
                "Try a smaller instruction or selection.",
            )
        if stop == "model_context_window_exceeded":
            raise RunError(
                "too_large",
                "The conversation no longer fits the model's context window "
                "(stop reason model_context_window_exceeded); nothing was applied.",
            )
        if not self._calls:
            problem = f"reply without a tool call (stop reason {stop or 'none'})"
            return ModelTurn(calls=[], usage=usage, problem=problem), None
        content = [self._blocks[index] for index in sorted(self._blocks)]
        return ModelTurn(calls=list(self._calls), usage=usage), {
            "role": "assistant",
            "content": content,
        }


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    cached = usage.cache_read_input_tokens or 0
    written = usage.cache_creation_input_tokens or 0
    return Usage(
        input_tokens=(usage.input_tokens or 0) + cached + written,
        output_tokens=usage.output_tokens or 0,
        cached_tokens=cached,
    )
