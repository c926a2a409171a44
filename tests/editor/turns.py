"""Scripted model turns, as Gemini emulator replies, and what the model was sent."""

from __future__ import annotations

from typing import Any

from tests.fakes.gemini_emulator import RecordedRequest, Reply

ToolCallSpec = tuple[str, dict[str, Any]]


def calls(*items: ToolCallSpec, usage: tuple[int, int] = (100, 20)) -> Reply:
    return Reply.function_calls(list(items), usage=usage)


def replace(old: str, new: str, *, replace_all: bool = False) -> ToolCallSpec:
    args: dict[str, Any] = {"old_text": old, "new_text": new}
    if replace_all:
        args["replace_all"] = True
    return ("replace_text", args)


def done(message: str = "done") -> ToolCallSpec:
    return ("complete_task", {"success": True, "message": message})


def give_up(error: str = "cannot do it") -> ToolCallSpec:
    return ("complete_task", {"success": False, "error": error})


def first_message(request: RecordedRequest) -> str:
    parts = request.contents[0]["parts"] if request.contents else []
    return "\n".join(p.get("text", "") for p in parts)


def request_text(request: RecordedRequest) -> str:
    """Every text part of every message of the request."""
    return "\n".join(
        str(part.get("text", ""))
        for content in request.contents
        for part in content.get("parts", [])
        if isinstance(part, dict)
    )
