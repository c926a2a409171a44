"""The change so far that `WorkingChanged` carries (issue 21): composed call by call, it
applies to the snapshot exactly as the working text stands, sorted and apart, and is minimal
where one call changed one place."""

from __future__ import annotations

import itertools
import random

from complex_edit.server.session.dispatch import ChangesSoFar
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits


def test_composed_changes_give_the_working_text() -> None:
    rng = random.Random(21)
    for _ in range(2000):
        snapshot = "".join(rng.choice("ab\n") for _ in range(rng.randint(0, 40)))
        so_far, working = ChangesSoFar(), snapshot
        for _ in range(rng.randint(1, 6)):
            start = rng.randint(0, len(working))
            end = rng.randint(start, min(len(working), start + 5))
            inserted = "".join(rng.choice("abc\n") for _ in range(rng.randint(0, 4)))
            after = snapshot if rng.random() < 0.1 else working[:start] + inserted + working[end:]
            if after == working:
                continue
            changes = so_far.add(snapshot, working, after)
            working = after
            assert apply_changes(snapshot, changes) == working
            assert all(a.end <= b.start for a, b in itertools.pairwise(changes))


def test_one_call_gives_the_minimal_change() -> None:
    snapshot = "alpha\nbeta\ngamma\n"
    after = "alpha\nBETA\ngamma\n"
    assert ChangesSoFar().add(snapshot, snapshot, after) == compute_edits(snapshot, after)


def test_an_undo_leaves_no_change() -> None:
    snapshot = "alpha\nbeta\n"
    so_far = ChangesSoFar()
    so_far.add(snapshot, snapshot, "alpha\nBETA\n")
    assert so_far.add(snapshot, "alpha\nBETA\n", snapshot) == []
    assert TextChange(0, 0, "") not in so_far.add(snapshot, snapshot, snapshot + "x")
