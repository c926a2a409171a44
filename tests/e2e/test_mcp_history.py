"""`revert_complex_edit` over MCP (issue 35): the real server process, the SDK's stdio client,
the Gemini emulator. An outer agent takes back the edit of three files it asked for (by its
`editId`, and by default the latest), a dry run writes nothing, a conflict writes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.test_cli_other_files import FILES, RENAME_ALL, RENAMED, calls
from tests.e2e.test_mcp import CALL_TIMEOUT, TOOL, session_with, structured
from tests.e2e.test_mcp_other_files import Server
from tests.fakes.gemini_emulator import GeminiEmulator

REVERT = "revert_complex_edit"


def plant(base: Path) -> Path:
    root = base.resolve() / "proj"
    (root / "src").mkdir(parents=True)
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


@pytest.fixture
async def server(emulator: GeminiEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    root = plant(tmp_path)
    async with session_with(root, emulator.base_url, tmp_path / "server.log") as session:
        yield Server(session, root)


async def edit_three(server: Server, emulator: GeminiEmulator) -> str:
    emulator.enqueue(calls(("find_in_files", {"pattern": "total"})), RENAME_ALL)
    result = await server.call(
        {"path": "main.py", "prompt": "rename total everywhere", "other_files": "edit"}
    )
    answer = structured(result)
    assert answer["success"] is True, answer
    assert server.contents() == RENAMED
    return str(answer["editId"])


async def test_an_agent_takes_back_the_edit_it_asked_for(
    server: Server, emulator: GeminiEmulator
) -> None:
    tools = {tool.name: tool for tool in (await server.session.list_tools()).tools}
    assert set(tools[REVERT].input_schema["properties"]) == {"id", "dry_run"}
    assert TOOL in tools
    edit_id = await edit_three(server, emulator)
    main = server.root / "main.py"
    main.write_text(main.read_text() + "# typed\n")

    dry = structured(
        await server.session.call_tool(
            REVERT, {"id": edit_id, "dry_run": True}, read_timeout_seconds=CALL_TIMEOUT
        )
    )
    assert dry["success"] is True, dry
    assert dry["applied"] is False
    assert "+++ b/src/app.py" in dry["diff"]
    assert server.contents()["src/app.py"] == RENAMED["src/app.py"]

    result = await server.session.call_tool(REVERT, {}, read_timeout_seconds=CALL_TIMEOUT)
    answer = structured(result)
    assert answer["success"] is True, answer
    assert answer["applied"] is True
    assert len(answer["documents"]) == 3
    assert server.contents() == {**FILES, "main.py": FILES["main.py"] + "# typed\n"}
    assert answer["editId"] != edit_id
    assert "src/app.py" in result.content[0].text  # type: ignore[union-attr]


async def test_a_conflict_writes_nothing(server: Server, emulator: GeminiEmulator) -> None:
    edit_id = await edit_three(server, emulator)
    app = server.root / "src/app.py"
    app.write_text(app.read_text().replace("(items)", "(items, start)"))
    before = server.contents()
    result = await server.session.call_tool(
        REVERT, {"id": edit_id}, read_timeout_seconds=CALL_TIMEOUT
    )
    answer = structured(result)
    assert result.is_error
    assert answer["reason"] == "conflict"
    assert "src/app.py:1" in answer["error"]
    assert server.contents() == before
    unknown = structured(
        await server.session.call_tool(REVERT, {"id": "nope"}, read_timeout_seconds=CALL_TIMEOUT)
    )
    assert unknown["reason"] == "unknown_edit"
