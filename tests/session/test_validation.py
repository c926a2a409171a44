"""Issue 14, syntax validation through the whole loop, for every provider through its real SDK
and wire emulator: a broken result is refused, then fixed; an error the snapshot already had
never blocks; `validate: "off"` and a language without a grammar say they did not check."""

from __future__ import annotations

from typing import Any

import pytest

from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings
from tests.session.conftest import OutcomeFn
from tests.session.scripts import Harness, calls, done, replace

DOC = "def total(items):\n    return sum(item.price for item in items)\n\n\nprint(total([]))\n"


async def test_a_broken_result_is_refused_then_fixed(outcome_of: OutcomeFn, model: Harness) -> None:
    model.script(
        calls(replace("print(total([]))", "print(total([])"), done("dropped a bracket")),
        calls(replace("print(total([])", "print(total([1]))"), done("fixed")),
    )
    outcome = await outcome_of(DOC, "python")
    assert outcome.success, outcome
    assert outcome.turns == 2
    (_edit, refusal) = model.results(1)
    assert refusal.is_error is not False
    assert "NOT complete" in refusal.text
    assert "syntax error" in refusal.text
    assert "line 5" in refusal.text
    assert "print(total([])" in refusal.text
    assert outcome.final_text == DOC.replace("print(total([]))", "print(total([1]))")
    assert outcome.validation is not None
    assert outcome.validation.language == "python"
    assert outcome.validation.syntax == "ok"


async def test_an_error_the_snapshot_had_does_not_block(
    outcome_of: OutcomeFn, model: Harness
) -> None:
    broken = DOC + "\nif True\n    pass\n"
    model.script(calls(replace("sum(item.price", "sum(item.cost"), done()))
    outcome = await outcome_of(broken, "python")
    assert outcome.success, outcome
    assert outcome.turns == 1
    assert outcome.validation is not None
    assert outcome.validation.syntax == "ok"
    assert outcome.validation.preexisting >= 1


async def test_validation_off_and_unknown_languages_are_not_checked(
    outcome_of: OutcomeFn, model: Harness
) -> None:
    model.script(calls(replace("print(total([]))", "print(total([])"), done()))
    outcome = await outcome_of(DOC, "python", validate="off")
    assert outcome.success, outcome
    assert outcome.validation is not None
    assert outcome.validation.syntax == "skipped"
    assert "validate" in (outcome.validation.detail or "")

    model.script(calls(replace("print(total([]))", "print(total([])"), done()))
    outcome = await outcome_of(DOC, language="brainfuck")
    assert outcome.success, outcome
    assert outcome.validation is not None
    assert outcome.validation.syntax == "skipped"


async def test_a_document_too_large_to_parse_is_not_checked(
    outcome_of: OutcomeFn, model: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("complex_edit.server.session.validation.MAX_CHECKED_CHARS", len(DOC) - 1)
    model.script(calls(replace("print(total([]))", "print(total([])"), done()))
    outcome = await outcome_of(DOC, "python")
    assert outcome.success, outcome
    assert outcome.validation is not None
    assert outcome.validation.syntax == "skipped"
    assert "not checked" in (outcome.validation.detail or "")


async def test_each_turn_reports_the_change_so_far(
    model: Harness, hubs: dict[str, ProviderHub]
) -> None:
    from complex_edit.server.session.events import SessionEvent, TurnStarted

    seen: list[SessionEvent] = []
    model.script(
        calls(replace("print(total([]))", "print(total([1]))\nprint(total([2]))")),
        calls(done()),
    )
    layer: dict[str, Any] = {"provider": model.provider, "baseUrl": model.base_url}
    request = EditRequest(instruction="edit it", text=DOC, settings=Settings.from_layers({}, layer))
    outcome = await run_tool_loop(request, hubs[model.provider], seen.append)
    assert outcome.success, outcome
    turns = [event for event in seen if isinstance(event, TurnStarted)]
    assert [(t.turn, t.added, t.removed, t.last_calls) for t in turns] == [
        (1, 0, 0, ()),
        (2, 2, 1, ("replace_text",)),
    ]


async def test_a_result_still_broken_at_the_turn_cap_is_not_applied(
    outcome_of: OutcomeFn, model: Harness
) -> None:
    model.script(
        calls(replace("print(total([]))", "print(total([])"), done()),
        calls(done("still broken")),
    )
    outcome = await outcome_of(DOC, "python", maxTurns=2)
    assert not outcome.success
    assert outcome.reason == "max_turns"
    assert outcome.final_text is None
    assert "syntax errors" in (outcome.error or "")
    assert outcome.integrity.get("syntax_refused") == 2
