"""Which tree-sitter grammar checks a document: from its LSP `languageId` (VS Code ids and
Neovim filetypes) or, for the CLI, MCP and eval, from its file name.

Grammar names are those of `tree-sitter-language-pack` 0.13. Only grammars whose false
positives were measured on real files are listed (see `bench/validation_false_positives.py`);
anything else is not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from types import MappingProxyType

# Every grammar this package checks; each maps to itself as a language id too.
GRAMMARS: frozenset[str] = frozenset(
    {
        "bash",
        "c",
        "cpp",
        "csharp",
        "css",
        "go",
        "html",
        "java",
        "javascript",
        "json",
        "lua",
        "markdown",
        "php",
        "python",
        "ruby",
        "rust",
        "toml",
        "tsx",
        "typescript",
        "yaml",
    }
)

# LSP languageId (VS Code) or Neovim filetype → grammar, beyond the grammar names themselves.
# `jsonc` keeps its own name: it is parsed by the JSON grammar with trailing commas allowed.
_LANGUAGE_IDS: Mapping[str, str] = MappingProxyType(
    {
        "javascriptreact": "javascript",
        "js": "javascript",
        "jsx": "javascript",
        "typescriptreact": "tsx",
        "ts": "typescript",
        "jsonc": "jsonc",
        "json5": "",  # a superset of JSON the grammar rejects: not checked
        "shellscript": "bash",
        "sh": "bash",
        "c#": "csharp",
        "cs": "csharp",
        "c_sharp": "csharp",
        "c++": "cpp",
        "cuda-cpp": "",
        "golang": "go",
        "py": "python",
        "python3": "python",
        "rb": "ruby",
        "rs": "rust",
        "yml": "yaml",
        "md": "markdown",
    }
)

_EXTENSIONS: Mapping[str, str] = MappingProxyType(
    {
        ".py": "python",
        ".pyi": "python",
        ".pyw": "python",
        ".js": "javascript",
        ".mjs": "javascript",
        ".cjs": "javascript",
        ".jsx": "javascript",
        ".ts": "typescript",
        ".mts": "typescript",
        ".cts": "typescript",
        ".tsx": "tsx",
        ".json": "json",
        ".jsonc": "jsonc",
        ".go": "go",
        ".rs": "rust",
        ".java": "java",
        ".c": "c",
        # Headers: most C headers parse as C++, while C++ headers fail the C grammar; an edit
        # adding C++ to a header checked as C would be refused for nothing.
        ".h": "cpp",
        ".cc": "cpp",
        ".cpp": "cpp",
        ".cxx": "cpp",
        ".c++": "cpp",
        ".hh": "cpp",
        ".hpp": "cpp",
        ".hxx": "cpp",
        ".h++": "cpp",
        ".ipp": "cpp",
        ".inl": "cpp",
        ".cs": "csharp",
        ".rb": "ruby",
        ".rake": "ruby",
        ".gemspec": "ruby",
        ".php": "php",
        ".lua": "lua",
        ".sh": "bash",
        ".bash": "bash",
        ".html": "html",
        ".htm": "html",
        ".css": "css",
        ".yaml": "yaml",
        ".yml": "yaml",
        ".toml": "toml",
        ".md": "markdown",
        ".markdown": "markdown",
    }
)

_FILE_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "gemfile": "ruby",
        "rakefile": "ruby",
        ".bashrc": "bash",
        ".bash_profile": "bash",
        ".profile": "bash",
        "pkgbuild": "bash",
        "tsconfig.json": "jsonc",
        "jsconfig.json": "jsonc",
        "settings.json": "jsonc",
        "launch.json": "jsonc",
        "tasks.json": "jsonc",
        "extensions.json": "jsonc",
        ".eslintrc.json": "jsonc",
        "devcontainer.json": "jsonc",
    }
)

# Languages recognised but not checked, and why (said in `Validation.detail`).
NOT_CHECKED: Mapping[str, str] = MappingProxyType(
    {
        "markdown": (
            "Markdown has no syntax errors (any text is valid CommonMark): not checked; the "
            "tree-sitter grammar's errors are its own quirks"
        ),
    }
)

# A language id whose grammar differs from the id (`jsonc` is checked with `json`).
_PARSED_WITH: Mapping[str, str] = MappingProxyType({"jsonc": "json"})


def grammar_for(language: str | None) -> str | None:
    """The language this package checks `language` as (an LSP languageId, a Neovim filetype
    or a grammar name, any case), or None when it is not checked. `jsonc` stays `jsonc`."""
    if not language:
        return None
    key = language.strip().lower()
    if key in GRAMMARS:
        return key
    found = _LANGUAGE_IDS.get(key)
    return found or None


def language_for_path(path: str | PurePath) -> str | None:
    """The language of a file on disk from its name (CLI, MCP, eval), or None."""
    name = PurePath(path).name.lower()
    by_name = _FILE_NAMES.get(name)
    if by_name:
        return by_name
    if name.startswith(("tsconfig.", "jsconfig.")) and name.endswith(".json"):
        return "jsonc"  # tsconfig.base.json and the like
    return _EXTENSIONS.get(PurePath(name).suffix)


def parser_grammar(language: str) -> str:
    """The tree-sitter grammar that parses a language returned by `grammar_for`."""
    return _PARSED_WITH.get(language, language)
