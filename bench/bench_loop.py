"""Goal 2: our loop's cost per turn against google-genai's own automatic function calling.

The same scripted 6-turn session runs both ways in this process, against the same emulator,
with the same system instruction, first message and tools:

* ours: ``server.session.loop.run_tool_loop`` with ``GeminiProvider`` (five turns with one
  ``replace_text`` each, then ``complete_task``);
* SDK: a chat (``client.aio.chats.create(...).send_message``, the SDK's recommended way to
  use automatic function calling) with the six tools given as Python callables
  (thin wrappers over the same ``Toolbox``) and automatic function calling on (five turns
  with one ``replace_text`` each, then a text reply, which ends the SDK's loop).

Per turn = (session wall time − the emulator's own time) / 6. The event-loop thread's CPU time
per turn is shown too (the emulator runs in other threads), which load on the machine disturbs
far less. Runs alternate; medians.

Run: ``.venv/bin/python bench/bench_loop.py [--quick]``
"""

from __future__ import annotations

import time
from typing import Any

from _common import (
    BENCH_KEY,
    BenchEmulator,
    Reply,
    Table,
    apply_pairs,
    done_call,
    make_document,
    median,
    ms,
    replace_call,
    run,
    scattered_edits,
    size_label,
    turn,
    verdict,
)

from complex_edit.edit_tools.registry import Toolbox
from complex_edit.prompts.loader import load
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.loop import build_first_message, run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings

GOAL = 1.0
TURNS = 6
SIZES = (10_000, 1_000_000)
RUNS = {10_000: 60, 1_000_000: 15}
QUICK_RUNS = {10_000: 3, 1_000_000: 1}


def sdk_callables(toolbox: Toolbox) -> list[Any]:
    """The six tools as plain Python functions, for the SDK's automatic function calling."""

    def get_document(start_line: int | None = None, end_line: int | None = None) -> dict[str, Any]:
        """Show the current working document, or the lines start_line to end_line of it."""
        args = {"start_line": start_line, "end_line": end_line}
        return toolbox.execute("get_document", args).response

    def set_document(content: str) -> dict[str, Any]:
        """Replace the whole working document with new content."""
        return toolbox.execute("set_document", {"content": content}).response

    def replace_text(old_text: str, new_text: str, replace_all: bool = False) -> dict[str, Any]:
        """Replace an exact piece of the document (old_text must occur exactly once unless
        replace_all is true)."""
        args = {"old_text": old_text, "new_text": new_text, "replace_all": replace_all}
        return toolbox.execute("replace_text", args).response

    def undo() -> dict[str, Any]:
        """Revert the last change."""
        return toolbox.execute("undo", {}).response

    def redo() -> dict[str, Any]:
        """Re-apply the last change reverted by undo."""
        return toolbox.execute("redo", {}).response

    def complete_task(
        success: bool, message: str | None = None, error: str | None = None
    ) -> dict[str, Any]:
        """End the task."""
        args = {"success": success, "message": message, "error": error}
        return toolbox.execute("complete_task", args).response

    return [get_document, set_document, replace_text, undo, redo, complete_task]


async def main(quick: bool) -> None:
    from google import genai
    from google.genai import types

    emu = BenchEmulator().start()
    try:
        settings = Settings(
            base_url=emu.base_url, max_document_bytes=16_000_000, max_retries=0, max_turns=8
        )
        provider = GeminiProvider({"GEMINI_API_KEY": BENCH_KEY})
        client = genai.Client(
            api_key=BENCH_KEY,
            http_options=types.HttpOptions(
                base_url=emu.base_url, retry_options=types.HttpRetryOptions(attempts=1)
            ),
        )
        system = load("system")

        async def ours(text: str, pairs: list[tuple[str, str]]) -> tuple[float, float, float]:
            emu.enqueue(*[turn(replace_call(o, n)) for o, n in pairs], turn(done_call()))
            request = EditRequest("benchmark edit", text, settings, path_label="bench.py")
            mark, cpu, started = emu.mark(), time.thread_time(), time.perf_counter()
            outcome = await run_tool_loop(request, provider)
            wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
            if not outcome.success or outcome.final_text != apply_pairs(text, pairs):
                raise RuntimeError(f"our session failed: {outcome}")
            if outcome.turns != TURNS:
                raise RuntimeError(f"our session took {outcome.turns} turns")
            busy = emu.busy_since(mark)
            emu.clear()
            return wall, busy, cpu

        async def sdk(text: str, pairs: list[tuple[str, str]]) -> tuple[float, float, float]:
            emu.enqueue(
                *[turn(replace_call(o, n)) for o, n in pairs],
                Reply.text("Done.", usage=(1000, 10)),
            )
            request = EditRequest("benchmark edit", text, settings, path_label="bench.py")
            toolbox = Toolbox(text, max_argument_bytes=16_000_000, max_text_chars=16_000_000)
            mark, cpu, started = emu.mark(), time.thread_time(), time.perf_counter()
            chat = client.aio.chats.create(
                model=settings.model,
                config=types.GenerateContentConfig(
                    system_instruction=system,
                    tools=sdk_callables(toolbox),
                    automatic_function_calling=types.AutomaticFunctionCallingConfig(
                        maximum_remote_calls=10
                    ),
                    http_options=types.HttpOptions(
                        timeout=60_000, retry_options=types.HttpRetryOptions(attempts=1)
                    ),
                ),
            )
            await chat.send_message(build_first_message(request))
            wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
            served = len(emu.served_since(mark))
            if toolbox.text != apply_pairs(text, pairs) or served != TURNS:
                raise RuntimeError(f"the SDK session did not run as scripted ({served} turns)")
            busy = emu.busy_since(mark)
            emu.clear()
            return wall, busy, cpu

        table = Table(
            "Goal 2 — loop overhead per turn, 6-turn session (medians; emulator time excluded)",
            [
                "document",
                "runs",
                "SDK AFC ms/turn",
                "ours ms/turn",
                "ratio (goal ≤ 1.0)",
                "SDK CPU ms/turn",
                "ours CPU ms/turn",
                "CPU ratio",
                "verdict",
            ],
        )
        runs = QUICK_RUNS if quick else RUNS
        for size in SIZES:
            text = make_document(size)
            pairs = scattered_edits(text, TURNS - 1)
            await ours(text, pairs)  # warm-up both paths
            await sdk(text, pairs)
            results: dict[str, list[tuple[float, float, float]]] = {"ours": [], "sdk": []}
            for index in range(runs[size]):
                order = ("ours", "sdk") if index % 2 == 0 else ("sdk", "ours")
                for who in order:
                    runner = ours if who == "ours" else sdk
                    results[who].append(await runner(text, pairs))
            per_turn = {
                who: median([(wall - busy) / TURNS for wall, busy, _ in samples])
                for who, samples in results.items()
            }
            cpu_turn = {
                who: median([cpu / TURNS for _, _, cpu in samples])
                for who, samples in results.items()
            }
            ratio = per_turn["ours"] / per_turn["sdk"]
            table.add(
                size_label(size),
                runs[size],
                ms(per_turn["sdk"]),
                ms(per_turn["ours"]),
                f"{ratio:.2f}",
                ms(cpu_turn["sdk"]),
                ms(cpu_turn["ours"]),
                f"{cpu_turn['ours'] / cpu_turn['sdk']:.2f}",
                verdict(ratio <= GOAL),
            )
        table.print()
    finally:
        emu.stop()


if __name__ == "__main__":
    run(main)
