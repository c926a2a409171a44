"""The messages between the language server (`process.py`) and its session process
(`worker.py`), pickled into frames by `wire.py`. Each names the run it is about by `run_id`,
a number the server gives each `RunSession`.

Typed named tuples rather than dataclasses: the server imports this module before it starts
the child (`SessionProcess.launch`), and five dataclasses would delay that start by ~4 ms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from complex_edit.server.session.events import SessionEvent
    from complex_edit.server.session.request import EditRequest
    from complex_edit.server.session.result import FinishedSession


# -- to the session process --------------------------------------------------------------------


class RunSession(NamedTuple):
    """Run `request`; its events, then `Returned` or `Failed`, come back under `run_id`."""

    run_id: int
    request: EditRequest


class CancelSession(NamedTuple):
    """Cancel the run (nothing more comes back for it)."""

    run_id: int


# -- from the session process ------------------------------------------------------------------


class Event(NamedTuple):
    """A progress event of the run, in the order the session emitted them."""

    run_id: int
    event: SessionEvent


class Returned(NamedTuple):
    """The run returned its `FinishedSession` (a failed edit is one too)."""

    run_id: int
    result: FinishedSession


class Failed(NamedTuple):
    """A bug inside the session ended the run: `error` is "TypeName: message"."""

    run_id: int
    error: str


ToWorker = RunSession | CancelSession
FromWorker = Event | Returned | Failed
Message = ToWorker | FromWorker
