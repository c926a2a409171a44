"""The live preview notifications (`complexEdit/preview`) the test editor receives."""

from __future__ import annotations

from typing import Any

from tests.editor.session import EditorSession

PREVIEW = "complexEdit/preview"


def previews(editor: EditorSession) -> list[dict[str, Any]]:
    """The preview notifications the editor's server sends from now on (the handler is
    registered once per pooled client; each test starts with an empty list)."""
    client: Any = editor.client
    seen: list[dict[str, Any]] | None = getattr(client, "previews_seen", None)
    if seen is None:
        seen = []
        client.previews_seen = seen
        client.feature(PREVIEW)(lambda params: seen.append(plain(params)))
    seen.clear()
    return seen


def plain(value: Any) -> Any:
    """A notification's params as plain JSON values (pygls may hand over named tuples)."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value
