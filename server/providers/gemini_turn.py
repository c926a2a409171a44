"""A Gemini model turn assembled from the chunks of `streamGenerateContent`.

Every part of every chunk is kept, in order, and the turn goes back into the history as ONE
model `Content` (Gemini 3 puts the thought signature on the first call only; splitting or
pruning the parts is a 400 on the next request). The calls of a chunk are handed to the loop as
soon as the chunk arrives, unless the chunk ends the turn with a finish reason that refuses it.
Usage and the finish reason come with the last chunk. The verdict on the whole turn is the one
the blocking `generateContent` gave for the same reply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from complex_edit.server.outcome import RunError, Usage
from complex_edit.server.providers.base import ModelTurn, Thought, ToolCall, thought_line

if TYPE_CHECKING:
    from collections.abc import Callable

    from google.genai import types

BLOCKED_FINISH = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "MODEL_ARMOR",
        "LANGUAGE",
    }
)
RETRY_IN_TURN_FINISH = frozenset(
    {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "MALFORMED_RESPONSE", "TOO_MANY_TOOL_CALLS"}
)
OK_FINISH = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED", ""})


class TurnAssembly:
    """The chunks of one streamed turn so far. `scrub` removes credentials from thought lines."""

    def __init__(self, scrub: Callable[[str], str]) -> None:
        self._scrub = scrub
        self._parts: list[types.Part] = []
        self._calls: list[ToolCall] = []
        self._usage = Usage()
        self._finish = ""
        self._candidates = False
        self._block: str | None = None

    def add(self, chunk: types.GenerateContentResponse) -> list[ToolCall | Thought]:
        """Take one chunk; return its complete calls and thought lines, in order."""
        if chunk.usage_metadata is not None:
            self._usage = _usage(chunk.usage_metadata)
        feedback = chunk.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            self._block = _name(feedback.block_reason)
        if not chunk.candidates:
            return []
        self._candidates = True
        candidate = chunk.candidates[0]
        if candidate.finish_reason is not None:
            self._finish = _name(candidate.finish_reason)
        content = candidate.content
        parts = list(content.parts) if content is not None and content.parts else []
        if self._finish not in OK_FINISH:
            return []  # the turn is refused: its last chunk's parts never run nor go back
        self._parts.extend(parts)
        items: list[ToolCall | Thought] = []
        for part in parts:
            if part.function_call is not None:
                call = ToolCall(
                    name=part.function_call.name or "",
                    args=dict(part.function_call.args or {}),
                    id=part.function_call.id,
                )
                self._calls.append(call)
                items.append(call)
            elif part.thought and part.text and (line := thought_line(self._scrub(part.text))):
                items.append(Thought(line))
        return items

    def end(self) -> list[ToolCall | Thought]:
        """The stream ended: nothing is left open (each chunk holds its parts whole)."""
        return []

    def finish(self) -> tuple[ModelTurn, types.Content | None]:
        """The whole turn, and the content to append to the history (None: append nothing).
        Raises `RunError` for a reply that ends the run."""
        from google.genai import types

        if not self._candidates:
            if self._block is not None:
                raise RunError(
                    "blocked", f"The model refused the request (prompt blocked: {self._block})."
                )
            return ModelTurn(calls=[], usage=self._usage, problem="no candidates"), None
        finish = self._finish
        if finish in BLOCKED_FINISH:
            raise RunError("blocked", f"The model stopped its reply (finish reason {finish}).")
        if finish == "MAX_TOKENS":
            raise RunError(
                "model_error",
                "The model's reply was cut off (finish reason MAX_TOKENS); nothing was applied. "
                "Try a smaller instruction or selection.",
            )
        if finish not in OK_FINISH | RETRY_IN_TURN_FINISH:
            raise RunError("model_error", f"The model ended its reply with finish reason {finish}.")
        problem = f"finish reason {finish}" if finish in RETRY_IN_TURN_FINISH else None
        if not self._calls:
            problem = problem or "reply without a function call"
            return ModelTurn(calls=[], usage=self._usage, problem=problem), None
        # Calls that arrived before a refused last chunk have run: they and their results stay
        # in the history (the parts of the refused chunk were never kept).
        content = types.Content(role="model", parts=self._parts)
        return ModelTurn(calls=list(self._calls), usage=self._usage, problem=problem), content


def _usage(meta: types.GenerateContentResponseUsageMetadata) -> Usage:
    return Usage(
        input_tokens=meta.prompt_token_count or 0,
        output_tokens=(meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
        cached_tokens=meta.cached_content_token_count or 0,
    )


def _name(value: object) -> str:
    if value is None:
        return ""
    name = getattr(value, "value", value)
    return str(name)
