"""`complex-edit try`: one real edit of the bundled sample, in a temporary folder, with no key
and no network; with `--other-files`, an edit of three files (the second sample). The folder is
removed when `try` exits, unless `--keep`.

Everything but the model is the real thing: `edit_file` (the flow of `complex-edit edit`), the
Gemini provider and SDK, the tools, validation and the atomic write. The model's answers come
from the recording (`recording.py`), served on 127.0.0.1 by the eval's replay endpoint
(`server.eval.replay_server`), which the SDK reaches through the `baseUrl` setting, keyless.
With `--editor`, the editor gets the sample and a server pointed at the same endpoint.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from complex_edit.server.demo.editors import EDITORS, EditorMissing, find_executable, launch
from complex_edit.server.demo.recording import (
    ACROSS,
    SINGLE,
    Recording,
    load_recording,
    replay_model,
    sample_bytes,
)
from complex_edit.server.edit.disk import edit_file
from complex_edit.server.eval.replay_server import ReplayServer
from complex_edit.server.outcome import EditRefused, EditResult
from complex_edit.server.providers.select import ProviderHub
from complex_edit.server.session.events import SessionEvent, SessionFinished, describe
from complex_edit.server.session.result import InProcess
from complex_edit.server.settings import Settings

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
LOCAL_HOSTS = "127.0.0.1,localhost"
ANOTHER_INSTRUCTION = "Add a method that lists the discontinued items"
ANOTHER_ACROSS = "Add a tax rate parameter to order_total and pass it from every caller"
REPLAYED = (
    "The model's answers are replayed from a recording shipped with complex-edit: no model is "
    "called, no key is used, nothing leaves this machine. Everything else is the real flow "
    "(the tools, the checks, validation, the atomic write)."
)


@dataclass(frozen=True)
class Tried:
    """The sample's copy (`path`) and the replay endpoint serving its recording."""

    path: Path
    base_url: str
    recording: Recording
    keep: bool = True

    @property
    def folder(self) -> Path:
        return self.path.parent

    def kept(self) -> str:
        """Where the sample is after `try`, in words."""
        if self.keep:
            return f"the sample stays at {self.folder}"
        return "the folder is removed as try exits (complex-edit try --keep keeps it)"


@contextlib.contextmanager
def sample_at_replay(parent: Path | None = None, *, across: bool = False) -> Iterator[Tried]:
    """A copy of the sample (`across`: the three files of the second one) in a new temporary
    folder (inside `parent`, default the system's temporary directory; it stays: the caller
    removes it), and the replay serving both recordings until the block ends."""
    recordings = load_recording(SINGLE), load_recording(ACROSS)
    recording = recordings[1] if across else recordings[0]
    folder = Path(tempfile.mkdtemp(prefix="complex-edit-try-", dir=parent))
    for name in (recording.file, *recording.others):
        (folder / name).write_bytes(sample_bytes(recording, name))
    with ReplayServer(replay_model(*recordings).reply) as replay:
        yield Tried(folder / recording.file, replay.base_url, recording)


def run_try(editor: str | None, *, other_files: bool = False, keep: bool = False) -> int:
    """Edit a copy of the sample (`other_files`: three files), on this terminal or in `editor`
    (one of EDITORS); the exit status. The copy is removed at the end unless `keep`."""
    os.environ.update(without_proxy_for_local(os.environ))
    with sample_at_replay(across=other_files) as tried:
        tried = dataclasses.replace(tried, keep=keep)
        try:
            if editor is not None:
                return _in_editor(editor, tried)
            return _on_terminal(tried)
        finally:
            if not keep:
                shutil.rmtree(tried.folder, ignore_errors=True)


def replay_settings(base_url: str) -> Settings:
    """The defaults (the user's COMPLEX_EDIT_* variables do not apply), at the replay."""
    return Settings.model_validate({"provider": "gemini", "baseUrl": base_url, "maxRetries": 0})


def without_proxy_for_local(env: Mapping[str, str]) -> dict[str, str]:
    """NO_PROXY and no_proxy with 127.0.0.1 and localhost added: the replay is local, whatever
    proxy the user's HTTP clients go through."""
    out = {}
    for name in ("NO_PROXY", "no_proxy"):
        current = env.get(name, "")
        out[name] = f"{current},{LOCAL_HOSTS}" if current else LOCAL_HOSTS
    return out


def _on_terminal(tried: Tried) -> int:
    path, recording = tried.path, tried.recording
    out, err = sys.stdout, sys.stderr
    files = "three files" if recording.across else "a sample file"
    _say(out, f"complex-edit try: one real edit of {files}, with no key and no network.")
    _say(out, REPLAYED)
    _say(out, f"\nFile:        {path} (a copy of a sample module)")
    if recording.across:
        _say(out, f"Beside it:   {', '.join(recording.others)} (other files it may change)")
    _say(out, f"Instruction: {recording.instruction}")

    def progress(event: SessionEvent) -> None:
        if not isinstance(event, SessionFinished):
            _say(err, f"complex-edit: {describe(event)}")

    run = edit_file(
        path,
        recording.instruction,
        replay_settings(tried.base_url),
        InProcess(ProviderHub({})),  # no key variables: the replay needs none
        progress,
        label=path.name,
        other_files="edit" if recording.across else "off",
        root=tried.folder.resolve() if recording.across else None,
    )
    try:
        result = asyncio.run(run)
    except EditRefused as exc:
        result = exc.result()
    return _report(out, err, tried, result)


