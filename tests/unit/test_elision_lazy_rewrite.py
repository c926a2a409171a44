"""Issue 30 item 4: a lazy whole-document rewrite keeps a class's first line, puts one
placeholder, then restates every later member with small changes; the kept block (a
constructor) ends at a blank line before the first restated member. When both ends are pinned
unambiguously the placeholder is expanded; when it could stand for more than one span, it is
refused as before."""

from __future__ import annotations

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome

ORIGINAL = """class Store:
    def __init__(self, path):
        self.path = path

        self.items = {}
        self.dirty = False

    def load(self):
        return read(self.path)

    def save(self):
        write(self.path, self.items)
"""

LAZY = """class Store:
    # ... existing code ...

    def load(self, strict=False):
        return read(self.path, strict)

    def save(self):
        write(self.path, self.items)
        self.saved = True
"""

EXPECTED = """class Store:
    def __init__(self, path):
        self.path = path

        self.items = {}
        self.dirty = False

    def load(self, strict=False):
        return read(self.path, strict)

    def save(self):
        write(self.path, self.items)
        self.saved = True
"""


def run(text: str, name: str, **args: str) -> tuple[str, ToolOutcome]:
    toolbox = Toolbox(text)
    outcome = toolbox.execute(name, args)
    return toolbox.text, outcome


def test_a_lazy_rewrite_by_replace_text_keeps_the_elided_constructor() -> None:
    text, outcome = run(ORIGINAL, "replace_text", old_text=ORIGINAL, new_text=LAZY)
    assert outcome.ok, outcome.response
    assert text == EXPECTED
    assert "elision_expanded" in outcome.adjustments
    assert "stood for lines 2-6" in outcome.response["result"]


def test_a_lazy_rewrite_by_set_document_keeps_the_elided_constructor() -> None:
    text, outcome = run(ORIGINAL, "set_document", content=LAZY)
    assert outcome.ok, outcome.response
    assert text == EXPECTED


def test_other_comment_syntax_and_placeholder_forms() -> None:
    original = ORIGINAL.replace("    def", "    fn").replace("self.", "this.")
    lazy = LAZY.replace("    def", "    fn").replace("self.", "this.")
    lazy = lazy.replace("# ... existing code ...", "// (rest of constructor unchanged ...)")
    text, outcome = run(original, "set_document", content=lazy)
    assert outcome.ok, outcome.response
    assert text == EXPECTED.replace("    def", "    fn").replace("self.", "this.")


def test_near_miss_a_restated_member_that_reads_as_several_is_refused() -> None:
    original = ORIGINAL.replace("    def save(self):", "    def load2(self):")
    lazy = LAZY.replace("    def save(self):", "    def load2(self):")
    lazy = lazy.replace("def load(self, strict=False):", "def loadx(self):")
    text, outcome = run(original, "set_document", content=lazy)
    assert not outcome.ok
    assert outcome.refusal == "elision_refused"
    assert text == original


def test_near_miss_without_a_blank_line_after_the_placeholder_is_refused() -> None:
    lazy = LAZY.replace("# ... existing code ...\n\n", "# ... existing code ...\n")
    text, outcome = run(ORIGINAL, "set_document", content=lazy)
    assert not outcome.ok
    assert text == ORIGINAL


def test_near_miss_a_first_line_that_occurs_twice_is_refused() -> None:
    original = ORIGINAL + "\n\nclass Store:\n    pass\n"
    lazy = LAZY + "\n\nclass Store:\n    pass\n"
    text, outcome = run(original, "set_document", content=lazy)
    assert not outcome.ok
    assert text == original


def test_near_miss_blank_lines_that_the_original_lacks_there_are_refused() -> None:
    original = ORIGINAL.replace("        self.dirty = False\n\n", "        self.dirty = False\n")
    text, outcome = run(original, "set_document", content=LAZY)
    assert not outcome.ok
    assert text == original


def test_near_miss_a_line_of_the_span_that_reappears_elsewhere_is_refused() -> None:
    lazy = LAZY.replace("        self.saved = True\n", "        self.dirty = False\n")
    text, outcome = run(ORIGINAL, "set_document", content=lazy)
    assert not outcome.ok
    assert "elsewhere" in outcome.response["error"] or "unclear" in outcome.response["error"]
    assert text == ORIGINAL
