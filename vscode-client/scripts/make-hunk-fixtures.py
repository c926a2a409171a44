"""Regenerates test/unit/fixtures/server-hunks.json from the server's own hunks (the `hunks` of a
dry run or a review answer: `make_hunks` over `compute_edits`, positions in UTF-16).

Run from the repository root with the project's venv:
    .venv/bin/python vscode-client/scripts/make-hunk-fixtures.py
"""

import json
import pathlib

from complex_edit.server.text.diff import compute_edits
from complex_edit.server.text.hunks import make_hunks
from complex_edit.server.text.positions import LineIndex

LONG = "".join(f"line {i}\n" for i in range(1, 41))
CASES = [
    ("one line", "a\nb\nc\n", "a\nB\nc\n"),
    ("two hunks", LONG, LONG.replace("line 3\n", "line three\n").replace("line 30\n", "")),
    ("insert at start", "x\ny\n", "new\nx\ny\n"),
    ("append at end", "x\ny\n", "x\ny\nz\n"),
    ("from empty", "", "new\n"),
    ("to empty", "x\n", ""),
    ("drop final newline", "a\nb\n", "a\nb"),
    ("add final newline", "a\nb", "a\nb\n"),
    ("no final newline, middle change", "a\nb\nc", "a\nB\nc"),
    ("crlf", "a\r\nb\r\nc\r\n", "a\r\nB\r\nb2\r\nc\r\n"),
    ("lone cr", "a\rb\rc", "a\rB\rc"),
    (
        "form feed and emoji",
        "def f():\n    return '😀'\n\x0c\nx = 1\n",
        "def f():\n    return '😀!'\n\x0c\nx = 2\n",
    ),
    ("whole rewrite", "one\ntwo\n", "three\n"),
    ("leading spaces and diff-like text", " a\n-b\n+c\n@@ d\n", " a\n-B\n+c\n@@ d\n\\ e\n"),
]


def hunks(old: str, new: str) -> list[dict[str, object]]:
    index = LineIndex(old)

    def position(offset: int) -> dict[str, int]:
        line, character = index.line_character_of(offset, "utf-16")
        return {"line": line, "character": character}

    return [
        {
            "id": i,
            "range": {"start": position(h.start), "end": position(h.end)},
            "newText": h.new_text,
            "oldText": h.old_text,
        }
        for i, h in enumerate(make_hunks(old, compute_edits(old, new), "file.txt"))
    ]


def main() -> None:
    out = [
        {"name": name, "old": old, "new": new, "hunks": hunks(old, new)} for name, old, new in CASES
    ]
    path = pathlib.Path(__file__).parent.parent / "test" / "unit" / "fixtures" / "server-hunks.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
