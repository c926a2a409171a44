"""A short soak: 150 sequential commands of every kind through one server process. Nothing
may accumulate: live asyncio tasks, pending requests, change waiters, progress tokens and
running commands are back to their idle values, and memory stays flat after the warm-up.
The 1,000-command run with its report is `bench/soak.py`."""

from __future__ import annotations

import pytest

from tests.reliability.soak import run_soak

WARM_UP = 50
COMMANDS = 150
MAX_RSS_GROWTH = 10 * 1024 * 1024  # after the warm-up; measured growth is well under 1 MB

pytestmark = pytest.mark.timeout(300)


async def test_a_hundred_and_fifty_commands_leave_nothing_behind() -> None:
    result = await run_soak(COMMANDS, sample_every=WARM_UP)
    assert result.failures == [], result.failures
    assert sum(result.outcomes.values()) == COMMANDS
    assert result.outcomes.get("cancelled", 0) >= COMMANDS // 10 - 1
    assert result.edits_after_cancel == 0
    assert result.successes_confirmed == result.outcomes["edit"] + result.outcomes["fresh-document"]
    warm = next(s for s in result.samples if s.command == WARM_UP)
    last = result.samples[-1]
    assert last.command == COMMANDS
    for sample in result.samples:
        assert sample.pending_requests == 0, sample
        assert sample.change_waiters == 0, sample
        assert sample.progress_tokens == 0, sample
        assert sample.running_commands == 0, sample
        assert sample.open_documents == 1, sample
    assert last.asyncio_tasks == warm.asyncio_tasks, (warm, last)
    growth = last.rss_bytes - warm.rss_bytes
    assert growth <= MAX_RSS_GROWTH, f"RSS grew by {growth / 1e6:.1f} MB over 100 commands"
