"""The change report of an edit answered before it could arrive (a client blocked in the
request reports it only after the command's answer): read after the answer, logged when it is
the edit, and shown to the user when it is not."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from complex_edit.server.edit.port import Landing
from complex_edit.server.lsp.bridge import label_for_uri

if TYPE_CHECKING:
    from complex_edit.server.lsp.server import ComplexEditServer

log = logging.getLogger("complex_edit.editor")
# How long the report is awaited after the answer (eglot sends it once Emacs is idle).
LATE_ECHO_SECONDS = 30.0


def confirm_later(
    ls: ComplexEditServer, uri: str, hunks: int, reading: Coroutine[Any, Any, Landing]
) -> None:
    """After the answer, finish `reading` the editor's reports of the edit of `hunks` hunks
    on `uri` (the delivery's own wait for them), and say what they showed."""
    task = asyncio.create_task(_confirm(ls, uri, hunks, reading))
    ls.state.late_echoes.add(task)
    task.add_done_callback(ls.state.late_echoes.discard)


async def _confirm(
    ls: ComplexEditServer, uri: str, hunks: int, reading: Coroutine[Any, Any, Landing]
) -> None:
    landing = await reading
    name = label_for_uri(uri)
    if landing.kept is not None and len(landing.kept) == hunks and landing.heard:
        log.info("The editor reported the edit of %s after the answer: confirmed.", name)
        return
    if landing.closed:
        return  # the document was closed: nothing left to compare
    if landing.heard:
        problem = (
            f"complex-edit: the editor reported a different change than the edit of {name} "
            "it had answered as applied (not yet confirmed then); check the document."
        )
    else:
        problem = (
            f"complex-edit: the editor never reported the edit of {name} it had answered as "
            "applied (not yet confirmed then); check the document."
        )
    log.warning("%s", problem)
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=problem))
