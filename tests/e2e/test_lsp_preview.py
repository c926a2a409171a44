"""The live preview (contract: "Live preview"): `complexEdit/preview` notifications to a client
that opted in, each the change so far as hunks on the live document, and a clearing one when
the command ends, however it ends. The preview never edits anything.

The model's later turns hang until the test releases them, so the test sees the preview
while the session runs and can type meanwhile (no sleeps).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from lsprotocol import types

from tests.editor.checks import assert_failure
from tests.editor.client import CommandError, position_to_offset, wait_until
from tests.editor.fixtures import SessionFactory
from tests.editor.previews import previews
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, give_up, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = "import os\n\n\ndef main():\n    print(os.getcwd())\n"
REQUEST_CANCELLED = -32800


def shown(seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The previews that show a change (not the clearing one)."""
    return [p for p in seen if not p["done"] and p["hunks"]]


def drawn(text: str, preview: dict[str, Any], encoding: str) -> str:
    """`text` as the preview shows it: each hunk's range holds its `oldText` and reads as
    its `newText`."""
    spans = []
    for hunk in preview["hunks"]:
        start, end = (
            position_to_offset(text, types.Position(**hunk["range"][side]), encoding)
            for side in ("start", "end")
        )
        assert text[start:end] == hunk["oldText"], (hunk, text[start:end])
        spans.append((start, end, hunk["newText"]))
    for start, end, new_text in sorted(spans, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text


async def first_preview(seen: list[dict[str, Any]], emulator: GeminiEmulator) -> dict[str, Any]:
    """The first preview showing a change, once it has arrived."""
    try:
        await wait_until(lambda: bool(shown(seen)), within=10.0, what="the first preview")
    except AssertionError as exc:
        tail = [str(request.body)[-400:] for request in emulator.requests]
        raise AssertionError(f"{exc}; previews: {seen}; model requests: {tail}") from None
    return shown(seen)[0]


def assert_cleared_last(seen: list[dict[str, Any]], editor: EditorSession, uri: str) -> None:
    assert seen, "no preview notification"
    last = seen[-1]
    assert last["done"] is True, last
    assert last["hunks"] == [], last
    assert last["textDocument"]["uri"] == uri, last
    assert [p for p in seen if p["done"]] == [last], seen


@pytest.fixture
async def opted_in(make_editor: SessionFactory) -> EditorSession:
    """VS Code's capabilities with `experimental.complexEditPreview: true`."""
    return await make_editor("vscode-preview")


async def test_the_preview_follows_the_session_onto_the_typed_document_and_clears(
    opted_in: EditorSession, emulator: GeminiEmulator
) -> None:
    editor = opted_in
    seen = previews(editor)
    uri = editor.open(DOC)
    opened_at = editor.version(uri)
    release = threading.Event()
    emulator.enqueue(
        calls(replace("import os", "import os, sys")),
        Reply.hang(release=release, then=calls(replace("os.getcwd()", "sys.argv[0]"), done())),
    )
    _, future = editor.start(uri, "use sys")
    first = await first_preview(seen, emulator)
    assert first["textDocument"] == {"uri": uri, "version": opened_at}
    assert drawn(DOC, first, editor.encoding) == DOC.replace("import os", "import os, sys")
    assert editor.text(uri) == DOC  # drawn, never written
    assert editor.applies == []
    # The user types below the change while the model thinks about its next turn.
    editor.edit(uri, len(DOC), len(DOC), "\nmain()\n")
    typed, typed_at = editor.text(uri), editor.version(uri)
    await editor.barrier()
    release.set()
    result = await editor.answer(future)
    assert result["success"] is True, result
    later = [p for p in shown(seen) if p["textDocument"]["version"] == typed_at]
    assert later, seen
    assert drawn(typed, later[-1], editor.encoding) == (
        typed.replace("import os", "import os, sys").replace("os.getcwd()", "sys.argv[0]")
    )
    assert editor.text(uri) == drawn(typed, later[-1], editor.encoding)
    assert_cleared_last(seen, editor, uri)


async def test_a_failed_run_clears_its_preview(
    opted_in: EditorSession, emulator: GeminiEmulator
) -> None:
    seen = previews(opted_in)
    uri = opted_in.open(DOC)
    emulator.enqueue(calls(replace("import os", "import sys")), calls(give_up("no")))
    result = await opted_in.run(uri, "try and give up")
    assert_failure(result, "task_failed")
    assert shown(seen), seen
    assert_cleared_last(seen, opted_in, uri)
    assert opted_in.text(uri) == DOC
    assert opted_in.applies == []


async def test_a_cancelled_run_clears_its_preview_after_the_cancel(
    opted_in: EditorSession, emulator: GeminiEmulator
) -> None:
    seen = previews(opted_in)
    uri = opted_in.open(DOC)
    emulator.enqueue(calls(replace("import os", "import sys")), Reply.hang())
    msg_id, future = opted_in.start(uri, "hang in the second turn")
    await first_preview(seen, emulator)
    opted_in.cancel(msg_id)
    with pytest.raises(CommandError) as caught:
        await opted_in.answer(future)
    assert caught.value.code == REQUEST_CANCELLED
    await wait_until(lambda: seen[-1]["done"], what="the clearing preview")
    await opted_in.barrier()
    assert_cleared_last(seen, opted_in, uri)
    assert opted_in.text(uri) == DOC
    assert opted_in.applies == []


async def test_typing_over_the_change_shows_no_hunks_rather_than_wrong_ones(
    opted_in: EditorSession, emulator: GeminiEmulator
) -> None:
    seen = previews(opted_in)
    uri = opted_in.open(DOC)
    release = threading.Event()
    emulator.enqueue(
        calls(replace("import os", "import sys")),
        Reply.hang(release=release, then=calls(replace("print(", "print ("), done())),
    )
    _, future = opted_in.start(uri, "two changes")
    await first_preview(seen, emulator)
    opted_in.replace(uri, "import os", "import re")  # over the changed line
    typed_at = opted_in.version(uri)
    await opted_in.barrier()
    release.set()
    result = await opted_in.answer(future)
    assert_failure(result, "document_changed")
    on_typed = [p for p in seen if p["textDocument"]["version"] == typed_at and not p["done"]]
    assert on_typed, seen
    assert all(p["hunks"] == [] for p in on_typed), seen
    assert_cleared_last(seen, opted_in, uri)


async def test_a_client_that_did_not_opt_in_receives_no_preview(
    vscode: EditorSession, emulator: GeminiEmulator
) -> None:
    seen = previews(vscode)
    uri = vscode.open(DOC)
    emulator.enqueue(calls(replace("import os", "import sys")), calls(done()))
    result = await vscode.run(uri, "swap the import")
    assert result["success"] is True, result
    await vscode.barrier()
    assert seen == []


async def test_initialization_options_opt_in_with_positions_in_utf8(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    editor = await make_editor("neovim", init_options={"livePreview": True})
    assert editor.encoding == "utf-8"
    seen = previews(editor)
    text = "name = 'café'  # é\nvalue = 1\n"
    uri = editor.open(text)
    emulator.enqueue(calls(replace("value = 1", "value = 2")), calls(done()))
    result = await editor.run(uri, "bump the value")
    assert result["success"] is True, result
    (preview,) = shown(seen)
    assert drawn(text, preview, "utf-8") == text.replace("value = 1", "value = 2")
    assert_cleared_last(seen, editor, uri)


async def test_calls_in_quick_succession_are_coalesced_and_the_latest_state_is_sent(
    opted_in: EditorSession, emulator: GeminiEmulator
) -> None:
    seen = previews(opted_in)
    uri = opted_in.open(DOC)
    emulator.enqueue(
        calls(
            replace("import os", "import os, sys"),
            replace("def main():", "def main() -> None:"),
            replace("os.getcwd()", "sys.argv[0]"),
            done(),
        )
    )
    result = await opted_in.run(uri, "three changes at once")
    assert result["success"] is True, result
    changing = shown(seen)
    # The first call's preview goes at once; the other two arrive within the interval and only
    # the latest state follows.
    assert len(changing) <= 2, seen
    assert drawn(DOC, changing[-1], opted_in.encoding) == opted_in.text(uri)
    assert_cleared_last(seen, opted_in, uri)


async def test_closing_the_document_during_the_run_clears_its_preview(
    opted_in: EditorSession, emulator: GeminiEmulator
) -> None:
    seen = previews(opted_in)
    uri = opted_in.open(DOC)
    emulator.enqueue(calls(replace("import os", "import sys")), Reply.hang())
    _, future = opted_in.start(uri, "hang in the second turn")
    await first_preview(seen, emulator)
    opted_in.close(uri)
    answer = await opted_in.outcome(future, within=5)
    assert not isinstance(answer, dict) or answer["success"] is False, answer
    await wait_until(lambda: seen[-1]["done"], what="the clearing preview")
    await opted_in.barrier()
    assert_cleared_last(seen, opted_in, uri)
    assert opted_in.applies == []
