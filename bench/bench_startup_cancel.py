"""Goal 7: start-up and cancellation.

Start-up: from spawning the process to the ``initialize`` answer (the request is written at
once; the pipe holds it until the server reads it), ``complex-edit lsp`` against the bare
pygls server of ``bench/floor_server.py``, alternating, medians. Goal ≤ 1.3×. The first
command's extra cost (the SDK is imported lazily, on first use) is shown for information: a
small command right after ``initialize``, the first command after 3 s of idle time, and the
same command once warm.

Cancellation: the emulator holds the model request open (before its answer begins, or, with
``mid-stream``, after the first event of its streamed answer); the client sends
``$/cancelRequest`` (or cancels the work-done progress) and we time (a) the command's error
answer (-32800) and (b) the moment the emulator sees the HTTP connection go away (it checks
every 10 ms). Goal: p95 ≤ 100 ms for both.

Run: ``.venv/bin/python bench/bench_startup_cancel.py [--quick]``
"""

from __future__ import annotations

import asyncio
import threading
import time

from _common import (
    FLOOR_COMMAND,
    BenchEmulator,
    LspClient,
    Reply,
    Table,
    bench_env,
    command_args,
    done_call,
    make_document,
    median,
    ms,
    new_uri,
    percentile,
    run,
    server_command,
    turn,
    verdict,
    wait_until,
)

GOAL_START = 1.3
GOAL_CANCEL = 0.100


async def time_start(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    client = await LspClient.spawn(env, argv)
    try:
        await client.initialize(within=120)
        return time.perf_counter() - started
    finally:
        await client.close()


async def first_and_warm(env: dict[str, str], emu: BenchEmulator) -> tuple[float, float, float]:
    """A small command right after start, the same command on a server that had 3 s of idle
    time after ``initialized`` (what a user's first command meets), and once warm."""
    text = make_document(2_000)
    times: list[float] = []
    for idle in (0.0, 3.0):
        client = await LspClient.spawn(env, server_command())
        try:
            await client.initialize(within=120)
            await asyncio.sleep(idle)
            for _ in range(1 if idle == 0.0 else 2):
                emu.enqueue(turn(done_call()))
                uri = new_uri("first")
                client.open(uri, text)
                started = time.perf_counter()
                result = await client.run_command(command_args(uri))
                times.append(time.perf_counter() - started)
                if not result.get("success"):
                    raise RuntimeError(f"command failed: {result}")
                client.close_doc(uri)
        finally:
            await client.close()
    emu.clear()
    return times[0], times[1], times[2]


async def cancellations(
    client: LspClient, emu: BenchEmulator, count: int, how: str
) -> tuple[list[float], list[float]]:
    """(answer latencies, disconnect latencies) for ``count`` cancelled commands."""
    answers: list[float] = []
    disconnects: list[float] = []
    text = make_document(5_000)
    for index in range(count):
        release = threading.Event()
        if how.endswith("mid-stream"):
            emu.enqueue(Reply.stalled_stream(release=release))
        else:
            emu.enqueue(Reply.hang(release=release))
        uri = new_uri("cancel")
        client.open(uri, text)
        tokens_before = len(client.created_progress)
        msg_id, future = client.start_command(command_args(uri))
        await client.drain()
        await asyncio.to_thread(emu.wait_for_requests, index + 1, 30)
        if how == "progress":
            await wait_until(
                lambda n=tokens_before: len(client.created_progress) > n, 10, "the progress token"
            )
        seen: list[float] = []
        watcher = threading.Thread(
            target=lambda n=index + 1, seen=seen: (
                emu.wait_for_disconnect(10, count=n) and seen.append(time.perf_counter())
            ),
            daemon=True,
        )
        watcher.start()
        started = time.perf_counter()
        if how.startswith("request"):
            client.notify("$/cancelRequest", {"id": msg_id})
        else:
            token = client.created_progress[-1]
            client.notify("window/workDoneProgress/cancel", {"token": token})
        await client.drain()
        message = await asyncio.wait_for(future, 30)
        answers.append(client.answered_at[msg_id] - started)
        code = message.get("error", {}).get("code")
        if code != -32800:
            raise RuntimeError(f"cancel answered {message}")
        await asyncio.to_thread(watcher.join, 15)
        if not seen:
            raise RuntimeError("the model request was not aborted")
        disconnects.append(seen[0] - started)
        release.set()
        client.close_doc(uri)
    return answers, disconnects


async def main(quick: bool) -> None:
    emu = BenchEmulator().start()
    try:
        env = bench_env(emu.base_url)
        runs = 3 if quick else 20
        ours: list[float] = []
        floor: list[float] = []
        for index in range(runs):
            for who in ("ours", "floor") if index % 2 == 0 else ("floor", "ours"):
                if who == "ours":
                    ours.append(await time_start(server_command(), env))
                else:
                    floor.append(await time_start(FLOOR_COMMAND, env))
        first, after_idle, warm = await first_and_warm(env, emu)
        start_ratio = median(ours) / median(floor)
        table = Table(
            "Goal 7a — process start to `initialize` answered (medians)",
            ["runs", "floor ms", "ours ms", "ratio (goal ≤ 1.3)", "verdict"],
        )
        table.add(
            runs,
            ms(median(floor)),
            ms(median(ours)),
            f"{start_ratio:.2f}",
            verdict(start_ratio <= GOAL_START),
        )
        table.print()
        info = Table(
            "Goal 7a (information) — the first command pays for the lazy SDK import (2 KB "
            "document)",
            [
                "first command, right after initialize, ms",
                "first command, 3 s after initialize, ms",
                "warm command ms",
            ],
        )
        info.add(ms(first), ms(after_idle), ms(warm))
        info.print()

        client = await LspClient.spawn(env, server_command())
        try:
            await client.initialize(within=120)
            # Warm up: the first command imports the SDK.
            emu.enqueue(turn(done_call()))
            uri = new_uri("warm")
            client.open(uri, make_document(2_000))
            await client.run_command(command_args(uri))
            client.close_doc(uri)
            emu.reset()
            count = 5 if quick else 20
            table = Table(
                "Goal 7b — cancel to answer and to aborted HTTP request",
                [
                    "cancelled by",
                    "runs",
                    "answer p50 ms",
                    "answer p95 ms",
                    "HTTP aborted p50 ms",
                    "HTTP aborted p95 ms",
                    "goal ms",
                    "verdict",
                ],
            )
            for how in ("request", "progress", "request mid-stream"):
                answers, disconnects = await cancellations(client, emu, count, how)
                emu.reset()
                p95a, p95d = percentile(answers, 95), percentile(disconnects, 95)
                table.add(
                    {
                        "request": "$/cancelRequest",
                        "progress": "progress cancel",
                        "request mid-stream": "$/cancelRequest, stream open",
                    }[how],
                    count,
                    ms(median(answers)),
                    ms(p95a),
                    ms(median(disconnects)),
                    ms(p95d),
                    "≤ 100",
                    verdict(p95a <= GOAL_CANCEL and p95d <= GOAL_CANCEL),
                )
            table.print()
        finally:
            await client.close()
    finally:
        emu.stop()


if __name__ == "__main__":
    run(main)
