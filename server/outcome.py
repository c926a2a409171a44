"""Run-ending failures and the session's outcome: the one place `reason` codes are defined."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

Reason = Literal[
    "task_failed",
    "max_turns",
    "model_error",
    "auth",
    "quota",
    "blocked",
    "document_changed",
    "client_rejected",
    "cancelled",
    "busy",
    "invalid_request",
    "too_large",
    "config",
]


class RunError(Exception):
    """A failure the model cannot fix: it ends the run with a contract `reason`.

    `message` is shown to users: it never contains the API key or document text.
    """

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = reason
        self.message = message


class Usage(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )


class SessionOutcome(BaseModel):
    """What a session ended with. `final_text` is set only on success."""

    success: bool
    message: str | None = None
    error: str | None = None
    reason: Reason | None = None
    final_text: str | None = None
    turns: int = 0
    tool_calls: int = 0
    usage: Usage = Usage()
