"""The sample `complex-edit try` edits and the model's recorded answers for it, as the eval's
replay model (`server.eval.replay.ReplayModel`) that the replay endpoint serves.

Both ship in the package (`sample/`): the module `inventory.py` and `recording.json`, the
instruction and one list of function calls per turn; and for `try --other-files`, `orders.py`
with `invoice.py` and `report.py` beside it and `across.json`, an edit of all three. The replay
recognises a sample by the first message the session sends, exactly as the eval replay
recognises a task: the same file name, text and instruction (and, across files, a workspace of
one folder), from the terminal or from an editor.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from complex_edit.server.eval.replay import Move, ReplayModel
from complex_edit.server.session.loop import build_first_message
from complex_edit.server.session.request import EditRequest, WorkspaceRoot
from complex_edit.server.settings import Settings


class RecordedCall(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class Recording(BaseModel):
    model_config = ConfigDict(frozen=True)

    about: str
    file: str = Field(min_length=1)
    instruction: str = Field(min_length=1)
    turns: list[list[RecordedCall]] = Field(min_length=1)
    others: list[str] = Field(default_factory=list)
    """The other files of an edit across files, beside `file` (its workspace: their folder)."""

    @property
    def across(self) -> bool:
        return bool(self.others)


SINGLE = "recording"
ACROSS = "across"


def load_recording(name: str = SINGLE) -> Recording:
    """The recording `sample/NAME.json`: SINGLE (`try`) or ACROSS (`try --other-files`)."""
    data = (resources.files(__package__) / "sample" / f"{name}.json").read_text("utf-8")
    return Recording.model_validate(json.loads(data))


def sample_bytes(recording: Recording, file: str | None = None) -> bytes:
    """The sample file as shipped (`file`: one of its `others`)."""
    return (resources.files(__package__) / "sample" / (file or recording.file)).read_bytes()


def unknown_note(recordings: Sequence[Recording]) -> str:
    known = " or ".join(f"{r.instruction!r} on {r.file}" for r in recordings)
    return (
        "complex-edit try replays recorded answers for one instruction on the sample as "
        f"shipped: {known}, without a selection. Run exactly that, or set a key (or a local "
        "model) for any other instruction."
    )


def replay_model(*recordings: Recording) -> ReplayModel:
    """The model that plays each recording for its sample (and says what it knows otherwise)."""
    plans = {
        first_message(recording): tuple(
            tuple(Move(call.name, call.args) for call in turn) for turn in recording.turns
        )
        for recording in recordings
    }
    return ReplayModel(plans, unknown=unknown_note(recordings))


def first_message(recording: Recording) -> str:
    """What the session sends first for the recording's instruction on its sample (across
    files: other files editable, a workspace of one folder, whichever folder it is)."""
    request = EditRequest(
        instruction=recording.instruction,
        text=sample_bytes(recording).decode("utf-8"),
        settings=Settings(),
        path_label=recording.file,
        other_files="edit" if recording.across else "off",
        roots=(WorkspaceRoot("sample", "/sample"),) if recording.across else (),
    )
    return build_first_message(request)
