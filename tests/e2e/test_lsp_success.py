"""performComplexEdit end to end: the result lands in the editor as one minimal, versioned edit."""

from __future__ import annotations

import dataclasses

from lsprotocol import types

from tests.conftest import TEST_KEY
from tests.editor.checks import assert_minimal_edit, assert_success
from tests.editor.fixtures import SessionFactory
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, first_message, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply

DOC = "def greet(name):\n    return 'Hello, ' + name\n\n\nprint(greet('world'))\n"


async def test_edit_is_applied_as_one_minimal_versioned_edit(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC, version=7)
    emulator.enqueue(
        calls(
            replace("'Hello, ' + name", "f'Hello, {name}!'"),
            done("switched to an f-string"),
            usage=(321, 45),
        )
    )
    result = await editor.run(uri, "use an f-string")
    expected = DOC.replace("'Hello, ' + name", "f'Hello, {name}!'")
    assert_success(result, turns=1)
    assert editor.text(uri) == expected
    assert result["message"] == "switched to an f-string"
    assert result["toolCalls"] == 2
    assert result["usage"]["inputTokens"] == 321
    assert result["usage"]["outputTokens"] == 45
    assert "-    return 'Hello, ' + name" in result["diff"]
    assert "+    return f'Hello, {name}!'" in result["diff"]
    assert_minimal_edit(editor, uri, DOC, expected)
    params = editor.applies[0].params
    assert params.label
    assert "f-string" in params.label
    if editor.kind == "vscode":
        (change,) = params.edit.document_changes or ()
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.version == 7
    else:  # Neovim does not advertise documentChanges: the `changes` form
        assert params.edit.document_changes is None
        assert list(params.edit.changes or {}) == [uri]
    (request,) = emulator.requests
    assert request.api_key == TEST_KEY
    assert "return 'Hello, ' + name" in first_message(request)
    assert "use an f-string" in first_message(request)


