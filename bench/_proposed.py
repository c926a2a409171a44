"""The context-efficiency change proposed for ``server/session.py`` and
``server/providers/gemini.py``, applied by monkeypatching so ``bench_context.py --proposed``
can measure it before it is made (see BENCHMARKS.md for the exact change):

1. the session builds its ``Toolbox`` with ``elide_repeated_views=True``: a full
   ``get_document`` of a text the model already has in full answers with a one-line note;
2. when a tool result is a fresh full view of the document, the conversation replaces the
   older full views in its history with a one-line stub, so a request never holds more than
   the first message's copy and the latest view (model turns are never touched: only our own
   function responses are).

Here the full views are recognised from their header; the real change carries
``ToolOutcome.full_view`` through ``ToolResult``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

STALE_VIEW = {
    "result": "[An older full view of the document was here. It is out of date and was "
    "removed; the latest full view is further down.]"
}
_HEADER = re.compile(r"\[(?:lines 1-(\d+)|line 1) of (\d+)[;\]]")


def _is_full_view(result: Any) -> bool:
    if result.call.name != "get_document" or not result.ok:
        return False
    text = result.response.get("result")
    if not isinstance(text, str) or "has not changed since" in text[:200]:
        return False
    match = _HEADER.match(text)
    return bool(match) and (match.group(1) or "1") == match.group(2)


def apply() -> None:
    import server.providers.gemini as gemini
    import server.session as session
    from edit_tools.registry import Toolbox

    class ElidingToolbox(Toolbox):
        def __init__(self, text: str, **options: Any) -> None:
            super().__init__(text, elide_repeated_views=True, **options)

    session.Toolbox = ElidingToolbox  # type: ignore[misc]

    add = gemini.GeminiConversation.add_tool_results

    def add_tool_results(self: Any, results: Sequence[Any]) -> None:
        from google.genai import types

        views = [index for index, result in enumerate(results) if _is_full_view(result)]
        kept: list[tuple[int, int]] = getattr(self, "_view_parts", [])
        if views:
            for content_index, part_index in kept:
                old = self._history[content_index].parts[part_index].function_response
                self._history[content_index].parts[part_index] = types.Part(
                    function_response=types.FunctionResponse(
                        id=old.id, name=old.name, response=STALE_VIEW
                    )
                )
            kept = []
        add(self, results)
        last = len(self._history) - 1
        self._view_parts = kept + [(last, index) for index in views]

    gemini.GeminiConversation.add_tool_results = add_tool_results  # type: ignore[method-assign]
