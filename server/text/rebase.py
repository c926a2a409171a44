"""Rebase the sub-agent's changes onto what the user typed meanwhile, or report a conflict.

The agent worked on ``snapshot`` and its result differs by ``agent`` changes; the user's edits
turned ``snapshot`` into ``live`` (``user`` changes, both sets against ``snapshot``). When no
agent change overlaps or touches a user change, the agent's changes are shifted onto ``live``.

Adjacency rule. Two changes *touch* when they share an end point: one ends where the other
starts, or both insert at the same offset. Touching is a conflict, except in one clearly
safe case: the shared point ``p`` is a line start in ``snapshot``, one change ends at ``p`` and
the other starts at ``p`` (not two insertions at ``p``, whose order would be a guess), and the
change ending at ``p`` leaves a line start behind it -- its new text ends with a line break,
or it deletes whole lines (empty new text, starting at a line start) -- and no CR of its text
would join a LF that the other change's text begins with. Then each change stays on its own
lines and both survive as written.

The same rule reads an editor's report of an applied edit (``edit_landed``): the edit landed
when the reported changes are the user's, then the edit rebased onto them, then the user's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from complex_edit.server.text.diff import TextChange, apply_changes, apply_within, compute_edits

__all__ = [
    "Conflict",
    "Rebased",
    "compose_changes",
    "edit_landed",
    "rebase",
    "rebase_changes",
]


@dataclass(frozen=True, slots=True)
class Rebased:
    """The agent's changes against ``live`` and the text they produce."""

    changes: list[TextChange]
    text: str


@dataclass(frozen=True, slots=True)
class Conflict:
    """The first agent change that overlaps or touches a user change (snapshot offsets)."""

    agent: TextChange
    user: TextChange


def compose_changes(changes: Sequence[TextChange]) -> list[TextChange]:
    """Turn changes applied one after another into one set against the first text.

    Each change is offset-based against the text the previous ones left (as
    ``DocumentStore.changes_since`` returns them). The result is sorted and non-overlapping;
    changes that overlap or touch are merged. Applying it to the first text gives the same
    text as applying ``changes`` in order. The first text itself is not needed.
    """
    composed = _Composed()
    for change in changes:
        composed.add(change)
    return _effective(composed.regions)


class _Composed:
    """Changes applied one after another, kept as one set against the first text (sorted,
    apart), and how much longer they make it."""

    def __init__(self) -> None:
        self.regions: list[TextChange] = []
        self.growth = 0

    def add(self, change: TextChange) -> None:
        growth = self.growth
        self.growth += len(change.new_text) - (change.end - change.start)
        if not self.regions or change.start > self.regions[-1].end + growth:
            # After every region (typing forward, or a report in ascending order).
            shifted = TextChange(change.start - growth, change.end - growth, change.new_text)
            self.regions.append(shifted)
        else:
            _compose_into(self.regions, change)


def _effective(regions: list[TextChange]) -> list[TextChange]:
    return [region for region in regions if region.start < region.end or region.new_text]


def _compose_into(regions: list[TextChange], change: TextChange) -> None:
    """Add ``change`` (against the text ``regions`` leave) to ``regions`` (against the first
    text, sorted and apart), in place."""
    start, end, text = change.start, change.end, change.new_text
    index, shift = 0, 0  # shift: current offset - original offset, before regions[index]
    while index < len(regions):
        region = regions[index]
        if region.start + shift + len(region.new_text) >= start:
            break
        shift += len(region.new_text) - (region.end - region.start)
        index += 1
    touched: list[tuple[TextChange, int]] = []  # region and its current start
    stop, running = index, shift
    while stop < len(regions):
        region = regions[stop]
        current_start = region.start + running
        if current_start > end:
            break
        touched.append((region, current_start))
        running += len(region.new_text) - (region.end - region.start)
        stop += 1
    if not touched:
        regions.insert(index, TextChange(start - shift, end - shift, text))
        return
    head, head_start = touched[0]
    tail, tail_start = touched[-1]
    tail_end = tail_start + len(tail.new_text)
    original_start = head.start - max(head_start - start, 0)
    original_end = tail.end + max(end - tail_end, 0)
    prefix = head.new_text[: max(start - head_start, 0)]
    suffix = tail.new_text[end - tail_start :] if end < tail_end else ""
    regions[index:stop] = [TextChange(original_start, original_end, prefix + text + suffix)]


def _is_line_start(text: str, offset: int) -> bool:
    """Is ``offset`` the start of an LSP line of ``text`` (not between CR and LF)?"""
    if offset <= 0:
        return True
    before = text[offset - 1]
    if before == "\n":
        return True
    return before == "\r" and text[offset : offset + 1] != "\n"


