"""Diagnosis helper: the server's own steps for one command, timed one by one in-process
(best of a few runs, so other load on the machine matters less), for one document size.

Run: ``.venv/bin/python bench/breakdown.py [--size BYTES] [--changes N]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from _common import (
    BenchEmulator,
    Table,
    apply_pairs,
    done_call,
    make_document,
    replace_call,
    scattered_edits,
    size_label,
    turn,
)
from lsprotocol import types

from complex_edit.edit_tools.registry import Toolbox
from complex_edit.server.lsp.bridge import content_changes, to_text_edits
from complex_edit.server.outcome import EditResult
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.loop import build_first_message, run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import compute_edits
from complex_edit.server.text.documents import DocumentStore
from complex_edit.server.text.unified import unified_diff


def best(fn: Callable[[], Any], runs: int = 3) -> float:
    fastest = float("inf")
    for _ in range(runs):
        started = time.thread_time()  # CPU of this thread: other load matters less
        fn()
        fastest = min(fastest, time.thread_time() - started)
    return fastest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--changes", type=int, default=1)
    args = parser.parse_args()
    text = make_document(args.size)
    pairs = scattered_edits(text, args.changes)
    target = apply_pairs(text, pairs)
    table = Table(
        f"Steps of one command, {size_label(args.size)}, {args.changes} change(s) "
        "(CPU ms, best of 3)",
        ["step", "ms"],
    )
    message = json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": "file:///a.py",
                    "languageId": "py",
                    "version": 1,
                    "text": text,
                }
            },
        }
    )
    table.add(
        "json.loads of didOpen (pygls does this too)",
        f"{best(lambda: json.loads(message)) * 1e3:.1f}",
    )
    store = DocumentStore()
    table.add(
        "DocumentStore.open (LineIndex)", f"{best(lambda: store.open('u', text, 1)) * 1e3:.1f}"
    )
    settings = Settings(max_document_bytes=16_000_000)
    request = EditRequest("edit", text, settings, path_label="a.py")
    table.add("build_first_message", f"{best(lambda: build_first_message(request)) * 1e3:.1f}")

    def tools() -> None:
        box = Toolbox(text, max_argument_bytes=16_000_000, max_text_chars=16_000_000)
        for old, new in pairs:
            outcome = box.execute("replace_text", {"old_text": old, "new_text": new})
            assert outcome.ok, outcome

    table.add(f"{args.changes} × replace_text (Toolbox)", f"{best(tools) * 1e3:.1f}")
    table.add("compute_edits", f"{best(lambda: compute_edits(text, target)) * 1e3:.1f}")
    table.add("unified_diff", f"{best(lambda: unified_diff(text, target, 'a.py')) * 1e3:.1f}")
    changes = compute_edits(text, target)
    store.open("u", text, 1)
    index = store.line_index("u")
    table.add(
        "to_text_edits",
        f"{best(lambda: to_text_edits(text, changes, 'utf-16', line_index=index)) * 1e3:.1f}",
    )
    edits = to_text_edits(text, changes, "utf-16", line_index=index)
    echo = [
        types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
        for e in reversed(edits)
    ]

    def change() -> None:
        store.open("u", text, 1)
        store.change("u", 2, content_changes(echo))

    table.add("DocumentStore.change (the echo)", f"{best(change) * 1e3:.1f}")
    diff = unified_diff(text, target, "a.py")
    result = EditResult(success=True, message="done", diff=diff, applied=True)
    table.add("EditResult.to_wire", f"{best(result.to_wire) * 1e3:.1f}")

    emu = BenchEmulator().start()
    try:
        env = {"GEMINI_API_KEY": "k"}
        provider = GeminiProvider(env)
        session_settings = Settings(max_document_bytes=16_000_000, base_url=emu.base_url)

        async def session() -> None:
            mark = emu.mark()
            emu.enqueue(turn(*[replace_call(o, n) for o, n in pairs], done_call()))
            request = EditRequest("edit", text, session_settings, path_label="a.py")
            cpu = time.thread_time()
            outcome = await run_tool_loop(request, provider)
            spent = time.thread_time() - cpu
            assert outcome.success, outcome
            sessions.append((spent, emu.busy_since(mark)))
            emu.clear()

        sessions: list[tuple[float, float]] = []
        for _ in range(3):
            asyncio.run(session())
        table.add(
            "run_tool_loop, event-loop thread CPU (SDK + tools + first message)",
            f"{min(s for s, _ in sessions) * 1e3:.1f}",
        )
    finally:
        emu.stop()
    table.print()


if __name__ == "__main__":
    main()
