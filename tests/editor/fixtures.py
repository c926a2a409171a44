"""The test editor's pytest fixtures. ``tests/e2e/conftest.py`` and
``tests/reliability/conftest.py`` import them for pytest to find (each directory gets its own
pool of server processes): ``make_editor`` (any client kind), ``editor`` (VS Code's and
Neovim's capabilities in turn), ``vscode``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import pytest

from tests.editor.client import ClientKind
from tests.editor.servers import ServerPool
from tests.editor.session import EditorSession
from tests.fakes.gemini_emulator import GeminiEmulator


@pytest.fixture(scope="session")
async def lsp_pool(emulator_server: GeminiEmulator) -> AsyncIterator[ServerPool]:
    pool = ServerPool(emulator_server.base_url)
    yield pool
    await pool.close()


SessionFactory = Callable[..., Awaitable[EditorSession]]


@pytest.fixture
async def make_editor(
    lsp_pool: ServerPool, emulator: GeminiEmulator
) -> AsyncIterator[SessionFactory]:
    """`await make_editor(kind, env=..., init_options=...)`: a pooled server for this test."""
    used: list[EditorSession] = []

    async def make(
        kind: ClientKind = "vscode",
        *,
        env: Mapping[str, str] | None = None,
        init_options: Any = None,
    ) -> EditorSession:
        session = await lsp_pool.get(kind, env=env, init_options=init_options)
        session.begin_test()
        used.append(session)
        return session

    yield make
    for session in used:
        await session.end_test()


@pytest.fixture(params=["vscode", "neovim"])
async def editor(request: pytest.FixtureRequest, make_editor: SessionFactory) -> EditorSession:
    """The same test with VS Code's capabilities (utf-16, documentChanges) and Neovim 0.11's
    (utf-8, `changes` form)."""
    return await make_editor(request.param)


@pytest.fixture
async def vscode(make_editor: SessionFactory) -> EditorSession:
    return await make_editor("vscode")
