"""One document of a session's result (`DocumentResult`): what the edit flow applies to it, as
the session computed it where it ran (in the language server's session process: off its event
loop)."""

from __future__ import annotations

from dataclasses import dataclass

from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.unified import unified_diff


@dataclass(frozen=True)
class DocumentResult:
    """One document of a session's result: `label` heads its diff (its path from the
    workspace root, else its path as given), `path` is absolute (None: the command's document
    when it is no file), `original` the text the session started it from (`version`: the
    editor buffer's version then; None from disk, or the command's document, whose snapshot
    the edit flow holds), `diff` its unified diff (`a/` and `b/` headers), `changes` the
    minimal changes from `original` to the result."""

    label: str
    original: str
    diff: str
    changes: tuple[TextChange, ...]
    path: str | None = None
    version: int | None = None

    @classmethod
    def to(
        cls,
        original: str,
        target: str,
        label: str,
        path: str | None = None,
        version: int | None = None,
    ) -> DocumentResult:
        """The change of `original` into `target`."""
        changes = tuple(compute_edits(original, target))
        return cls(label, original, unified_diff(original, target, label), changes, path, version)

    def target(self) -> str:
        """The result: `changes` applied to `original`."""
        return apply_changes(self.original, self.changes)
