"""The layout of `server/` holds: each folder imports only what its README allows, the SDKs and
pygls stay in their one place, and no modules import each other in a circle.

Every import counts, wherever it stands (module level, inside a function, under
`TYPE_CHECKING`): a lazy import is still a dependency, and a type-only cycle still means two
modules that cannot be read apart.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "server"

# What the modules of each part of server/ may import from this project, besides their own
# part: a part is a folder of server/ or a top-level module. An entry allows that module and
# everything under it; `server` alone allows the package itself (its `__version__`).
ALLOWED: dict[str, set[str]] = {
    "outcome": {"edit_tools.syntax"},
    "settings": {"server", "server.settings_help"},  # its DEFAULT_MODEL, its texts
    "settings_help": {"server"},
    "text": {"edit_tools.lines"},
    "providers": {"server.outcome", "server.settings", "edit_tools"},
    "workspace": {"edit_tools.lines"},
    "check": {"server.outcome", "server.settings", "server.text"},
    "session": {
        "server.check",
        "server.outcome",
        "server.settings",
        "server.providers",
        "server.text",
        "server.workspace",
        "edit_tools",
        "prompts",
    },
    "edit": {
        "server.outcome",
        "server.settings",
        "server.session",
        "server.text",
        "server.history",
        "edit_tools",
    },
    "history": {"server.text", "edit_tools.lines"},
    "lsp": {
        "server",
        "server.doctor",
        "server.outcome",
        "server.settings",
        "server.session",
        "server.text",
        "server.edit",
        "server.history",
        "edit_tools.lines",
    },
    "mcp": {
        "server",
        "server.check",
        "server.outcome",
        "server.settings",
        "server.session",
        "server.providers",
        "server.edit",
        "server.history",
        "edit_tools.syntax",
    },
    "cli_edit": {
        "server.check",
        "server.outcome",
        "server.settings",
        "server.session",
        "server.providers",
        "server.edit",
        "server.cli_review",
    },
    "cli_review": {"server.outcome", "server.edit", "server.text"},
    "cli_history": {
        "server.outcome",
        "server.settings",
        "server.session.request",
        "server.edit",
        "server.history",
        "server.cli_edit",
    },
    "cli": {
        "server",
        "server.doctor",
        "server.outcome",
        "server.settings",
        "server.session.process",
        "server.lsp",
        "server.cli_edit",
        "server.cli_history",
        "server.mcp",
        "server.eval",
        "server.demo",
    },
    "demo": {
        "server.outcome",
        "server.settings",
        "server.session",
        "server.providers",
        "server.edit",
        "server.eval.replay",
        "server.eval.replay_server",
    },
    "eval": {
        "server.outcome",
        "server.settings",
        "server.session",
        "server.providers",
        "edit_tools",
        "prompts",
    },
    "doctor": {
        "server",
        "server.check",
        "server.outcome",
        "server.settings",
        "server.providers",
        "edit_tools.syntax",
    },
    "schema": {
        "server.outcome",
        "server.settings",
        "server.lsp",
        "server.doctor",
        "server.cli",
        "edit_tools",
    },
    "__init__": set(),
}
# Third-party packages that only one place may import.
ONLY_IN: dict[str, set[str]] = {
    "pygls": {"lsp"},
    "lsprotocol": {"lsp"},
    "google": {"providers/gemini.py", "providers/gemini_turn.py"},
    "openai": {"providers/openai.py"},
    "anthropic": {"providers/anthropic.py"},
    "mcp": {"mcp"},
}
FIRST_PARTY = {"server", "edit_tools", "prompts"}
# The one import name the folders are installed under (pyproject.toml's package-dir).
PACKAGE = "complex_edit"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SERVER.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _part(module: str) -> str:
    """`server.lsp.handlers` → `lsp`; `server.outcome` → `outcome`; `server` → `__init__`."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "__init__"


