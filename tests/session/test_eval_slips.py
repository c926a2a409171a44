"""The scripted slip suite (`tests/data/slips.jsonl`) through the whole loop, as the eval runs
it: the real session, the real google-genai SDK against the Gemini emulator, the eval's
transcript and record fields. The model sends the slipped replace_text and complete_task in one
turn; every slip must be absorbed in that turn, counted, with the expected text, and every
ambiguous one refused with the places listed and nothing changed. 100%, in CI."""

from __future__ import annotations

from typing import Any

import pytest

from complex_edit.server.eval.record import integrity_fields
from complex_edit.server.eval.transcript import RecordingProvider, Transcript
from complex_edit.server.outcome import SessionOutcome
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.session.scripts import GeminiHarness, calls, done
from tests.unit.test_slips import CASES, REFUSED, call_of

ABSORBED = [case for case in CASES if case["expected"] is not None]
# Issue 22's (and 30's) kinds whose adjustment the eval record counts apart from `slips_tolerated`.
COUNTED_ELSEWHERE = {
    "stray_blank_line": "blank_lines",
    "over_escaped": "escapes",
    "elision_pinned": "elision_expanded",
    "placeholder_form": "elision_expanded",  # issue 30
    "lazy_rewrite": "elision_expanded",  # issue 30
}
AMBIGUOUS = [case for case in CASES if case["expected"] is None]


@pytest.fixture(scope="module")
def provider() -> GeminiProvider:
    return GeminiProvider({"GEMINI_API_KEY": TEST_KEY})


async def run_case(
    case: dict[str, Any], model: GeminiHarness, provider: GeminiProvider
) -> tuple[SessionOutcome, dict[str, Any]]:
    """The session's outcome and the eval record's integrity fields."""
    layer = {"provider": "gemini", "baseUrl": model.base_url, "requestTimeoutSeconds": 5}
    request = EditRequest(
        instruction="rename the word and add the call",
        text=case["document"],
        settings=Settings.from_layers({}, layer),
    )
    transcript = Transcript()
    outcome = await run_tool_loop(
        request, RecordingProvider(provider, transcript), transcript.on_event
    )
    return outcome, integrity_fields(outcome.integrity, transcript.turns)


def test_the_suite_has_both_kinds() -> None:
    assert len(ABSORBED) >= 40
    assert AMBIGUOUS


@pytest.mark.parametrize("case", ABSORBED, ids=[case["id"] for case in ABSORBED])
async def test_a_slip_is_absorbed_in_one_turn(
    case: dict[str, Any], emulator: GeminiEmulator, provider: GeminiProvider
) -> None:
    model = GeminiHarness(emulator)
    model.script(calls(call_of(case), done()))
    outcome, fields = await run_case(case, model, provider)
    assert outcome.success, f"{case['source']}: {outcome.error}"
    assert outcome.turns == 1
    assert outcome.final_text == case["expected"], f"{case['source']}: wrong result"
    if case["kind"] in COUNTED_ELSEWHERE:  # not (yet) among the eval's SLIPS kinds
        assert outcome.integrity[COUNTED_ELSEWHERE[case["kind"]]] >= 1, outcome.integrity
    else:
        assert fields["slips_tolerated"] >= 1, outcome.integrity
    assert fields["turns_saved"] == 1
    assert fields["elisions_refused"] == 0
    assert fields["syntax_refusals"] == 0


@pytest.mark.parametrize("case", AMBIGUOUS, ids=[case["id"] for case in AMBIGUOUS])
async def test_an_ambiguous_slip_is_refused_and_changes_nothing(
    case: dict[str, Any], emulator: GeminiEmulator, provider: GeminiProvider
) -> None:
    model = GeminiHarness(emulator)
    model.script(calls(call_of(case), done()), calls(done()))
    outcome, fields = await run_case(case, model, provider)
    refused = model.results(1)[0]
    assert refused.is_error
    assert REFUSED.get(case["kind"], "places") in refused.text
    assert "Nothing was changed" in refused.text
    assert outcome.success, outcome.error
    assert outcome.turns == 2
    assert outcome.final_text == case["document"]
    assert fields["slips_tolerated"] == fields["turns_saved"] == 0