def _leaves_line_start(text: str, change: TextChange) -> bool:
    """After ``change``, is the point just past it still at a line start?"""
    if change.new_text:
        return change.new_text[-1] in "\r\n"
    return change.start < change.end and _is_line_start(text, change.start)


def _safe_touch(snapshot: str, before: TextChange, after: TextChange) -> bool:
    """``before`` ends where ``after`` starts: may both be applied? (see the module docs)"""
    point = before.end
    if before.start == point and after.end == point:
        return False  # two insertions at one point: which goes first is a guess
    if not _is_line_start(snapshot, point) or not _leaves_line_start(snapshot, before):
        return False
    if before.new_text.endswith("\r"):
        following = after.new_text or snapshot[after.end : after.end + 1]
        if following.startswith("\n"):
            return False
    return True


def _conflicts(snapshot: str, agent: TextChange, user: TextChange) -> bool:
    """Do these two changes (against ``snapshot``) overlap or unsafely touch?"""
    if agent.start > user.end or user.start > agent.end:
        return False  # apart
    if agent.end == user.start and user.end == agent.start:
        return True  # two insertions at one point
    if agent.end == user.start:
        return not _safe_touch(snapshot, agent, user)
    if user.end == agent.start:
        return not _safe_touch(snapshot, user, agent)
    return True  # they overlap


def _goes_before(user: TextChange, agent: TextChange) -> bool:
    """Does ``user`` come before ``agent`` in the merged text (given they do not conflict)?"""
    if user.end < agent.start:
        return True
    return user.end == agent.start and (user.start < user.end or agent.start < agent.end)


def _first_conflict(
    snapshot: str, agent: Sequence[TextChange], user: Sequence[TextChange]
) -> Conflict | None:
    near = 0  # first user change that can meet the current agent change
    for change in agent:
        while near < len(user) and user[near].end < change.start:
            near += 1
        for other in user[near:]:
            if other.start > change.end:
                break
            if _conflicts(snapshot, change, other):
                return Conflict(change, other)
    return None


def rebase_changes(
    snapshot: str,
    live: str,
    agent: Sequence[TextChange],
    user: Sequence[TextChange],
) -> Rebased | Conflict:
    """Apply the agent's changes on top of the user's, or report the first conflict.

    ``agent`` and ``user`` are sorted, non-overlapping changes against ``snapshot``; applying
    ``user`` to ``snapshot`` must give ``live`` (checked: a mismatch is a ``ValueError``).
    Returns the agent's changes re-expressed against ``live`` and the resulting text.
    """
    if apply_changes(snapshot, user) != live:
        raise ValueError("the user's changes do not turn the snapshot into the live text")
    conflict = _first_conflict(snapshot, agent, user)
    if conflict is not None:
        return conflict
    shifted: list[TextChange] = []
    before = 0  # user changes placed before the current agent change
    shift = 0  # their total length change
    for change in agent:
        while before < len(user) and _goes_before(user[before], change):
            other = user[before]
            shift += len(other.new_text) - (other.end - other.start)
            before += 1
        shifted.append(TextChange(change.start + shift, change.end + shift, change.new_text))
    return Rebased(shifted, apply_changes(live, shifted))


def rebase(
    snapshot: str,
    result: str,
    live: str,
    *,
    user: Sequence[TextChange] | None = None,
) -> Rebased | Conflict:
    """Rebase the agent's ``snapshot`` -> ``result`` onto ``live``, or report a conflict.

    The agent's changes are ``compute_edits(snapshot, result)``. ``user`` are the user's
    changes against ``snapshot`` when known exactly (``compose_changes`` of
    ``DocumentStore.changes_since``); by default ``compute_edits(snapshot, live)``.
    """
    if user is None:
        user = compute_edits(snapshot, live)
    return rebase_changes(snapshot, live, compute_edits(snapshot, result), user)


def edit_landed(
    before: str, edit: Sequence[TextChange], reported: Sequence[TextChange] | None, now: str
) -> bool:
    """Do the changes an editor reported after ``before`` show ``edit`` landing?

    ``edit`` is what was sent: sorted, non-overlapping changes against ``before``.
    ``reported`` is what the editor said happened since, each change against the text the
    previous one left (``DocumentStore.changes_since``; None when unknown), and ``now`` the
    text they lead to. The edit landed when, for some ``k < j``, the first ``j`` reported
    changes give the text that the first ``k`` (the user's own, typed before the edit
    arrived) give with ``edit`` rebased onto them: what follows ``j`` is the user typing on.
    Failing that (a client that reports whole texts says nothing of the order of the
    changes), it landed when ``now`` is the edit's result with other changes apart from the
    edit's new text, none touching it. An edit that was dropped, applied elsewhere or applied
    altered reads neither way; nor does one whose rebase over the user's earlier changes
    conflicts, since where it belongs is then a guess.
    """
    if not edit:
        return True
    return bool(reported and _landed_in_order(before, edit, reported)) or _kept_in_text(
        before, edit, now
    )


