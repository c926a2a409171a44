"""Goal 1: the server's own cost per command, against two floors, in one run.

For each document size (10 KB, 1 MB, 10 MB) and number of scattered changes (1, 20), the three
servers get the same sequence from the same editor-like client: ``didOpen`` of the document,
``performComplexEdit``, one ``workspace/applyEdit`` that the client applies and echoes with
``didChange``, then the command's answer. The window runs from writing ``didOpen`` to reading
the answer.

* ours: ``complex-edit lsp`` with VS Code's capabilities (so ``workspace/configuration`` and a
  work-done progress are part of it); the Gemini emulator answers at once with one turn that
  holds every ``replace_text`` call and ``complete_task``. The emulator's own time (parsing the
  request, writing the reply) is subtracted.
* bare floor: ``bench/floor_server.py`` (pygls with its default document handling), given the
  exact edits our server sent. No model.
* SDK floor (the goal's floor): ``bench/floor_genai.py``, the bare floor plus one bare
  google-genai ``generate_content`` call carrying the same request as our first (system
  instruction, tool declarations, tool config, the numbered document message; the script
  checks that the request bodies are equal), answered by the emulator with the same reply;
  its emulator time is subtracted too. Our SDK cost is not overhead we can remove.

Runs rotate between the three servers; the table shows medians. Server CPU (all threads and
child processes, from /proc) is shown too: it is far less sensitive to other load on the
machine than wall time. Goal: ours ≤ 1.5× the SDK floor.

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
    PYTHON,
    ROOT,
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

GOAL = 1.5
BARE_GOAL = 2.0  # the goal against the bare floor before issue 16 (for information)
SDK_FLOOR_COMMAND = [PYTHON, str(ROOT / "bench" / "floor_genai.py")]
WHO = ("ours", "bare", "sdk")
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
    bodies: list[Any]  # the model requests' JSON bodies, when asked for


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
    *,
    uri: str | None = None,
    keep_bodies: bool = False,
) -> Sample:
    uri = uri or new_uri("overhead")
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
    bodies: list[Any] = []
    if emu is not None:
        if keep_bodies:
            bodies = [request.body for request in emu.requests]
        emu.clear()
    return Sample(wall, busy, cpu, edits, bodies)


def sdk_floor_command() -> list[str]:
    """The SDK floor, building its request with the code of ``--server-root DIR`` if given."""
    args = sys.argv[1:]
    if "--server-root" in args:
        return [*SDK_FLOOR_COMMAND, "--server-root", args[args.index("--server-root") + 1]]
    return list(SDK_FLOOR_COMMAND)


def selected(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """``--size BYTES`` (repeatable) limits the run to those sizes."""
    chosen = [int(sys.argv[i + 1]) for i, a in enumerate(sys.argv[:-1]) if a == "--size"]
    return tuple(chosen) or sizes


async def same_request(ours: LspClient, sdk: LspClient, emu: BenchEmulator) -> Sample:
    """Warm both up on one small document and check that the SDK floor sends our request.

    Returns our sample (its edits are what the floors send)."""
    text = make_document(10_000, seed=9)
    pairs = scattered_edits(text, 1, seed=9)
    expected = apply_pairs(text, pairs)
    uri = new_uri("same")
    script = turn(*[replace_call(o, n) for o, n in pairs], done_call())
    emu.enqueue(script)
    mine = await one_command(ours, emu, text, expected, {}, uri=uri, keep_bodies=True)
    emu.enqueue(script)
    extra = {"edits": mine.edits}
    theirs = await one_command(sdk, emu, text, expected, extra, uri=uri, keep_bodies=True)
    if len(mine.bodies) != 1 or len(theirs.bodies) != 1:
        raise RuntimeError(
            f"expected one request each, got {len(mine.bodies)} and {len(theirs.bodies)}"
        )
    ours_body, sdk_body = mine.bodies[0], theirs.bodies[0]
    if ours_body != sdk_body:
        keys = sorted(k for k in {*ours_body, *sdk_body} if ours_body.get(k) != sdk_body.get(k))
        raise RuntimeError(f"the SDK floor's request differs from ours in {keys}")
    return mine


async def measure(
    servers: dict[str, LspClient], emu: BenchEmulator, size: int, count: int, reps: int
) -> dict[str, list[Sample]]:
    text = make_document(size)
    pairs = scattered_edits(text, count)
    expected = apply_pairs(text, pairs)
    script = turn(*[replace_call(o, n) for o, n in pairs], done_call())
    # One unmeasured run of ours gives the exact edits the floors must send.
    emu.enqueue(script)
    edits = (await one_command(servers["ours"], emu, text, expected, {})).edits
    samples: dict[str, list[Sample]] = {who: [] for who in WHO}
    for rep in range(reps):
        shift = rep % len(WHO)
        for who in WHO[shift:] + WHO[:shift]:
            extra = {} if who == "ours" else {"edits": edits}
            if who != "bare":
                emu.enqueue(script)
            sample = await one_command(
                servers[who], emu if who != "bare" else None, text, expected, extra
            )
            samples[who].append(sample)
    return samples


def net(samples: list[Sample]) -> float:
    """Median wall time minus the emulator's own time."""
    return median([s.wall - s.emulator for s in samples])