async def test_multi_turn_run_counts_turns_and_tool_calls(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(
        calls(("get_document", {"start_line": 1, "end_line": 2}), usage=(10, 1)),
        calls(replace("def greet", "def welcome"), usage=(20, 2)),
        calls(replace("print(greet(", "print(welcome("), done("renamed"), usage=(30, 3)),
    )
    result = await editor.run(uri, "rename greet to welcome")
    expected = DOC.replace("greet", "welcome")
    assert_success(result, turns=3)
    assert result["toolCalls"] == 4
    assert result["usage"]["inputTokens"] == 60
    assert result["usage"]["outputTokens"] == 6
    assert editor.text(uri) == expected
    assert len(editor.applies) == 1
    # the tool results went back to the model between turns
    assert emulator.requests[1].function_responses[0]["name"] == "get_document"


async def test_several_distant_changes_make_several_small_edits(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    lines = [f"value_{i} = {i}\n" for i in range(400)]
    original = "".join(lines)
    uri = editor.open(original)
    emulator.enqueue(
        calls(
            replace("value_10 = 10\n", "value_10 = 1000\n"),
            replace("value_350 = 350\n", "value_350 = 35000\n"),
            done(),
        )
    )
    result = await editor.run(uri, "make two values bigger")
    expected = original.replace("value_10 = 10\n", "value_10 = 1000\n").replace(
        "value_350 = 350\n", "value_350 = 35000\n"
    )
    assert_success(result)
    assert editor.text(uri) == expected
    (record,) = editor.applies
    edits = record.edits[uri]
    assert len(edits) == 2, edits
    assert sum(e.end - e.start + len(e.new_text) for e in edits) < 40, edits


async def test_dry_run_returns_the_diff_and_applies_nothing(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("print(greet('world'))", "print(greet('you'))"), done()))
    result = await editor.run(uri, "greet you", dryRun=True)
    assert result["success"] is True, result
    assert not result.get("applied")
    assert "+print(greet('you'))" in result["diff"]
    assert "-print(greet('world'))" in result["diff"]
    assert result["turns"] == 1
    assert editor.applies == []
    assert editor.text(uri) == DOC
    # the server's copy was not touched either: a real run starts from the original text
    emulator.enqueue(calls(replace("print(greet('world'))", "print(greet('all'))"), done()))
    result = await editor.run(uri, "greet all")
    assert_success(result)
    assert "print(greet('world'))" in first_message(emulator.requests[1])
    assert editor.text(uri) == DOC.replace("'world'", "'all'")


async def test_unchanged_result_succeeds_without_an_edit(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(
        calls(replace("def greet", "def hello"), replace("def hello", "def greet"), done("nop"))
    )
    result = await editor.run(uri, "do nothing really")
    assert result["success"] is True, result
    assert not result.get("diff")
    assert editor.applies == [], "an empty edit was sent"
    assert editor.text(uri) == DOC


async def test_range_is_passed_to_the_model(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(done()))
    selection = {"start": {"line": 1, "character": 0}, "end": {"line": 4, "character": 0}}
    result = await editor.run(uri, "look at the selection", range=selection)
    assert result["success"] is True, result
    assert "lines 2-4" in first_message(emulator.requests[0])


async def test_progress_shows_each_turn_then_ends(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    known = editor.progress_tokens()
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("def greet", "def hello")))
    emulator.enqueue(replace_with_delay(calls(done("renamed it")), 0.4))
    result = await editor.run(uri, "rename greet to hello")
    assert_success(result)
    token = await editor.new_progress_token(known)
    reports = editor.client.progress_reports[token]
    begin, *middle, end = reports
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.cancellable is True
    assert isinstance(end, types.WorkDoneProgressEnd)
    messages = [r.message or "" for r in middle if isinstance(r, types.WorkDoneProgressReport)]
    assert messages[0].startswith("Turn 1/"), messages
    # While the model takes its time, the latest step shows (tool calls in between are
    # coalesced: at most one report per 100 ms), with the change so far and the last calls.
    waiting = "Turn 2/8 · +1 −1 lines · last turn: replace_text · waiting for the model…"
    assert waiting in messages, messages


async def test_progress_reports_are_coalesced_when_tools_run_fast(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    known = editor.progress_tokens()
    words = [f"item_{i:02d}_end" for i in range(40)]
    uri = editor.open("\n".join(words) + "\n")
    emulator.enqueue(calls(*(replace(w, w.upper()) for w in words), done("upper-cased")))
    result = await editor.run(uri, "upper-case every word")
    assert_success(result)
    assert result["toolCalls"] == 41
    token = await editor.new_progress_token(known)
    reports = editor.client.progress_reports[token]
    middle = [r for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert 1 <= len(middle) < 10, [r.message for r in middle]
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)


def replace_with_delay(reply: Reply, seconds: float) -> Reply:
    return dataclasses.replace(reply, delay=seconds)


async def test_client_without_apply_edit_gets_a_clear_failure_or_a_dry_run(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    bare = await make_editor("bare")
    uri = bare.open(DOC)
    result = await bare.run(uri, "rename greet")
    assert result["success"] is False, result
    assert result["reason"] == "invalid_request", result
    assert "dryRun" in result["error"]
    assert emulator.requests == [], "a model call was made although nothing could be applied"
    emulator.enqueue(calls(replace("def greet", "def hello"), done()))
    result = await bare.run(uri, "rename greet", dryRun=True)
    assert result["success"] is True, result
    assert "+def hello(name):" in result["diff"]
    assert bare.applies == []
    # no window.workDoneProgress: no progress was created
    assert bare.client.progress_reports == {}


async def test_client_without_configuration_or_progress(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    plain = await make_editor("no-config")
    uri = plain.open(DOC)
    emulator.enqueue(calls(replace("def greet", "def hello"), done()))
    result = await plain.run(uri, "rename greet")
    assert_success(result)
    assert plain.text(uri) == DOC.replace("def greet", "def hello")
    assert plain.client.progress_reports == {}


async def test_late_answer_within_the_timeout_is_a_success(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.behaviour.delay = 0.5
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("def greet", "def hello"), done()))
    result = await editor.run(uri, "rename greet")
    assert_success(result)
    assert editor.text(uri) == DOC.replace("def greet", "def hello")


async def test_neovim_like_lax_client_with_version_zero(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    editor.behaviour.versions = "lax"
    uri = editor.open(DOC, version=0)
    emulator.enqueue(calls(replace("def greet", "def hello"), done()))
    result = await editor.run(uri, "rename greet")
    assert_success(result)
    assert editor.text(uri) == DOC.replace("def greet", "def hello")
    # a second command on the echoed version works too
    emulator.enqueue(calls(replace("def hello", "def hi"), done()))
    result = await editor.run(uri, "rename hello")
    assert_success(result)
    assert editor.text(uri) == DOC.replace("def greet", "def hi")


async def test_model_and_turn_overrides_reach_the_model(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC)
    emulator.enqueue(calls(done()))
    result = await editor.run(uri, "nothing", model="gemini-test-override", maxTurns=3)
    assert result["success"] is True, result
    assert emulator.requests[0].model == "gemini-test-override"


async def test_several_documents_are_independent(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    first = editor.open("alpha = 1\n")
    second = editor.open("beta = 2\n")
    emulator.enqueue(calls(replace("beta = 2", "beta = 20"), done()))
    result = await editor.run(second, "bump beta")
    assert_success(result)
    assert editor.text(second) == "beta = 20\n"
    assert editor.text(first) == "alpha = 1\n"


async def test_long_single_line_document(vscode: EditorSession, emulator: GeminiEmulator) -> None:
    original = "x = [" + ", ".join(str(i) for i in range(50_000)) + "]\n"
    uri = vscode.open(original)
    emulator.enqueue(calls(replace(", 25000, ", ", 'middle', "), done()))
    result = await vscode.run(uri, "mark the middle")
    expected = original.replace(", 25000, ", ", 'middle', ")
    assert_success(result)
    assert vscode.text(uri) == expected
    (record,) = vscode.applies
    assert sum(e.end - e.start for e in record.edits[uri]) < 20


async def test_sequential_commands_on_one_document(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open("n = 0\n")
    for i in range(1, 6):
        emulator.enqueue(calls(replace(f"n = {i - 1}", f"n = {i}"), done()))
        result = await editor.run(uri, "increment")
        assert_success(result)
    assert editor.text(uri) == "n = 5\n"
    assert len(editor.applies) == 5
    assert [a.answer for a in editor.applies] == ["applied"] * 5
