"""The failure `reason` codes are the contract's: copied here from CONTRACT.md, so that changing
`server.outcome.Reason` is a decision, not an accident."""

from __future__ import annotations

import re
from typing import get_args

from complex_edit.server.outcome import REASON_TEXTS, Reason

# CONTRACT.md, "The LSP command", the result's `reason` field, as written there.
CONTRACT_TEXT = (
    "`task_failed`, `max_turns`, `model_error`, `auth`, `quota`, `blocked`, `document_changed`, "
    "`client_rejected`, `cancelled`, `busy`, `invalid_request`, `too_large`, `config`"
)
# CONTRACT.md, "History": a revert's refusals.
HISTORY_CODES = ["conflict", "unknown_edit"]


def test_reason_codes_are_the_contracts() -> None:
    contract = re.findall(r"`(\w+)`", CONTRACT_TEXT) + HISTORY_CODES
    codes = get_args(Reason)
    assert len(contract) == 15
    assert len(set(codes)) == len(codes)
    assert set(codes) == set(contract)


def test_every_reason_has_a_text_for_people() -> None:
    assert list(REASON_TEXTS) == list(get_args(Reason))
    assert all(text and text != code for code, text in REASON_TEXTS.items())