def _report(out: TextIO, err: TextIO, tried: Tried, result: EditResult) -> int:
    if not result.success:
        _say(err, f"complex-edit try: {result.error} [{result.reason}]")
        _say(err, "This is a bug in complex-edit's own sample: please report it.")
        return EXIT_FAILED
    _say(out, "")
    out.write(result.diff)
    _say(out, f"\nValidation:  {_validation(result)}")
    _say(out, f"Result:      {result.message} ({_counts(result)})")
    written = [tried.path.name, *tried.recording.others]
    _say(out, f"Written to:  {', '.join(written)} in {tried.folder}; {tried.kept()}")
    _say(out, "\nThose answers were replayed. Next:")
    for line in next_steps(tried.path if tried.keep else None, tried.recording):
        _say(out, f"  - {line}")
    return EXIT_OK


def executable() -> list[str]:
    """The command that runs complex-edit, by its full path: the script `try` ran as, else the
    one beside this interpreter or on PATH, else this interpreter with `-m complex_edit`."""
    ran = Path(sys.argv[0])
    if ran.name == "complex-edit" and ran.is_file():
        return [str(ran.absolute())]
    found = find_executable("complex-edit")
    return [found] if found is not None else [sys.executable, "-m", "complex_edit"]


def next_steps(path: Path | None, recording: Recording) -> list[str]:
    """What to run next, each command by the full path of the executable (`path`: the kept
    copy of the sample; None: removed, the user's own file is named instead)."""
    program = executable()
    target = str(path) if path is not None else "YOUR_FILE.py"
    words = [*program, "edit", target, "--prompt"]
    if recording.across:
        words = [*words, ANOTHER_ACROSS, "--other-files", "edit"]
    else:
        words = [*words, ANOTHER_INSTRUCTION]
    across = " --other-files" if recording.across else ""
    three = f"An edit of three files: {shlex.join(program)} try --other-files"
    return [
        "A real model: export GEMINI_API_KEY=... (https://aistudio.google.com/apikey), then "
        f"run any instruction, e.g. {shlex.join(words)}",
        "No key at all: a local model (Ollama, llama-server, LM Studio, vLLM) through "
        "--provider openai --base-url http://localhost:11434/v1 --model qwen2.5-coder:14b "
        '(docs/providers.md, "A real model without a key")',
        "In an editor, live preview and one-step undo included, against the same replay: "
        f"{shlex.join(program)} try --editor {'|'.join(EDITORS)}{across}",
        *([] if recording.across else [three]),
        f"For your editor's set-up, the server it starts is {shlex.join(program)} lsp (README.md)",
    ]


def _validation(result: EditResult) -> str:
    validation = result.with_validation().validation
    if validation is None:
        return "not reported"
    language = validation.language or "the file"
    if validation.syntax == "ok":
        return f"{language} syntax ok (no new syntax errors)"
    if validation.syntax == "errors":
        return f"{language}: {validation.count} new syntax error(s)"
    return f"skipped ({validation.detail or 'no grammar'})"


def _counts(result: EditResult) -> str:
    turns = "1 model turn" if result.turns == 1 else f"{result.turns} model turns"
    calls = "1 tool call" if result.tool_calls == 1 else f"{result.tool_calls} tool calls"
    return f"{turns}, {calls}"


def _in_editor(editor: str, tried: Tried) -> int:
    path, recording = tried.path, tried.recording
    out = sys.stdout
    if recording.across and shutil.which("git") is not None:
        # A project, so that the editor announces the folder as its workspace (Neovim's and
        # eglot's root is the version-control top level).
        subprocess.run(["git", "init", "-q"], cwd=tried.folder, check=False)
    try:
        started = launch(
            editor, path, tried.base_url, recording.instruction, other_files=recording.across
        )
    except EditorMissing as exc:
        _say(sys.stderr, f"complex-edit try: {exc}")
        return EXIT_USAGE
    _say(out, f"complex-edit try: {started.title} opens {path}, its server pointed at the replay.")
    _say(out, REPLAYED)
    _say(out, f"Instruction: {recording.instruction}")
    for line in started.notes:
        _say(out, f"  - {line}")
    _say(out, f"The replay stops when {started.title} exits.")
    status = started.wait()
    _say(out, f"complex-edit try: {started.title} exited; {tried.kept()}.")
    return EXIT_OK if status == 0 else EXIT_FAILED


def _say(stream: TextIO, text: str) -> None:
    stream.write(text + "\n")
    stream.flush()