def cpu(samples: list[Sample]) -> float:
    return median([s.cpu for s in samples])


def overhead_table() -> Table:
    return Table(
        "Goal 1 — server overhead per command (medians; emulator time subtracted; "
        "goal: ours ≤ 1.5× the SDK floor)",
        [
            "document",
            "changes",
            "runs",
            "bare floor ms",
            "SDK floor ms",
            "ours ms",
            "ours / bare",
            "ours / SDK floor (goal ≤ 1.5)",
            "CPU bare ms",
            "CPU SDK floor ms",
            "CPU ours ms",
            "CPU ours / SDK floor",
            "verdict",
        ],
    )


def add_row(table: Table, size: int, count: int, samples: dict[str, list[Sample]]) -> None:
    bare = median([s.wall for s in samples["bare"]])
    sdk, ours = net(samples["sdk"]), net(samples["ours"])
    table.add(
        size_label(size),
        count,
        len(samples["ours"]),
        ms(bare),
        ms(sdk),
        ms(ours),
        f"{ours / bare:.2f}",
        f"{ours / sdk:.2f}",
        ms(cpu(samples["bare"])),
        ms(cpu(samples["sdk"])),
        ms(cpu(samples["ours"])),
        f"{cpu(samples['ours']) / cpu(samples['sdk']):.2f}",
        verdict(ours / sdk <= GOAL),
    )


async def main(quick: bool) -> None:
    emu = BenchEmulator().start()
    servers: dict[str, LspClient] = {}
    try:
        env = bench_env(emu.base_url)
        commands = {"ours": server_command(), "bare": FLOOR_COMMAND, "sdk": sdk_floor_command()}
        for who in WHO:
            servers[who] = await LspClient.spawn(env, commands[who])
            await servers[who].initialize()

        # Warm up all three (the SDK is imported and its client built on the first command).
        warm = await same_request(servers["ours"], servers["sdk"], emu)
        text = make_document(10_000, seed=9)
        expected = apply_pairs(text, scattered_edits(text, 1, seed=9))
        await one_command(servers["bare"], None, text, expected, {"edits": warm.edits})

        table = overhead_table()
        reps = QUICK_REPS if quick else REPS
        for size in selected(SIZES):
            for count in CHANGES:
                samples = await measure(servers, emu, size, count, reps[size])
                add_row(table, size, count, samples)
                print(f"  done: {size_label(size)} × {count} changes", flush=True)
        table.print()
    finally:
        for client in servers.values():
            await client.close()
        emu.stop()


if __name__ == "__main__":
    run(main)
