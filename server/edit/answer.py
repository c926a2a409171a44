"""The answer of an edit, built once: each step of the flow ends with a `Verdict`, and
`build_result` turns the session's outcome and that verdict into the contract's `EditResult`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from complex_edit.server.outcome import (
    ChangedDocument,
    ChangedLines,
    EditResult,
    LineSpan,
    ProposedHunk,
    Reason,
    SessionOutcome,
)
from complex_edit.server.text.changed_lines import LineRegion, changed_lines, pair_regions
from complex_edit.server.text.diff import TextChange


@dataclass(frozen=True)
class Diff:
    """A change as the answer shows it: its unified diff, and its changed line regions (old
    lines in the text the diff starts from, new lines in the document it landed in)."""

    text: str
    regions: Sequence[LineRegion]

    @classmethod
    def of(
        cls,
        diff: str,
        before: str,
        changes: Sequence[TextChange],
        landed: tuple[str, Sequence[TextChange]] | None = None,
    ) -> Diff:
        """`diff` of `changes` against `before`; `landed`: the same changes as they landed in
        another text (rebased over the user's typing), where the new lines are then read."""
        regions = changed_lines(before, changes)
        if landed is not None:
            regions = pair_regions(regions, changed_lines(*landed))
        return cls(diff, regions)


@dataclass(frozen=True)
class Verdict:
    """How a command ended after its session: a failure (`reason`, `error`), or a success;
    either way what was applied and which diff the answer shows. `message` replaces the
    session's own message; `confirmed` is False when the editor applied the edit but could
    not report the change before the answer (it is confirmed later); `proposal_id` names the
    proposal kept for the reviewer's answer."""

    reason: Reason | None = None
    error: str = ""
    applied: bool = False
    diff: Diff | None = None
    message: str | None = None
    declined: int | None = None
    hunks: list[ProposedHunk] | None = None
    version: int | None = None
    confirmed: bool = True
    proposal_id: str | None = None
    documents: list[ChangedDocument] | None = None

    @classmethod
    def failed(
        cls, reason: Reason, error: str, *, applied: bool = False, diff: Diff | None = None
    ) -> Verdict:
        return cls(reason=reason, error=error, applied=applied, diff=diff)


def build_result(outcome: SessionOutcome, verdict: Verdict) -> EditResult:
    """The answer: the session's counts, and what the verdict says happened."""
    diff = verdict.diff
    failed = verdict.reason is not None
    return EditResult(
        success=not failed,
        message=None if failed else (verdict.message or outcome.message),
        error=verdict.error if failed else None,
        reason=verdict.reason,
        applied=verdict.applied,
        diff=diff.text if diff is not None else "",
        changed_lines=_changed_lines(diff) if diff is not None and diff.text else None,
        hunks=verdict.hunks,
        declined=verdict.declined,
        version=verdict.version,
        proposal_id=verdict.proposal_id,
        documents=verdict.documents,
        confirmed=None if verdict.confirmed else False,
        turns=outcome.turns,
        tool_calls=outcome.tool_calls,
        usage=outcome.usage,
        validation=outcome.validation,
        diagnostics=outcome.diagnostics,
    )


def changed_lines_of(before: str, changes: Sequence[TextChange]) -> list[ChangedLines] | None:
    """The answer's `changedLines` for `changes` against `before` (None: no change)."""
    return _changed_lines(Diff.of("", before, changes)) or None


def changed_lines_in(diff: Diff) -> list[ChangedLines] | None:
    """The answer's `changedLines` of `diff` (None: no change)."""
    return _changed_lines(diff) or None


def _changed_lines(diff: Diff) -> list[ChangedLines]:
    return [
        ChangedLines(
            snapshot=LineSpan(start=region.old_start, end=region.old_end),
            document=LineSpan(start=region.new_start, end=region.new_end),
        )
        for region in diff.regions
    ]
