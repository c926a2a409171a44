"""Assertions on the command's answers and on the edits the test editor received."""

from __future__ import annotations

import bisect
import subprocess
from pathlib import Path
from typing import Any

from tests.editor.session import EditorSession
from tests.fakes.lsp_positions import line_spans


def changed_region(old: str, new: str) -> tuple[int, int]:
    """[start, end) of `old` that differs from `new` (common prefix/suffix trimmed)."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, len(old) - suffix


def assert_git_applies(root: Path, diff: str, *, reverse: bool = False) -> None:
    """`git apply --check` run at `root` takes `diff` (`reverse`: the files already hold its
    result). An answer's diff names each document by its path from the workspace root."""
    assert diff, "no diff"
    command = ["git", "apply", "--check", *(["--reverse"] if reverse else [])]
    proc = subprocess.run(command, cwd=root, input=diff.encode("utf-8"), capture_output=True)
    assert proc.returncode == 0, (proc.stderr.decode("utf-8", "replace"), diff)


def assert_success(result: dict[str, Any], *, turns: int | None = None) -> None:
    assert result.get("success") is True, result
    assert result.get("applied") is True, result
    assert "reason" not in result, result
    assert "error" not in result, result
    assert isinstance(result.get("message"), str), result
    assert result["message"], result
    assert result.get("diff"), result
    assert result.get("turns", 0) >= 1, result
    assert result.get("toolCalls", 0) >= 1, result
    usage = result.get("usage")
    assert isinstance(usage, dict), result
    assert {"inputTokens", "outputTokens"} <= set(usage), result
    if turns is not None:
        assert result["turns"] == turns, result


def assert_failure(result: dict[str, Any], reason: str) -> None:
    assert result.get("success") is False, result
    assert result.get("reason") == reason, result
    assert isinstance(result.get("error"), str), result
    assert result["error"], result
    assert not result.get("applied"), result


def assert_minimal_edit(editor: EditorSession, uri: str, before: str, after: str) -> None:
    """Exactly one applyEdit with one document's edits, all inside the changed lines."""
    applied = [a for a in editor.applies if a.answer == "applied"]
    assert len(editor.applies) == 1, editor.applies
    assert len(applied) == 1, editor.applies
    record = applied[0]
    assert list(record.edits) == [uri], record.params
    if editor.kind == "vscode":
        assert record.params.edit.document_changes is not None
        assert len(record.params.edit.document_changes) == 1
    start, end = changed_region(before, after)
    spans = line_spans(before)
    starts = [s for s, _ in spans]
    first_line_start = spans[bisect.bisect_right(starts, start) - 1][0]
    last = bisect.bisect_right(starts, max(end, start)) - 1
    last_line_end = spans[last + 1][0] if last + 1 < len(spans) else len(before)
    for e in record.edits[uri]:
        outside = (
            f"edit {e} reaches outside the changed lines [{first_line_start}, {last_line_end})"
        )
        assert first_line_start <= e.start, outside
        assert e.end <= last_line_end, outside
    if len(before) > 200:
        touched = sum(e.end - e.start for e in record.edits[uri])
        assert touched < len(before) // 2, "a local change was sent as a whole-document edit"
