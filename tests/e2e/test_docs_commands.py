"""Every `complex-edit` command line the documents show runs: its subcommand exists and
`complex-edit SUBCOMMAND --help` (the installed console script, a real process) lists every
option the line uses. A command documented before it is built fails here."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.unit.test_docs import DOCUMENTS

# `complex-edit SUB ...` (any path before the name), or `python -m complex_edit SUB ...`.
_COMMAND = re.compile(
    r"(?:^|[\s(])(?:\S*/)?(?:complex-edit|-m complex_edit)\s+([a-z][\w-]*)([^\n`]*)"
)
# Where a shell line stops being this command: a pipe, a redirection, `;`, `&&`, a comment.
_END = re.compile(r"\s[|>;]|&&|\s#")


def command_lines(document: Path) -> list[tuple[str, str]]:
    """(subcommand, the rest of the line) for each command line of `document`: in shell code
    blocks (continuation lines joined) and in code spans."""
    text = document.read_text(encoding="utf-8")
    lines: list[str] = []
    for language, body in re.findall(r"```(\w*)\n(.*?)```", text, re.DOTALL):
        if language in ("sh", "bash", "shell", "console", ""):
            lines += body.replace("\\\n", " ").splitlines()
    lines += re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.DOTALL))
    found = []
    for line in lines:
        for match in _COMMAND.finditer(line):
            found.append((match[1], _END.split(match[2])[0].strip()))
    return found


CASES = sorted(
    {
        (document.relative_to(DOCUMENTS[0].parent).as_posix(), command, rest)
        for document in DOCUMENTS
        for command, rest in command_lines(document)
    }
)


def _executable() -> str:
    beside = Path(sys.executable).with_name("complex-edit")
    return str(beside) if beside.exists() else shutil.which("complex-edit") or "complex-edit"


@cache
def help_text(command: str) -> tuple[int, str]:
    proc = subprocess.run(
        [_executable(), command, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_the_documents_show_command_lines() -> None:
    assert {"lsp", "edit", "mcp", "eval"} <= {command for _, command, _ in CASES}
    shown = "--model gemini-3.7-flash --thinking-level low --max-turns 12"
    assert ("docs/cli-and-mcp.md", "mcp", shown) in CASES


@pytest.mark.parametrize(("document", "command", "rest"), CASES)
def test_a_documented_command_line_runs(document: str, command: str, rest: str) -> None:
    status, text = help_text(command)
    assert status == 0, f"{document}: `complex-edit {command}` does not exist: {text[-300:]}"
    unknown = [
        option
        for option in re.findall(r"(?<![\w$:{-])(--[a-z][\w-]*)", rest)
        if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text)
    ]
    assert not unknown, f"{document}: `complex-edit {command}` has no {unknown}"
