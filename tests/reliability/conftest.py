"""Fixtures for the fault catalogue.

The test editor's fixtures (``tests/editor/fixtures.py``) are imported here for pytest to find,
so this directory gets its own pool of server processes; ``tests/fakes/rawlsp.py`` covers what
that editor cannot send (raw bytes, odd capabilities, slow progress creation).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from tests.conftest import TEST_KEY
from tests.editor.fixtures import editor, lsp_pool, make_editor, vscode
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.rawlsp import RawLspClient, server_env

__all__ = ["editor", "lsp_pool", "make_editor", "vscode"]

StartRaw = Callable[..., Awaitable[RawLspClient]]


@pytest.fixture
async def raw_clients(emulator: GeminiEmulator) -> AsyncIterator[list[RawLspClient]]:
    """Servers of their own, driven byte by byte; closed (then killed) after the test."""
    started: list[RawLspClient] = []
    yield started
    for client in started:
        await client.close()


@pytest.fixture
def start_raw(raw_clients: list[RawLspClient], emulator: GeminiEmulator) -> StartRaw:
    """`await start_raw(capabilities=None, env=None, key=TEST_KEY)`: an initialized server."""

    async def start(
        capabilities: dict[str, object] | None = None,
        *,
        env: dict[str, str] | None = None,
        key: str = TEST_KEY,
    ) -> RawLspClient:
        client = await RawLspClient.spawn(server_env(emulator.base_url, key, env))
        raw_clients.append(client)
        await client.initialize(capabilities)
        return client

    return start
