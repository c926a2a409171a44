"""The in-process scripted provider (`tests/fakes/scripted.py`) drives the real session loop."""

from __future__ import annotations

import pytest

from complex_edit.server.providers.base import ModelTurn, ToolCall
from complex_edit.server.session.events import SessionEvent, WorkingChanged
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange
from tests.fakes.scripted import ScriptedConversation, ScriptedProvider, call, done

TEXT = "total = 0\nprint(total)\n"


def request(text: str = TEXT) -> EditRequest:
    return EditRequest(instruction="start at 1", text=text, settings=Settings.from_layers({}, {}))


async def test_a_script_runs_turn_by_turn_and_records_what_the_loop_sent() -> None:
    provider = ScriptedProvider(
        [[call("replace_text", old_text="total = 0", new_text="total = 1")], [done()]]
    )
    outcome = await run_tool_loop(request(), provider)
    assert outcome.success, outcome
    assert outcome.final_text == "total = 1\nprint(total)\n"
    (conversation,) = provider.conversations
    assert conversation.turns == 2
    assert "start at 1" in conversation.request.first_message
    first_turn = conversation.results[0]
    assert [(r.call.name, r.ok) for r in first_turn] == [("replace_text", True)]


async def test_a_step_function_runs_when_its_turn_is_asked_for() -> None:
    seen: list[int] = []

    def typing_while_thinking(conversation: ScriptedConversation) -> ModelTurn:
        seen.append(len(conversation.results))
        return ModelTurn(calls=[done(False, "cannot")])

    async def first(conversation: ScriptedConversation) -> list[ToolCall]:
        seen.append(len(conversation.results))
        return [call("get_document")]

    provider = ScriptedProvider([first, typing_while_thinking])
    outcome = await run_tool_loop(request(), provider)
    assert seen == [0, 1]
    assert not outcome.success
    assert outcome.reason == "task_failed"


async def test_asking_past_the_script_fails_the_test() -> None:
    provider = ScriptedProvider([[call("get_document")]])
    with pytest.raises(AssertionError, match="turn 2; the script has 1"):
        await run_tool_loop(request(), provider)


async def test_each_call_that_changes_the_working_text_reports_the_change_so_far() -> None:
    provider = ScriptedProvider(
        [
            [
                call("replace_text", old_text="total = 0", new_text="total = 1"),
                call("get_document"),
                call("replace_text", old_text="nowhere", new_text="x"),
            ],
            [call("undo")],
            [done()],
        ]
    )
    events: list[SessionEvent] = []
    outcome = await run_tool_loop(request(), provider, events.append)
    assert outcome.success, outcome
    changed = [event for event in events if isinstance(event, WorkingChanged)]
    assert changed == [
        WorkingChanged(1, 8, (TextChange(8, 9, "1"),), 1, 1),
        WorkingChanged(2, 8, (), 0, 0),
    ]
