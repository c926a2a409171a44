"""The replay's plans (reference solutions as tool calls) and its stateless model."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from complex_edit.edit_tools.registry import TOOL_NAMES, Toolbox
from complex_edit.server.eval.replay import (
    WRONG_EDIT_NOTE,
    Move,
    Plan,
    ReplayModel,
    plan_task,
    replace_moves,
    replay_model,
)
from complex_edit.server.eval.runner import edit_request
from complex_edit.server.eval.suite import load_suite
from complex_edit.server.session.loop import build_first_message
from complex_edit.server.settings import Settings

LINES = ["a\n", "b\n", "def f():\n", "    return 1\n", "\n", "x = 1\n", "x = 1", "# c\n"]
documents = st.lists(st.sampled_from(LINES), max_size=12).map("".join)


def play(source: str, plan: Plan) -> str:
    """Run a plan through the real toolbox; every call must succeed."""
    toolbox = Toolbox(source)
    for turn in plan:
        for move in turn:
            outcome = toolbox.execute(move.name, dict(move.args))
            assert outcome.ok, (move, outcome.response)
    return toolbox.text


def apply_by_hand(source: str, moves: list[Move]) -> str:
    text = source
    for move in moves:
        old, new = move.args["old_text"], move.args["new_text"]
        first = text.find(old)
        assert first != -1
        assert text.find(old, first + 1) == -1, "old_text must occur once"
        text = text[:first] + new + text[first + len(old) :]
    return text


@settings(max_examples=300, deadline=None)
@given(documents, documents)
def test_replace_moves_turn_the_source_into_the_target(source: str, target: str) -> None:
    moves = replace_moves(source, target)
    if source == target:
        assert moves is None
        return
    if moves is None:
        return  # too many separate changes: the plan uses set_document
    assert apply_by_hand(source, moves) == target
    assert play(source, ((*moves,),)) == target


@settings(max_examples=100, deadline=None)
@given(documents.filter(bool), documents, st.integers(min_value=0, max_value=11))
def test_every_shape_ends_with_the_target(source: str, target: str, variant: int) -> None:
    if source == target:
        return
    plan = plan_task(source, target, variant)
    assert plan[-1][-1].name == "complete_task"
    assert plan[-1][-1].args["success"] is True
    assert play(source, plan) == target


def test_the_editeval_plans_cover_every_tool_and_play_every_reference() -> None:
    suite = load_suite("editeval")
    used: set[str] = set()
    for variant, task in enumerate(suite.tasks):
        plan = plan_task(task.input, task.output, variant)
        used.update(move.name for turn in plan for move in turn)
        assert play(task.input, plan) == task.output, task.task_id
    assert used == set(TOOL_NAMES)


def test_a_local_change_is_a_small_unique_replace() -> None:
    source = "def f():\n    return 1\n\ndef g():\n    return 1\n"
    target = "def f():\n    return 1\n\ndef g():\n    return 2\n"
    (move,) = replace_moves(source, target) or []
    assert move.args == {
        "old_text": "def g():\n    return 1\n",
        "new_text": "def g():\n    return 2\n",
    }


def test_the_undo_shape_makes_a_valid_wrong_edit_first() -> None:
    plan = plan_task("a\nb\n", "a\nc\n", 3)
    assert [[move.name for move in turn] for turn in plan] == [
        ["replace_text"],
        ["undo"],
        ["replace_text"],
        ["complete_task"],
    ]
    assert WRONG_EDIT_NOTE in plan[0][0].args["new_text"]
    plan = plan_task("a\nb\n", "a\nc\n", 4)
    assert [move.name for move in plan[1]] == ["undo", "redo", "undo"]


# --- the stateless model: turn k is answered from a history holding k model turns ---


def body(first: str, *turns: tuple[list[Move], list[dict[str, Any]]]) -> dict[str, Any]:
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": first}]}]
    for moves, responses in turns:
        calls = [{"functionCall": {"name": m.name, "args": dict(m.args)}} for m in moves]
        contents.append({"role": "model", "parts": calls})
        contents.append(
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": m.name, "response": response}}
                    for m, response in zip(moves, responses, strict=True)
                ],
            }
        )
    return {"contents": contents}


def calls_of(answer: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    parts = answer["candidates"][0]["content"]["parts"]
    return [(part["functionCall"]["name"], part["functionCall"]["args"]) for part in parts]


PLAN: Plan = ((Move("get_document"),), (Move("complete_task", {"success": True}),))


def test_the_model_plays_the_plan_turn_by_turn() -> None:
    model = ReplayModel({"hello": PLAN})
    status, answer = model.reply(body("hello"))
    assert status == 200
    assert calls_of(answer) == [("get_document", {})]
    assert answer["usageMetadata"]["promptTokenCount"] > 0
    status, answer = model.reply(body("hello", ([Move("get_document")], [{"result": "[1 line]"}])))
    assert calls_of(answer) == [("complete_task", {"success": True})]


def test_an_unexpected_tool_error_ends_the_task_as_failed() -> None:
    model = ReplayModel({"hello": PLAN})
    history = body("hello", ([Move("get_document")], [{"error": "something broke"}]))
    _, answer = model.reply(history)
    ((name, args),) = calls_of(answer)
    assert name == "complete_task"
    assert args["success"] is False
    assert "call 1 (get_document) was expected to succeed" in args["error"]
    assert "something broke" in args["error"]


def test_a_session_that_runs_past_the_plan_is_failed() -> None:
    model = ReplayModel({"hello": PLAN})
    history = body(
        "hello",
        ([Move("get_document")], [{"result": "ok"}]),
        ([Move("complete_task", {"success": True})], [{"result": "ok"}]),
    )
    ((_, args),) = calls_of(model.reply(history)[1])
    assert args["success"] is False
    assert "turn 3 of a 2-turn plan" in args["error"]


def test_an_unknown_task_or_a_bad_body_is_a_400() -> None:
    model = ReplayModel({"hello": PLAN})
    assert model.reply(body("someone else"))[0] == 400
    assert model.reply({"contents": []})[0] == 400
    assert model.reply([1, 2])[0] == 400


def test_tasks_are_recognised_by_the_sessions_first_message() -> None:
    task = load_suite("editeval").tasks[0]
    model = replay_model([task])
    first = build_first_message(edit_request(task, Settings(model="anything")))
    status, answer = model.reply(body(first))
    assert status == 200
    assert calls_of(answer)
