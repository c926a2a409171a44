"""Checks in a session: the Gemini emulator through the real SDK, and REAL checkers (`ruff
server`, basedpyright) or a stand-in that misbehaves. A `complete_task(success=true)` whose
edit introduced errors is answered with them; the model fixes them in a second round, or the
rounds end (checkRounds, the same errors twice) and the edit lands with `remaining`."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.check.pool import CheckerPool
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.request import EditRequest, OpenDocument, WorkspaceRoot
from complex_edit.server.session.result import FinishedSession, run_and_diff
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

BIN = Path(sys.executable).parent
RUFF = shutil.which("ruff") or str(BIN / "ruff")
BASEDPYRIGHT = shutil.which("basedpyright-langserver") or str(BIN / "basedpyright-langserver")
STAND_IN = str(Path(__file__).resolve().parents[1] / "fakes" / "stand_in_checker.py")
needs_ruff = pytest.mark.skipif(not os.access(RUFF, os.X_OK), reason="ruff is not installed")
needs_basedpyright = pytest.mark.skipif(
    not os.access(BASEDPYRIGHT, os.X_OK), reason="basedpyright is not installed (pip)"
)

MAIN = "def total(items):\n    return sum(items)\n\n\nprint(total([1]))\n"
Run = Callable[..., Awaitable[FinishedSession]]


def checker(name: str, *command: str) -> dict[str, Any]:
    return {"name": name, "languages": ["python"], "command": list(command)}


RUFF_ONLY = [checker("ruff", RUFF, "server")]
BASEDPYRIGHT_ONLY = [checker("basedpyright", BASEDPYRIGHT, "--stdio")]


@pytest.fixture
async def pool() -> AsyncIterator[CheckerPool]:
    checks = CheckerPool()
    yield checks
    await checks.close()


@pytest.fixture
def run(emulator: GeminiEmulator, tmp_path: Path, pool: CheckerPool) -> Run:
    """`await run(*turns, text=MAIN, checkers=..., **settings)`: `filename` (main.py) holds
    `text`."""
    provider = GeminiProvider({"GEMINI_API_KEY": TEST_KEY})
    root = tmp_path.resolve()

    async def _run(
        *turns: list[tuple[str, dict[str, Any]]],
        text: str = MAIN,
        checkers: Any = RUFF_ONLY,
        use_pool: bool = True,
        filename: str = "main.py",
        language: str = "python",
        open_documents: tuple[OpenDocument, ...] = (),
        **settings: Any,
    ) -> FinishedSession:
        (root / filename).write_text(text)
        emulator.enqueue(*(Reply.function_calls(turn) for turn in turns))
        layer = {
            "baseUrl": emulator.base_url,
            "requestTimeoutSeconds": 5,
            "checkers": checkers if isinstance(checkers, str) else json.dumps(checkers),
            "checkTimeoutSeconds": 20,
            **settings,
        }
        request = EditRequest(
            instruction="rename total to grand_total",
            text=text,
            settings=Settings.from_layers({}, layer),
            path_label=filename,
            language=language,
            other_files="edit",
            roots=(WorkspaceRoot("proj", str(root)),),
            document_path=str(root / filename),
            open_documents=open_documents,
        )
        return await run_and_diff(request, provider, lambda _: None, pool if use_pool else None)

    return _run


def replace(old: str, new: str, path: str | None = None) -> tuple[str, dict[str, Any]]:
    args: dict[str, Any] = {"old_text": old, "new_text": new}
    if path is not None:
        args["path"] = path
    return ("replace_text", args)


def done() -> tuple[str, dict[str, Any]]:
    return ("complete_task", {"success": True, "message": "renamed"})


def answer_of_completion(emulator: GeminiEmulator, request: int) -> str:
    """The function response the loop sent for the turn's complete_task."""
    responses = emulator.requests[request].function_responses
    return str(responses[-1]["response"].get("error", responses[-1]["response"]))


RENAME_DEF = replace("def total(", "def grand_total(")
RENAME_CALL = replace("print(total(", "print(grand_total(")
F821 = "main.py:5:7: error: Undefined name `total` (Ruff F821)"


