"""The change report of an edit answered before it could arrive (a client blocked in the
request reports it only after the command's answer): read after the answer, logged when it is
the edit, and shown to the user when it is not."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from complex_edit.server.lsp.bridge import label_for_uri
from complex_edit.server.text.documents import Snapshot
from complex_edit.server.text.hunks import Hunk

if TYPE_CHECKING:
    from complex_edit.server.lsp.server import ComplexEditServer

log = logging.getLogger("complex_edit.editor")
# How long the report is awaited after the answer (eglot sends it once Emacs is idle).
LATE_ECHO_SECONDS = 30.0
# Once a report has come: how long the rest of the edit may take to be reported.
REST_SECONDS = 0.5

WhatLanded = Callable[[Sequence[Hunk]], "list[int] | None"]


def confirm_later(
    ls: ComplexEditServer,
    base: Snapshot,
    hunks: Sequence[Hunk],
    echo: asyncio.Future[bool],
    what_landed: WhatLanded,
) -> None:
    """Watch, after the answer, for the report of the edit of `hunks` sent against `base`
    (`echo`: the next change of the document after it was sent; `what_landed` reads the
    reports)."""
    task = asyncio.create_task(_confirm(ls, base, hunks, echo, what_landed))
    ls.late_echoes.add(task)
    task.add_done_callback(ls.late_echoes.discard)


async def _confirm(
    ls: ComplexEditServer,
    base: Snapshot,
    hunks: Sequence[Hunk],
    echo: asyncio.Future[bool],
    what_landed: WhatLanded,
) -> None:
    name = label_for_uri(base.uri)
    heard = False
    try:
        async with asyncio.timeout(LATE_ECHO_SECONDS) as scope:
            while await echo:
                found = what_landed(hunks)
                if found is not None and len(found) == len(hunks):
                    log.info(
                        "The editor reported the edit of %s after the answer: confirmed.", name
                    )
                    return
                if not heard:
                    heard = True
                    scope.reschedule(asyncio.get_running_loop().time() + REST_SECONDS)
                echo = ls.commands.next_change(base.uri)
            return  # the document was closed: nothing left to compare
    except TimeoutError:
        echo.cancel()
    if heard:
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
