"""What a syntax check reports: the `validation` field of the command's result."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

SyntaxStatus = Literal["ok", "skipped", "errors"]


class SyntaxProblem(BaseModel):
    """One syntax error: where it starts (1-based line and column in characters, lines broken
    at `\\n`, `\\r\\n` and `\\r` as in LSP), that line's text (long lines cut around the
    column) and what is wrong."""

    model_config = ConfigDict(frozen=True)

    line: int
    column: int
    text: str
    problem: str


class Validation(BaseModel):
    """`syntax`: "ok" (no syntax error the original text did not have), "errors" (`errors`
    lists the first `MAX_REPORTED` of the `count` new ones), or "skipped" (not checked;
    `detail` says why). `language` is the grammar used, or the language given when none was.
    `preexisting` counts errors the original already had, which never block."""

    model_config = ConfigDict(frozen=True)

    language: str | None = None
    syntax: SyntaxStatus
    errors: list[SyntaxProblem] = []
    count: int = 0
    preexisting: int = 0
    detail: str | None = None
