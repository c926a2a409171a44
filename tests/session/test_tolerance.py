"""Issue 14 through the whole loop, for every provider through its real SDK and wire emulator:
a whitespace slip in old_text absorbed in the same turn, an ambiguous one refused then fixed,
an elision placeholder expanded, and one refused then corrected."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from complex_edit.server.outcome import SessionOutcome
from tests.session.conftest import OutcomeFn
from tests.session.scripts import Harness, calls, done, replace

RunFn = Callable[[str], Awaitable[SessionOutcome]]

DOC = (
    "class Store:\n"
    "    def get(self, key):\n"
    "        if key in self.items:\n"
    "            return self.items[key]\n"
    "        return None\n"
    "\n"
    "    def put(self, key, value):\n"
    "        self.items[key] = value\n"
    "        self.count += 1\n"
)


async def test_a_slip_is_absorbed_in_the_same_turn(outcome_of: OutcomeFn, model: Harness) -> None:
    """old_text copied without its base indentation, and with tabs: both land in turn 1, and
    complete_task in that turn ends the task."""
    model.script(
        calls(
            replace(
                "if key in self.items:\n    return self.items[key]\nreturn None",
                "if key in self.items:\n    return self.items[key]\nraise KeyError(key)",
            ),
            replace("\tdef put(self, key, value):", "\tdef put(self, key, value=None):"),
            done("raise on a missing key"),
        )
    )
    outcome = await outcome_of(DOC)
    assert outcome.success, outcome
    assert outcome.turns == 1
    assert outcome.final_text == DOC.replace(
        "        return None\n", "        raise KeyError(key)\n"
    ).replace("value):", "value=None):")


async def test_the_model_reads_what_was_tolerated(outcome_of: OutcomeFn, model: Harness) -> None:
    model.script(
        calls(replace("self.count += 1", "self.count += 2")),
        calls(replace("self.items[key] = value\nself.count += 2", "self.items[key] = value")),
        calls(done()),
    )
    outcome = await outcome_of(DOC)
    assert outcome.success, outcome
    (tolerated,) = model.results(2)
    assert tolerated.is_error is not True
    assert "did not match exactly" in tolerated.text
    assert "lacked the 8 spaces of indentation" in tolerated.text
    assert outcome.final_text == DOC.replace("        self.count += 1\n", "")


async def test_an_ambiguous_slip_is_refused_then_fixed(
    outcome_of: OutcomeFn, model: Harness
) -> None:
    text = DOC + (
        "\n    def fetch(self, key):\n        if key in self.items:\n"
        "            return self.items[key]\n        raise KeyError(key)\n"
    )
    slipped = "if key in self.items:\n    return self.items[key]"
    exact = "    def fetch(self, key):\n        if key in self.items:\n"
    model.script(
        calls(replace(slipped, "return self.items.get(key)"), done()),
        calls(replace(exact, "    def fetch(self, key):\n        if key in self:\n"), done()),
    )
    outcome = await outcome_of(text)
    assert outcome.success, outcome
    assert outcome.turns == 2
    refusal, completion = model.results(1)
    assert refusal.is_error is not False
    assert "matches 2 places" in refusal.text
    assert "At lines 3-4:" in refusal.text
    assert "At lines 12-13:" in refusal.text
    assert "NOT complete" in completion.text
    assert outcome.final_text == text.replace(
        exact, "    def fetch(self, key):\n        if key in self:\n"
    )


async def test_an_elision_is_expanded_from_the_original(
    outcome_of: OutcomeFn, model: Harness
) -> None:
    content = DOC.replace(
        "        if key in self.items:\n            return self.items[key]\n        return None\n",
        "        # ... existing code ...\n",
    ).replace("self.count += 1", "self.count += 2")
    model.script(calls(("set_document", {"content": content}), done()))
    outcome = await outcome_of(DOC)
    assert outcome.success, outcome
    assert outcome.final_text == DOC.replace("self.count += 1", "self.count += 2")


async def test_an_elision_is_refused_then_corrected(outcome_of: OutcomeFn, model: Harness) -> None:
    elided = DOC.replace(
        "        if key in self.items:\n            return self.items[key]\n        return None\n",
        "        # ... rest of the function unchanged\n        return self.items.get(key)\n",
    )
    model.script(
        calls(("set_document", {"content": elided}), done()),
        calls(
            replace(
                "        if key in self.items:\n            return self.items[key]\n"
                "        return None\n",
                "        return self.items.get(key)\n",
            ),
            done(),
        ),
    )
    outcome = await outcome_of(DOC)
    assert outcome.success, outcome
    assert outcome.turns == 2
    refusal, completion = model.results(1)
    assert refusal.is_error is not False
    assert "Refused" in refusal.text
    assert "'# ... rest of the function unchanged'" in refusal.text
    assert "replace_text" in refusal.text
    assert "NOT complete" in completion.text
    assert outcome.final_text == DOC.replace(
        "        if key in self.items:\n            return self.items[key]\n        return None\n",
        "        return self.items.get(key)\n",
    )
