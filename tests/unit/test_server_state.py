"""The language server's state has one owner (`ServerState`), and the requests in flight are
tracked in our own tables (`Request`), never in pygls' private one."""

from __future__ import annotations

import inspect

from complex_edit.server.lsp import requests
from complex_edit.server.lsp.requests import Request
from complex_edit.server.lsp.state import ServerState

URI = "file:///state/a.py"


def test_a_cancel_reaches_every_listener_once() -> None:
    request = Request(7)
    heard: list[str] = []
    request.on_cancel(lambda: heard.append("first"))
    request.on_cancel(lambda: heard.append("second"))
    request.cancel()
    request.cancel()
    assert heard == ["first", "second"]
    assert request.cancelled()
    assert request.answered_cancelled


def test_a_listener_of_a_request_cancelled_already_hears_it_at_once() -> None:
    request = Request(7, cancelled=True)
    heard: list[int] = []
    request.on_cancel(lambda: heard.append(1))
    assert heard == [1]


def test_a_forgotten_request_hears_no_late_cancel() -> None:
    request = Request(7)
    heard: list[int] = []
    request.on_cancel(lambda: heard.append(1))
    request.forget()
    request.cancel()
    request.on_cancel(lambda: heard.append(2))
    assert heard == []
    assert request.cancelled()
    assert not request.answered_cancelled


def test_no_private_pygls_table_is_read() -> None:
    assert "_request_futures" not in inspect.getsource(requests).replace("(`_request_futures`)", "")


def test_the_state_snapshots_an_open_document_and_its_proposals() -> None:
    state = ServerState({})
    assert state.snapshot(URI, ()) is None
    state.opened(URI, "x = 1\n", 3, "python")
    state.opened("file:///state/b.py", "y = 2\n", 1, "python")
    snapshot = state.snapshot(URI, ())
    assert snapshot is not None
    assert (snapshot.document.text, snapshot.document.version) == ("x = 1\n", 3)
    assert [doc.text for doc in snapshot.open_documents] == ["y = 2\n"]
    assert snapshot.proposals is state.proposals
    assert (snapshot.listing, snapshot.checkers) == (None, None)


def test_closing_a_document_lets_its_command_and_proposals_go() -> None:
    state = ServerState({})
    state.ready()
    state.opened(URI, "x = 1\n", 1, "python")
    state.closed(URI)
    assert not state.documents.is_open(URI)
    assert state.snapshot(URI, ()) is None
    assert len(state.proposals) == 0
