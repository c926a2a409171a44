"""The `performComplexEdit` arguments, validated before any model call, and those of
`complexEdit.applyReview`. What they ask is
checked against the document and the settings by the edit flow (`server/edit/checks.py`)."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from complex_edit.edit_tools.lines import count_breaks, line_count
from complex_edit.server.outcome import WireRange
from complex_edit.server.session.request import LineRange
from complex_edit.server.settings import SettingsLayer


class InvalidArguments(ValueError):
    """The command's arguments are malformed; the message names the field."""


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


Args = TypeVar("Args", bound=_Wire)


class DocumentId(_Wire):
    uri: str = Field(min_length=1)


class PerformArgs(_Wire):
    text_document: DocumentId
    prompt: str
    range: WireRange | None = None
    dry_run: bool = False
    max_turns: int | None = Field(default=None, ge=1, le=100)
    model: str | None = Field(default=None, min_length=1)
    review: bool | None = None
    other_files: Literal["off", "read", "edit"] | None = None
    checkers: str | list[dict[str, Any]] | None = None
    propose: bool = False
    """Keep the change as a proposal for `complexEdit.applyReview` (its `proposalId` and
    `hunks` in the answer) instead of applying it, even in an editor that can review: for a
    client's own preview. Implies `review`."""

    @field_validator("prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the instruction is empty")
        return value

    def selection(self, text: str) -> LineRange | None:
        """The lines `range` covers in `text` (1-based, inclusive; a range ending at the start
        of a line leaves that line out). A position on the empty line after a final line break
        (LSP names it, a file's line numbers do not) means the last line; lines past that are
        left for the flow to refuse."""
        if self.range is None or not text:
            return None
        start = self.range.start.line
        end = self.range.end.line
        if self.range.end.character == 0 and end > start:
            end -= 1
        start, end = sorted((start, end))
        last = line_count(text) - 1
        if end == last + 1 == count_breaks(text):
            end, start = last, min(start, last)
        return LineRange(start_line=start + 1, end_line=end + 1)

    def overrides(self) -> SettingsLayer:
        """The settings layer this command gives (the most specific one)."""
        return SettingsLayer(
            {
                "maxTurns": self.max_turns,
                "model": self.model,
                "review": True if self.propose else self.review,
                "otherFiles": self.other_files,
                "checkers": self.checkers,
            },
            "performComplexEdit argument ",
        )


class ReviewArgs(_Wire):
    """`complexEdit.applyReview`: which hunks of the proposal `proposal_id` to keep."""

    proposal_id: str = Field(min_length=1)
    keep: list[int]


def parse_review_arguments(raw: tuple[Any, ...]) -> ReviewArgs:
    """Validate `arguments: [{proposalId, keep}]`; raises InvalidArguments."""
    return _parse(raw, ReviewArgs, "complexEdit.applyReview", "'proposalId' and 'keep'")


def parse_arguments(raw: tuple[Any, ...]) -> PerformArgs:
    """Validate `arguments: [ARGS]`; raises InvalidArguments with a readable message."""
    return _parse(raw, PerformArgs, "performComplexEdit", "'textDocument' and 'prompt'")


def _parse(raw: tuple[Any, ...], model: type[Args], command: str, fields: str) -> Args:
    if len(raw) != 1 or not isinstance(raw[0], dict):
        raise InvalidArguments(f"{command} takes exactly one argument: an object with {fields}.")
    try:
        return model.model_validate(raw[0], strict=True)
    except ValidationError as exc:
        raise InvalidArguments(_describe(exc, command)) from None


def _describe(exc: ValidationError, command: str) -> str:
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"'{where}': {error['msg']}")
    return f"Invalid {command} arguments: " + "; ".join(problems)
