"""The `performComplexEdit` arguments, validated before any model call."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from complex_edit.server.edit.checks import prompt_problem
from complex_edit.server.session.loop import LineRange
from complex_edit.server.settings import SettingsLayer


class InvalidArguments(ValueError):
    """The command's arguments are malformed; the message names the field."""


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class DocumentId(_Wire):
    uri: str = Field(min_length=1)


class WirePosition(_Wire):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class WireRange(_Wire):
    start: WirePosition
    end: WirePosition


class PerformArgs(_Wire):
    text_document: DocumentId
    prompt: str
    range: WireRange | None = None
    dry_run: bool = False
    max_turns: int | None = Field(default=None, ge=1, le=100)
    model: str | None = Field(default=None, min_length=1)
    review: bool | None = None

    @field_validator("prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the instruction is empty")
        return value

    def selection(self) -> LineRange | None:
        """The lines `range` covers (1-based, inclusive; a range ending at the start of a line
        leaves that line out)."""
        if self.range is None:
            return None
        start = self.range.start.line
        end = self.range.end.line
        if self.range.end.character == 0 and end > start:
            end -= 1
        start, end = sorted((start, end))
        return LineRange(start_line=start + 1, end_line=end + 1)

    def overrides(self) -> SettingsLayer:
        """The settings layer this command gives (the most specific one)."""
        return SettingsLayer(
            {"maxTurns": self.max_turns, "model": self.model, "review": self.review},
            "performComplexEdit argument ",
        )


def parse_arguments(raw: tuple[Any, ...]) -> PerformArgs:
    """Validate `arguments: [ARGS]`; raises InvalidArguments with a readable message. The
    prompt's size is checked once the settings are known (`check_prompt_size`)."""
    if len(raw) != 1 or not isinstance(raw[0], dict):
        raise InvalidArguments(
            "performComplexEdit takes exactly one argument: an object with "
            "'textDocument' and 'prompt'."
        )
    try:
        args = PerformArgs.model_validate(raw[0], strict=True)
    except ValidationError as exc:
        raise InvalidArguments(_describe(exc)) from None
    return args


def check_prompt_size(args: PerformArgs, max_prompt_bytes: int) -> None:
    """Raises InvalidArguments when the prompt is over `max_prompt_bytes` in UTF-8."""
    problem = prompt_problem(args.prompt, max_prompt_bytes, "'prompt'")
    if problem is not None:
        raise InvalidArguments(problem)


def _describe(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        problems.append(f"'{where}': {error['msg']}")
    return "Invalid performComplexEdit arguments: " + "; ".join(problems)
