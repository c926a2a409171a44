"""Review that lands through the flow: a change proposed to a reviewer (an editor that cannot
ask, or the CLI's terminal) is kept as a `Proposal` until the reviewer says which hunks to keep;
`land_review` then lands exactly those through the apply step every edit takes (rebased over
the user's typing, version-checked, one undo step, the honest answer).

A proposal is kept until it is landed, its document is closed, a new command runs on its
document, or PROPOSAL_SECONDS pass (`Proposals`, one per front end: no module-level state).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from complex_edit.server.edit.answer import Verdict, build_result
from complex_edit.server.edit.apply import ApplyStep, FlowSink, Placed, changes
from complex_edit.server.outcome import EditResult, SessionOutcome

PROPOSAL_SECONDS = 15 * 60.0


class ReviewRefused(Exception):
    """The reviewer's answer names no proposal kept here (`code` "unknown_proposal") or a hunk
    the proposal does not have ("invalid_hunk")."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Proposal:
    """The apply step of a change proposed for review, each document's change placed on the
    text it was proposed against (`every`: the command's document first, the hunks numbered
    in that order), and the session's `outcome` (its counts go in the answer)."""

    step: ApplyStep
    every: tuple[Placed, ...]
    outcome: SessionOutcome

    @property
    def uri(self) -> str:
        return self.every[0].live.uri

    @property
    def count(self) -> int:
        """How many hunks the proposal has, in every document."""
        return sum(len(placed.hunks) for placed in self.every)


class Proposals:
    """The proposals of one front end waiting for their reviewer, by id."""

    def __init__(
        self,
        keep_seconds: float = PROPOSAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._keep_seconds = keep_seconds
        self._clock = clock
        self._kept: dict[str, tuple[float, Proposal]] = {}

    def keep(self, proposal: Proposal) -> str:
        """Keep `proposal` (a document has at most one); its id."""
        self._expire()
        self.forget_document(proposal.uri)
        proposal_id = uuid.uuid4().hex
        self._kept[proposal_id] = (self._clock(), proposal)
        return proposal_id

    def take(self, proposal_id: str, keep: Sequence[int]) -> Proposal:
        """The proposal `proposal_id`, no longer kept, once `keep` names only its hunks.
        Raises ReviewRefused (the proposal stays kept when a hunk id is wrong)."""
        proposal = self.find(proposal_id, keep)
        del self._kept[proposal_id]
        return proposal

    def find(self, proposal_id: str, keep: Sequence[int]) -> Proposal:
        """The proposal `proposal_id`, still kept, when `keep` names only its hunks; raises
        ReviewRefused."""
        self._expire()
        entry = self._kept.get(proposal_id)
        if entry is None:
            raise ReviewRefused(
                "unknown_proposal",
                f"No proposal {proposal_id!r} is waiting for review (it was applied, its "
                "document was closed or edited by another command, or it expired: a proposal "
                f"is kept {self._keep_seconds / 60:g} minutes); nothing was applied. Run the "
                "command again.",
            )
        proposal = entry[1]
        count = proposal.count
        wrong = [hunk for hunk in keep if not 0 <= hunk < count]
        if wrong:
            raise ReviewRefused(
                "invalid_hunk",
                f"The proposal has hunks 0 to {count - 1}; it has no hunk {wrong[0]}.",
            )
        return proposal

    def forget_document(self, uri: str) -> None:
        """Forget the proposals of the document `uri` (its own, or one it changes too)."""
        for proposal_id, (_, proposal) in list(self._kept.items()):
            if any(placed.live.uri == uri for placed in proposal.every):
                del self._kept[proposal_id]

    def __len__(self) -> int:
        return len(self._kept)

    def _expire(self) -> None:
        oldest = self._clock() - self._keep_seconds
        for proposal_id, (made, _) in list(self._kept.items()):
            if made < oldest:
                del self._kept[proposal_id]


async def land_review(
    proposals: Proposals,
    proposal_id: str,
    keep: Sequence[int],
    report: FlowSink,
    *,
    unchanged: str = "nothing was applied",
) -> EditResult:
    """Land the hunks `keep` of the proposal `proposal_id`, and no others; the answer says
    what landed (`declined`: the hunks not kept). Raises ReviewRefused. `unchanged` says, when
    none is kept, that the document was left as it was."""
    proposal = proposals.take(proposal_id, keep)
    total = proposal.count
    chosen = sorted(set(keep))
    if not chosen:
        verdict = Verdict(declined=total, message=f"Kept none of {changes(total)}; {unchanged}.")
    else:
        step = replace(proposal.step, report=report).kept(proposal.every, chosen)
        verdict = await step.land()
    return build_result(proposal.outcome, verdict)
