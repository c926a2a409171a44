"""The first exchanges of a session, answered before the MCP SDK has loaded.

An agent starts the server, then sends `initialize`, `notifications/initialized` and its list
requests at once, and some (`codex exec`) ask their model without the tool when the answer is
late. Importing the SDK takes most of a second on a busy machine, so these answers come from
`listing.json` (what the SDK server answers them, recorded by `listing.py`; a test keeps the
two equal) while the SDK loads on another thread. The first message of any other kind, or one
that does not look as expected, ends this: the SDK server then gets the lines read so far (its
answer to `initialize` is dropped, having been given) and serves the rest.

Standard library only: this runs before anything else is imported.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

LISTING = Path(__file__).with_name("listing.json")
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


@dataclass
class Opening:
    """What the early answers read: the lines to replay to the SDK server, in order (the
    `initialize`, the notifications, and the first message not answered early), and the id of
    the `initialize` answered early."""

    replay: list[bytes] = field(default_factory=list)
    initialize_id: str | int | None = None


def load_listing(path: Path = LISTING) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def answer_early(stdin: BinaryIO, stdout: BinaryIO, listing: Mapping[str, Any]) -> Opening:
    """Answer from `listing` until a message it cannot answer, or the end of stdin."""
    opening = Opening()
    answers: Mapping[str, Any] | None = None
    while line := stdin.readline():
        opening.replay.append(line)
        message = _message(line)
        method = message.get("method")
        if method == "notifications/initialized" and answers is not None:
            continue
        request_id = message.get("id")
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            return opening
        if method == "initialize" and answers is None:
            answers = _for_version(listing, message.get("params"))
            if answers is None:
                return opening
            opening.initialize_id = request_id
            _write(stdout, request_id, answers["initialize"])
            continue
        if answers is None or method not in LISTS or _params(message).get("cursor") is not None:
            return opening
        opening.replay.pop()  # answered here; the SDK server need not see it
        _write(stdout, request_id, answers[method])
    return opening


def _message(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return {}
    return message


def _params(message: Mapping[str, Any]) -> Mapping[str, Any]:
    params = message.get("params")
    return params if isinstance(params, dict) else {}


def _for_version(listing: Mapping[str, Any], params: Any) -> Mapping[str, Any] | None:
    """The recorded answers for the version the client asks for (the SDK answers an unknown
    one with its latest); None when the request does not look like the usual one."""
    if not isinstance(params, dict):
        return None
    version = params.get("protocolVersion")
    if not isinstance(version, str) or not isinstance(params.get("capabilities"), dict):
        return None
    if not isinstance(params.get("clientInfo"), dict):
        return None
    versions: Mapping[str, Mapping[str, Any]] = listing["versions"]
    return versions.get(version) or versions[listing["latest"]]


def _write(stdout: BinaryIO, request_id: str | int, result: Any) -> None:
    answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
    stdout.write(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
    stdout.flush()
