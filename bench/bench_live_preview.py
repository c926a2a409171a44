"""Issue 21 item 5: how soon the live preview reaches the editor after a call changed the
working text, on a 1 MB document.

A session of several turns, each one `replace_text` somewhere in the document (the turns come
`GAP` apart, so no preview waits for the coalescing interval), then `complete_task`. The client
opts in (`experimental.complexEditPreview`) and notes when each `complexEdit/preview` arrives.

Measured per call, two spans ending when the client has read the preview showing that turn's
change: from the session's `WorkingChanged` reaching the server's event loop (the goal's span,
the call completing → the preview at the client, less the hop of a few small changes over the
session process's pipe; `bench/_preview_server.py` notes that moment), and from the emulator
having written the model's turn (an upper bound: it also counts the SDK reading the reply in
the session process and the call running on the 1 MB text). Two cases: the document untouched,
and typed at its top while the session runs (every preview is then rebased over the typing,
like the final edit). Goal: event → preview p95 ≤ 50 ms.

Run: ``.venv/bin/python bench/bench_live_preview.py [--quick]``
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from _common import (
    PYTHON,
    ROOT,
    VSCODE_CAPS,
    BenchEmulator,
    LabelScript,
    LspClient,
    RecordedRequest,
    Table,
    bench_env,
    command_args,
    document_label,
    done_call,
    label_of,
    make_document,
    median,
    ms,
    new_uri,
    percentile,
    replace_call,
    run,
    scattered_edits,
    size_label,
    turn,
    turn_index,
    verdict,
)

from tests.fakes.exchange import Served
from tests.fakes.gemini_emulator import Reply

SIZE = 1_000_000
GAP = 0.25  # seconds between the model's turns
GOAL = 0.050
PREVIEW = "complexEdit/preview"


class TimedEmulator(BenchEmulator):
    """Notes when each turn's reply has been written, by (document label, turn)."""

    def __init__(self) -> None:
        super().__init__()
        self.written_at: dict[tuple[str | None, int], float] = {}
        self._written_lock = threading.Lock()

    def _account(self, served: Served[RecordedRequest, Reply]) -> None:
        written = time.monotonic()
        with self._written_lock:
            self.written_at[(document_label(served.request), turn_index(served.request))] = written
        super()._account(served)


@dataclass
class PreviewClient(LspClient):
    """Notes every preview notification with the moment it was read."""

    previews: list[tuple[float, dict[str, Any]]] = field(default_factory=list)

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("method") == PREVIEW:
            self.previews.append((time.monotonic(), message["params"]))
        super()._dispatch(message)


async def one_session(
    client: PreviewClient, emu: TimedEmulator, turns: int, *, typing: bool
) -> list[tuple[float, float]]:
    """(event → preview, reply → preview) for each of one session's replace_text turns."""
    uri = new_uri("preview")
    text = make_document(SIZE)
    client.open(uri, text)
    label = label_of(uri)
    pairs = scattered_edits(text, turns)
    calls = [[replace_call(old, new)] for old, new in pairs]
    calls[-1].append(done_call())  # the last turn completes the task (maxTurns is 8)
    script = [turn(*turn_calls) for turn_calls in calls]
    emu.set_responder(LabelScript({label: [reply.to_json() for reply in script]}, GAP))
    seen = len(client.previews)
    _, future = client.start_command(command_args(uri, "preview benchmark"))
    await client.drain()
    if typing:
        await asyncio.sleep(GAP / 4)  # the session has its snapshot; the first turn is due later
        client.type_text(
            uri, 0, 0, "# typed while the session runs\n", client.docs[uri].version + 1
        )
        await client.drain()
    result = await client.answer(future, within=120)
    assert result["success"], result
    previews = [params for _, params in client.previews[seen:] if not params["done"]]
    times = [at for at, params in client.previews[seen:] if not params["done"]]
    assert client.previews[-1][1]["done"], "no clearing preview"
    events = [
        float(line.split()[2])
        for line in client.stderr
        if line.startswith("bench-working-changed ") and line.split()[1] == uri
    ]
    spans = []
    for index in range(turns):
        # The preview of turn `index` is the first one showing index + 1 hunks.
        shown = next(k for k, params in enumerate(previews) if len(params["hunks"]) == index + 1)
        reply_at = emu.written_at[(label, index)]
        spans.append((times[shown] - events[index], times[shown] - reply_at))
    client.close_doc(uri)
    return spans


async def main(quick: bool) -> None:
    turns = 4 if quick else 8
    sessions = 1 if quick else 4
    emu = TimedEmulator()
    emu.start()
    command = [PYTHON, str(ROOT / "bench" / "_preview_server.py")]
    client = await PreviewClient.spawn(bench_env(emu.base_url), command)
    try:
        await client.initialize({**VSCODE_CAPS, "experimental": {"complexEditPreview": True}})
        await one_session(client, emu, 2, typing=False)  # warm: the SDK, the session process
        table = Table(
            f"Live preview latency at {size_label(SIZE)}",
            [
                "case",
                "previews",
                "event → preview median / p95 / max ms",
                "reply → preview median / p95 ms",
                "goal",
                "verdict",
            ],
        )
        for typing in (False, True):
            spans: list[tuple[float, float]] = []
            for _ in range(sessions):
                spans += await one_session(client, emu, turns, typing=typing)
            event = [first for first, _ in spans]
            reply = [second for _, second in spans]
            p95 = percentile(event, 95)
            table.add(
                "typed at the top meanwhile (rebased)" if typing else "document untouched",
                str(len(spans)),
                f"{ms(median(event))} / {ms(p95)} / {ms(max(event))}",
                f"{ms(median(reply))} / {ms(percentile(reply, 95))}",
                "event → preview p95 ≤ 50 ms",
                verdict(p95 <= GOAL),
            )
        table.print()
    finally:
        await client.close()
        emu.stop()


if __name__ == "__main__":
    run(main)
