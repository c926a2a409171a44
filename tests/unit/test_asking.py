"""server/lsp/asking.py: a question in the editor stretches the waits for applyEdit answers."""

from __future__ import annotations

import asyncio

from complex_edit.server.lsp.asking import DEFAULT_SECONDS, MAX_SECONDS, ApplyWaits, seconds_of


def test_a_question_stretches_a_wait_under_way_and_never_shortens_one() -> None:
    async def run() -> tuple[bool, int]:
        waits = ApplyWaits()
        answered = False
        async with asyncio.timeout(0.05) as scope:
            with waits.watching(scope):
                stretched = waits.stretch(0.3)
                assert waits.stretch(0.01) == 1  # a shorter one leaves it as it is
                await asyncio.sleep(0.1)  # past the first deadline
                answered = True
        return answered, stretched

    assert asyncio.run(run()) == (True, 1)


def test_a_wait_that_ended_is_not_stretched() -> None:
    async def run() -> int:
        waits = ApplyWaits()
        async with asyncio.timeout(1) as scope:
            with waits.watching(scope):
                await asyncio.sleep(0)
        return waits.stretch(5)

    assert asyncio.run(run()) == 0


def test_seconds_from_the_notification() -> None:
    assert seconds_of({"seconds": 12}) == 12.0
    assert seconds_of({}) == DEFAULT_SECONDS
    assert seconds_of({"seconds": True}) == DEFAULT_SECONDS
    assert seconds_of({"seconds": -1}) == DEFAULT_SECONDS
    assert seconds_of({"seconds": 10**9}) == MAX_SECONDS
