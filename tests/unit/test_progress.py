"""Work-done progress of a command (`server/lsp/progress.py`): reports are coalesced to one per
interval, the latest message wins, and nothing follows the end."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, cast

from lsprotocol import types

from complex_edit.server.lsp.progress import Progress
from complex_edit.server.session.events import ToolFinished, TurnStarted

INTERVAL = 0.05


@dataclass
class _WorkDone:
    sent: list[Any] = field(default_factory=list)
    tokens: dict[str, Any] = field(default_factory=dict)

    def report(self, token: str, value: types.WorkDoneProgressReport) -> None:
        self.sent.append(value)

    def end(self, token: str, value: types.WorkDoneProgressEnd) -> None:
        self.sent.append(value)


@dataclass
class _Server:
    work_done_progress: _WorkDone = field(default_factory=_WorkDone)
    env: dict[str, str] = field(default_factory=lambda: {"OPENAI_API_KEY": "sk-secret"})


def _progress(token: str | None = "t") -> tuple[Progress, _WorkDone]:
    server = _Server()
    return Progress(cast(Any, server), token, interval=INTERVAL), server.work_done_progress


def _messages(sent: list[Any]) -> list[str | None]:
    return [item.message for item in sent]


def _tool(n: int) -> ToolFinished:
    return ToolFinished(turn=1, max_turns=8, name="replace_text", ok=True, summary=f"edit {n}")


async def test_first_report_goes_at_once_and_a_burst_collapses_to_its_latest() -> None:
    progress, work = _progress()
    progress.report(TurnStarted(turn=1, max_turns=8))
    for n in range(30):
        progress.report(_tool(n))
    assert _messages(work.sent) == ["Turn 1/8 · waiting for the model…"]
    await asyncio.sleep(INTERVAL * 3)
    assert _messages(work.sent) == ["Turn 1/8 · waiting for the model…", "Turn 1/8 · ✓ edit 29"]


async def test_end_drops_the_pending_report_and_later_ones() -> None:
    progress, work = _progress()
    progress.report(TurnStarted(turn=1, max_turns=8))
    progress.report(_tool(1))
    progress.end("Done sk-secret")
    progress.report(_tool(2))
    await asyncio.sleep(INTERVAL * 3)
    assert _messages(work.sent) == ["Turn 1/8 · waiting for the model…", "Done [redacted]"]
    assert isinstance(work.sent[-1], types.WorkDoneProgressEnd)


async def test_without_a_token_nothing_is_sent() -> None:
    progress, work = _progress(token=None)
    progress.report(TurnStarted(turn=1, max_turns=8))
    progress.end("Done")
    await asyncio.sleep(INTERVAL * 2)
    assert work.sent == []
