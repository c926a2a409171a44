"""Fixtures of the end-to-end suite, imported here for pytest to find: the test editor's
(``tests/editor/fixtures.py``) and the real Neovim's (``tests/editor/neovim.py``)."""

from __future__ import annotations

from tests.editor.fixtures import editor, lsp_pool, make_editor, vscode
from tests.editor.neovim import nvim

# test_emacs.py (another engineer's file this round) still imports these three from here;
# once it imports them from tests.editor.turns, drop this line.
from tests.editor.turns import calls, done, replace

__all__ = ["calls", "done", "editor", "lsp_pool", "make_editor", "nvim", "replace", "vscode"]
