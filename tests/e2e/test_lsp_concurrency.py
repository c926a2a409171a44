"""The user keeps typing while the sub-agent works; several commands at once."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from tests.editor.checks import assert_failure, assert_success
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, first_message, replace
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply

DOC = (
    "# header\n"
    "import os\n"
    "\n"
    "def compute(x):\n"
    "    y = x * 2\n"
    "    return y\n"
    "\n"
    "def other():\n"
    "    pass\n"
    "# footer\n"
)
AGENT_OLD, AGENT_NEW = "y = x * 2", "y = x * 3"

Typing = Callable[[EditorSession, str], None]


def type_above(editor: EditorSession, uri: str) -> None:
    editor.replace(uri, "# header", "# header, edited by the user")


def insert_lines_above(editor: EditorSession, uri: str) -> None:
    text = editor.text(uri)
    at = text.index("\ndef compute") + 1
    editor.edit(uri, at, at, "import sys\nimport re\n\n")


def type_below(editor: EditorSession, uri: str) -> None:
    editor.replace(uri, "# footer", "# the end")


def type_on_the_next_line(editor: EditorSession, uri: str) -> None:
    editor.replace(uri, "    return y\n", "    return y  # doubled\n")


def type_several_keystrokes_around(editor: EditorSession, uri: str) -> None:
    for char in "abc":
        text = editor.text(uri)
        at = text.index("\n", text.index("# header"))
        editor.edit(uri, at, at, char)
    text = editor.text(uri)
    at = text.index("    pass") + len("    pass")
    editor.edit(uri, at, at, "  # todo")
    editor.replace(uri, "def other", "def another")


def delete_lines_below(editor: EditorSession, uri: str) -> None:
    text = editor.text(uri)
    start = text.index("def other")
    editor.edit(uri, start, text.index("# footer"), "")


NON_OVERLAPPING: dict[str, Typing] = {
    "above": type_above,
    "lines-inserted-above": insert_lines_above,
    "below": type_below,
    "next-line": type_on_the_next_line,
    "keystrokes-around": type_several_keystrokes_around,
    "lines-deleted-below": delete_lines_below,
}


def type_inside(editor: EditorSession, uri: str) -> None:
    editor.replace(uri, "x * 2", "x * 5")


def delete_the_function(editor: EditorSession, uri: str) -> None:
    text = editor.text(uri)
    editor.edit(uri, text.index("def compute"), text.index("\ndef other") + 1, "")


def retype_the_region(editor: EditorSession, uri: str) -> None:
    editor.replace(uri, "    y = x * 2\n    return y\n", "    return x + x\n")


OVERLAPPING: dict[str, Typing] = {
    "inside": type_inside,
    "function-deleted": delete_the_function,
    "region-retyped": retype_the_region,
}


async def run_while_typing(
    editor: EditorSession, emulator: GeminiEmulator, typing: Typing
) -> tuple[str, str, dict[str, object]]:
    """Start the command, type while the model thinks, then let the model answer.
    Returns the URI, the text right after the typing, and the command's result."""
    uri = editor.open(DOC)
    release = threading.Event()
    emulator.enqueue(
        Reply.hang(release=release, then=calls(replace(AGENT_OLD, AGENT_NEW), done("tripled")))
    )
    _, future = editor.start(uri, "triple instead of double")
    await emulator.wait_for_requests_async(1)
    typing(editor, uri)
    typed = editor.text(uri)
    await editor.barrier()  # the server has seen every keystroke
    release.set()
    return uri, typed, await editor.answer(future)


