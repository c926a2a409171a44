"""Recording landed edits from the flow (`server/edit/recording.py`), through the disk editor
and a scripted model: what is recorded and under which root, `historyMax: 0`, a dry run, and a
history that cannot be written (the edit still lands, without an `editId`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from complex_edit.server.edit.disk import edit_file
from complex_edit.server.edit.recording import history_store
from complex_edit.server.session.result import InProcess
from complex_edit.server.settings import Settings
from tests.fakes.scripted import ScriptedProvider, call, done

OLD = "first = 1\nsecond = 2\n"
NEW = "first = 10\nsecond = 2\n"


def _edit(path: Path, settings: Settings, *, dry_run: bool = False) -> str | None:
    script = [[call("replace_text", old_text="first = 1\n", new_text="first = 10\n"), done()]]
    runner = InProcess(ScriptedProvider(script))  # type: ignore[arg-type]
    result = asyncio.run(
        edit_file(path, "bump first", settings, runner, dry_run=dry_run, root=path.parent)
    )
    assert result.success, result
    return result.edit_id


def _project(tmp_path: Path) -> Path:
    root = tmp_path.resolve() / "work"
    root.mkdir()
    path = root / "values.py"
    path.write_text(OLD)
    return path


def test_a_landed_edit_is_recorded_under_its_root(tmp_path: Path) -> None:
    path = _project(tmp_path)
    settings = Settings(history_dir=str(tmp_path / "state"))
    edit_id = _edit(path, settings)
    assert edit_id is not None
    store = history_store(settings, path.parent)
    record = store.get(edit_id)
    assert record.instruction == "bump first"
    (document,) = record.documents
    assert (document.label, document.added, document.removed) == ("values.py", 1, 1)
    assert (store.text(document.before), store.text(document.after)) == (OLD, NEW)


def test_nothing_is_recorded_for_a_dry_run_or_with_history_max_0(tmp_path: Path) -> None:
    path = _project(tmp_path)
    state = str(tmp_path / "state")
    assert _edit(path, Settings(history_dir=state), dry_run=True) is None
    assert _edit(path, Settings(history_dir=state, history_max=0)) is None
    assert path.read_text() == NEW
    assert history_store(Settings(history_dir=state), path.parent).records() == []


def test_a_history_that_cannot_be_kept_does_not_stop_the_edit(tmp_path: Path) -> None:
    """A state folder inside the workspace is refused: the edit lands, unrecorded."""
    path = _project(tmp_path)
    assert _edit(path, Settings(history_dir=str(path.parent / "state"))) is None
    assert path.read_text() == NEW
    assert not (path.parent / "state").exists()
