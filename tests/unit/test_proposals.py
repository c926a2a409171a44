"""The review proposals a front end keeps for the reviewer's answer (`server/edit/review.py`):
found by id with their hunks checked, one per document, gone once taken, closed, replaced or
older than their time."""

from __future__ import annotations

from pathlib import Path

import pytest

from complex_edit.server.edit.answer import build_result
from complex_edit.server.edit.apply import ApplyStep, DocumentChange
from complex_edit.server.edit.disk import DiskEditor
from complex_edit.server.edit.files import read_text_file
from complex_edit.server.edit.flow import _proposed
from complex_edit.server.edit.review import Proposal, Proposals, ReviewRefused
from complex_edit.server.outcome import (
    CheckDiagnostic,
    Diagnostics,
    SessionOutcome,
    WirePosition,
    WireRange,
)
from complex_edit.server.text.diff import compute_edits


def _proposal(tmp_path: Path, name: str = "a.txt") -> Proposal:
    path = tmp_path / name
    path.write_text("one\ntwo\nthree\nfour\nfive\n", encoding="utf-8")
    file = read_text_file(path, 1000)
    editor = DiskEditor(file, name)
    changes = tuple(compute_edits(file.text, "ONE\ntwo\nthree\nfour\nFIVE\n"))
    change = DocumentChange(editor.snapshot(str(path)), name, changes, "")
    step = ApplyStep(editor, (change,), "t", False, 5.0, None, lambda _: None)
    placed = step.propose()
    assert isinstance(placed, list)
    assert len(placed[0].hunks) == 2
    return Proposal(step, tuple(placed), SessionOutcome(success=True))


def _code(proposals: Proposals, proposal_id: str, keep: list[int]) -> str:
    with pytest.raises(ReviewRefused) as refused:
        proposals.find(proposal_id, keep)
    return refused.value.code


def test_a_proposal_is_found_until_taken_and_its_hunks_are_checked(tmp_path: Path) -> None:
    proposals = Proposals()
    proposal = _proposal(tmp_path)
    kept = proposals.keep(proposal)
    assert _code(proposals, kept, [0, 2]) == "invalid_hunk"
    assert _code(proposals, kept, [-1]) == "invalid_hunk"
    assert proposals.find(kept, [1]) is proposal  # a wrong answer leaves it kept
    assert proposals.take(kept, []) is proposal
    assert _code(proposals, kept, []) == "unknown_proposal"


def test_one_proposal_per_document_and_closing_drops_it(tmp_path: Path) -> None:
    proposals = Proposals()
    first = proposals.keep(_proposal(tmp_path))
    second = proposals.keep(_proposal(tmp_path))
    other = proposals.keep(_proposal(tmp_path, "b.txt"))
    assert _code(proposals, first, []) == "unknown_proposal"
    proposals.forget_document(str(tmp_path / "a.txt"))
    assert _code(proposals, second, []) == "unknown_proposal"
    assert len(proposals) == 1
    assert proposals.find(other, [0]).uri == str(tmp_path / "b.txt")


def test_a_proposal_expires(tmp_path: Path) -> None:
    now = [100.0]
    proposals = Proposals(keep_seconds=60.0, clock=lambda: now[0])
    kept = proposals.keep(_proposal(tmp_path))
    now[0] += 59.0
    assert proposals.find(kept, [])
    now[0] += 2.0
    assert _code(proposals, kept, []) == "unknown_proposal"


def test_a_review_proposal_carries_the_checkers_diagnostics_and_their_note(
    tmp_path: Path,
) -> None:
    """Review without an editor that asks: the proposal's answer has the session's
    `diagnostics` and its message says which error the hunks leave."""
    left = CheckDiagnostic(
        uri=(tmp_path / "a.txt").as_uri(),
        range=WireRange(
            start=WirePosition(line=4, character=0), end=WirePosition(line=4, character=4)
        ),
        severity="error",
        message="Undefined name `FIVE`",
        source="Ruff",
        code="F821",
    )
    diagnostics = Diagnostics(checked=True, introduced=[left], remaining=[left])
    note = " Left with 1 new error: a.txt:5:1: error: Undefined name `FIVE` (Ruff F821)."
    outcome = SessionOutcome(
        success=True, message="done." + note, diagnostics=diagnostics, check_note=note
    )
    proposal = _proposal(tmp_path)
    proposals = Proposals()
    verdict = _proposed(proposal.step, outcome, proposals)
    result = build_result(outcome, verdict)
    assert result.proposal_id is not None
    assert result.message == "2 changes proposed for review; nothing was applied." + note
    assert result.diagnostics == diagnostics
    assert [hunk.id for hunk in result.hunks or []] == [0, 1]
    assert result.applied is False
