"""`--replay`: a scripted model that plays each task's reference solution through the tools.

The plan of a task is computed from its `input` and `output` alone, with plain string maths
(independent of the toolbox): one `replace_text` per changed region, with just enough
surrounding lines to occur once, or one `set_document` when that is simpler. Tasks take turns at
the shapes a real model produces, so every tool and termination path runs: calls and
`complete_task` in one turn or in two, a `get_document` first, a deliberate wrong (but valid)
`replace_text` followed by `undo` (or `undo`, `redo`, `undo`), and a whole `set_document`.

Every planned call is expected to succeed, so a replay's well-formed rate is 100%. The model
checks this: when a function response it gets back is an error, it ends the task with
`complete_task(success=false)` naming the call, and the replay scores below 100%.

`ReplayModel.reply` answers one `generateContent` request body; it keeps no state: the turn
to play is the number of model turns in the request's history, and the task is recognised by
the first user message (the document and instruction the session sends).
"""

from __future__ import annotations

import difflib
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from complex_edit.server.session.loop import build_first_message
from complex_edit.server.settings import Settings

if TYPE_CHECKING:
    from complex_edit.server.eval.suite import Task

WRONG_EDIT_NOTE = "# replay: a deliberate mistake, undone in the next turn\n"
MAX_REPLACE_HUNKS = 4
COMPLETE = "complete_task"


