"""Which checkers a document gets: the `checkers` setting resolved for a language.

`"auto"` takes, for each kind of check of a language, the first of a short known list found on
`PATH` or beside the running Python (the server's own environment: `ruff` and `basedpyright`
install their executables there). A list names its checkers itself; a command that is not
found makes a checker `missing` (a line in the answer, never a failed edit).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from complex_edit.server.settings import Settings

TYPESCRIPT = ("typescript", "typescriptreact", "javascript", "javascriptreact")
# (kind, languages, candidates: (name, argv) in the order tried).
KNOWN: tuple[tuple[str, tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]], ...] = (
    ("lint", ("python",), (("ruff", ("ruff", "server")),)),
    (
        "types",
        ("python",),
        (
            ("basedpyright", ("basedpyright-langserver", "--stdio")),
            ("pyright", ("pyright-langserver", "--stdio")),
        ),
    ),
    (
        "types",
        TYPESCRIPT,
        (("typescript-language-server", ("typescript-language-server", "--stdio")),),
    ),
    ("types", ("go",), (("gopls", ("gopls",)),)),
    ("types", ("rust",), (("rust-analyzer", ("rust-analyzer",)),)),
    ("types", ("c", "cpp"), (("clangd", ("clangd",)),)),
)
_SUFFIXES = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
}
_ALIASES = {"py": "python", "ts": "typescript", "js": "javascript", "tsx": "typescriptreact"}


@dataclass(frozen=True)
class Checker:
    """A checker to run: `argv[0]` resolved to a path (None: not found, `missing`)."""

    name: str
    languages: tuple[str, ...]
    argv: tuple[str, ...]
    options: Any = None
    found: bool = True


def language_id(path: str | None, language: str | None = None) -> str | None:
    """The LSP languageId of a document: by its file's suffix, else the language given (an
    editor's languageId or filetype)."""
    if path:
        by_suffix = _SUFFIXES.get(os.path.splitext(path)[1].lower())
        if by_suffix is not None:
            return by_suffix
    if language:
        lowered = language.lower()
        return _ALIASES.get(lowered, lowered)
    return None


def _which(command: str, env: Mapping[str, str]) -> str | None:
    """`command` on `PATH`, else beside the running Python (the server's environment)."""
    found = shutil.which(command, path=env.get("PATH", os.defpath))
    if found is not None:
        return found
    beside = os.path.join(os.path.dirname(sys.executable), command)
    return beside if os.access(beside, os.X_OK) and os.path.isfile(beside) else None


def auto_checkers(env: Mapping[str, str]) -> list[Checker]:
    """What `"auto"` finds, every language: the first found of each kind."""
    found: list[Checker] = []
    for _kind, languages, candidates in KNOWN:
        for name, argv in candidates:
            path = _which(argv[0], env)
            if path is not None:
                options = _typescript_options(path) if languages == TYPESCRIPT else None
                found.append(Checker(name, languages, (path, *argv[1:]), options))
                break
    return found


def configured(settings: Settings, env: Mapping[str, str]) -> list[Checker]:
    """The checkers of `settings` (none for "off")."""
    if settings.checkers == "off":
        return []
    if settings.checkers == "auto":
        return auto_checkers(env)
    resolved: list[Checker] = []
    for spec in settings.checkers:
        path = _which(spec.command[0], env) if os.sep not in spec.command[0] else spec.command[0]
        found = path is not None and os.access(path, os.X_OK)
        argv = (path or spec.command[0], *spec.command[1:])
        languages = tuple(spec.languages)
        resolved.append(Checker(spec.name, languages, argv, spec.initialization_options, found))
    return resolved


def for_languages(checkers: Sequence[Checker], languages: set[str]) -> list[Checker]:
    return [checker for checker in checkers if languages & set(checker.languages)]


def _typescript_options(server: str) -> Any:
    """typescript-language-server's `tsserver.path`: the `typescript` installed beside it
    (an npm prefix's `node_modules`), when there is one."""
    real = os.path.realpath(server)
    parts = real.split(os.sep)
    if "node_modules" in parts:
        modules = os.sep.join(parts[: len(parts) - parts[::-1].index("node_modules")])
        lib = os.path.join(modules, "typescript", "lib")
        if os.path.isdir(lib):
            return {"tsserver": {"path": os.path.join(lib, "tsserver.js")}}
    return None
