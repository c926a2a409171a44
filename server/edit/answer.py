"""The answer of an edit, built once: each step of the flow ends with a `Verdict`, and
`build_result` turns the session's outcome and that verdict into the contract's `EditResult`.
`combine` is the one builder of an answer's combined `diff` and its per-document `documents`."""

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
    RunSummary,
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
class Shown:
    """One document as the answer shows it: its `uri`, its `diff`, whether its change was
    `applied`, and its `version` (a document open in the editor)."""

    uri: str
    diff: Diff
    applied: bool = False
    version: int | None = None


def combine(shown: Sequence[Shown]) -> tuple[Diff, list[ChangedDocument] | None]:
    """The answer's `diff` of the documents `shown` (the command's first): one section per
    document, each headed by its own path, its changed lines the command's document's; and,
    for several documents, the answer's `documents`, one each."""
    diff = Diff("".join(one.diff.text for one in shown), shown[0].diff.regions)
    if len(shown) < 2:
        return diff, None
    return diff, [
        ChangedDocument(
            uri=one.uri,
            applied=one.applied,
            diff=one.diff.text,
            changed_lines=_changed_lines(one.diff) or None,
            version=one.version,
        )
        for one in shown
    ]


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
        cls,
        reason: Reason,
        error: str,
        *,
        applied: bool = False,
        diff: Diff | None = None,
        documents: list[ChangedDocument] | None = None,
    ) -> Verdict:
        """Every failure's verdict (a success's is made once per way it ends)."""
        return cls(reason=reason, error=error, applied=applied, diff=diff, documents=documents)


def build_result(outcome: SessionOutcome, verdict: Verdict) -> EditResult:
    """The answer: the session's summary (`RunSummary`: its counts; its message, unless the
    verdict says otherwise), and what the verdict says happened."""
    diff = verdict.diff
    failed = verdict.reason is not None
    summary = {name: getattr(outcome, name) for name in RunSummary.model_fields}
    return EditResult(
        **summary
        | {
            "success": not failed,
            "message": None if failed else (verdict.message or outcome.message),
            "error": verdict.error if failed else None,
            "reason": verdict.reason,
        },
        applied=verdict.applied,
        diff=diff.text if diff is not None else "",
        changed_lines=_changed_lines(diff) if diff is not None and diff.text else None,
        hunks=verdict.hunks,
        declined=verdict.declined,
        version=verdict.version,
        proposal_id=verdict.proposal_id,
        documents=verdict.documents,
        confirmed=None if verdict.confirmed else False,
    )


def _changed_lines(diff: Diff) -> list[ChangedLines]:
    return [
        ChangedLines(
            snapshot=LineSpan(start=region.old_start, end=region.old_end),
            document=LineSpan(start=region.new_start, end=region.new_end),
        )
        for region in diff.regions
    ]
