"""Goal 6: many commands at once, and a server that keeps answering meanwhile.

One ``complex-edit lsp`` process, the emulator answering every turn after 300 ms (the model's
latency). Each command is a 2-turn session on its own document (5 ``replace_text`` calls, then
``complete_task``), so one command takes about 600 ms of model time.

* one command alone (median of a few), then 20 commands on 20 documents sent at once: the
  total wall time must stay ≤ 1.5 × one command's;
* meanwhile a probe sends another request every 10 ms (``workspace/executeCommand`` with no
  argument, which the server answers at once with InvalidParams) and records how long each
  answer takes: p99 ≤ 20 ms.

Rows for 100 KB and 1 MB documents. Run: ``.venv/bin/python bench/bench_concurrency.py
[--quick]``
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from typing import Any

from _common import (
    PYTHON,
    ROOT,
    EmulatorProcess,
    LspClient,
    Table,
    apply_pairs,
    bench_env,
    command_args,
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
    server_command,
    size_label,
    turn,
    verdict,
)

LATENCY = 0.3
COMMANDS = 20
GOAL_RATIO = 1.5
GOAL_P99 = 0.020
PROBE_EVERY = 0.010


class Probe:
    """Sends a cheap request every PROBE_EVERY seconds and records each answer's latency.

    Stopped by a flag, not by cancelling its task: the last probe is always awaited."""

    def __init__(self, client: LspClient) -> None:
        self.client = client
        self.latencies: list[float] = []
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while not self._stopping.is_set():
            sent = time.perf_counter()
            _, future = self.client.send_request(
                "workspace/executeCommand", {"command": "performComplexEdit", "arguments": []}
            )
            await self.client.drain()
            await asyncio.wait_for(future, 30)
            self.latencies.append(time.perf_counter() - sent)
            pause = PROBE_EVERY - (time.perf_counter() - sent)
            if pause > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), pause)

    def start(self) -> None:
        self.latencies = []
        self._stopping = asyncio.Event()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> list[float]:
        assert self._task is not None
        self._stopping.set()
        await asyncio.wait_for(self._task, 60)
        return self.latencies


async def main(quick: bool) -> None:
    sizes = (100_000,) if quick else (100_000, 1_000_000)
    singles_per_size = 1 if quick else 5
    rounds = 1 if quick else 3
    # Every document, its edits and its script are fixed before the emulator process starts.
    cases: dict[int, list[tuple[str, str, list[tuple[str, str]]]]] = {}
    scripts: dict[str, list[dict[str, Any]]] = {}
    for size in sizes:
        cases[size] = []
        for k in range(COMMANDS * rounds + singles_per_size):
            text = make_document(size, seed=k % COMMANDS)
            plan = scattered_edits(text, 5, seed=k % COMMANDS)
            uri = new_uri(f"conc{k}-")
            scripts[label_of(uri)] = [
                turn(*[replace_call(o, n) for o, n in plan]).to_json(),
                turn(done_call()).to_json(),
            ]
            cases[size].append((uri, text, plan))
    warm_uri = new_uri("conc-warm-")
    scripts[label_of(warm_uri)] = [turn(done_call()).to_json()]
    emu = EmulatorProcess(scripts, LATENCY)
    client = None
    try:
        debug = "--debug" in sys.argv
        command = server_command()
        if debug:
            command = [PYTHON, str(ROOT / "bench" / "_debug_server.py")]
        client = await LspClient.spawn(bench_env(emu.base_url), command)
        await client.initialize()
        # The first command imports the SDK: keep that out of "one command".
        client.open(warm_uri, make_document(2_000))
        await client.run_command(command_args(warm_uri))
        client.close_doc(warm_uri)
        probe = Probe(client)
        table = Table(
            f"Goal 6 — {COMMANDS} commands at once, {LATENCY * 1000:.0f} ms per model turn",
            [
                "document",
                "one command ms",
                f"{COMMANDS} at once ms (median of rounds)",
                "ratio (goal ≤ 1.5)",
                "probe p50 ms",
                "probe p99 ms (goal ≤ 20)",
                "probe max ms",
                "probes",
                "idle probe p99 ms",
                "verdict",
            ],
        )
        for size in sizes:

            def prepare(uri: str, text: str) -> dict[str, Any]:
                assert client is not None
                client.open(uri, text)
                return command_args(uri)

            async def finish(
                uri: str, text: str, plan: list[tuple[str, str]], result: dict[str, Any]
            ) -> None:
                assert client is not None
                if not result.get("success") or client.docs[uri].text != apply_pairs(text, plan):
                    raise RuntimeError(f"command on {uri} failed: {result}")
                client.close_doc(uri)

            probe.start()
            await asyncio.sleep(0.5)
            idle = await probe.stop()

            singles: list[float] = []
            for uri, text, plan in cases[size][COMMANDS * rounds :]:
                arguments = prepare(uri, text)
                await client.drain()
                started = time.perf_counter()
                result = await client.run_command(arguments)
                singles.append(time.perf_counter() - started)
                await finish(uri, text, plan, result)
            one = median(singles)

            totals: list[float] = []
            latencies: list[float] = []
            for round_index in range(rounds):
                batch = cases[size][COMMANDS * round_index : COMMANDS * (round_index + 1)]
                prepared = [prepare(uri, text) for uri, text, _ in batch]
                await client.drain()
                await asyncio.sleep(0.3)
                probe.start()
                started = time.perf_counter()
                results = await asyncio.gather(*(client.run_command(a) for a in prepared))
                totals.append(time.perf_counter() - started)
                latencies += await probe.stop()
                for (uri, text, plan), result in zip(batch, results, strict=True):
                    await finish(uri, text, plan, result)
            total = median(totals)
            ratio = total / one
            p99 = percentile(latencies, 99)
            table.add(
                size_label(size),
                ms(one),
                ms(total),
                f"{ratio:.2f}",
                ms(percentile(latencies, 50)),
                ms(p99),
                ms(max(latencies)),
                len(latencies),
                ms(percentile(idle, 99)),
                verdict(ratio <= GOAL_RATIO and p99 <= GOAL_P99),
            )
            print(f"  done: {size_label(size)}", flush=True)
        table.print()
        if debug:
            slow = [line for line in client.stderr if " took " in line]
            print(f"slow callbacks logged by the server ({len(slow)}):")
            print("".join(slow[:60]))
    finally:
        if client is not None:
            await client.close()
        problems = emu.stop()
        if problems:
            print("emulator problems:", problems[:5])


if __name__ == "__main__":
    run(main)
