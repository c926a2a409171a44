"""`Latest`: at most one delivery per interval, the latest value winning (the pace of progress
reports and live previews)."""

from __future__ import annotations

import asyncio

from complex_edit.server.lsp.pacing import Latest


async def test_the_first_value_goes_at_once_and_the_latest_after_the_interval() -> None:
    delivered: list[int] = []
    latest = Latest(delivered.append, 0.05)
    for value in (1, 2, 3):
        latest.offer(value)
    assert delivered == [1]
    await asyncio.sleep(0.1)
    assert delivered == [1, 3]


async def test_flush_delivers_what_waits_now_and_drop_forgets_it() -> None:
    delivered: list[str] = []
    latest = Latest(delivered.append, 10.0)
    latest.offer("a")
    latest.offer("b")
    latest.flush()
    assert delivered == ["a", "b"]
    latest.offer("c")
    latest.drop()
    latest.flush()
    await asyncio.sleep(0)
    assert delivered == ["a", "b"]
