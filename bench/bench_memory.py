"""Goal 5: peak memory of a 20-edit session on a 10 MB document, above the idle server.

``complex-edit lsp`` runs as a child process and runs its sessions in a child of its own; the
memory is the total of both. The peak of the total is sampled every millisecond from
``/proc`` during the command; the sum of each process's own peak (``VmHWM``, reset through
``/proc/PID/clear_refs`` before the command) is shown as an upper bound (the two processes
peak at different moments). The idle server is measured after one small warm-up command, so
the lazily imported SDK and its client count as part of idle (both figures are shown).
Sessions:

* 20 edits in one turn (20 ``replace_text`` calls, then ``complete_task``);
* 20 edits over 20 turns (one per turn: the history and the request grow every turn);
* 20 edits over 10 turns with undo/redo in between (the undo history is exercised).

Goal: peak − idle ≤ 10 × the document size. The memory left after the document is closed is
shown too (it should come back down: nothing per session is kept). Each session runs on a new
server, so that what one leaves in the heap does not move the next one's baseline.

Run: ``.venv/bin/python bench/bench_memory.py [--quick]``
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from typing import Any

from _common import (
    BenchEmulator,
    LspClient,
    RpcError,
    Table,
    apply_pairs,
    bench_env,
    command_args,
    done_call,
    make_document,
    memory_kib,
    new_uri,
    replace_call,
    reset_peak_rss,
    run,
    scattered_edits,
    server_command,
    turn,
    verdict,
)

GOAL_FACTOR = 10
SIZE = 10_000_000


class TotalRssSampler:
    """The highest total RSS (server + session process) seen, sampled every millisecond on a
    thread of its own. The server's processes peak at different moments, so the sum of their
    peaks (VmHWM) only bounds the peak of the total from above."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._done = threading.Event()
        self.peak_kib = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.is_set():
            with contextlib.suppress(OSError, ValueError):
                self.peak_kib = max(self.peak_kib, memory_kib(self._pid)["VmRSS"])
            time.sleep(0.001)

    def stop(self) -> int:
        self._done.set()
        self._thread.join()
        return self.peak_kib


def scripts(text: str) -> list[tuple[str, list[list[tuple[str, dict[str, Any]]]]]]:
    pairs = scattered_edits(text, 20)
    edits = [replace_call(o, n) for o, n in pairs]
    with_undo: list[list[tuple[str, dict[str, Any]]]] = []
    for k in range(0, 20, 2):
        with_undo.append([edits[k], edits[k + 1], ("undo", {}), ("redo", {})])
    return [
        ("20 edits in 1 turn", [[*edits, done_call()]]),
        ("20 edits over 20 turns", [*[[e] for e in edits], [done_call()]]),
        ("20 edits + undo/redo, 10 turns", [*with_undo, [done_call()]]),
    ]


async def idle_server(emu: BenchEmulator) -> tuple[LspClient, int, int]:
    """A new server after one small command (the lazily imported SDK counts as idle), with
    its RSS cold and idle."""
    client = await LspClient.spawn(
        bench_env(emu.base_url, COMPLEX_EDIT_MAX_TURNS="30"), server_command()
    )
    await client.initialize()
    cold = memory_kib(client.pid)["VmRSS"]
    warm_text = make_document(10_000, seed=7)
    warm_pairs = scattered_edits(warm_text, 1, seed=7)
    emu.enqueue(turn(*[replace_call(o, n) for o, n in warm_pairs], done_call()))
    uri = new_uri("warm")
    client.open(uri, warm_text)
    await client.run_command(command_args(uri))
    client.close_doc(uri)
    with contextlib.suppress(RpcError):
        await client.request("bench/ping", None, within=60)
    if not reset_peak_rss(client.pid):
        raise RuntimeError("cannot reset the peak RSS (/proc/PID/clear_refs)")
    return client, cold, memory_kib(client.pid)["VmRSS"]


async def main(quick: bool) -> None:
    emu = BenchEmulator(keep_records=False).start()
    try:
        text = make_document(SIZE)
        expected = apply_pairs(text, scattered_edits(text, 20))
        headers = [
            "session",
            "turns",
            "idle MB",
            "peak of the total MB (sampled)",
            "peak − idle MB",
            "× document (goal ≤ 10)",
            "sum of the processes' peaks − idle MB",
            "× document (upper bound)",
            "after close MB",
            "verdict",
        ]
        rows: list[list[object]] = []
        colds: list[int] = []
        chosen = scripts(text)[:1] if quick else scripts(text)
        for name, script in chosen:
            # Each session on a server of its own: what one session leaves in the heap
            # (freed, but not returned to the system) must not move the next one's baseline.
            client, cold, before = await idle_server(emu)
            colds.append(cold)
            try:
                gc.collect()
                reset_peak_rss(client.pid)
                for calls in script:
                    emu.enqueue(turn(*calls))
                uri = new_uri("memory")
                sampler = TotalRssSampler(client.pid)
                client.open(uri, text)
                await client.drain()
                result = await client.run_command(command_args(uri), within=900)
                sampled = sampler.stop()
                if not result.get("success") or client.docs[uri].text != expected:
                    raise RuntimeError(f"{name}: {result}")
                peak = memory_kib(client.pid)["VmHWM"]
                client.close_doc(uri)
                with contextlib.suppress(RpcError):
                    await client.request("bench/ping", None, within=60)
                after = memory_kib(client.pid)["VmRSS"]
            finally:
                await client.close()
            growth = (sampled - before) * 1024
            factor = growth / SIZE
            bound = (peak - before) * 1024
            rows.append(
                [
                    name,
                    len(script),
                    f"{before / 1024:.0f}",
                    f"{sampled / 1024:.0f}",
                    f"{growth / 1e6:.0f}",
                    f"{factor:.1f}",
                    f"{bound / 1e6:.0f}",
                    f"{bound / SIZE:.1f}",
                    f"{after / 1024:.0f}",
                    verdict(factor <= GOAL_FACTOR),
                ]
            )
            print(f"  done: {name}", flush=True)
        table = Table(
            f"Goal 5 — peak RSS of a session on a {SIZE / 1e6:g} MB document, each on a new "
            f"server (idle server: {min(colds) / 1024:.0f}–{max(colds) / 1024:.0f} MB cold; "
            "idle MB below is after one small command)",
            headers,
        )
        for row in rows:
            table.add(*row)
        table.print()
    finally:
        emu.stop()


if __name__ == "__main__":
    run(main)
