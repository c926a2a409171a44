"""Syntax validation (issue 14, part 3): `edit_tools.syntax`.

Per-language valid and broken samples, new versus pre-existing errors, incremental checks
equal to full ones (property), code points versus UTF-8 bytes, and the model's message.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tree_sitter import Parser
from tree_sitter_language_pack import get_language

from complex_edit.edit_tools.syntax import (
    SyntaxCheck,
    Validation,
    grammar_for,
    language_for_path,
    render_problems,
)
from complex_edit.edit_tools.syntax.checker import MAX_ORIGINAL_ERRORS, MAX_REPORTED, Feeder, parse
from complex_edit.edit_tools.syntax.offsets import (
    ByteCursor,
    common_prefix,
    common_suffix,
    edit_from_diff,
    edits_from_changes,
    encode,
    skip_chars,
)

# language: (valid text, broken text, 1-based line of the first new error)
SAMPLES: dict[str, tuple[str, str, int]] = {
    "python": (
        "def f(x):\n    return x + 1\n\n\nclass A:\n    y = [1, 2]\n",
        "def f(x):\n    return x + 1\n\n\nclass A:\n    y = [1, 2\n",
        6,
    ),
    "javascript": (
        "function f(x) {\n  return x + 1;\n}\nconst o = { a: [1, 2] };\n",
        "function f(x) {\n  return x + ;\n}\nconst o = { a: [1, 2] };\n",
        2,
    ),
    "typescript": (
        "function f(x: number): number {\n  return x + 1;\n}\n",
        "function f(x: number): number {\n  return x +;\n}\n",
        2,
    ),
    "tsx": (
        'const App = () => <div className="a">{x}</div>;\n',
        'const App = () => <div className="a">{x</div>;\n',
        1,
    ),
    "json": (
        '{\n  "a": [1, 2],\n  "b": {"c": null}\n}\n',
        '{\n  "a": [1, 2],\n  "b": {"c" null}\n}\n',
        3,
    ),
    "jsonc": (
        '{\n  // comment\n  "a": [1, 2,],\n}\n',
        '{\n  // comment\n  "a": [1, 2,],\n  "b": [1 2]\n}\n',
        4,
    ),
    "go": (
        "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n",
        "package main\n\nfunc main() {\n\tx := 1\n\t_ = x +\n}\n",
        5,
    ),
    "rust": (
        'fn main() {\n    let x = 1;\n    println!("{}", x);\n}\n',
        'fn main() {\n    let x = ;\n    println!("{}", x);\n}\n',
        2,
    ),
    "java": (
        "class A {\n    int f() { return 1; }\n}\n",
        "class A {\n    int f() { return 1 }\n}\n",
        2,
    ),
    "c": (
        "int main(void) {\n    int x = 1;\n    return x;\n}\n",
        "int main(void) {\n    int x = 1\n    return x;\n}\n",
        2,
    ),
    "cpp": (
        "template <typename T>\nT id(T x) {\n    return x;\n}\n",
        "template <typename T>\nT id(T x) {\n    return x;\n",
        3,
    ),
    "csharp": (
        "class A {\n    int F() { return 1; }\n}\n",
        "class A {\n    int F() { return 1 }\n}\n",
        2,
    ),
    "ruby": (
        "def f(x)\n  x + 1\nend\n",
        "def f(x)\n  x + 1)\nend\n",
        2,
    ),
    "php": (
        "<?php\nfunction f($x) {\n    return $x + 1;\n}\n",
        "<?php\nfunction f($x) {\n    return $x + ;\n}\n",
        3,
    ),
    "lua": (
        "local function f(x)\n  return x + 1\nend\n",
        "local function f(x)\n  return x + \nend\n",
        3,
    ),
    "bash": (
        'if [ -n "$x" ]; then\n  echo hi\nfi\n',
        'if [ -n "$x" ]; then\n  echo hi\n',
        2,
    ),
    "html": (
        '<!DOCTYPE html>\n<html><body><p class="a">hi</p></body></html>\n',
        '<!DOCTYPE html>\n<html><body><p class="a>hi</p></body></html>\n',
        2,
    ),
    "css": (
        "a { color: red; }\n.b > c { margin: 0 auto; }\n",
        "a { color: red; }\n.b > c { margin: 0 auto; \n",
        2,
    ),
    "yaml": (
        "a: 1\nb:\n  - x\n  - y\n",
        "a: 1\nb: [x, y\n",
        1,
    ),
    "toml": (
        '[a]\nb = 1\nc = "x"\n',
        "[a]\nb = 1\nc = \n",
        3,
    ),
}


def check(original: str, language: str) -> SyntaxCheck:
    return SyntaxCheck.start(original, language)


# ------------------------------------------------------------------------------------------
# Languages
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_valid_sample_is_ok(language: str) -> None:
    valid, _, _ = SAMPLES[language]
    checker = check(valid, language)
    assert checker.original_errors == 0
    assert checker.check(valid).syntax == "ok"
    assert checker.check(valid + "\n").syntax == "ok"


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_broken_sample_reports_the_new_error(language: str) -> None:
    valid, broken, line = SAMPLES[language]
    validation = check(valid, language).check(broken)
    assert validation.syntax == "errors"
    assert validation.language == language
    assert validation.count >= 1
    first = validation.errors[0]
    assert first.line == line
    assert first.text == broken.splitlines()[line - 1]
    assert first.problem


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_broken_sample_as_snapshot_never_blocks_itself(language: str) -> None:
    _, broken, _ = SAMPLES[language]
    checker = check(broken, language)
    assert checker.original_errors >= 1
    validation = checker.check(broken + "\n")
    assert validation.syntax == "ok"
    assert validation.preexisting >= 1


@pytest.mark.parametrize(
    ("language_id", "grammar"),
    [
        ("python", "python"),
        ("javascript", "javascript"),
        ("javascriptreact", "javascript"),
        ("typescript", "typescript"),
        ("typescriptreact", "tsx"),
        ("json", "json"),
        ("jsonc", "jsonc"),
        ("go", "go"),
        ("rust", "rust"),
        ("java", "java"),
        ("c", "c"),
        ("cpp", "cpp"),
        ("csharp", "csharp"),
        ("cs", "csharp"),
        ("ruby", "ruby"),
        ("php", "php"),
        ("lua", "lua"),
        ("shellscript", "bash"),
        ("sh", "bash"),
        ("html", "html"),
        ("css", "css"),
        ("yaml", "yaml"),
        ("toml", "toml"),
        ("markdown", "markdown"),
        ("Python", "python"),
        ("plaintext", None),
        ("zsh", None),
        ("", None),
        (None, None),
    ],
)
def test_language_ids_map_to_grammars(language_id: str | None, grammar: str | None) -> None:
    assert grammar_for(language_id) == grammar


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a/b.py", "python"),
        ("x.tsx", "tsx"),
        ("x.ts", "typescript"),
        ("x.mjs", "javascript"),
        ("x.jsx", "javascript"),
        ("X.H", "cpp"),
        ("main.c", "c"),
        ("tsconfig.json", "jsonc"),
        ("tsconfig.esm.json", "jsonc"),
        ("package.json", "json"),
        ("Gemfile", "ruby"),
        ("run.sh", "bash"),
        ("a.yml", "yaml"),
        ("Cargo.toml", "toml"),
        ("README.md", "markdown"),
        ("notes.txt", None),
        ("Makefile", None),
    ],
)
def test_file_names_map_to_grammars(path: str, language: str | None) -> None:
    assert language_for_path(path) == language


@pytest.mark.parametrize("language", [None, "plaintext", "zsh"])
def test_unknown_language_is_skipped(language: str | None) -> None:
    checker = SyntaxCheck.start("a = (\n", language)
    validation = checker.check("b = ((((\n")
    assert validation == Validation(language=language, syntax="skipped", detail=validation.detail)
    assert validation.detail
    assert checker.language == language


def test_skipping_says_why() -> None:
    validation = SyntaxCheck.skipping("python", "validation is off").check("(((")
    assert validation.syntax == "skipped"
    assert validation.detail == "validation is off"


def test_markdown_is_recognised_but_not_checked() -> None:
    # Any text is valid Markdown; the grammar's errors are quirks ("# hi" without a final
    # newline is an error for it).
    validation = check("# Title\n\nText.\n", "markdown").check("# Title\n\nText.\n\n# hi")
    assert validation.language == "markdown"
    assert validation.syntax == "skipped"
    assert "CommonMark" in (validation.detail or "")


@pytest.mark.parametrize(
    "trailing",
    [
        '{"a": [1, 2,],}\n',
        '{"a": [1, 2, // two\n],\n}\n',
        '{"a": [1, 2], /* c */ }\n',
        '{"a": [1,\n  2,\n],\n "b": 3,\n}\n',
    ],
)
def test_jsonc_allows_trailing_commas_and_json_does_not(trailing: str) -> None:
    original = '{"a": [1, 2]}\n'
    assert check(original, "jsonc").check(trailing).syntax == "ok"
    assert check(original, "json").check(trailing).syntax == "errors"


def test_jsonc_still_refuses_other_commas() -> None:
    original = '{"a": [1, 2]}\n'
    assert check(original, "jsonc").check('{"a": [1, 2,],,}\n').syntax == "errors"
    assert check(original, "jsonc").check('{"a": [1,, 2]}\n').syntax == "errors"
    assert check(original, "jsonc").check('{"a": [, 1]}\n').syntax == "errors"


@pytest.mark.parametrize("language", ["json", "jsonc"])
def test_json_exponents_with_a_plus_are_valid(language: str) -> None:
    # The JSON grammar rejects `1e+5`, which RFC 8259 allows.
    checker = check('{"x": 1}\n', language)
    assert checker.check('{"x": 1e+5, "y": [0.5E+10, -2e-3]}\n').syntax == "ok"
    assert checker.check('{"x": 1e+}\n').syntax == "errors"
    assert checker.check('{"x": e+5}\n').syntax == "errors"


def test_an_original_beyond_the_error_limit_is_skipped() -> None:
    broken = "def f(:\n    pass\n" * (MAX_ORIGINAL_ERRORS + 1)
    checker = check(broken, "python")
    validation = checker.check(broken + "(((\n")
    assert validation.syntax == "skipped"
    assert "syntax errors" in (validation.detail or "")


# ------------------------------------------------------------------------------------------
# New versus pre-existing errors
# ------------------------------------------------------------------------------------------

BROKEN_PY = "import os\n\ndef f(:\n    pass\n\n\ndef g(x):\n    return x\n"


def test_preexisting_error_with_an_edit_elsewhere_is_ok() -> None:
    checker = check(BROKEN_PY, "python")
    assert checker.original_errors == 1
    edited = "import os\nimport sys\n\n\n" + BROKEN_PY[len("import os\n") :].replace(
        "return x", "return x * 2"
    )
    validation = checker.check(edited)
    assert validation.syntax == "ok"
    assert validation.preexisting == 1


def test_preexisting_error_on_a_renamed_line_is_ok() -> None:
    checker = check(BROKEN_PY, "python")
    assert checker.check(BROKEN_PY.replace("def f(:", "def renamed(:")).syntax == "ok"


def test_preexisting_error_reshaped_by_an_edit_on_its_line_is_ok() -> None:
    # An unknown macro: the C grammar reports an error, whose shape changes when a name on
    # its line changes. The error's lines are followed through the edits.
    original = "int f(void) {\n    __vector unsigned int v_z4 = vsx_ld(0, z4);\n    return 0;\n}\n"
    checker = check(original, "c")
    assert checker.original_errors == 1
    shifted = "#include <a.h>\n\n" + original
    assert checker.check(shifted, [(0, 0, "#include <a.h>\n\n")]).syntax == "ok"
    reshaped = shifted.replace("unsigned int v_z4", "unsigned int_x v_z4")
    validation = checker.check(reshaped)
    assert validation.syntax == "ok"
    assert validation.preexisting == 1
    # Errors on the broken lines are theirs, not errors elsewhere.
    broken = reshaped.replace("return 0;", "return 0")
    assert checker.check(broken).syntax == "errors"


def test_fixing_a_preexisting_error_is_ok() -> None:
    validation = check(BROKEN_PY, "python").check(BROKEN_PY.replace("f(:", "f():"))
    assert validation == Validation(language="python", syntax="ok")


def test_new_error_beside_a_preexisting_one_is_reported_alone() -> None:
    checker = check(BROKEN_PY, "python")
    validation = checker.check(BROKEN_PY.replace("return x", "return (x"))
    assert validation.syntax == "errors"
    assert validation.count == 1
    assert validation.preexisting == 1
    assert validation.errors[0].line == 8
    assert validation.errors[0].text == "    return (x"


def test_a_second_error_like_the_preexisting_one_is_new() -> None:
    checker = check(BROKEN_PY, "python")
    validation = checker.check(BROKEN_PY + "\n\ndef h(:\n    pass\n")
    assert validation.syntax == "errors"
    assert [problem.line for problem in validation.errors] == [11]


def test_errors_are_compared_with_the_snapshot_not_the_last_check() -> None:
    valid = "def f(x):\n    return x\n"
    checker = check(valid, "python")
    broken = valid.replace("return x", "return (x")
    assert checker.check(broken).syntax == "errors"
    # Still new on the next check: the baseline is the snapshot.
    assert checker.check(broken + "\n").syntax == "errors"
    assert checker.check(valid).syntax == "ok"


def test_reported_errors_are_capped_and_counted() -> None:
    valid = "".join(f"def f{i}():\n    pass\n" for i in range(60))
    broken = "".join(f"def f{i}(:\n    pass\n" for i in range(60))
    validation = check(valid, "python").check(broken)
    assert validation.syntax == "errors"
    assert len(validation.errors) == MAX_REPORTED
    assert validation.count > MAX_REPORTED


# ------------------------------------------------------------------------------------------
# Changes, code points and bytes
# ------------------------------------------------------------------------------------------


def test_changes_given_or_found_give_the_same_verdict() -> None:
    original = 'a = "😀"\r\nb = [1,\r\n     2]\r\nc = 3\r\n'
    start = original.index("2]")
    new_text = original[:start] + "2" + original[start + 2 :]
    with_changes = check(original, "python").check(new_text, [(start, start + 2, "2")])
    found = check(original, "python").check(new_text)
    full = check(original, "python").check(new_text, incremental=False)
    assert with_changes == found == full
    assert with_changes.syntax == "errors"
    assert with_changes.errors[0].line == 2


def test_line_and_column_count_characters_after_emoji_and_crlf() -> None:
    original = 's = "😀😀é"\r\nt = 1\r\n'
    new_text = 's = "😀😀é"; u = (\r\nt = 1\r\n'
    validation = check(original, "python").check(new_text, [(9, 9, "; u = (")])
    assert validation.syntax == "errors"
    problem = validation.errors[0]
    assert problem.line == 1
    assert problem.text == 's = "😀😀é"; u = ('
    assert 12 <= problem.column <= len(problem.text) + 1


def test_lone_carriage_returns_count_as_line_breaks() -> None:
    original = "a = 1;\rb = 2;\rc = 3;\r"
    validation = check(original, "javascript").check("a = 1;\rb = (2;\rc = 3;\r")
    assert validation.syntax == "errors"
    assert (validation.errors[0].line, validation.errors[0].text) == (2, "b = (2;")


def test_lone_surrogates_do_not_break_the_check() -> None:
    original = 's = "\ud800"\n'
    checker = check(original, "python")
    assert checker.check('s = "\ud800x"\n', [(6, 6, "x")]).syntax == "ok"


def test_changes_that_do_not_produce_the_text_are_refused_and_harmless() -> None:
    checker = check("a = 1\nb = 2\n", "python")
    with pytest.raises(ValueError, match="do not turn"):
        checker.check("a = 1\nb = 3\n", [(0, 1, "z")])
    with pytest.raises(ValueError, match="ascending"):
        checker.check("a = 1\nb = 2\n", [(4, 5, "1"), (0, 1, "a")])
    with pytest.raises(ValueError, match="past the end"):
        checker.check("a = 1\nb = 2\n", [(12, 40, "")])
    assert checker.check("a = 1\nb = (\n", [(10, 11, "(")]).syntax == "errors"
    assert checker.check("a = 1\nb = 2\n").syntax == "ok"


def test_byte_cursor_and_skip_chars_agree_with_utf8() -> None:
    text = "a😀b\r\né\ud800c"
    data = encode(text)
    cursor = ByteCursor(text)
    for chars in range(len(text) + 1):
        assert cursor.at(chars) == len(encode(text[:chars]))
    for start in range(len(text) + 1):
        for count in range(len(text) - start + 1):
            begin = len(encode(text[:start]))
            assert skip_chars(data, begin, count, False) == len(encode(text[: start + count]))


def test_byte_conversions_across_blocks_of_a_long_text() -> None:
    text = "".join(f"line {i} é😀\ud800\r\n" for i in range(20_000))  # ~280,000 characters
    data = encode(text)
    assert data == text.encode("utf-8", "surrogatepass")  # encoded in blocks
    cursor = ByteCursor(text)
    for chars in (0, 65_535, 65_536, 65_537, 200_001, len(text)):
        assert cursor.at(chars) == len(encode(text[:chars]))
    for start, count in ((0, 200_000), (70_001, 65_536), (3, len(text) - 3)):
        begin = len(encode(text[:start]))
        assert skip_chars(data, begin, count, False) == len(encode(text[: start + count]))
    with pytest.raises(ValueError, match="past the end"):
        skip_chars(data, 0, len(text) + 1, False)


def test_edits_carry_byte_offsets_and_points() -> None:
    old_text = "x😀\nab\n"
    new_text = "x😀\na🙂🙂b\n"
    old, new = encode(old_text), encode(new_text)
    (edit,) = edits_from_changes(old, False, new_text, new, [(4, 4, "🙂🙂")])
    assert (edit.start_byte, edit.old_end_byte, edit.new_end_byte) == (7, 7, 15)
    assert edit.start_point == (1, 1)
    assert edit.old_end_point == (1, 1)
    assert edit.new_end_point == (1, 9)
    assert edit_from_diff(old, new) == edit
    assert edit_from_diff(old, old) is None


def test_diff_edit_stays_on_character_boundaries() -> None:
    old, new = encode("é"), encode("è")  # c3 a9 / c3 a8: the first byte is shared
    edit = edit_from_diff(old, new)
    assert edit is not None
    assert (edit.start_byte, edit.old_end_byte, edit.new_end_byte) == (0, 2, 2)


def test_common_prefix_and_suffix_over_blocks() -> None:
    a = b"x" * 200_000 + b"A" + b"y" * 100_000
    b = b"x" * 200_000 + b"BB" + b"y" * 100_000
    assert common_prefix(a, b) == 200_000
    assert common_suffix(a, b, len(a) - 200_000) == 100_000


def test_a_check_keeps_no_text_alive_but_its_own_bytes() -> None:
    text = "def f(x):\n    return [x, 'é😀']\n\n\n" * 40_000  # ~1.3 MB, parsed in blocks
    tracemalloc.start()
    try:
        checker = SyntaxCheck.start(text, "python", keep_tree=False)
        for _ in range(3):
            assert checker.check(text + "x = 1\n").syntax == "ok"
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # The parser's own scratch memory (~0.3 MB) stays; no copy of the text (1.5 MB) does.
    assert held < len(encode(text)) // 3


@given(st.integers(0, 12), st.sampled_from(["é", "😀", "\r\n", "\u4e2d"]))
def test_blocks_cut_inside_characters_parse_like_the_whole_text(shift: int, char: str) -> None:
    line = f"s = 1  # {char * 7}\n"
    text = "x" * shift + "\n" + line * (3 * 16384 // len(encode(line)))
    data = encode(text)
    parser = Parser(get_language("python"))
    blocks = parse(parser, data, None, Feeder())
    whole = parse(parser, data)
    assert str(blocks.root_node) == str(whole.root_node)
    assert not blocks.root_node.has_error


# ------------------------------------------------------------------------------------------
# Incremental equals full (property)
# ------------------------------------------------------------------------------------------

PY_FILE = '''import os


def area(width: int, height: int = 2) -> int:
    """Rectangle "area" 😀."""
    total = [width * height for _ in range(3)]
    return sum(total) if total else {"k": (1, 2)}[0]


class Shape:
    def __init__(self, name):
        self.name = name  # é
'''

JS_FILE = """import { a } from "./a.js";\r
\r
export function area(width, height = 2) {\r
  const total = [width * height, ...a];\r
  return total.length ? `x${total[0]}😀` : { k: (1, 2) };\r
}\r
\r
class Shape {\r
  constructor(name) { this.name = name; }\r
}\r
"""

PIECES = st.sampled_from(
    [
        *"()[]{}:,;\"'`=#\\xé😀",
        "\n",
        "\r\n",
        "    ",
        "def ",
        "return ",
        "if ",
        "//",
        "/*",
        "*/",
        "...",
    ]
)


@st.composite
def edit_batches(draw: st.DrawFn, text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """A few ascending, non-overlapping changes to `text`, and the text they give."""
    points = sorted(draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=8)))
    changes: list[tuple[int, int, str]] = []
    for start, end in zip(points[::2], points[1::2], strict=False):
        if end - start > 40:
            end = start + draw(st.integers(0, 40))
        inserted = "".join(draw(st.lists(PIECES, max_size=4)))
        changes.append((start, end, inserted))
    pieces, previous = [], 0
    for start, end, inserted in changes:
        pieces += [text[previous:start], inserted]
        previous = end
    pieces.append(text[previous:])
    return "".join(pieces), changes


@st.composite
def sessions(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, list[tuple[int, int, str]]]]]:
    language, original = draw(st.sampled_from([("python", PY_FILE), ("javascript", JS_FILE)]))
    steps, text = [], original
    for _ in range(draw(st.integers(1, 3))):
        text, changes = draw(edit_batches(text))
        steps.append((text, changes))
    return language, original, steps


@given(sessions())
def test_incremental_check_equals_a_full_check(
    session: tuple[str, str, list[tuple[str, list[tuple[int, int, str]]]]],
) -> None:
    language, original, steps = session
    incremental = SyntaxCheck.start(original, language)
    found = SyntaxCheck.start(original, language)
    for new_text, changes in steps:
        expected = SyntaxCheck.start(original, language).check(new_text, incremental=False)
        assert incremental.check(new_text, changes) == expected
        assert found.check(new_text) == expected


@given(sessions())
def test_incremental_tree_equals_a_full_parse(
    session: tuple[str, str, list[tuple[str, list[tuple[int, int, str]]]]],
) -> None:
    """Below the checker's confirmation: the raw incremental tree, where it has no errors,
    is the tree of a full parse (byte offsets and points were right)."""
    language, original, steps = session
    checker = SyntaxCheck.start(original, language)
    for new_text, changes in steps:
        checker.check(new_text, changes)
        parsed = checker._parsed
        assert parsed is not None
        assert parsed.tree is not None
        full = parse(parsed.parser, encode(new_text))
        if not full.root_node.has_error:
            assert str(parsed.tree.root_node) == str(full.root_node)
            assert parsed.tree.root_node.end_point == full.root_node.end_point


# ------------------------------------------------------------------------------------------
# The model's message
# ------------------------------------------------------------------------------------------


def test_message_lists_lines_and_what_is_wrong() -> None:
    validation = check("def f(x):\n    return x\n", "python").check(
        "def f(x):\n    return f(x, 2\n"
    )
    message = render_problems(validation)
    assert message.startswith("The text has 1 syntax error that the original did not have")
    assert "line 2" in message
    assert "return f(x, 2" in message


def test_message_is_capped() -> None:
    valid = "".join(f"def f{i}():\n    pass\n" for i in range(40))
    broken = "".join(f"def f{i}(:\n    pass\n" for i in range(40))
    validation = check(valid, "python").check(broken)
    lines = render_problems(validation, limit=10).splitlines()
    assert len(lines) == 1 + 10 + 1
    assert lines[-1] == f"- … and {validation.count - 10} more"


def test_message_is_empty_without_new_errors() -> None:
    assert render_problems(check("x = 1\n", "python").check("x = 2\n")) == ""
    assert render_problems(SyntaxCheck.start("x", None).check("y")) == ""
