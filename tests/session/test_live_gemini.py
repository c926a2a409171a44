"""Against the real Gemini API: runs only when GEMINI_API_KEY is set."""

from __future__ import annotations

import os

import pytest

from complex_edit.server.providers.gemini import GeminiProvider
from complex_edit.server.session.loop import run_tool_loop
from complex_edit.server.session.request import EditRequest
from complex_edit.server.settings import Settings

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not os.environ.get("GEMINI_API_KEY"), reason="needs GEMINI_API_KEY (real Gemini API)"
    ),
]

SOURCE = "def add(a, b):\n    return a + b\n\n\nprint(add(1, 2))\n"


async def test_real_model_renames_a_function() -> None:
    settings = Settings.from_layers(os.environ, {"maxTurns": 6})
    request = EditRequest(
        instruction="Rename the function add to plus and update its caller.",
        text=SOURCE,
        settings=settings,
    )
    outcome = await run_tool_loop(request, GeminiProvider())
    assert outcome.success, outcome.error
    assert outcome.final_text is not None
    assert "def plus(a, b):" in outcome.final_text
    assert "print(plus(1, 2))" in outcome.final_text
    assert "add" not in outcome.final_text
    assert outcome.usage.input_tokens > 0
