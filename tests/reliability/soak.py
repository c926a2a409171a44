"""Many sequential commands through one `complex-edit lsp` process, with the server's memory
and live asyncio tasks sampled along the way. Shared by `tests/reliability/test_soak.py` (a
short run with bounds) and `bench/soak.py` (1,000 commands, a report).

The Gemini emulator answers at once. The mix of commands exercises every path that could
leave something behind: successful edits (progress, configuration, applyEdit and its echo),
dry runs, failed tasks, model errors, `$/cancelRequest` while the model is held, and documents
opened and closed around a command. Figures come from the server itself
(`complexEdit/_stats`: `asyncio.all_tasks()`, pending requests, change waiters, progress tokens,
`VmRSS`); none of them include document text.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply
from tests.fakes.rawlsp import EDITOR_CAPABILITIES, RawLspClient, RpcError, server_env

SOAK_KEY = "soak-key-not-a-secret-0123456789"
FILLER = "".join(f"def helper_{n}(value):\n    return value * {n}\n\n" for n in range(60))
MAIN_DOC = "flag = 0\n" + FILLER
# One command in ten of each kind below; the rest are edits of the main document.
KINDS = ("edit", "edit", "edit", "edit", "edit", "dry-run", "fresh-document", "gives-up",
         "model-error", "cancel")  # fmt: skip


@dataclass
class Sample:
    command: int
    seconds: float
    rss_bytes: int  # the server and its session process
    asyncio_tasks: int
    pending_requests: int
    change_waiters: int
    progress_tokens: int
    running_commands: int
    open_documents: int


@dataclass
class SoakResult:
    commands: int
    samples: list[Sample] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cancel_answer_seconds: list[float] = field(default_factory=list)
    """$/cancelRequest sent → -32800 received."""
    cancel_quiet_seconds: list[float] = field(default_factory=list)
    """$/cancelRequest sent → the model's HTTP request abandoned (the emulator saw it go)."""
    edits_after_cancel: int = 0
    successes_confirmed: int = 0
    """Successes whose text the client holds (the server checks the echo; this re-checks)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "commands": self.commands,
            "seconds": round(self.seconds, 2),
            "outcomes": self.outcomes,
            "failures": self.failures[:20],
            "cancel_answer_seconds": [round(x, 4) for x in self.cancel_answer_seconds],
            "cancel_quiet_seconds": [round(x, 4) for x in self.cancel_quiet_seconds],
            "edits_after_cancel": self.edits_after_cancel,
            "successes_confirmed": self.successes_confirmed,
            "samples": [asdict(s) for s in self.samples],
        }


def _reply_for(request: RecordedRequest) -> Reply:
    """The scripted model: what to do is written in the instruction (`kind:` prefix)."""
    first = "".join(part.get("text", "") for part in request.contents[0]["parts"])
    kind = re.search(r"soak-kind:([a-z-]+)", first)
    name = kind.group(1) if kind else "edit"
    if name == "gives-up":
        return Reply.function_calls([("complete_task", {"success": False, "error": "no"})])
    if name == "model-error":
        return Reply.error(500)
    if name == "cancel":
        return Reply.hang()
    old, new = ("flag = 0", "flag = 1") if "flag = 0" in first else ("flag = 1", "flag = 0")
    return Reply.function_calls(
        [
            ("replace_text", {"old_text": old, "new_text": new}),
            ("complete_task", {"success": True, "message": "toggled"}),
        ],
        usage=(1000, 20),
    )


async def run_soak(
    commands: int,
    *,
    sample_every: int = 50,
    on_sample: Callable[[Sample], None] | None = None,
) -> SoakResult:
    result = SoakResult(commands)
    with GeminiEmulator() as emulator:
        emulator.set_responder(_reply_for)
        client = await RawLspClient.spawn(
            server_env(emulator.base_url, SOAK_KEY, {"COMPLEX_EDIT_APPLY_TIMEOUT_SECONDS": "10"})
        )
        try:
            await client.initialize(EDITOR_CAPABILITIES)
            main = "file:///soak/main.py"
            client.open(main, MAIN_DOC)
            started = time.monotonic()
            await _sample(client, 0, started, result, on_sample)
            for number in range(1, commands + 1):
                kind = KINDS[number % len(KINDS)]
                outcome = await _one(client, emulator, main, kind, number, result)
                result.outcomes[outcome] = result.outcomes.get(outcome, 0) + 1
                if outcome.startswith("unexpected"):
                    result.failures.append(f"#{number} {kind}: {outcome}")
                if number % sample_every == 0 or number == commands:
                    await _sample(client, number, started, result, on_sample)
            result.seconds = time.monotonic() - started
            if client.docs[main].text.splitlines()[0] not in ("flag = 0", "flag = 1"):
                result.failures.append("the main document was corrupted")
        finally:
            code = await client.close()
            if code != 0:
                result.failures.append(f"the server exited with {code}")
    return result


async def _one(
    client: RawLspClient,
    emulator: GeminiEmulator,
    main: str,
    kind: str,
    number: int,
    result: SoakResult,
) -> str:
    uri = main
    if kind == "fresh-document":
        uri = f"file:///soak/fresh-{number}.py"
        client.open(uri, MAIN_DOC)
    try:
        return await _command(client, emulator, uri, kind, result)
    finally:
        if kind == "fresh-document":
            client.close_doc(uri)


async def _command(
    client: RawLspClient, emulator: GeminiEmulator, uri: str, kind: str, result: SoakResult
) -> str:
    before = client.docs[uri].text
    seen = emulator.request_count
    arguments: dict[str, Any] = {"textDocument": {"uri": uri}, "prompt": f"soak-kind:{kind}"}
    if kind == "dry-run":
        arguments["dryRun"] = True
    msg_id, future = client.send_request(
        "workspace/executeCommand", {"command": "performComplexEdit", "arguments": [arguments]}
    )
    await client.drain()
    applies = len(client.applies)
    cancelled_at = 0.0
    if kind == "cancel":
        # The model holds this command's request (`in_flight` alone can still count the
        # previous command's request, answered but not yet closed by the emulator).
        await _until(lambda: emulator.request_count > seen and emulator.in_flight > 0)
        cancelled_at = time.monotonic()
        client.notify("$/cancelRequest", {"id": msg_id})
        await client.drain()
    try:
        answer = await client.answer(future, within=30)
    except RpcError as exc:
        if exc.code != -32800 or kind != "cancel":
            return f"unexpected {exc}"
        result.cancel_answer_seconds.append(time.monotonic() - cancelled_at)
        await _until(lambda: emulator.in_flight == 0)  # the HTTP request was abandoned
        result.cancel_quiet_seconds.append(time.monotonic() - cancelled_at)
        await client.stats()  # a round trip: anything the server sent before has arrived
        result.edits_after_cancel += len(client.applies) - applies
        return "cancelled"
    expected = {
        "edit": (True, None),
        "fresh-document": (True, None),
        "dry-run": (True, None),
        "gives-up": (False, "task_failed"),
        "model-error": (False, "model_error"),
    }.get(kind)
    got = (answer.get("success"), answer.get("reason"))
    if got != expected:
        return f"unexpected {got} for {kind}"
    text = client.docs[uri].text
    if kind in ("edit", "fresh-document"):
        old, new = ("flag = 0", "flag = 1") if "flag = 0" in before else ("flag = 1", "flag = 0")
        if not answer.get("applied") or text != before.replace(old, new):
            return f"unexpected: {kind} reported success, the editor holds another text"
        result.successes_confirmed += 1
    elif text != before:
        return f"unexpected: {kind} changed the document"
    return kind


async def _until(predicate: Callable[[], bool], within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.005)


async def _sample(
    client: RawLspClient,
    number: int,
    started: float,
    result: SoakResult,
    on_sample: Callable[[Sample], None] | None,
) -> None:
    # Let the server settle: progress end, echo waiters and cancelled tasks unwind.
    await asyncio.sleep(0.05)
    stats = await client.stats()
    sample = Sample(
        command=number,
        seconds=round(time.monotonic() - started, 2),
        rss_bytes=int(stats["rssBytes"]) + int(stats.get("sessionProcessRssBytes", 0)),
        asyncio_tasks=int(stats["asyncioTasks"]),
        pending_requests=int(stats["pendingRequests"]),
        change_waiters=int(stats["changeWaiters"]),
        progress_tokens=int(stats["progressTokens"]),
        running_commands=int(stats["runningCommands"]),
        open_documents=int(stats["openDocuments"]),
    )
    result.samples.append(sample)
    if on_sample is not None:
        on_sample(sample)
