"""The edit history's store: records and texts written once, pruned by count and age, two
processes recording at once, corrupt or missing records, never inside the workspace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from complex_edit.server.history.record import Change
from complex_edit.server.history.store import HistoryError, HistoryStore

ROOT_TEXT = "one\ntwo\nthree\n"


def _store(tmp_path: Path, **kwargs: object) -> HistoryStore:
    root = tmp_path / "work"
    root.mkdir(exist_ok=True)
    return HistoryStore.for_root(root, str(tmp_path / "state"), **kwargs)  # type: ignore[arg-type]


def _change(store: HistoryStore, name: str, before: str, after: str) -> Change:
    path = store.root / name
    return Change(str(path), path.as_uri(), name, before, after)


def test_a_record_keeps_the_texts_and_reads_back(tmp_path: Path) -> None:
    store = _store(tmp_path)
    record = store.record("rename", [_change(store, "a.py", ROOT_TEXT, "one\nTWO\nthree\n")])
    again = store.get(record.id)
    assert again == record
    (document,) = again.documents
    assert store.text(document.before) == ROOT_TEXT
    assert store.text(document.after) == "one\nTWO\nthree\n"
    assert (document.added, document.removed) == (1, 1)
    assert store.get(None).id == record.id
    assert store.get(record.id[:-2]).id == record.id  # a unique prefix will do


def test_the_same_text_is_stored_once(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record("a", [_change(store, "a.py", ROOT_TEXT, "x\n")])
    store.record("b", [_change(store, "b.py", ROOT_TEXT, "x\n")])
    blobs = list((store.directory / "blobs").glob("*/*"))
    assert len(blobs) == 2


def test_records_past_the_count_are_pruned_with_their_texts(tmp_path: Path) -> None:
    clock = iter(range(1000, 2000))
    store = _store(tmp_path, max_records=3)
    store.clock = lambda: float(next(clock))
    ids = [
        store.record(f"e{n}", [_change(store, "a.py", f"{n}\n", f"{n + 1}\n")]).id for n in range(5)
    ]
    kept = [record.id for record in store.records()]
    assert kept == ids[:1:-1]  # the three newest, newest first
    with pytest.raises(HistoryError) as refused:
        store.get(ids[0])
    assert refused.value.code == "unknown_edit"
    texts = {path.read_text() for path in (store.directory / "blobs").glob("*/*")}
    assert texts == {"2\n", "3\n", "4\n", "5\n"}


def test_records_older_than_the_days_are_pruned(tmp_path: Path) -> None:
    store = _store(tmp_path, days=1.0)
    now = [1_000_000.0]
    store.clock = lambda: now[0]
    old = store.record("old", [_change(store, "a.py", "a\n", "b\n")])
    now[0] += 2 * 86_400
    new = store.record("new", [_change(store, "a.py", "b\n", "c\n")])
    assert [record.id for record in store.records()] == [new.id]
    with pytest.raises(HistoryError):
        store.get(old.id)


def test_roots_are_kept_apart(tmp_path: Path) -> None:
    one = _store(tmp_path)
    (tmp_path / "other").mkdir()
    other = HistoryStore.for_root(tmp_path / "other", str(tmp_path / "state"))
    one.record("in one", [_change(one, "a.py", "a\n", "b\n")])
    assert other.records() == []
    with pytest.raises(HistoryError) as refused:
        other.get(None)
    assert refused.value.code == "unknown_edit"


_RECORD_MANY = """
import sys
from pathlib import Path
from complex_edit.server.history.record import Change
from complex_edit.server.history.store import HistoryStore
state, root, name = sys.argv[1:4]
store = HistoryStore.for_root(Path(root), state, max_records=1000)
path = Path(root) / name
for number in range(25):
    change = Change(str(path), path.as_uri(), name, "a\\n", f"{number}\\n")
    store.record(f"{name} {number}", [change])
"""


def test_two_processes_recording_at_once_lose_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path, max_records=1000)
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _RECORD_MANY, str(store.directory), str(store.root), name]
        )
        for name in ("one.py", "two.py")
    ]
    for worker in workers:
        assert worker.wait(60) == 0
    records = store.records()
    assert len(records) == 50
    assert len({record.id for record in records}) == 50
    for record in records:
        assert store.text(record.documents[0].after) is not None


def test_a_corrupt_record_is_a_clear_error(tmp_path: Path) -> None:
    store = _store(tmp_path)
    record = store.record("x", [_change(store, "a.py", "a\n", "b\n")])
    (store.records_dir / f"{record.id}.json").write_text("{not json")
    with pytest.raises(HistoryError) as refused:
        store.get(record.id)
    assert refused.value.code == "corrupt"
    assert record.id in refused.value.message
    assert store.records() == []  # listing skips it


def test_a_missing_or_damaged_text_is_a_clear_error(tmp_path: Path) -> None:
    store = _store(tmp_path)
    record = store.record("x", [_change(store, "a.py", "a\n", "b\n")])
    digest = record.documents[0].after
    assert digest is not None
    blob = store.directory / "blobs" / digest[:2] / digest
    blob.write_text("tampered\n")
    with pytest.raises(HistoryError, match="damaged") as damaged:
        store.text(digest)
    assert damaged.value.code == "corrupt"
    blob.unlink()
    with pytest.raises(HistoryError, match="missing"):
        store.text(digest)


def test_a_record_of_another_shape_is_corrupt(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.records_dir.mkdir(parents=True)
    (store.records_dir / "20260101-000000-abcdef.json").write_text(json.dumps({"version": 1}))
    with pytest.raises(HistoryError) as refused:
        store.get("20260101")
    assert refused.value.code == "corrupt"


def test_an_unknown_id_names_the_way_to_list(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for bad in ("nope", "../x", ".hidden"):
        with pytest.raises(HistoryError) as refused:
            store.get(bad)
        assert refused.value.code == "unknown_edit"


def test_the_store_is_never_inside_the_workspace_or_git(tmp_path: Path) -> None:
    root = tmp_path / "work"
    (root / ".git").mkdir(parents=True)
    for inside in (root, root / "state", root / ".git" / "complex-edit", tmp_path / ".git" / "x"):
        with pytest.raises(HistoryError) as refused:
            HistoryStore.for_root(root, str(inside))
        assert refused.value.code == "unsafe"


def test_the_default_place_is_the_user_state_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "work").mkdir()
    store = HistoryStore.for_root(tmp_path / "work")
    assert store.directory == (tmp_path / "xdg" / "complex-edit").resolve()
    store.record("x", [_change(store, "a.py", "a\n", "b\n")])
    assert not any(path.name == ".git" for path in (tmp_path / "work").rglob("*"))
    assert list((tmp_path / "work").iterdir()) == []
