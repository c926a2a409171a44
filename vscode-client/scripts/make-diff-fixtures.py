"""Regenerates test/unit/fixtures/server-diffs.json from the server's own `unified_diff`.

Run from the repository root with the project's venv:
    .venv/bin/python vscode-client/scripts/make-diff-fixtures.py
"""

import json
import pathlib

from complex_edit.server.text.unified import unified_diff

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
    ("form feed and emoji", "def f():\n    return '😀'\n\x0c\nx = 1\n", "def f():\n    return '😀!'\n\x0c\nx = 2\n"),
    ("whole rewrite", "one\ntwo\n", "three\n"),
    ("leading spaces and diff-like text", " a\n-b\n+c\n@@ d\n", " a\n-B\n+c\n@@ d\n\\ e\n"),
]


def main() -> None:
    out = [
        {"name": name, "old": old, "new": new, "diff": unified_diff(old, new, "file.txt")}
        for name, old, new in CASES
    ]
    path = pathlib.Path(__file__).parent.parent / "test" / "unit" / "fixtures" / "server-diffs.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
