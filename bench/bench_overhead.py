"""Goal 1: the server's own cost per command, against a bare pygls floor, in one run.

For each document size (10 KB, 1 MB, 10 MB) and number of scattered changes (1, 20), both
servers get the same sequence from the same editor-like client: ``didOpen`` of the document,
``performComplexEdit``, one ``workspace/applyEdit`` that the client applies and echoes with
``didChange``, then the command's answer. The window runs from writing ``didOpen`` to reading
the answer.

* ours: ``complex-edit lsp`` with VS Code's capabilities (so ``workspace/configuration`` and a
  work-done progress are part of it); the Gemini emulator answers at once with one turn that
  holds every ``replace_text`` call and ``complete_task``. The emulator's own time (parsing the
  request, writing the reply) is subtracted.
* floor: ``bench/floor_server.py`` (pygls with its default document handling), given the exact
  edits our server sent.

Runs alternate between the two servers; the table shows medians. Server CPU (all threads, from
/proc) is shown too: it is far less sensitive to other load on the machine than wall time.

Run: ``.venv/bin/python bench/bench_overhead.py [--quick] [--size BYTES]... [--server-root DIR]``
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from dataclasses import dataclass
from typing import Any

from _common import (
    FLOOR_COMMAND,
    BenchEmulator,
    LspClient,
    RpcError,
    Table,
    apply_pairs,
    bench_env,
    command_args,
    done_call,
    make_document,
    median,
    ms,
    new_uri,
    process_cpu_seconds,
    replace_call,
    run,
    scattered_edits,
    server_command,
    size_label,
    turn,
    verdict,
)

GOAL = 2.0
SIZES = (10_000, 1_000_000, 10_000_000)
CHANGES = (1, 20)
REPS = {10_000: 40, 1_000_000: 15, 10_000_000: 5}
QUICK_REPS = {10_000: 2, 1_000_000: 1, 10_000_000: 1}


@dataclass
class Sample:
    wall: float
    emulator: float
    cpu: float
    edits: list[dict[str, Any]]


async def ping(client: LspClient) -> None:
    """A round trip: every earlier message has been handled once it returns."""
    with contextlib.suppress(RpcError):
        await client.request("bench/ping", None, within=60)


async def one_command(
    client: LspClient,
    emu: BenchEmulator | None,
    text: str,
    expected: str,
    extra: dict[str, Any],
) -> Sample:
    uri = new_uri("overhead")
    data = client.open_message(uri, text)
    await ping(client)
    mark = emu.mark() if emu is not None else 0
    cpu_before = process_cpu_seconds(client.pid)
    started = time.perf_counter()
    client.write_bytes(data)
    _, future = client.start_command(command_args(uri, **extra))
    await client.drain()
    message = await asyncio.wait_for(future, 600)
    wall = time.perf_counter() - started
    await ping(client)
    cpu = process_cpu_seconds(client.pid) - cpu_before
    busy = emu.busy_since(mark) if emu is not None else 0.0
    result = message.get("result")
    if not (isinstance(result, dict) and result.get("success") and result.get("applied")):
        raise RuntimeError(f"the command failed: {message}")
    if client.docs[uri].text != expected:
        raise RuntimeError("the editor's document is not the expected result")
    edits = client.last_edits()
    client.close_doc(uri)
    if emu is not None:
        emu.clear()
    return Sample(wall, busy, cpu, edits)


def selected(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """``--size BYTES`` (repeatable) limits the run to those sizes."""
    chosen = [int(sys.argv[i + 1]) for i, a in enumerate(sys.argv[:-1]) if a == "--size"]
    return tuple(chosen) or sizes


async def main(quick: bool) -> None:
    emu = BenchEmulator().start()
    clients: list[LspClient] = []
    try:
        env = bench_env(emu.base_url)
        ours = await LspClient.spawn(env, server_command())
        clients.append(ours)
        floor = await LspClient.spawn(env, FLOOR_COMMAND)
        clients.append(floor)
        await ours.initialize()
        await floor.initialize()

        # Warm up both (the SDK is imported and its client built on the first command).
        warm = make_document(10_000, seed=9)
        pairs = scattered_edits(warm, 1, seed=9)
        emu.enqueue(turn(*[replace_call(o, n) for o, n in pairs], done_call()))
        sample = await one_command(ours, emu, warm, apply_pairs(warm, pairs), {})
        await one_command(floor, None, warm, apply_pairs(warm, pairs), {"edits": sample.edits})

        table = Table(
            "Goal 1 — server overhead per command (medians; ratio = (ours − emulator) / floor)",
            [
                "document",
                "changes",
                "runs",
                "floor ms",
                "ours ms",
                "emulator ms",
                "ours − emulator ms",
                "ratio (goal ≤ 2.0)",
                "CPU floor ms",
                "CPU ours ms",
                "CPU ratio",
                "verdict",
            ],
        )
        reps = QUICK_REPS if quick else REPS
        for size in selected(SIZES):
            text = make_document(size)
            for count in CHANGES:
                pairs = scattered_edits(text, count)
                expected = apply_pairs(text, pairs)
                script = turn(*[replace_call(o, n) for o, n in pairs], done_call())
                # One unmeasured run of ours gives the exact edits the floor must send.
                emu.enqueue(script)
                edits = (await one_command(ours, emu, text, expected, {})).edits
                ours_samples: list[Sample] = []
                floor_samples: list[Sample] = []
                for rep in range(reps[size]):
                    for who in ("ours", "floor") if rep % 2 == 0 else ("floor", "ours"):
                        if who == "ours":
                            emu.enqueue(script)
                            ours_samples.append(await one_command(ours, emu, text, expected, {}))
                        else:
                            floor_samples.append(
                                await one_command(floor, None, text, expected, {"edits": edits})
                            )
                floor_wall = median([s.wall for s in floor_samples])
                ours_wall = median([s.wall for s in ours_samples])
                emulator = median([s.emulator for s in ours_samples])
                net = median([s.wall - s.emulator for s in ours_samples])
                ratio = net / floor_wall
                cpu_floor = median([s.cpu for s in floor_samples])
                cpu_ours = median([s.cpu for s in ours_samples])
                table.add(
                    size_label(size),
                    count,
                    len(ours_samples),
                    ms(floor_wall),
                    ms(ours_wall),
                    ms(emulator),
                    ms(net),
                    f"{ratio:.2f}",
                    ms(cpu_floor),
                    ms(cpu_ours),
                    f"{cpu_ours / cpu_floor:.2f}",
                    verdict(ratio <= GOAL),
                )
                print(f"  done: {size_label(size)} × {count} changes", flush=True)
        table.print()
    finally:
        for client in clients:
            await client.close()
        emu.stop()


if __name__ == "__main__":
    run(main)