@needs_ruff
async def test_a_rename_leaving_an_undefined_name_is_fixed_in_a_second_round(
    run: Run, emulator: GeminiEmulator
) -> None:
    finished = await run([RENAME_DEF, done()], [RENAME_CALL, done()])
    asked = answer_of_completion(emulator, 1)
    assert F821 in asked
    assert "call complete_task again to finish anyway" in asked
    outcome = finished.outcome
    assert outcome.success
    assert outcome.integrity.get("check_refused") == 1
    diagnostics = outcome.diagnostics
    assert diagnostics is not None
    assert diagnostics.checked
    assert [d.code for d in diagnostics.introduced] == ["F821"]
    assert diagnostics.remaining == []
    assert [c.name for c in diagnostics.checkers] == ["ruff"]
    assert "grand_total([1])" in finished.documents[0].diff


@needs_ruff
async def test_the_same_errors_twice_end_the_rounds_and_the_edit_lands_with_them(
    run: Run, emulator: GeminiEmulator
) -> None:
    finished = await run([RENAME_DEF, done()], [done()])
    assert len(emulator.requests) == 2
    outcome = finished.outcome
    assert outcome.success
    assert outcome.diagnostics is not None
    assert [d.message for d in outcome.diagnostics.remaining] == ["Undefined name `total`"]
    assert outcome.message is not None
    assert f"Left with 1 new error: {F821}" in outcome.message


@needs_ruff
async def test_errors_the_model_cannot_fix_end_after_check_rounds(
    run: Run, emulator: GeminiEmulator
) -> None:
    finished = await run(
        [RENAME_DEF, done()],
        [replace("print(total(", "print(totl("), done()],
        [replace("print(totl(", "print(tot("), done()],
        checkRounds=2,
    )
    assert len(emulator.requests) == 3
    assert "Undefined name `totl`" in answer_of_completion(emulator, 2)
    diagnostics = finished.outcome.diagnostics
    assert finished.outcome.success
    assert diagnostics is not None
    assert [d.message for d in diagnostics.introduced] == ["Undefined name `total`"]
    assert [d.message for d in diagnostics.remaining] == ["Undefined name `tot`"]
    assert "print(tot([1]))" in finished.documents[0].diff
    note = " Left with 1 new error: main.py:5:7: error: Undefined name `tot` (Ruff F821)."
    assert finished.outcome.check_note == note  # what a review's proposal says too
    assert finished.outcome.message == "renamed" + note


@needs_ruff
async def test_an_error_from_before_that_moved_down_is_not_introduced(
    run: Run, emulator: GeminiEmulator
) -> None:
    text = "import os\n\nprint(undefined_a)\n"
    finished = await run(
        [replace("import os\n", "import os\nimport sys\n\nprint(sys.argv)\n"), done()],
        text=text,
    )
    assert len(emulator.requests) == 1
    diagnostics = finished.outcome.diagnostics
    assert diagnostics is not None
    assert diagnostics.checked
    assert diagnostics.introduced == []


@needs_ruff
async def test_checkers_off_sends_exactly_the_requests_of_no_checks(
    run: Run, emulator: GeminiEmulator
) -> None:
    off = await run([RENAME_DEF, done()], checkers="off")
    sent_off = [request.body for request in emulator.requests]
    none = await run([RENAME_DEF, done()], use_pool=False)
    assert len(emulator.requests) == 2
    assert sent_off == [request.body for request in emulator.requests[1:]]
    assert off.outcome.diagnostics is None
    assert none.outcome.diagnostics is None
    assert off.outcome.message == "renamed"


async def test_a_checker_that_never_answers_ends_at_the_timeout_unchecked(run: Run) -> None:
    silent = [checker("silent", sys.executable, STAND_IN, "silent")]
    finished = await run([RENAME_DEF, done()], checkers=silent, checkTimeoutSeconds=0.5)
    outcome = finished.outcome
    assert outcome.success
    assert outcome.diagnostics is not None
    assert not outcome.diagnostics.checked
    status = outcome.diagnostics.checkers[0]
    assert (status.name, status.status) == ("silent", "timeout")
    assert 500 <= status.waited_ms < 1500
    assert outcome.message == "renamed Not checked: silent gave no diagnostics in 0.5 s."