def _landed_in_order(
    before: str, edit: Sequence[TextChange], reported: Sequence[TextChange]
) -> bool:
    growth = _growth(edit)
    composed = _Composed()  # the first j reported changes, against `before`
    grown = [0]  # for each j: how much longer they make the text
    expected: list[list[TextChange] | None] = []  # for each k: the edit beside the first k
    for change in reported:
        if len(expected) < len(grown) <= _MAX_EARLIER + 1:
            user = _effective(composed.regions)
            merged = None if _first_conflict(before, edit, user) else _beside(edit, user)
            expected.append(merged)
        composed.add(change)
        grown.append(composed.growth)
        candidates = (
            merged
            for k, merged in enumerate(expected)
            if merged is not None and grown[-1] - grown[k] == growth  # the lengths: cheap
        )
        if any(_same_result(before, merged, composed.regions) for merged in candidates):
            return True
    return False


def _kept_in_text(before: str, edit: Sequence[TextChange], now: str) -> bool:
    """Is ``now`` the edit's result with other changes, none meeting the edit's new text?"""
    others = compute_edits(apply_changes(before, edit), now)
    index = 0
    shift = 0  # where the edit's new texts lie in its result: offset - offset in `before`
    for change in edit:
        low = change.start + shift
        high = low + len(change.new_text)
        shift += len(change.new_text) - (change.end - change.start)
        while index < len(others) and others[index].end < low:
            index += 1
        if index < len(others) and others[index].start <= high:
            return False
    return True


# The user's changes looked for before the edit: those typed between the server sending it
# and the editor applying it (a few keystrokes at most).
_MAX_EARLIER = 32


def _beside(edit: Sequence[TextChange], user: Sequence[TextChange]) -> list[TextChange]:
    """Two sets of changes against one text that do not conflict, as one sorted set (a
    change touching another at a safe line start goes after it, as ``rebase_changes``
    places it)."""
    return sorted([*edit, *user], key=lambda c: (c.start, c.end))


def _growth(changes: Sequence[TextChange]) -> int:
    return sum(len(c.new_text) - (c.end - c.start) for c in changes)


def _same_result(text: str, one: Sequence[TextChange], other: Sequence[TextChange]) -> bool:
    """Do two sets of sorted, non-overlapping changes against ``text``, which make it longer
    by the same amount, give the same text?

    Compared stretch by stretch (a stretch: changes of either set that meet), and only there:
    between stretches both copy ``text``, at the same place while the stretches before agree.
    The first stretch that differs decides, unless it changes the length differently; then
    the rest is compared whole. The last stretch is looked at first: a half-reported edit
    differs at its first or its last change, depending on the order it is reported in."""
    if not one and not other:
        return True
    high = max(changes[-1].end for changes in (one, other) if changes)
    i, j, low = _last_stretch(one, other, high)
    mine, theirs = apply_within(text, one[i:], low, high), apply_within(text, other[j:], low, high)
    if mine != theirs and len(mine) == len(theirs):
        return False
    i = j = 0
    while i < len(one) or j < len(other):
        low, end, next_i, next_j = _next_stretch(one, other, i, j)
        mine, theirs = (
            apply_within(text, one[i:next_i], low, end),
            apply_within(text, other[j:next_j], low, end),
        )
        if mine != theirs:
            if len(mine) == len(theirs):
                return False
            return apply_within(text, one[i:], low, high) == apply_within(
                text, other[j:], low, high
            )
        i, j = next_i, next_j
    return True


def _next_stretch(
    one: Sequence[TextChange], other: Sequence[TextChange], i: int, j: int
) -> tuple[int, int, int, int]:
    """The stretch starting at ``one[i]`` or ``other[j]``: where it starts and ends, and the
    first change of each set after it."""
    starts = [changes[k].start for changes, k in ((one, i), (other, j)) if k < len(changes)]
    low = end = min(starts)
    while True:
        if i < len(one) and one[i].start <= end:
            end = max(end, one[i].end)
            i += 1
        elif j < len(other) and other[j].start <= end:
            end = max(end, other[j].end)
            j += 1
        else:
            return low, end, i, j


def _last_stretch(
    one: Sequence[TextChange], other: Sequence[TextChange], high: int
) -> tuple[int, int, int]:
    """The stretch ending at ``high``, the last end: the first change of each set in it, and
    where it starts."""
    i, j, low = len(one), len(other), high
    while True:
        if i and one[i - 1].end >= low:
            i -= 1
            low = min(low, one[i].start)
        elif j and other[j - 1].end >= low:
            j -= 1
            low = min(low, other[j].start)
        else:
            return i, j, low
