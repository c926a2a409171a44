"""The sample `complex-edit try` edits and the model's recorded answers for it, as the eval's
replay model (`server.eval.replay.ReplayModel`) that the replay endpoint serves.

Both ship in the package (`sample/`): the module `inventory.py` and `recording.json`, the
instruction and one list of function calls per turn. The replay recognises the sample by the
first message the session sends, exactly as the eval replay recognises a task: the same file
name, text and instruction, from the terminal or from an editor.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from complex_edit.server.eval.replay import Move, ReplayModel
from complex_edit.server.session.loop import build_first_message
from complex_edit.server.session.request import EditRequest
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


def load_recording() -> Recording:
    data = (resources.files(__package__) / "sample" / "recording.json").read_text("utf-8")
    return Recording.model_validate(json.loads(data))


def sample_bytes(recording: Recording) -> bytes:
    """The sample file as shipped."""
    return (resources.files(__package__) / "sample" / recording.file).read_bytes()


def unknown_note(recording: Recording) -> str:
    return (
        "complex-edit try replays recorded answers for one instruction on the sample as "
        f"shipped: {recording.instruction!r} on {recording.file}, without a selection. "
        "Run exactly that, or set a key (or a local model) for any other instruction."
    )


def replay_model(recording: Recording) -> ReplayModel:
    """The model that plays the recording for the sample (and says what it knows otherwise)."""
    request = EditRequest(
        instruction=recording.instruction,
        text=sample_bytes(recording).decode("utf-8"),
        settings=Settings(),
        path_label=recording.file,
    )
    plan = tuple(tuple(Move(call.name, call.args) for call in turn) for turn in recording.turns)
    return ReplayModel({build_first_message(request): plan}, unknown=unknown_note(recording))
