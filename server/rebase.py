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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.edits import TextChange, apply_changes, compute_edits

__all__ = [
    "Conflict",
    "Rebased",
    "compose_changes",
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
    regions: list[TextChange] = []  # against the first text: sorted, apart
    for change in changes:
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
            continue
        head, head_start = touched[0]
        tail, tail_start = touched[-1]
        tail_end = tail_start + len(tail.new_text)
        original_start = head.start - max(head_start - start, 0)
        original_end = tail.end + max(end - tail_end, 0)
        prefix = head.new_text[: max(start - head_start, 0)]
        suffix = tail.new_text[end - tail_start :] if end < tail_end else ""
        regions[index:stop] = [TextChange(original_start, original_end, prefix + text + suffix)]
    return [region for region in regions if region.start < region.end or region.new_text]


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
    shifted: list[TextChange] = []
    near = 0  # first user change that can meet the current agent change
    before = 0  # user changes placed before the current agent change
    shift = 0  # their total length change
    for change in agent:
        while near < len(user) and user[near].end < change.start:
            near += 1
        for other in user[near:]:
            if other.start > change.end:
                break
            if _conflicts(snapshot, change, other):
                return Conflict(change, other)
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
