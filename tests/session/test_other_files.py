"""A session that reads and edits other files of the workspace (`otherFiles` "read"/"edit"),
in-process against the Gemini emulator through the real SDK: `path` on the tools,
find_in_files, one working buffer per file, maxFiles, the syntax gate per file,
`FinishedSession.documents` (the command's own first), and confinement: nothing of a refused
file reaches the model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from complex_edit.edit_tools.registry import TOOL_NAMES
from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.events import (
    OtherChanged,
    SessionEvent,
    ToolFinished,
    ToolStarted,
    describe,
)
from complex_edit.server.session.request import EditRequest, OpenDocument, WorkspaceRoot
from complex_edit.server.session.result import FinishedSession, run_and_diff
from complex_edit.server.settings import Settings
from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

SECRET = "hunter2-never-sent"
APP = "def total(items):\n    return sum(items)\n"
USE = "from app import total\n\nprint(total([1, 2]))\n"
DOC = "import app\n\nx = app.total([3])\n"

Run = Callable[..., Awaitable[tuple[FinishedSession, list[SessionEvent]]]]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path.resolve()
    project = base / "proj"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text(APP)
    (project / "src" / "use.py").write_text(USE)
    (project / "main.py").write_text(DOC)
    (project / ".env").write_text(f"API_TOKEN={SECRET}\n")
    (base / "outside").mkdir()
    (base / "outside" / "notes.txt").write_text(f"total {SECRET}\n")
    (project / "notes.txt").symlink_to(base / "outside" / "notes.txt")
    (project / "blob.bin").write_bytes(b"total\x00" + SECRET.encode())
    (project / "big.txt").write_text(f"total {SECRET}\n" * 100)
    return project


@pytest.fixture
def run(emulator: GeminiEmulator, root: Path) -> Run:
    """`await run(*turns, other_files="edit", **request fields)` → (finished, events)."""
    provider = GeminiProvider({"GEMINI_API_KEY": TEST_KEY})

    async def _run(
        *turns: list[tuple[str, dict[str, Any]]],
        other_files: str = "edit",
        max_document_bytes: int = 1000,
        max_files: int = 10,
        **fields: Any,
    ) -> tuple[FinishedSession, list[SessionEvent]]:
        emulator.enqueue(*(Reply.function_calls(turn) for turn in turns))
        layer = {
            "baseUrl": emulator.base_url,
            "requestTimeoutSeconds": 5,
            "maxDocumentBytes": max_document_bytes,
            "maxFiles": max_files,
        }
        settings = Settings.from_layers({}, layer)
        values: dict[str, Any] = {
            "instruction": "rename total to grand_total everywhere",
            "text": DOC,
            "settings": settings,
            "path_label": "main.py",
            "language": "python",
            "other_files": other_files,
            "roots": (WorkspaceRoot("proj", str(root)),),
            "document_path": str(root / "main.py"),
            **fields,
        }
        events: list[SessionEvent] = []
        finished = await run_and_diff(EditRequest(**values), provider, events.append)
        return finished, events

    return _run


def done() -> tuple[str, dict[str, Any]]:
    return ("complete_task", {"success": True, "message": "renamed"})


def replace(old: str, new: str, path: str | None = None) -> tuple[str, dict[str, Any]]:
    args: dict[str, Any] = {"old_text": old, "new_text": new}
    if path is not None:
        args["path"] = path
    return ("replace_text", args)


def results(emulator: GeminiEmulator, request: int) -> list[dict[str, Any]]:
    return [part["response"] for part in emulator.requests[request].function_responses]


async def test_reading_declares_find_and_path_and_tells_the_model(
    run: Run, emulator: GeminiEmulator
) -> None:
    finished, _ = await run(
        [("find_in_files", {"pattern": "total(", "glob": "src/*.py"})],
        [("get_document", {"path": "src/app.py", "start_line": 2})],
        [done()],
        other_files="read",
    )
    assert finished.outcome.success
    first = emulator.requests[0]
    names = [declaration["name"] for declaration in first.function_declarations]
    assert "find_in_files" in names
    assert "Other files of the workspace (read only)" in first.system_text
    found = results(emulator, 1)[0]["result"]
    assert found.splitlines()[1:] == [
        "src/app.py:1: def total(items):",
        "src/use.py:3: print(total([1, 2]))",
    ]
    assert results(emulator, 2)[0]["result"] == "[line 2 of 2]\n     2\t    return sum(items)"
    # the prefix the model caches stays the same from turn to turn
    for request in emulator.requests[1:]:
        assert request.system_text == first.system_text
        assert request.tools == first.tools
        assert request.contents[0] == first.contents[0]


async def test_with_other_files_off_nothing_changes(run: Run, emulator: GeminiEmulator) -> None:
    finished, _ = await run(
        [("get_document", {"path": "src/app.py"}), ("find_in_files", {"pattern": "x"})],
        [done()],
        other_files="off",
    )
    assert finished.outcome.success
    names = [declaration["name"] for declaration in emulator.requests[0].function_declarations]
    assert names == list(TOOL_NAMES)
    assert "Other files" not in emulator.requests[0].system_text
    unknown_path, unknown_tool = results(emulator, 1)
    assert "path" in unknown_path["error"]
    assert "find_in_files" in unknown_tool["error"]


async def test_reading_only_refuses_a_change_to_another_file(
    run: Run, emulator: GeminiEmulator
) -> None:
    finished, _ = await run(
        [replace("def total", "def grand_total", "src/app.py")],
        [done()],
        other_files="read",
    )
    assert finished.documents[1:] == ()
    error = results(emulator, 1)[0]["error"]
    assert "can be read but not changed" in error
    assert 'otherFiles is "read"' in error


async def test_edits_across_files_come_back_as_others_in_the_order_they_joined(
    run: Run, emulator: GeminiEmulator, root: Path
) -> None:
    finished, events = await run(
        [
            replace("total([1, 2])", "grand_total([1, 2])", "src/use.py"),
            replace("import total", "import grand_total", "src/use.py"),
            replace("def total", "def grand_total", "src/app.py"),
            replace("app.total", "app.grand_total"),
        ],
        [done()],
    )
    assert finished.outcome.success, finished.outcome
    assert finished.documents[0].target() == "import app\n\nx = app.grand_total([3])\n"
    use, app = finished.documents[1:]
    assert (use.label, use.path, use.version) == ("src/use.py", str(root / "src/use.py"), None)
    assert use.original == USE
    assert use.target() == USE.replace("total", "grand_total")
    assert app.target() == APP.replace("def total", "def grand_total")
    assert app.diff.startswith("--- a/src/app.py\n+++ b/src/app.py\n@@")
    assert (root / "src" / "app.py").read_text() == APP  # the session writes nothing
    changed = [event for event in events if isinstance(event, OtherChanged)]
    assert [event.label for event in changed] == ["src/use.py", "src/use.py", "src/app.py"]
    assert describe(changed[-1]) == "Turn 1/8 · +1 −1 lines so far in src/app.py"
    # the progress line names the file each call touched, when it started and when it ended
    lines = [describe(e) for e in events if isinstance(e, ToolStarted | ToolFinished)]
    assert lines[4:6] == [
        "Turn 1/8 · replace_text 'def total' → 'def grand_total' in src/app.py",
        "Turn 1/8 · ✓ replace_text: 1 replacement at line 1 in src/app.py",
    ]


async def test_an_open_document_is_edited_from_its_buffer_and_own_paths_mean_this_document(
    run: Run, root: Path
) -> None:
    buffer = "from app import total  # unsaved\n"
    finished, _ = await run(
        [
            replace("total  # unsaved", "grand_total  # unsaved", "src/use.py"),
            replace("app.total", "app.grand_total", "main.py"),
            replace("import app", "import app  # own", ""),
        ],
        [done()],
        open_documents=(OpenDocument(str(root / "src" / "use.py"), buffer, 12),),
    )
    assert finished.outcome.success
    assert finished.documents[0].target() == "import app  # own\n\nx = app.grand_total([3])\n"
    (use,) = finished.documents[1:]
    assert (use.original, use.version) == (buffer, 12)


async def test_undo_acts_on_the_named_file_alone_and_an_undone_file_is_not_changed(
    run: Run, emulator: GeminiEmulator
) -> None:
    finished, _ = await run(
        [
            replace("def total", "def grand_total", "src/app.py"),
            replace("app.total", "app.grand_total"),
            ("undo", {"path": "src/app.py"}),
        ],
        [done()],
    )
    assert finished.outcome.success
    assert finished.documents[1:] == ()
    assert finished.documents[0].target() == "import app\n\nx = app.grand_total([3])\n"
    assert "Undid the last replace_text change" in results(emulator, 1)[2]["result"]


async def test_max_files_caps_the_documents_one_command_changes(
    run: Run, emulator: GeminiEmulator
) -> None:
    finished, _ = await run(
        [
            replace("def total", "def grand_total", "src/app.py"),
            replace("import total", "import grand_total", "src/use.py"),
        ],
        [done()],
        max_files=2,
    )
    assert [other.label for other in finished.documents[1:]] == ["src/app.py"]
    error = results(emulator, 1)[1]["error"]
    assert "at most 2 documents (setting maxFiles)" in error
    assert "src/app.py" in error


async def test_complete_task_judges_every_changed_file(run: Run, emulator: GeminiEmulator) -> None:
    finished, _ = await run(
        [replace("def total(items):", "def grand_total(items:", "src/app.py"), done()],
        [replace("def grand_total(items:", "def grand_total(items):", "src/app.py"), done()],
    )
    assert finished.outcome.success
    refused = results(emulator, 1)[1]["error"]
    assert "In src/app.py: The text has 1 syntax error" in refused
    assert finished.outcome.integrity["syntax_refused"] == 1
    assert finished.documents[1:][0].target() == APP.replace("total", "grand_total")


async def test_without_a_workspace_folder_reading_is_refused_clearly(
    run: Run, emulator: GeminiEmulator
) -> None:
    await run(
        [("get_document", {"path": "src/app.py"}), ("find_in_files", {"pattern": "total"})],
        [done()],
        roots=(),
    )
    assert "No workspace folder is open" in emulator.requests[0].contents[0]["parts"][0]["text"]
    for result in results(emulator, 1):
        assert "No workspace folder is open" in result["error"]


async def test_a_secret_and_a_file_behind_a_link_never_reach_the_model(
    run: Run, emulator: GeminiEmulator
) -> None:
    tries = [
        ("get_document", {"path": ".env"}),
        ("get_document", {"path": "notes.txt"}),
        ("get_document", {"path": "../outside/notes.txt"}),
        ("get_document", {"path": str(Path("/proc/self/environ"))}),
        ("get_document", {"path": ".git/config"}),
        ("find_in_files", {"pattern": "API_TOKEN"}),
        ("find_in_files", {"pattern": "TOKEN=.*|total", "regex": True}),
        replace("API_TOKEN", "X", ".env"),
        ("set_document", {"path": "notes.txt", "content": "x"}),
        ("get_document", {"path": "blob.bin"}),
        ("get_document", {"path": "big.txt"}),
    ]
    finished, _ = await run(tries, [done()])
    assert finished.outcome.success
    assert finished.documents[1:] == ()
    errors = [result.get("error", "") for result in results(emulator, 1)]
    assert "readExclude" in errors[0]
    assert "link that leaves the workspace" in errors[1]
    assert "leaves the workspace" in errors[2]
    assert "is absolute" in errors[3]
    assert "inside .git/" in errors[4]
    assert "binary" in errors[9]
    assert "maxDocumentBytes" in errors[10]
    assert "No line contains" in results(emulator, 1)[5]["result"]
    assert "notes.txt" not in results(emulator, 1)[6]["result"]  # the linked file
    assert ".env" not in results(emulator, 1)[6]["result"]
    for request in emulator.requests:
        assert SECRET.encode() not in request.raw_body


async def test_a_full_view_of_another_file_leaves_the_documents_own_view_in_place(
    run: Run, emulator: GeminiEmulator
) -> None:
    await run(
        [replace("app.total", "app.grand_total"), ("get_document", {})],
        [("get_document", {"path": "src/app.py"})],
        [done()],
        other_files="read",
    )
    own_view = emulator.requests[1].function_responses[-1]["response"]["result"]
    other_view = emulator.requests[2].function_responses[-1]["response"]["result"]
    assert "x = app.grand_total([3])" in own_view
    assert "def total(items):" in other_view
    history = str(emulator.requests[2].contents)
    assert "x = app.grand_total([3])" in history
    assert "out of date" not in history
