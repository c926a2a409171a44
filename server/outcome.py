"""What a run ends with, as every front end reports it: the contract's `reason` codes (defined
here only) and their texts for people, `RunError` for failures the model cannot fix, the
session's outcome, the result object, and `scrub`, the one function that keeps API keys out of
text shown to users."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from complex_edit.edit_tools.syntax.models import Validation

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
    # a revert (CONTRACT.md "History")
    "conflict",
    "unknown_edit",
]

# A Gemini key an editor hands over from its own secret storage (VS Code's "Set Gemini API Key"):
# it wins over the environment's, so the editor needs to know no provider's variables.
STORED_KEY = "COMPLEX_EDIT_STORED_KEY"
# Each reason in a few words, for a person reading a failure ("Complex Edit failed — the turn
# limit was reached: ..."); clients take them from the generated protocol (docs/protocol.md).
REASON_TEXTS: Mapping[Reason, str] = {
    "task_failed": "the sub-agent could not do it",
    "max_turns": "the turn limit was reached",
    "model_error": "model error",
    "auth": "the API key was refused",
    "quota": "quota or rate limit",
    "blocked": "the model refused the content",
    "document_changed": "the document changed meanwhile",
    "client_rejected": "the editor did not apply the edit",
    "cancelled": "the edit was cancelled",
    "busy": "another edit is running on this document",
    "invalid_request": "invalid request",
    "too_large": "the document is too large",
    "config": "configuration problem",
    "conflict": "the lines it changed were changed again since",
    "unknown_edit": "no such edit in the history",
}
# What a person can do about a failure, where something helps: fix a setting or the key,
# run it again, or wait for the other edit and run it again. The clients offer it.
Remedy = Literal["settings", "retry", "wait"]
REASON_REMEDIES: Mapping[Reason, Remedy] = {
    "auth": "settings",
    "config": "settings",
    "max_turns": "retry",
    "document_changed": "retry",
    "busy": "wait",
}

# The environment variables that may hold a model credential, by provider. Text shown to users
# is scrubbed of all of them, whichever provider is in use.
CREDENTIALS: Mapping[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY", STORED_KEY),
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
}
MIN_SECRET_CHARS = 4


class RunError(Exception):
    """A failure the model cannot fix: it ends the run with a contract `reason`.

    `message` is shown to users: it never contains the API key or document text.
    """

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = reason
        self.message = message


class EditRefused(Exception):
    """The edit cannot go on, for `reason`: refused before any model call (a check; `argument`
    names the command argument at fault, when one is), or refused when it was to be applied
    (the document moved on, the editor or the disk refused it; `keep_diff`: the answer still
    shows the diff, what would have been applied). `message` is shown to users."""

    def __init__(
        self,
        reason: Reason,
        message: str,
        *,
        argument: str | None = None,
        keep_diff: bool = False,
    ) -> None:
        super().__init__(message)
        self.reason: Reason = reason
        self.message = message
        self.argument = argument
        self.keep_diff = keep_diff

    def result(self) -> EditResult:
        return EditResult.failure(self.reason, self.message)


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


class RunSummary(BaseModel):
    """How a run ended and what it cost: the fields the session's outcome and the answer
    share (the answer takes them from the outcome: `server/edit/answer.py` `build_result`)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    success: bool
    message: str | None = None
    error: str | None = None
    reason: Reason | None = None
    turns: int = 0
    tool_calls: int = 0
    usage: Usage = Usage()
    validation: Validation | None = None
    diagnostics: Diagnostics | None = None
    """The checkers' diagnostics of a success (README "Checks"; None: no checker ran)."""
    masked: MaskedSecrets | None = None
    """The secret values masked in what the model read of other files (None: none)."""


class SessionOutcome(RunSummary):
    """What a session ended with. `final_text` is set only on success."""

    final_text: str | None = None
    integrity: dict[str, int] = {}
    """How often the run was kept from a model's slip, by kind: the tools' adjustments
    ("indentation", "tabs", "trailing_whitespace", "elision_expanded", ...), refusals
    ("elision_refused") and completions refused for new syntax errors ("syntax_refused")
    or for errors the checkers found ("check_refused")."""
    check_note: str = ""
    """What the success `message` says of the checkers (the errors left, the checkers that did
    not check), for an answer whose message is not the session's (a review's proposal)."""


class MaskedPlace(BaseModel):
    """Where one masked value was: the file as the model named it, the line (1-based) and
    the value's kind (`aws-access-key`, `secret-keyword`, ...); never the value."""

    path: str
    line: int
    kind: str


class MaskedSecrets(BaseModel):
    """How many secret values the model was shown masked, and where (`places`: the first
    100, in the order they were shown)."""

    count: int
    places: list[MaskedPlace]


class WirePosition(BaseModel):
    """An LSP position: a 0-based line, and characters in the editor's position encoding."""

    line: int = Field(ge=0)
    character: int = Field(ge=0)


