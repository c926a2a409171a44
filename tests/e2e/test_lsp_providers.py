"""performComplexEdit end to end with each provider: the real `complex-edit lsp` process, set to
a provider by `initializationOptions` (`provider`, `baseUrl`, `model`), talking through that
provider's real SDK to its local wire emulator."""

from __future__ import annotations

import pytest

from tests.conftest import TEST_KEY
from tests.editor.checks import assert_minimal_edit, assert_success
from tests.editor.fixtures import SessionFactory
from tests.editor.session import EditorSession
from tests.session.scripts import KEY_VARIABLE, Harness, calls, done, replace

DOC = "def greet(name):\n    return 'Hello, ' + name\n\n\nprint(greet('world'))\n"
MODEL = {"gemini": "gemini-e2e", "openai": "local-model-7b", "anthropic": "claude-e2e"}


@pytest.fixture
async def editor_for(make_editor: SessionFactory, model: Harness) -> EditorSession:
    """A VS Code-like editor whose server is set to `model`'s provider."""
    return await make_editor(
        "vscode",
        env={KEY_VARIABLE[model.provider]: TEST_KEY},
        init_options={
            "provider": model.provider,
            "baseUrl": model.base_url,
            "model": MODEL[model.provider],
        },
    )


async def test_edit_is_applied_with_each_provider(
    editor_for: EditorSession, model: Harness
) -> None:
    editor = editor_for
    uri = editor.open(DOC, version=7)
    model.script(
        calls(
            replace("'Hello, ' + name", "f'Hello, {name}!'"),
            done("switched to an f-string"),
            usage=(321, 45),
        )
    )
    result = await editor.run(uri, "use an f-string")
    expected = DOC.replace("'Hello, ' + name", "f'Hello, {name}!'")
    assert_success(result, turns=1)
    assert editor.text(uri) == expected
    assert result["message"] == "switched to an f-string"
    assert result["toolCalls"] == 2
    assert result["usage"]["inputTokens"] == 321
    assert result["usage"]["outputTokens"] == 45
    assert "+    return f'Hello, {name}!'" in result["diff"]
    assert_minimal_edit(editor, uri, DOC, expected)
    assert model.request_count == 1
    assert model.api_key(0) == TEST_KEY
    assert model.model(0) == MODEL[model.provider]
    assert "return 'Hello, ' + name" in model.first_message(0)
    assert "use an f-string" in model.first_message(0)
    assert model.problems == []
