"""What the toolbox hands back: tool declarations, call outcomes, the completion record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict


class ToolDeclaration(BaseModel):
    """One tool as the model sees it; `parameters` is an inline JSON object schema."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any]


class Completion(BaseModel):
    """The arguments of a valid complete_task call."""

    model_config = ConfigDict(frozen=True)

    success: bool
    message: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class ToolResult:
    """What a tool that succeeded hands back to the toolbox."""

    text: str
    summary: str
    completion: Completion | None = None
    full_view: bool = False  # the text shows the whole document
    adjustments: tuple[str, ...] = ()  # see ToolOutcome.adjustments


@dataclass(frozen=True)
class Limits:
    max_text_chars: int


class ToolOutcome(BaseModel):
    """One executed call: `response` is what the model reads back, `summary` one short line for
    progress UIs (never more than a few words of document text)."""

    model_config = ConfigDict(frozen=True)

    name: str
    ok: bool
    response: dict[str, Any]
    summary: str
    completion: Completion | None = None
    full_view: bool = False
    """`response` holds the whole document (a fresh full get_document): a conversation may
    drop older full views, which this one makes out of date."""
    adjustments: tuple[str, ...] = ()
    """What the tool adapted to carry out the call, for reports and evaluations:
    "line_endings", "line_numbers" (old_text matched once adapted), "indentation", "tabs",
    "trailing_whitespace", "final_newline" (a whitespace-tolerant match; "indentation" also
    for added lines given their line's indentation), "blank_lines" (stray blank lines at
    old_text's ends set aside), "escapes" (text escaped one time too many, read back),
    "elision_expanded" (a placeholder in the text sent was replaced by the original lines it
    stood for)."""
    refusal: str | None = None
    """Why a failed call was refused, for reports: "elision_refused" (a placeholder would have
    deleted the lines it stood for)."""
