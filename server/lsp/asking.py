"""`complexEdit/asking {seconds}`: the editor says a person is being asked about an edit the
server sent (Emacs' package, when `complex-edit-confirm-edits` asks before a server edit), so
the server's wait for the answer to `workspace/applyEdit` (setting `applyTimeoutSeconds`) is
stretched to cover the question: to `seconds` from now (default and cap below), never
shortened. Not part of the contract's required surface: a client that never asks never sends
it, and one that sends it too late (the wait already over) changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any, Protocol

ASKING_METHOD = "complexEdit/asking"
# How long a question may keep an edit waiting when the client names no time, and at most.
DEFAULT_SECONDS = 300.0
MAX_SECONDS = 3600.0


class ApplyWaits:
    """The waits for `workspace/applyEdit` answers under way (their timeout scopes)."""

    def __init__(self) -> None:
        self._scopes: set[asyncio.Timeout] = set()

    @contextlib.contextmanager
    def watching(self, scope: asyncio.Timeout) -> Iterator[None]:
        """While the answer to one applyEdit is awaited under `scope`."""
        self._scopes.add(scope)
        try:
            yield
        finally:
            self._scopes.discard(scope)

    def stretch(self, seconds: float) -> int:
        """Every wait under way ends no sooner than `seconds` from now; how many there were."""
        until = asyncio.get_running_loop().time() + seconds
        for scope in self._scopes:
            when = scope.when()
            if when is not None and when < until:
                scope.reschedule(until)
        return len(self._scopes)


def seconds_of(params: Any) -> float:
    """The `seconds` a notification's params name, within (0, MAX_SECONDS]; else the default."""
    value = getattr(params, "seconds", None)
    if value is None and isinstance(params, dict):
        value = params.get("seconds")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return DEFAULT_SECONDS
    return min(float(value), MAX_SECONDS)


class _State(Protocol):
    @property
    def apply_waits(self) -> ApplyWaits: ...


class _Server(Protocol):
    @property
    def state(self) -> _State: ...


def asking(ls: _Server, params: Any) -> None:
    """The handler of `complexEdit/asking`."""
    ls.state.apply_waits.stretch(seconds_of(params))
