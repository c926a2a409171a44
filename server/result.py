"""The contract's result object, shared by the LSP command, the CLI and the MCP tool."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from server.outcome import Reason, SessionOutcome, Usage


class EditResult(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    success: bool
    message: str | None = None
    error: str | None = None
    reason: Reason | None = None
    applied: bool = False
    diff: str = ""
    turns: int = 0
    tool_calls: int = 0
    usage: Usage = Usage()

    @classmethod
    def failure(
        cls, reason: Reason, error: str, outcome: SessionOutcome | None = None
    ) -> EditResult:
        result = cls(success=False, reason=reason, error=error)
        return result.with_counts(outcome) if outcome is not None else result

    @classmethod
    def from_outcome(cls, outcome: SessionOutcome) -> EditResult:
        if outcome.success:
            return cls(success=True, message=outcome.message).with_counts(outcome)
        return cls.failure(outcome.reason or "model_error", outcome.error or "", outcome)

    def with_counts(self, outcome: SessionOutcome) -> EditResult:
        return self.model_copy(
            update={
                "turns": outcome.turns,
                "tool_calls": outcome.tool_calls,
                "usage": outcome.usage,
            }
        )

    def to_wire(self) -> dict[str, Any]:
        """camelCase JSON object; absent optional fields are omitted."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")
