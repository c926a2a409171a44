"""Fixtures of the end-to-end suite, imported here for pytest to find: the test editor's
(``tests/editor/fixtures.py``) and the real Neovim's (``tests/editor/neovim.py``)."""

from __future__ import annotations

from tests.editor.fixtures import editor, lsp_pool, make_editor, vscode
from tests.editor.neovim import nvim

__all__ = ["editor", "lsp_pool", "make_editor", "nvim", "vscode"]