class WireRange(BaseModel):
    start: WirePosition
    end: WirePosition


class CheckDiagnostic(BaseModel):
    """One diagnostic of a checker (`range` in UTF-16, as checkers send it)."""

    uri: str
    range: WireRange
    severity: Literal["error", "warning", "information", "hint"]
    message: str
    source: str | None = None
    code: str | None = None


class CheckerStatus(BaseModel):
    """How one checker did: `ok`, `missing` (not found), `failed` (could not start),
    `crashed`, `timeout` (no diagnostics within checkTimeoutSeconds)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    name: str
    status: Literal["ok", "missing", "failed", "crashed", "timeout"]
    waited_ms: int = 0
    version: str | None = None
    detail: str | None = None


class Diagnostics(BaseModel):
    """The checkers' diagnostics of an edit: `introduced` (what the first check found new),
    `fixed` (errors from before the edit removed), `remaining` (introduced ones still there
    when it ended). `checked`: every checker answered."""

    checked: bool
    checkers: list[CheckerStatus] = []
    introduced: list[CheckDiagnostic] = []
    fixed: list[CheckDiagnostic] = []
    remaining: list[CheckDiagnostic] = []


class LineSpan(BaseModel):
    """Lines `start` to `end`: 0-based, `end` excluded (`start == end`: no line)."""

    start: int
    end: int


class ChangedLines(BaseModel):
    """One changed region: the lines of the text the `diff` starts from that it replaced
    (`snapshot`), and the lines holding its new text in the document once it landed, or in
    the text the diff gives when nothing landed (`document`)."""

    snapshot: LineSpan
    document: LineSpan


class ProposedHunk(BaseModel):
    """One change proposed for review: `range` (in the editor's position encoding; UTF-16
    for a file on disk) of the text `version` holds, replaced by `new_text`. `id`: its index
    in the answer's `hunks` (what `complexEdit.applyReview` keeps); `uri`: its document, when
    the change spans several."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    id: int = Field(ge=0)
    uri: str | None = None
    range: WireRange
    new_text: str
    old_text: str
    label: str
    diff: str


class ChangedDocument(BaseModel):
    """One document an edit of several changed (the answer's `documents`)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    uri: str
    applied: bool
    diff: str
    changed_lines: list[ChangedLines] | None = None
    version: int | None = None


class EditResult(RunSummary):
    """The contract's result object, shared by the LSP command, the CLI and the MCP tool."""

    applied: bool = False
    diff: str = ""
    hunks: list[ProposedHunk] | None = None
    declined: int | None = None
    version: int | None = None
    changed_lines: list[ChangedLines] | None = None
    confirmed: bool | None = None
    """False when the editor answered the edit as applied before it could report the change
    (a client blocked in the request); absent otherwise."""
    proposal_id: str | None = None
    """The proposal kept for `complexEdit.applyReview`, with `hunks` (a plain editor)."""
    documents: list[ChangedDocument] | None = None
    """An edit of several documents: each one, the command's own first."""
    edit_id: str | None = None
    """The landed edit's id in the history (what `complexEdit.revert` takes back)."""

    @classmethod
    def failure(cls, reason: Reason, error: str) -> EditResult:
        """A failure before any session ran (no turns, no diff)."""
        return cls(success=False, reason=reason, error=error)

    def with_validation(self) -> EditResult:
        """This result with a `validation` always (the CLI's `--json` and the MCP tool's
        answers carry one): a request refused before any session says nothing was checked."""
        if self.validation is not None:
            return self
        skipped = Validation(
            syntax="skipped", detail="nothing was checked: the request ended before any result"
        )
        return self.model_copy(update={"validation": skipped})

    def to_wire(self) -> dict[str, Any]:
        """camelCase JSON object; absent optional fields are omitted."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")

    def scrubbed_wire(self, env: Mapping[str, str]) -> dict[str, Any]:
        """`to_wire` with the API keys of `env` scrubbed from `error` and `message`."""
        wire = self.to_wire()
        for field in ("error", "message"):
            if isinstance(wire.get(field), str):
                wire[field] = scrub(wire[field], env)
        return wire


def secret_values(env: Mapping[str, str], names: Iterable[str]) -> list[str]:
    """The values of the named variables that are long enough to be worth redacting."""
    return [value for name in names if len(value := env.get(name, "")) >= MIN_SECRET_CHARS]


def redact(text: str, env: Mapping[str, str], names: Iterable[str]) -> str:
    """`text` without the values of the named variables."""
    for value in secret_values(env, names):
        text = text.replace(value, "[redacted]")
    return text


def scrub(text: str, env: Mapping[str, str]) -> str:
    """`text` without the value of any model credential in `env` (every provider's)."""
    return redact(text, env, (name for names in CREDENTIALS.values() for name in names))