@pytest.mark.parametrize("where", list(NON_OVERLAPPING))
async def test_typing_elsewhere_is_kept_and_the_result_rebased(
    where: str, editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri, typed, result = await run_while_typing(editor, emulator, NON_OVERLAPPING[where])
    assert AGENT_OLD in typed
    expected = typed.replace(AGENT_OLD, AGENT_NEW)
    assert_success(result)
    assert editor.text(uri) == expected
    assert len(editor.applies) == 1
    # the edit was made for the version that has the user's keystrokes
    assert editor.applies[0].answer == "applied"
    (edit,) = editor.applies[0].edits[uri]
    assert edit.end - edit.start <= len(AGENT_OLD)


@pytest.mark.parametrize("where", list(OVERLAPPING))
async def test_typing_in_the_edited_region_is_document_changed(
    where: str, editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri, typed, result = await run_while_typing(editor, emulator, OVERLAPPING[where])
    assert_failure(result, "document_changed")
    assert editor.applies == [], "an edit was sent over the user's typing"
    assert editor.text(uri) == typed  # the user's text is intact
    assert typed != DOC


async def test_second_command_on_a_busy_document(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    release = threading.Event()
    emulator.enqueue(Reply.hang(release=release, then=calls(replace(AGENT_OLD, AGENT_NEW), done())))
    _, first = editor.start(uri, "first")
    await emulator.wait_for_requests_async(1)
    second = await editor.run(uri, "second")
    assert_failure(second, "busy")
    assert len(emulator.requests) == 1
    release.set()
    assert_success(await editor.answer(first))
    assert editor.text(uri) == DOC.replace(AGENT_OLD, AGENT_NEW)
    # no longer busy
    emulator.enqueue(calls(replace(AGENT_NEW, "y = x * 4"), done()))
    assert_success(await editor.run(uri, "third"))
    assert editor.text(uri) == DOC.replace(AGENT_OLD, "y = x * 4")


async def test_commands_on_two_documents_run_side_by_side(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    first = editor.open("name = 'FIRST-DOC'\n")
    second = editor.open("name = 'SECOND-DOC'\n")
    release = threading.Event()

    def responder(request: RecordedRequest) -> Reply:
        label = "FIRST-DOC" if "FIRST-DOC" in first_message(request) else "SECOND-DOC"
        answer = calls(replace(label, label.lower()), done(label))
        return Reply.hang(release=release, then=answer)

    emulator.set_responder(responder)
    _, one = editor.start(first, "lower it")
    _, two = editor.start(second, "lower it")
    await emulator.wait_for_requests_async(2)  # both model calls are in flight together
    release.set()
    result_one, result_two = await editor.answer(one), await editor.answer(two)
    assert_success(result_one)
    assert_success(result_two)
    assert result_one["message"] == "FIRST-DOC"
    assert result_two["message"] == "SECOND-DOC"
    assert editor.text(first) == "name = 'first-doc'\n"
    assert editor.text(second) == "name = 'second-doc'\n"


async def test_typing_during_the_run_with_a_lax_client(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """A Neovim-like client skips the version check; the server must still send an edit
    that fits the live text, so nothing is lost or garbled."""
    editor.behaviour.versions = "lax"
    uri, typed, result = await run_while_typing(editor, emulator, insert_lines_above)
    assert_success(result)
    assert editor.text(uri) == typed.replace(AGENT_OLD, AGENT_NEW)


async def test_typing_while_the_edit_is_in_flight_is_never_a_silent_success(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """The user types between the server sending applyEdit and the editor applying it.
    VS Code refuses the edit (its version moved on); Neovim (no documentChanges, so no version
    on the edit) applies it where the positions now point. Either way the server must not
    report a success for a text it did not produce."""
    uri = editor.open(DOC)
    editor.behaviour.before_apply = lambda: editor.edit(uri, 0, 0, "# typed first\n")
    emulator.enqueue(calls(replace(AGENT_OLD, AGENT_NEW), done()))
    result = await editor.run(uri, "triple")
    assert editor.text(uri).startswith("# typed first\n# header\n")
    assert result["success"] is False, result
    assert result["reason"] == "client_rejected", result
    if editor.kind == "vscode":
        assert not result.get("applied")
        assert editor.text(uri) == "# typed first\n" + DOC  # refused: the user's text intact