def _imports(path: Path) -> Iterator[str]:
    """Every module `path` imports (for `from package import name`, the package and, when
    `package.name` is a module of ours, that module too), ours named by their folders
    (`complex_edit.server.text.diff` → `server.text.diff`)."""
    for name in _imported_names(path):
        yield name.removeprefix(PACKAGE + ".")


def _imported_names(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                if _is_our_module(candidate.removeprefix(PACKAGE + ".")):
                    yield candidate


def _is_our_module(name: str) -> bool:
    if name.split(".")[0] != "server":
        return False
    base = SERVER.parent.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


MODULES = {
    _module_name(path): path
    for path in sorted(SERVER.rglob("*.py"))
    if "__pycache__" not in path.parts
}


def test_every_part_of_server_is_in_the_table() -> None:
    assert {_part(module) for module in MODULES} <= set(ALLOWED)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_follow_the_table(module: str) -> None:
    path = MODULES[module]
    part = _part(module)
    where = path.relative_to(SERVER).as_posix()
    own = module if part == "__init__" else ".".join(module.split(".")[:2])
    allowed = {own, *ALLOWED[part]}
    wrong = [name for name in _imports(path) if not _permitted(name, allowed, where)]
    assert wrong == [], f"{where} imports {wrong}, which its README does not allow"


def _permitted(name: str, allowed: set[str], where: str) -> bool:
    top = name.split(".")[0]
    if top in FIRST_PARTY:
        return any(
            name == entry or (entry != "server" and name.startswith(entry + "."))
            for entry in allowed
        )
    if top in ONLY_IN:
        return any(where == place or where.startswith(place + "/") for place in ONLY_IN[top])
    return True


def test_no_import_cycles() -> None:
    graph = {
        module: {name for name in _imports(path) if name in MODULES and name != module}
        for module, path in MODULES.items()
    }
    # A package's __init__ is imported with each of its modules; it is not a dependency.
    packages = {module for module, path in MODULES.items() if path.name == "__init__.py"}
    graph = {module: targets - packages for module, targets in graph.items()}
    cycle = _find_cycle(graph)
    assert cycle is None, " → ".join(cycle or [])


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph`, as a path that ends where it starts, or None."""
    done: set[str] = set()
    for root in sorted(graph):
        stack: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        on_path = [root]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.pop()
                done.add(node)
            elif child in on_path:
                return [*on_path[on_path.index(child) :], child]
            elif child not in done:
                stack.append((child, iter(sorted(graph[child]))))
                on_path.append(child)
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


PYTHON_FOLDERS = ("server", "edit_tools", "prompts", "complex_edit", "tests", "bench")


@pytest.mark.parametrize("folder", PYTHON_FOLDERS)
def test_nothing_imports_the_folders_by_their_bare_names(folder: str) -> None:
    """`server`, `edit_tools` and `prompts` are not installed: only `complex_edit.*` imports."""
    root = SERVER.parent
    wrong = [
        f"{path.relative_to(root).as_posix()}: {name}"
        for path in _own_files(root / folder)
        for name in _imported_names(path)
        if name.split(".")[0] in FIRST_PARTY
    ]
    assert wrong == []


def _own_files(folder: Path) -> Iterator[Path]:
    """The Python files under `folder`, not following the links `complex_edit/` holds for the
    type checker."""
    for path in sorted(folder.iterdir()):
        if path.is_symlink() or path.name == "__pycache__":
            continue
        if path.is_dir():
            yield from _own_files(path)
        elif path.suffix == ".py":
            yield path


@pytest.mark.parametrize("folder", ["server", "edit_tools", "prompts"])
def test_the_links_for_the_type_checker_are_links(folder: str) -> None:
    """A checkout without symbolic links (`core.symlinks=false`) turns them into files, and
    mypy then checks two files and sees nothing of the code (complex_edit/README.md)."""
    link = SERVER.parent / "complex_edit" / folder
    problem = f"complex_edit/{folder} is not a link to ../{folder}: clone with symbolic links"
    assert link.is_symlink(), problem
    assert link.resolve() == SERVER.parent / folder, problem
