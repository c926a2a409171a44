"""Issue 14 over LSP: a result that no longer parses never reaches the editor, and the answer
says what was checked (`validation`), from the document's languageId."""

from __future__ import annotations

import json

from tests.editor.checks import assert_success
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator

DOC = "function greet(name) {\n  return 'Hello, ' + name;\n}\n\nconsole.log(greet('world'));\n"


async def test_a_broken_result_is_refused_until_the_model_fixes_it(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC, language_id="javascript")
    emulator.enqueue(
        calls(replace("return 'Hello, ' + name;\n}", "return 'Hello, ' + name;\n"), done()),
        calls(replace("return 'Hello, ' + name;\n", "return `Hello, ${name}`;\n}"), done()),
    )
    result = await editor.run(uri, "use a template string")
    assert_success(result, turns=2)
    assert editor.text(uri) == DOC.replace("'Hello, ' + name;", "`Hello, ${name}`;")
    assert len(editor.applies) == 1
    assert result["validation"]["language"] == "javascript"
    assert result["validation"]["syntax"] == "ok"
    refusal = json.dumps(emulator.requests[1].contents)
    assert "NOT complete" in refusal
    assert "syntax error" in refusal


async def test_validation_off_lets_a_broken_result_through_and_says_so(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open(DOC, language_id="javascript")
    editor.client.set_configuration({"complexEdit": {"validate": "off"}})
    emulator.enqueue(calls(replace("greet('world'));", "greet('world');"), done()))
    result = await editor.run(uri, "drop a bracket")
    assert result["success"] is True, result
    assert result["validation"]["syntax"] == "skipped"
    assert editor.text(uri) == DOC.replace("greet('world'));", "greet('world');")


async def test_a_language_without_a_grammar_is_not_checked(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    uri = editor.open("a b c\n", uri=editor.new_uri(".txt"), language_id="plaintext")
    emulator.enqueue(calls(replace("b", "(("), done()))
    result = await editor.run(uri, "anything")
    assert result["success"] is True, result
    assert result["validation"]["syntax"] == "skipped"
    assert "plaintext" in result["validation"]["detail"]
