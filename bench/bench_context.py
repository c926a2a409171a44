"""Goal 4: what each session sends the model, and whether the prompt prefix stays cacheable.

Scripted sessions of different shapes run through ``run_tool_loop`` + ``GeminiProvider`` against
the emulator (in-process; the requests are exactly what the language server sends).

* **Full copies in a request**: the parts of a request that hold a copy of the document (the
  first message, a full ``get_document`` view, a ``set_document`` content), counted in every
  request; goal ≤ 2 (the initial copy plus at most one fresh view), whatever the number of
  turns.
* **Request / copy**: request bytes beyond the fixed prompt (system instruction, tools,
  instruction), divided by one copy (the document as the model sees it: numbered lines,
  JSON-encoded); the first request is 1.00 by construction. Goal ≤ 2 + 0.1 (the model's own
  calls and the compact results).
* Results of editing tools stay compact: ≤ 5 KB (a confirmation and a few numbered lines).

Implicit caching: the emulator plays Gemini's implicit cache. For each request it finds the
longest run of leading items (system instruction, tools, tool config, then each content)
identical to the previous request's and reports that prefix, at ~4 bytes a token, as
``cachedContentTokenCount`` (when it is at least 1,024 tokens, Gemini 2.5 Flash's minimum),
with ``promptTokenCount`` for the whole request. The session's ``usage`` (which the server
returns to the editor) must carry them through. "Prefix breaks" counts requests that did not
begin with the whole previous request.

Run: ``.venv/bin/python bench/bench_context.py [--quick]``
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from _common import (
    BENCH_KEY,
    BenchEmulator,
    RecordedRequest,
    Reply,
    Table,
    done_call,
    make_document,
    replace_call,
    run,
    scattered_edits,
    size_label,
    turn_index,
    verdict,
)

from complex_edit.edit_tools.view import render_document
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings

GOAL_COPIES = 2
SLACK = 0.1  # bytes beyond whole copies: the model's calls and the compact tool results
COMPACT_BYTES = 5_000
MIN_CACHE_TOKENS = 1024
Calls = list[tuple[str, dict[str, Any]]]


def canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def full_copies(request: RecordedRequest, copy_bytes: int) -> int:
    """Parts of the request that hold (at least half) a copy of the document: the first
    message, full views in function responses, set_document contents in function calls."""
    count = 0
    for content in request.contents:
        for part in content.get("parts", []):
            if "text" in part:
                size = len(part["text"].encode())
            elif "functionResponse" in part:
                size = len(canon(part["functionResponse"].get("response")).encode())
            elif "functionCall" in part:
                size = len(canon(part["functionCall"].get("args")).encode())
            else:
                continue
            count += size >= copy_bytes // 2
    return count


class CacheResponder:
    """Answers the scripted turns and plays Gemini's implicit prefix cache."""

    def __init__(self, script: Sequence[Calls]) -> None:
        self.script = script
        self.previous: list[str] = []
        self.breaks = 0  # requests that did not start with the whole previous request
        self._lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> Reply:
        body = request.body
        items = [
            canon(body.get("systemInstruction")),
            canon(body.get("tools")),
            canon(body.get("toolConfig")),
            *(canon(content) for content in request.contents),
        ]
        with self._lock:
            shared = 0
            for mine, theirs in zip(items, self.previous, strict=False):
                if mine != theirs:
                    break
                shared += 1
            if self.previous and shared < len(self.previous):
                self.breaks += 1
            prefix = sum(len(item.encode()) for item in items[:shared])
            self.previous = items
        total = sum(len(item.encode()) for item in items)
        cached = prefix // 4 if prefix // 4 >= MIN_CACHE_TOKENS else 0
        calls = self.script[turn_index(request)]
        return Reply.function_calls(
            list(calls),
            usage=(total // 4, 40),
            cached_tokens=cached,
            thought_signature=b"bench-signature",
        )


@dataclass
class Scenario:
    name: str
    turns: list[Calls]


def scenarios(text: str) -> list[Scenario]:
    pairs = scattered_edits(text, 12)
    edits = [replace_call(o, n) for o, n in pairs]
    lines = text.count("\n")
    rewritten = text.replace("factor=", "scale=")  # most lines change; the edits still apply
    missing = ("replace_text", {"old_text": "no such text anywhere", "new_text": "x"})
    return [
        Scenario("1 turn: 5 edits + complete", [[*edits[:5], done_call()]]),
        Scenario("2 turns: 5 edits, complete", [edits[:5], [done_call()]]),
        Scenario("6 turns: 1 edit each", [*[[e] for e in edits[:5]], [done_call()]]),
        Scenario("12 turns: 1 edit each", [*[[e] for e in edits[:11]], [done_call()]]),
        Scenario(
            "6 turns, one full get_document",
            [[edits[0]], [edits[1]], [("get_document", {})], [edits[2]], [edits[3]], [done_call()]],
        ),
        Scenario(
            "8 turns, full get_document twice",
            [
                [edits[0]],
                [("get_document", {})],
                [edits[1]],
                [edits[2]],
                [("get_document", {})],
                [edits[3]],
                [edits[4]],
                [done_call()],
            ],
        ),
        Scenario(
            "6 turns, ranged get_document ×3",
            [
                [("get_document", {"start_line": 10, "end_line": 60})],
                [edits[0]],
                [("get_document", {"start_line": lines // 2, "end_line": lines // 2 + 50})],
                [edits[1]],
                [("get_document", {"start_line": lines - 40})],
                [done_call()],
            ],
        ),
        Scenario(
            "4 turns: set_document, 2 edits, complete",
            [
                [("set_document", {"content": rewritten})],
                [edits[0], edits[1]],
                [("undo", {}), ("redo", {})],
                [done_call()],
            ],
        ),
        Scenario("3 turns: failed replace, fix, complete", [[missing], [edits[0]], [done_call()]]),
        Scenario(
            "3 turns: get_document first, edit, complete",
            [[("get_document", {})], [edits[0]], [done_call()]],
        ),
        Scenario(
            "4 turns: set_document, get_document, edit",
            [
                [("set_document", {"content": rewritten})],
                [("get_document", {})],
                [edits[0]],
                [done_call()],
            ],
        ),
    ]


async def main(quick: bool) -> None:
    emu = BenchEmulator().start()
    try:
        provider = GeminiProvider({"GEMINI_API_KEY": BENCH_KEY})
        sizes = (200_000,) if quick else (200_000, 2_000_000)
        table = Table(
            "Goal 4 — context per session (copies of the document per request; emulated cache)",
            [
                "document",
                "session",
                "requests",
                "full copies in a request (goal ≤ 2)",
                "max request / copy",
                "max edit result bytes",
                "sent MB",
                "prompt tokens",
                "cached tokens",
                "cached %",
                "prefix breaks",
                "verdict",
            ],
        )
        for size in sizes:
            text = make_document(size)
            copy_bytes = len(json.dumps(render_document(text)).encode()) - 2
            for scenario in scenarios(text):
                responder = CacheResponder(scenario.turns)
                emu.set_responder(responder)
                settings = Settings(
                    base_url=emu.base_url,
                    max_document_bytes=16_000_000,
                    max_retries=0,
                    max_turns=max(8, len(scenario.turns)),
                )
                mark = emu.mark()
                outcome = await run_tool_loop(
                    EditRequest("benchmark edit", text, settings, path_label="bench.py"), provider
                )
                if not outcome.success or outcome.turns != len(scenario.turns):
                    raise RuntimeError(f"{scenario.name}: {outcome}")
                served = emu.served_since(mark)
                requests = emu.requests
                emu.clear()
                sizes_sent = [s.bytes for s in served]
                base = sizes_sent[0] - copy_bytes
                copies = [(b - base) / copy_bytes for b in sizes_sent]
                results = [
                    part["functionResponse"]
                    for content in requests[-1].contents
                    for part in content.get("parts", [])
                    if "functionResponse" in part
                ]
                edit_results = [
                    len(canon(r["response"]).encode())
                    for r in results
                    if r.get("name") != "get_document"
                ]
                biggest = max(edit_results, default=0)
                usage = outcome.usage
                cached_pct = 100 * usage.cached_tokens / max(1, usage.input_tokens)
                copies_max = max(full_copies(request, copy_bytes) for request in requests)
                ok = (
                    copies_max <= GOAL_COPIES
                    and max(copies) <= GOAL_COPIES + SLACK
                    and biggest <= COMPACT_BYTES
                    and (len(served) == 1 or usage.cached_tokens > 0)
                )
                table.add(
                    size_label(size),
                    scenario.name,
                    len(served),
                    copies_max,
                    f"{max(copies):.2f}",
                    f"{biggest:,}",
                    f"{sum(sizes_sent) / 1e6:.1f}",
                    f"{usage.input_tokens:,}",
                    f"{usage.cached_tokens:,}",
                    f"{cached_pct:.0f}",
                    responder.breaks,
                    verdict(ok),
                )
        table.print()
    finally:
        emu.stop()


if __name__ == "__main__":
    run(main)
