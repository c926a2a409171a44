"""The floor for the overhead benchmark: a bare pygls server doing the protocol work only.

It keeps documents the way pygls does by default (incremental sync, pygls' own workspace),
and answers ``performComplexEdit`` by sending one ``workspace/applyEdit`` holding the edits it
was given in the argument (``edits``: LSP ``TextEdit``s, ``version``), then waiting for the
editor's ``didChange`` echo (up to 5 s, as complex-edit does) before answering. No model, no
diff, no settings, no progress: what any server must pay to receive the document and deliver
the same edit.

``build(ask=...)`` adds one awaited step before the edit is sent, given the document's text
and the command's argument: ``bench/floor_genai.py`` asks the model there.

Run: ``python bench/floor_server.py`` (stdio).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

logging.getLogger("pygls").setLevel(logging.WARNING)

Ask = Callable[[str, Mapping[str, Any]], Awaitable[None]]
"""``ask(text, argument)``: awaited before the edit is sent."""


def _text_edits(argument: Mapping[str, Any]) -> list[types.TextEdit]:
    return [
        types.TextEdit(
            range=types.Range(
                start=types.Position(**e["range"]["start"]),
                end=types.Position(**e["range"]["end"]),
            ),
            new_text=e["newText"],
        )
        for e in argument["edits"]
    ]


def build(ask: Ask | None = None) -> LanguageServer:
    server = LanguageServer("bench-floor", "0")
    waiters: dict[str, list[asyncio.Future[None]]] = {}

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        # pygls has already applied the change to its workspace document.
        for waiter in waiters.pop(params.text_document.uri, []):
            if not waiter.done():
                waiter.set_result(None)

    @server.command("performComplexEdit")
    async def perform(ls: LanguageServer, args: Any) -> dict[str, Any]:
        uri = args["textDocument"]["uri"]
        document = ls.workspace.get_text_document(uri)
        if ask is not None:
            await ask(document.source, args)
        echo: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiters.setdefault(uri, []).append(echo)
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(
                edit=types.WorkspaceEdit(
                    document_changes=[
                        types.TextDocumentEdit(
                            text_document=types.OptionalVersionedTextDocumentIdentifier(
                                uri=uri, version=document.version
                            ),
                            edits=list(_text_edits(args)),
                        )
                    ]
                ),
                label="floor",
            )
        )
        if result.applied:
            try:
                async with asyncio.timeout(5):
                    await echo
            except TimeoutError:
                pass
        return {"success": bool(result.applied), "applied": bool(result.applied)}

    return server


if __name__ == "__main__":
    build().start_io()
