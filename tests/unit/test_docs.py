"""The documents say what is true: every repository path they name exists, and the option
tables of the CLI and the MCP tool list exactly what `--help` and the tool's schema offer.
(That every `complex-edit` command line they show runs: tests/e2e/test_docs_commands.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from pathlib import Path

import pytest

from complex_edit.server.cli.entry import parser
from complex_edit.server.edit.roots import Roots
from complex_edit.server.mcp.server import TOOL_NAME, build_server
from complex_edit.server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
# The documents a user reads. docs/benchmarks-history.md is left out: it records earlier
# rounds, and names the modules as they were then.
DOCUMENTS = sorted(
    [
        ROOT / "README.md",
        *(path for path in (ROOT / "docs").glob("*.md") if path.name != "benchmarks-history.md"),
        ROOT / "vscode-client/README.md",
        ROOT / "nvim-client/README.md",
        ROOT / "emacs-client/README.md",
    ]
)
_PATH = re.compile(r"^[\w.@-]+(?:/[\w.@*-]+)+/?$")


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def named_paths(document: Path) -> list[str]:
    """The repository paths `document` names: link targets, and code spans with a `/` whose
    first part is a file or folder of the repository (or of the document's folder), so that
    `workspace/applyEdit` or `a/` are not taken for paths. Paths git ignores (a venv, a cache,
    results) are made by running things, and are left out."""
    text = document.read_text(encoding="utf-8")
    links = [
        target for target in re.findall(r"\]\(([^)#\s]+)", text) if not re.match(r"\w+:", target)
    ]
    spans = [
        span
        for span in re.findall(r"`([^`\n]+)`", text)
        if _PATH.match(span) and not span.startswith("..")
    ]
    named = set(links)
    for span in spans:
        first = span.split("/")[0]
        if (ROOT / first).exists() or (document.parent / first).exists():
            named.add(span)
    return sorted(path for path in named if not _ignored(path))


def _ignored(path: str) -> bool:
    return any(
        part in {".venv", ".cache", "node_modules", "eval-results"} for part in path.split("/")
    )


@pytest.mark.parametrize("document", DOCUMENTS, ids=_relative)
def test_every_path_a_document_names_exists(document: Path) -> None:
    missing = [
        path
        for path in named_paths(document)
        if not any(
            (base / path).exists() or any(base.glob(path)) for base in (document.parent, ROOT)
        )
    ]
    assert not missing, f"{_relative(document)} names paths that do not exist: {missing}"


def test_paths_are_found_in_code_spans_and_links() -> None:
    page = ROOT / "docs" / "protocol.md"
    named = named_paths(page)
    assert "server/lsp/arguments.py" in named
    assert "protocol.schema.json" in named
    assert not any(path.startswith(("workspace/", "complexEdit/")) for path in named)


# --- the option tables ------------------------------------------------------------------


def _section(document: str, heading: str) -> str:
    text = (ROOT / document).read_text(encoding="utf-8")
    start = text.index(heading)
    following = re.search(r"^#{1,3} ", text[start + len(heading) :], re.MULTILINE)
    return text[start : start + len(heading) + following.start()] if following else text[start:]


def _first_table(section: str, header: str) -> list[str]:
    """The first cells of the table under `header` (its header row's first cell)."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line.split(" | ")[0].removeprefix("| "))
    return rows


def _documented_options(cells: list[str]) -> set[str]:
    return {flag for cell in cells for flag in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", cell)}


def _help_options(command: str) -> set[str]:
    """The options `complex-edit COMMAND --help` lists."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser().parse_args([command, "--help"])
    return set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", out.getvalue())) - {"-h", "--help"}


@pytest.mark.parametrize(
    ("document", "heading", "command"),
    [
        ("docs/cli-and-mcp.md", "## `complex-edit edit`", "edit"),
        ("docs/eval.md", "## Run it with your key", "eval"),
    ],
)
def test_an_option_table_lists_exactly_what_help_offers(
    document: str, heading: str, command: str
) -> None:
    cells = _first_table(_section(document, heading), "option")
    documented = _documented_options(cells)
    offered = _help_options(command)
    assert documented - offered == set(), f"{document} documents options `{command}` lacks"
    assert offered - documented == set(), f"{document} leaves out options of `{command}`"


def test_the_mcp_tool_table_lists_exactly_the_tools_arguments(tmp_path: Path) -> None:
    server = build_server(Roots.from_dirs([tmp_path]), Settings(), {}, runner=None)  # type: ignore[arg-type]
    tools = asyncio.run(server.list_tools())
    (tool,) = [tool for tool in tools if tool.name == TOOL_NAME]
    cells = _first_table(_section("docs/cli-and-mcp.md", "### The tool"), "argument")
    documented = {cell.strip("`") for cell in cells}
    assert documented == set(tool.input_schema["properties"])


# --- issue 38: shell blocks, counts ------------------------------------------------------

# The pages whose shell blocks a newcomer copies: README.md and docs/*.md.
SHELL_PAGES = [
    page for page in DOCUMENTS if page == ROOT / "README.md" or page.parent == ROOT / "docs"
]
_SHELL_BLOCK = re.compile(r"^```(?:sh|bash|shell|console)\n", re.MULTILINE)
_MARKER = re.compile(r"^<!-- sh: (?:run by (?P<paths>[^>]+?)|not run here \(.+\)) -->$")


def shell_blocks(page: Path) -> list[tuple[int, str]]:
    """(line number, the line before it) of each shell code block of `page`."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _SHELL_BLOCK.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((text.count("\n", 0, match.start()) + 1, before))
    return found


@pytest.mark.parametrize("page", SHELL_PAGES, ids=_relative)
def test_every_shell_block_runs_in_a_test_or_says_it_is_not_run_here(page: Path) -> None:
    """Each block is preceded by `<!-- sh: run by PATH[, PATH] -->` (the tests or CI script
    that run it, which exist) or `<!-- sh: not run here (why) -->`."""
    for line, before in shell_blocks(page):
        marker = _MARKER.match(before)
        assert marker, f"{_relative(page)}:{line}: a shell block without its <!-- sh: ... -->"
        for path in (marker["paths"] or "").split(", "):
            assert not path or any(ROOT.glob(path)), f"{_relative(page)}:{line}: no {path}"


def test_the_shell_blocks_are_found() -> None:
    readme = dict(shell_blocks(ROOT / "README.md"))
    assert len(readme) >= 5
    assert "<!-- sh: run by tests/e2e/test_try.py -->" in [
        before for _, before in shell_blocks(ROOT / "docs" / "cli-and-mcp.md")
    ]


def test_the_readme_counts_the_syntax_languages_as_the_server_does() -> None:
    from complex_edit.edit_tools.syntax.languages import GRAMMARS

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"tree-sitter, {len(GRAMMARS)} languages" in text


def test_every_setting_has_a_cli_flag_in_the_settings_table() -> None:
    from complex_edit.server.cli.flag_table import flag_of, setting_names

    table = _section("docs/protocol.md", "## Settings")
    for name in setting_names():
        assert f"| `{name}` | " in table
        assert f"`{flag_of(name)}`" in table


def test_the_vscode_language_model_tool_offers_the_servers_other_files_modes() -> None:
    import json

    from complex_edit.server.lsp.arguments import PerformArgs

    manifest = json.loads((ROOT / "vscode-client/package.json").read_text(encoding="utf-8"))
    (tool,) = [
        tool
        for tool in manifest["contributes"]["languageModelTools"]
        if tool["name"] == "complexEdit_editFile"
    ]
    server = PerformArgs.model_json_schema(by_alias=True)["properties"]["otherFiles"]
    (modes,) = [option["enum"] for option in server["anyOf"] if "enum" in option]
    assert tool["inputSchema"]["properties"]["otherFiles"]["enum"] == modes
    keys = {binding["command"] for binding in manifest["contributes"]["keybindings"]}
    assert "complexEdit.editAcrossFiles" in keys


# Flags of other programs the documents name in code spans (Neovim, Claude Code, Codex,
# llama-server, `nvim --version`).
OTHER_PROGRAMS_FLAGS = {"--clean", "--scope", "--env", "--jinja", "--version"}


def test_every_flag_a_document_names_is_a_complex_edit_option() -> None:
    """A code span that starts with a flag (`--max-files 2`) names an option some
    `complex-edit` subcommand offers (or another program's, listed above)."""
    offered = set().union(
        *(_help_options(command) for command in ("lsp", "edit", "mcp", "eval", "try", "doctor"))
    )
    unknown = []
    for page in DOCUMENTS:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        for span in re.findall(r"`([^`\n]+)`", text):
            flag = re.match(r"(--[a-z][\w-]*)", span)
            if flag and flag[1] not in offered | OTHER_PROGRAMS_FLAGS:
                unknown.append(f"{_relative(page)}: {flag[1]}")
    assert unknown == []
    assert {"--max-files", "--read-exclude", "--probe", "--other-files", "--keep"} <= offered
