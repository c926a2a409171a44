"""Live previews of every document an edit across files changes (contract: "Live preview"),
seen by a raw LSP client: open documents at their version, files not open with
`version: null` and hunks on the text read from disk, each with a final `done: true` — with
text that is not ASCII (BMP and astral characters, where UTF-16 and code points differ), CRLF
line ends and tabs, in the UTF-16 VS Code uses and in UTF-8.

The model's second turn hangs until the test releases it, so the previews are checked while
the edit has not landed yet (no sleeps)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY
from tests.editor.client import wait_until
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator, Reply
from tests.fakes.lsp_positions import position_to_offset
from tests.fakes.rawlsp import EDITOR_CAPABILITIES, RawLspClient, server_env

OWN = "from helptext import NAME\n\nprint(NAME)\n"
# Open, CRLF, "Peter Åstrand" and an astral character before the change on its line.
HELPTEXT = 'AUTHORS = "🎉 Peter Åstrand"; NAME = "x"\r\n\r\n\tHELP = NAME\r\n'
# Not open: tabs and astral characters; CRLF and a BMP character.
TABS = 'from helptext import NAME\n\n\ndef show():\n\tprint("✨🐍", NAME)\n'
CRLF = "from helptext import NAME\r\n# Åstrand 🐍\r\nX = NAME  # é\r\n"
FILES = {"main.py": OWN, "helptext.py": HELPTEXT, "tabs.py": TABS, "crlf.py": CRLF}
OPEN = ("main.py", "helptext.py")


def rename(path: str | None) -> tuple[str, dict[str, Any]]:
    name, args = replace("NAME", "AUTHOR_NAME", replace_all=True)
    return name, {**args, "path": path} if path else args


def drawn(text: str, preview: dict[str, Any], encoding: str) -> str:
    """`text` as the preview shows it: each hunk's range holds its `oldText` and reads as
    its `newText`."""
    spans = []
    for hunk in preview["hunks"]:
        start, end = (
            position_to_offset(text, hunk["range"][side], encoding) for side in ("start", "end")
        )
        assert text[start:end] == hunk["oldText"], (hunk, text[start:end])
        spans.append((start, end, hunk["newText"]))
    for start, end, new_text in sorted(spans, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text


@pytest.fixture
async def project(tmp_path: Path) -> dict[str, Path]:
    for name, text in FILES.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    return {name: tmp_path / name for name in FILES}


@pytest.fixture
async def clients() -> AsyncIterator[list[RawLspClient]]:
    started: list[RawLspClient] = []
    yield started
    for client in started:
        await client.close()


async def start(
    clients: list[RawLspClient],
    emulator: GeminiEmulator,
    files: dict[str, Path],
    capabilities: dict[str, Any],
) -> RawLspClient:
    client = await RawLspClient.spawn(server_env(emulator.base_url, TEST_KEY))
    clients.append(client)
    await client.initialize(capabilities, folders=[files["main.py"].parent])
    for name in OPEN:
        client.open(files[name].as_uri(), FILES[name], version=3)
    return client


def with_previews(encoding: str) -> dict[str, Any]:
    return {
        **EDITOR_CAPABILITIES,
        "general": {"positionEncodings": [encoding]},
        "experimental": {"complexEditPreview": True},
    }


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
async def test_every_changed_document_open_or_not_is_previewed_and_ends_done(
    clients: list[RawLspClient],
    emulator: GeminiEmulator,
    project: dict[str, Path],
    encoding: str,
) -> None:
    client = await start(clients, emulator, project, with_previews(encoding))
    assert client.encoding == encoding
    uris = {name: path.as_uri() for name, path in project.items()}
    release = threading.Event()
    emulator.enqueue(
        calls(rename("helptext.py"), rename("tabs.py"), rename("crlf.py"), rename(None)),
        Reply.hang(release=release, then=calls(done("renamed"))),
    )
    args = {"textDocument": {"uri": uris["main.py"]}, "prompt": "rename", "otherFiles": "edit"}
    _, answer = client.send_request(
        "workspace/executeCommand", {"command": "performComplexEdit", "arguments": [args]}
    )

    def latest(name: str) -> dict[str, Any] | None:
        mine = [p for p in client.previews if p["textDocument"]["uri"] == uris[name]]
        return mine[-1] if mine and mine[-1]["hunks"] else None

    await wait_until(
        lambda: all(latest(name) for name in FILES), within=15.0, what="a preview of each file"
    )
    # Every file is previewed before the edit lands, on the text the editor or the disk has.
    assert client.applies == []
    for name, text in FILES.items():
        preview = latest(name)
        assert preview is not None
        version = 3 if name in OPEN else None
        assert preview["textDocument"] == {"uri": uris[name], "version": version}, preview
        assert drawn(text, preview, encoding) == text.replace("NAME", "AUTHOR_NAME"), name
        assert project[name].read_bytes().decode("utf-8") == text  # drawn, never written
    release.set()
    result = await client.answer(answer, within=30.0)
    assert result["success"] is True, result
    for name in FILES:
        mine = [p for p in client.previews if p["textDocument"]["uri"] == uris[name]]
        assert mine[-1]["done"] is True, (name, mine[-1])
        assert mine[-1]["hunks"] == [], (name, mine[-1])
        assert [p for p in mine if p["done"]] == [mine[-1]], name
        assert "version" in mine[-1]["textDocument"]
        if name not in OPEN:
            assert mine[-1]["textDocument"]["version"] is None
    for name in FILES:  # every file edited, the ones not open included (opened by the edit)
        assert client.docs[uris[name]].text == FILES[name].replace("NAME", "AUTHOR_NAME")


async def test_a_client_that_did_not_opt_in_gets_no_preview_of_any_file(
    clients: list[RawLspClient], emulator: GeminiEmulator, project: dict[str, Path]
) -> None:
    client = await start(clients, emulator, project, dict(EDITOR_CAPABILITIES))
    emulator.enqueue(calls(rename("tabs.py"), rename(None)), calls(done()))
    args = {
        "textDocument": {"uri": project["main.py"].as_uri()},
        "prompt": "rename",
        "otherFiles": "edit",
    }
    result = await client.request(
        "workspace/executeCommand",
        {"command": "performComplexEdit", "arguments": [args]},
        within=30.0,
    )
    assert result["success"] is True, result
    assert client.previews == []
