"""Diagnosis helper: run ``complex-edit lsp`` under cProfile for a few commands and print the
functions that cost the most (the profile also holds start-up; look at the command's parts).
Only the server's own process is profiled: sessions run in its child process (profile them
in-process with ``breakdown.py``).

Run: ``.venv/bin/python bench/profile_server.py [--size BYTES] [--changes N] [--runs N]
[--turns N] [--sort tottime|cumulative] [--limit N] [--out FILE]``
"""

from __future__ import annotations

import argparse
import asyncio
import pstats
import tempfile
from pathlib import Path

from _common import (
    PYTHON,
    BenchEmulator,
    LspClient,
    apply_pairs,
    bench_env,
    command_args,
    done_call,
    make_document,
    new_uri,
    replace_call,
    scattered_edits,
    turn,
)


async def profile(args: argparse.Namespace, out: Path) -> None:
    emu = BenchEmulator().start()
    client = None
    try:
        env = bench_env(emu.base_url, COMPLEX_EDIT_MAX_TURNS=str(max(8, args.turns + 1)))
        command = [PYTHON, "-m", "cProfile", "-o", str(out), "-m", "complex_edit", "lsp"]
        client = await LspClient.spawn(env, command)
        await client.initialize()
        text = make_document(args.size)
        pairs = scattered_edits(text, args.changes)
        expected = apply_pairs(text, pairs)
        calls = [replace_call(o, n) for o, n in pairs]
        for _ in range(args.runs):
            per_turn = max(1, -(-len(calls) // args.turns))
            chunks = [calls[i : i + per_turn] for i in range(0, len(calls), per_turn)]
            chunks[-1] = [*chunks[-1], done_call()]
            for chunk in chunks:
                emu.enqueue(turn(*chunk))
            uri = new_uri("profile")
            client.open(uri, text)
            result = await client.run_command(command_args(uri), within=600)
            assert result.get("success"), result
            assert client.docs[uri].text == expected
            client.close_doc(uri)
            emu.clear()
    finally:
        if client is not None:
            await client.close(within=60)
        emu.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--changes", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkstemp(suffix=".prof")[1])
    asyncio.run(profile(args, out))
    stats = pstats.Stats(str(out))
    stats.sort_stats(args.sort).print_stats(args.limit)
    print(f"profile written to {out}")


if __name__ == "__main__":
    main()
