"""Planning a revert from texts: rebased over later changes, conflicts, a created file, and the
revert of a revert."""

from __future__ import annotations

from pathlib import Path

from complex_edit.server.history.plan import RevertPlan, plan_revert
from complex_edit.server.history.record import Change, Record
from complex_edit.server.history.store import HistoryStore
from complex_edit.server.text.diff import apply_changes

BEFORE = "".join(f"line {n}\n" for n in range(1, 21))


def _edit(text: str, line: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[line - 1] = new
    return "".join(lines)


def _recorded(
    tmp_path: Path, *docs: tuple[str, str | None, str | None]
) -> tuple[HistoryStore, Record]:
    (tmp_path / "work").mkdir(exist_ok=True)
    store = HistoryStore.for_root(tmp_path / "work", str(tmp_path / "state"))
    changes = [
        Change(str(store.root / name), (store.root / name).as_uri(), name, before, after)
        for name, before, after in docs
    ]
    return store, store.record("edit", changes)


def _plan(store: HistoryStore, record: Record, current: dict[str, str | None]) -> RevertPlan:
    texts = {d.path: (store.text(d.before), store.text(d.after)) for d in record.documents}
    now = {str(store.root / name): text for name, text in current.items()}
    return plan_revert(record, texts, now)


def test_a_revert_keeps_later_changes_to_other_lines(tmp_path: Path) -> None:
    after = _edit(BEFORE, 5, "EDITED 5\n")
    store, record = _recorded(
        tmp_path, ("a.py", BEFORE, after), ("b.py", BEFORE, _edit(BEFORE, 9, "B\n"))
    )
    typed = _edit(after, 15, "typed 15\n")
    plan = _plan(store, record, {"a.py": typed, "b.py": _edit(BEFORE, 9, "B\n")})
    assert plan.conflicts == ()
    first, second = plan.documents
    assert first.result == _edit(BEFORE, 15, "typed 15\n")
    assert apply_changes(typed, first.changes) == first.result
    assert second.result == BEFORE


def test_changed_lines_changed_again_are_a_conflict_naming_the_lines(tmp_path: Path) -> None:
    after = _edit(BEFORE, 5, "EDITED 5\n")
    store, record = _recorded(
        tmp_path, ("a.py", BEFORE, after), ("b.py", BEFORE, _edit(BEFORE, 2, "B\n"))
    )
    plan = _plan(
        store, record, {"a.py": _edit(after, 5, "again\n"), "b.py": _edit(BEFORE, 2, "B\n")}
    )
    (conflict,) = plan.conflicts
    assert conflict.label == "a.py"
    assert conflict.lines == (5, 5)
    assert "a.py:5" in conflict.describe()
    assert [d.label for d in plan.documents] == ["b.py"]  # force would take back b.py only


def test_a_document_already_back_is_unchanged(tmp_path: Path) -> None:
    store, record = _recorded(tmp_path, ("a.py", BEFORE, _edit(BEFORE, 1, "x\n")))
    plan = _plan(store, record, {"a.py": BEFORE})
    assert plan.documents == ()
    assert plan.conflicts == ()
    assert plan.unchanged == ("a.py",)


def test_a_file_that_is_gone_is_a_conflict(tmp_path: Path) -> None:
    store, record = _recorded(tmp_path, ("a.py", BEFORE, _edit(BEFORE, 1, "x\n")))
    (conflict,) = _plan(store, record, {"a.py": None}).conflicts
    assert "no longer exists" in conflict.why


def test_a_created_file_is_deleted_only_when_untouched(tmp_path: Path) -> None:
    store, record = _recorded(tmp_path, ("new.py", None, "made\n"))
    (delete,) = _plan(store, record, {"new.py": "made\n"}).documents
    assert delete.result is None
    (conflict,) = _plan(store, record, {"new.py": "made\nand changed\n"}).conflicts
    assert "not deleted" in conflict.why
    assert _plan(store, record, {"new.py": None}).unchanged == ("new.py",)


def test_the_revert_of_a_revert_puts_the_edit_back(tmp_path: Path) -> None:
    after = _edit(BEFORE, 5, "EDITED 5\n")
    store, record = _recorded(tmp_path, ("a.py", BEFORE, after))
    typed = _edit(after, 12, "typed\n")
    (revert,) = _plan(store, record, {"a.py": typed}).documents
    assert revert.result is not None
    path = str(store.root / "a.py")
    back = store.record(
        "revert",
        [Change(path, revert.document.uri, "a.py", typed, revert.result)],
        revert_of=record.id,
    )
    assert back.revert_of == record.id
    (again,) = _plan(store, back, {"a.py": revert.result}).documents
    assert again.result == typed


def test_a_revert_of_a_created_file_deleted_creates_it_back(tmp_path: Path) -> None:
    store, record = _recorded(tmp_path, ("new.py", "made\n", None))
    (create,) = _plan(store, record, {"new.py": None}).documents
    assert (create.current, create.result) == (None, "made\n")
    assert _plan(store, record, {"new.py": "made\n"}).unchanged == ("new.py",)
    assert _plan(store, record, {"new.py": "other\n"}).conflicts


def test_the_same_line_changed_elsewhere_in_it_is_a_conflict(tmp_path: Path) -> None:
    """The edit's changed lines are compared as lines, not characters: another change to a
    line the edit wrote conflicts even where the characters do not overlap."""
    after = _edit(BEFORE, 7, "def grand_total(items):\n")
    store, record = _recorded(tmp_path, ("a.py", _edit(BEFORE, 7, "def total(items):\n"), after))
    now = _edit(after, 7, "def grand_total(items, start=0):\n")
    (conflict,) = _plan(store, record, {"a.py": now}).conflicts
    assert conflict.lines == (7, 7)
    assert _plan(store, record, {"a.py": _edit(after, 8, "below\n")}).conflicts == ()
