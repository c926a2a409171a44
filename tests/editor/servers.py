"""The server processes behind the test editor: ``python -m complex_edit lsp`` (or
``E2E_SERVER_COMMAND``, a shell-quoted command line, to run another server build) with the real
google-genai SDK pointed at the session's Gemini emulator, pooled for the whole test session,
one per (client kind, environment, initializationOptions)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from collections.abc import Mapping
from typing import Any

from lsprotocol import types
from pytest_lsp import client_capabilities
from pytest_lsp.client import register_lsp_features

from tests.conftest import TEST_KEY
from tests.editor.client import ClientKind, EditorClient
from tests.editor.session import EditorSession
from tests.fakes.rawlsp import server_env

SERVER_COMMAND: list[str] = (
    shlex.split(os.environ["E2E_SERVER_COMMAND"])
    if os.environ.get("E2E_SERVER_COMMAND")
    else [sys.executable, "-m", "complex_edit", "lsp"]
)
START_TIMEOUT = 30.0


def capabilities_for(kind: ClientKind) -> types.ClientCapabilities:
    if kind == "vscode":
        return client_capabilities("visual-studio-code")
    if kind == "vscode-preview":
        # VS Code's, opting in to the live preview (`complexEdit/preview`).
        caps = client_capabilities("visual-studio-code")
        caps.experimental = {"complexEditPreview": True}
        return caps
    if kind == "neovim":
        return client_capabilities("neovim@v0.11")
    if kind == "utf-32":
        # Neovim's capabilities, asking for code points first.
        caps = client_capabilities("neovim@v0.11")
        assert caps.general is not None
        caps.general.position_encodings = [
            types.PositionEncodingKind.Utf32,
            types.PositionEncodingKind.Utf16,
        ]
        return caps
    if kind == "no-config":
        # applyEdit with documentChanges, but no workspace/configuration and no progress.
        return types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                apply_edit=True,
                workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            )
        )
    if kind == "no-document-changes":
        # applyEdit with plain `changes` only: one edit cannot change several documents.
        return types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(apply_edit=True)
        )
    # bare: no applyEdit, no progress, no configuration.
    return types.ClientCapabilities()


async def start_session(
    kind: ClientKind,
    base_url: str,
    *,
    env: Mapping[str, str] | None = None,
    init_options: Any = None,
) -> EditorSession:
    client = EditorClient()
    register_lsp_features(client)
    session = EditorSession(kind, client)
    await client.start_io(*SERVER_COMMAND, env=server_env(base_url, TEST_KEY, env))
    async with asyncio.timeout(START_TIMEOUT):
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities_for(kind),
                initialization_options=init_options,
                client_info=types.ClientInfo(name=f"e2e-{kind}"),
            )
        )
    session.init_result = result
    encoding = result.capabilities.position_encoding
    session.encoding = str(getattr(encoding, "value", encoding) or "utf-16")
    return session


async def stop_session(session: EditorSession) -> None:
    session._release_hangs.set()
    client = session.client
    try:
        if session.alive:
            async with asyncio.timeout(10):
                await client.shutdown_session()
    except Exception as exc:  # a dead or stuck server must not block the other teardowns
        sys.stderr.write(f"e2e: shutdown of the {session.kind} server failed: {exc!r}\n")
    if client._server is not None and client._server.returncode is None:
        # Still running: the shutdown failed, or pytest-lsp skipped it after a client error.
        # `client.stop()` would wait for it forever. (Its session process exits with it.)
        client._server.kill()
    await client.stop()


class ServerPool:
    """Server processes shared by the whole session, keyed by their configuration."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self._sessions: dict[str, EditorSession] = {}

    async def get(
        self,
        kind: ClientKind,
        *,
        env: Mapping[str, str] | None = None,
        init_options: Any = None,
    ) -> EditorSession:
        key = json.dumps([kind, sorted((env or {}).items()), init_options], sort_keys=True)
        session = self._sessions.get(key)
        if session is not None and not session.alive:
            await stop_session(session)
            session = None
        if session is None:
            session = await start_session(kind, self.base_url, env=env, init_options=init_options)
            self._sessions[key] = session
        return session

    async def close(self) -> None:
        await asyncio.gather(*(stop_session(s) for s in self._sessions.values()))
        self._sessions.clear()
