"""Issue 22 item 1 and issue 20 item 3 through the whole loop: the Gemini emulator sends, as
Gemini models do, a replace_text escaped one time too many (`\\n`, `\\"` in the arguments'
text) and a new_text written with CRLF into an LF document; the real google-genai SDK decodes
them, the session runs them, and the intended text lands, the model told what was adapted."""

from __future__ import annotations

from complex_edit.server.session.events import ToolFinished
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.session.conftest import RunFn
from tests.session.scripts import GeminiHarness, calls, done, replace

DOC = (
    "def greet(name):\n"
    '    print("hello", name)\n'
    "    return name\n"
    "\n"
    "\n"
    "def part(total, count):\n"
    "    return total / count\n"
)


def over_escaped(text: str) -> str:
    """What an over-escaping model puts in the argument's text."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


async def test_over_escaped_and_crlf_calls_land_the_intended_text(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    model = GeminiHarness(emulator)
    old = 'def greet(name):\n    print("hello", name)'
    new = 'def greet(name):\n    print("hello, world", name)'
    model.script(
        calls(
            replace(over_escaped(old), over_escaped(new)),
            replace(
                "    return total / count\n",
                "    if not count:\r\n        return 0\r\n    return total / count\r\n",
            ),
        ),
        calls(done("greet the world and guard the division")),
    )
    outcome, _ = await run(DOC, "greet the world; guard the division")
    assert outcome.success, outcome.error
    assert outcome.turns == 2
    assert outcome.final_text == (
        "def greet(name):\n"
        '    print("hello, world", name)\n'
        "    return name\n"
        "\n"
        "\n"
        "def part(total, count):\n"
        "    if not count:\n"
        "        return 0\n"
        "    return total / count\n"
    )
    escaped, endings = model.results(1)
    assert "escaped one time too many" in escaped.text
    assert "CRLF line breaks were written as LF" in endings.text
    assert outcome.integrity["escapes"] == 1
    assert outcome.integrity["line_endings"] == 1


async def test_an_escaped_whole_document_is_read_back(run: RunFn, emulator: GeminiEmulator) -> None:
    model = GeminiHarness(emulator)
    content = over_escaped(DOC.replace("hello", "hi"))
    assert "\n" not in content
    model.script(calls(("set_document", {"content": content}), done()))
    outcome, events = await run(DOC, "say hi")
    assert outcome.success, outcome.error
    assert outcome.turns == 1
    assert outcome.final_text == DOC.replace("hello", "hi")
    (finished,) = [e for e in events if isinstance(e, ToolFinished) and e.name == "set_document"]
    assert finished.ok
    assert finished.adjustments == ("escapes",)


async def test_escapes_mixed_with_raw_quotes_are_refused_then_fixed(
    run: RunFn, emulator: GeminiEmulator
) -> None:
    model = GeminiHarness(emulator)
    model.script(
        calls(replace('print(\\"hello\\", name)', 'print("hi", name)'), done()),
        calls(replace('print("hello", name)', 'print("hi", name)'), done()),
    )
    outcome, _ = await run(DOC, "say hi")
    assert outcome.success, outcome.error
    assert outcome.turns == 2
    refusal, completion = model.results(1)
    assert refusal.is_error is not False
    assert "without escaping them" in refusal.text
    assert "NOT complete" in completion.text
    assert outcome.final_text == DOC.replace("hello", "hi")