@dataclass(frozen=True)
class Move:
    """One tool call of the plan."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


Plan = tuple[tuple[Move, ...], ...]


def _unique(text: str, part: str) -> bool:
    first = text.find(part)
    return first != -1 and text.find(part, first + 1) == -1


def replace_moves(source: str, target: str) -> list[Move] | None:
    """`replace_text` calls that turn `source` into `target` when applied in order, each
    `old_text` occurring exactly once (overlaps counted) in the text it applies to. None when
    no such calls exist or more than MAX_REPLACE_HUNKS would be needed."""
    old_lines = source.splitlines(keepends=True)
    new_lines = target.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    hunks: list[list[int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if hunks and i1 - hunks[-1][1] <= 1:  # one unchanged line apart: one edit
            hunks[-1][1], hunks[-1][3] = i2, j2
        else:
            hunks.append([i1, i2, j1, j2])
    if not hunks or len(hunks) > MAX_REPLACE_HUNKS:
        return None
    current = list(old_lines)
    shift = 0
    moves: list[Move] = []
    for i1, i2, j1, j2 in hunks:
        low, high = i1 + shift, i2 + shift
        replacement = new_lines[j1:j2]
        text = "".join(current)
        top, bottom = low, high
        downwards = True
        while top == bottom or not _unique(text, "".join(current[top:bottom])):
            can_go_down, can_go_up = bottom < len(current), top > 0
            if not (can_go_down or can_go_up):
                return None
            if (downwards and can_go_down) or not can_go_up:
                bottom += 1
            else:
                top -= 1
            downwards = not downwards
        old_text = "".join(current[top:bottom])
        new_text = "".join(current[top:low] + replacement + current[high:bottom])
        moves.append(Move("replace_text", {"old_text": old_text, "new_text": new_text}))
        current[low:high] = replacement
        shift += len(replacement) - (high - low)
    if "".join(current) != target:
        return None
    return moves


def plan_task(source: str, target: str, variant: int) -> Plan:
    """The turns that play `source` → `target`, in one of six shapes chosen by `variant`."""
    done = Move(COMPLETE, {"success": True, "message": "Replayed the reference solution."})
    whole = [Move("set_document", {"content": target})]
    shape = variant % 6
    edits = (replace_moves(source, target) if shape != 5 else None) or whole
    if shape == 0:
        return ((*edits, done),)
    if shape == 1:
        return (tuple(edits), (done,))
    if shape == 2:
        return ((Move("get_document", {"start_line": 1, "end_line": 1}),), (*edits, done))
    if shape == 5:
        return ((Move("get_document"),), tuple(whole), (done,))
    wrong = _wrong_move(source, edits[0])
    if shape == 3:
        return ((wrong,), (Move("undo"),), tuple(edits), (done,))
    return ((wrong,), (Move("undo"), Move("redo"), Move("undo")), (*edits, done))


def _wrong_move(source: str, first: Move) -> Move:
    """A valid edit of the untouched source that the plan undoes again."""
    old_text = first.args.get("old_text")
    if first.name == "replace_text" and isinstance(old_text, str):
        return Move("replace_text", {"old_text": old_text, "new_text": WRONG_EDIT_NOTE + old_text})
    return Move("set_document", {"content": WRONG_EDIT_NOTE + source})


def replay_model(tasks: Sequence[Task]) -> ReplayModel:
    """The model that replays `tasks` (a task's shape depends only on its id)."""
    # Here, not at the top: `complex-edit try` uses ReplayModel without the eval's runner.
    from complex_edit.server.eval.runner import edit_request

    plans: dict[str, Plan] = {}
    settings = Settings()
    for task in tasks:
        first_message = build_first_message(edit_request(task, settings))
        variant = zlib.crc32(task.task_id.encode("utf-8"))
        plans.setdefault(first_message, plan_task(task.input, task.output, variant))
    return ReplayModel(plans)


class ReplayModel:
    """Answers Gemini `generateContent` request bodies from the plans, keyed by first message.

    A first message that matches no plan is a 400, or, with `unknown`, a turn that ends the
    task as failed with that text (what a person trying the replay in an editor should read).
    """

    def __init__(self, plans: Mapping[str, Plan], unknown: str | None = None) -> None:
        self._plans = dict(plans)
        self._unknown = unknown

    def reply(self, body: Any) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON body) for one request body."""
        contents = body.get("contents") if isinstance(body, dict) else None
        if not isinstance(contents, list) or not contents:
            return _error(400, "replay: the request has no contents")
        plan = self._plans.get(_first_text(contents[0]))
        if plan is None and self._unknown is not None:
            return 200, _answer([Move(COMPLETE, {"success": False, "error": self._unknown})], body)
        if plan is None:
            return _error(400, "replay: the first message matches no task of the suite")
        turn = sum(1 for content in contents if _role(content) == "model")
        if turn > 0:
            problem = _check_responses(contents[-1], plan[turn - 1])
            if problem is not None:
                return 200, _answer([Move(COMPLETE, {"success": False, "error": problem})], body)
        if turn >= len(plan):
            problem = f"replay: the session asked for turn {turn + 1} of a {len(plan)}-turn plan"
            return 200, _answer([Move(COMPLETE, {"success": False, "error": problem})], body)
        return 200, _answer(plan[turn], body)


def _role(content: Any) -> str | None:
    role = content.get("role") if isinstance(content, dict) else None
    return role if isinstance(role, str) else None


def _parts(content: Any) -> list[Any]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def _first_text(content: Any) -> str:
    return "".join(part["text"] for part in _parts(content) if isinstance(part.get("text"), str))


def _check_responses(content: Any, moves: Sequence[Move]) -> str | None:
    """Why the function responses of the previous turn differ from the plan's, or None."""
    responses = [
        part["functionResponse"]
        for part in _parts(content)
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
    ]
    if len(responses) != len(moves):
        return f"replay: expected {len(moves)} function responses, got {len(responses)}"
    for number, (move, response) in enumerate(zip(moves, responses, strict=True), start=1):
        payload = response.get("response")
        if response.get("name") != move.name:
            return f"replay: response {number} names {response.get('name')!r}, not {move.name!r}"
        if not isinstance(payload, dict) or "error" in payload or "result" not in payload:
            shown = json.dumps(payload, ensure_ascii=False)[:300]
            return f"replay: call {number} ({move.name}) was expected to succeed: {shown}"
    return None


def _answer(moves: Sequence[Move], request: Any) -> dict[str, Any]:
    parts = [{"functionCall": {"name": move.name, "args": dict(move.args)}} for move in moves]
    prompt_tokens = max(1, len(json.dumps(request)) // 4)
    output_tokens = max(1, len(json.dumps(parts)) // 4)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": prompt_tokens + output_tokens,
        },
        "modelVersion": "replay",
    }


def _error(code: int, message: str) -> tuple[int, dict[str, Any]]:
    return code, {"error": {"code": code, "message": message, "status": "INVALID_ARGUMENT"}}