async def test_a_checker_that_crashes_is_a_line_in_the_answer(run: Run, pool: CheckerPool) -> None:
    crashing = [checker("crashing", sys.executable, STAND_IN, "crash")]
    finished = await run([RENAME_DEF, done()], checkers=crashing)
    outcome = finished.outcome
    assert outcome.success
    assert outcome.diagnostics is not None
    status = outcome.diagnostics.checkers[0]
    assert status.status == "crashed"
    assert status.detail is not None
    assert "code 3" in status.detail
    assert pool.pids() == []


async def test_a_missing_checker_is_a_line_in_the_answer(run: Run) -> None:
    missing = [checker("nowhere", "/nonexistent/checker")]
    finished = await run([RENAME_DEF, done()], checkers=missing)
    assert finished.outcome.success
    assert finished.outcome.diagnostics is not None
    assert finished.outcome.diagnostics.checkers[0].status == "missing"


APP = "def total(items: list[int]) -> int:\n    return sum(items)\n"
USES = "import app\n\nx = app.total([3])\ny = app.total([4])\n"


@needs_basedpyright
async def test_basedpyright_finds_a_caller_the_rename_missed_in_another_file(
    run: Run, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    (tmp_path / "app.py").write_text(APP)
    finished = await run(
        [
            replace("def total(", "def grand_total(", "app.py"),
            replace("x = app.total(", "x = app.grand_total("),
            done(),
        ],
        [replace("y = app.total(", "y = app.grand_total("), done()],
        text=USES,
        checkers=BASEDPYRIGHT_ONLY,
    )
    asked = answer_of_completion(emulator, 1)
    assert 'main.py:4:9: error: "total" is not a known attribute of module "app"' in asked
    assert "(basedpyright reportAttributeAccessIssue)" in asked
    diagnostics = finished.outcome.diagnostics
    assert diagnostics is not None
    assert diagnostics.checked
    assert len(diagnostics.introduced) == 1
    assert diagnostics.remaining == []
    assert [doc.label for doc in finished.documents] == ["main.py", "app.py"]


@needs_basedpyright
async def test_an_unsaved_buffer_is_what_basedpyright_resolves_against(
    run: Run, emulator: GeminiEmulator, tmp_path: Path
) -> None:
    """`triple` is defined only in the editor's unsaved buffer of helpers.py, not on disk: the
    edit that imports it introduces no error."""
    on_disk = "def double(x: int) -> int:\n    return 2 * x\n"
    (tmp_path / "helpers.py").write_text(on_disk)
    buffer = on_disk + "\n\ndef triple(x: int) -> int:\n    return 3 * x\n"
    uses_triple = [
        replace("import double", "import double, triple"),
        replace("print(double(2))", "print(double(2), triple(2))"),
        done(),
    ]
    unsaved = OpenDocument(str(tmp_path / "helpers.py"), buffer, 3)
    uses_double = "from helpers import double\n\nprint(double(2))\n"
    finished = await run(
        uses_triple, text=uses_double, checkers=BASEDPYRIGHT_ONLY, open_documents=(unsaved,)
    )
    diagnostics = finished.outcome.diagnostics
    assert diagnostics is not None
    assert diagnostics.checked
    assert diagnostics.introduced == []
    assert diagnostics.remaining == []
    assert finished.outcome.success
    assert len(emulator.requests) == 1
    assert (tmp_path / "helpers.py").read_text() == on_disk
    assert [doc.label for doc in finished.documents] == ["main.py"]


async def test_a_document_no_checker_takes_is_not_checked(
    run: Run, emulator: GeminiEmulator
) -> None:
    finished = await run(
        [replace("total", "grand total"), done()],
        text="the total\n",
        filename="notes.txt",
        language="plaintext",
    )
    assert finished.outcome.success
    assert finished.outcome.diagnostics is None
    assert finished.outcome.message == "renamed"
    assert len(emulator.requests) == 1


@needs_ruff
async def test_a_checker_that_died_between_commands_is_started_again(
    run: Run, pool: CheckerPool, emulator: GeminiEmulator
) -> None:
    await run([RENAME_DEF, done()], [done()])
    [first] = pool.pids()
    os.kill(first, signal.SIGKILL)
    finished = await run([RENAME_DEF, done()], [done()])
    assert finished.outcome.diagnostics is not None
    assert finished.outcome.diagnostics.checked
    assert [d.code for d in finished.outcome.diagnostics.remaining] == ["F821"]
    assert pool.pids() != [first]
    assert len(pool.pids()) == 1
