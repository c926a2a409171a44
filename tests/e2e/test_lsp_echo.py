"""Editors whose change report does not follow their answer to `workspace/applyEdit` the usual
way, driven through the raw client (each test has a server of its own):

* eglot blocks in `eglot-execute-command` and sends `didChange` from an idle timer, so the
  report of an applied edit can only come after the command's answer. A client named "Eglot"
  that answers `applied: true` is answered at once, `confirmed: false`; the report that then
  arrives is confirmed quietly, or the user is told it is not the edit.
* eglot refuses a versioned edit whose version its document has left behind ("Edits on … require
  version 1, you have 2") and reports the changes that moved it just after: the server rebases
  the result onto them and sends it once more (or answers `document_changed` on an overlap).
* lsp-mode 8.0 (clientInfo "emacs") counts columns in code points and announces no encoding:
  it gets edits of whole lines, and its own reports are read in code points.
* `didSave` is handled quietly.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import pytest
from lsprotocol.types import ClientInfo
from pytest_lsp import client_capabilities

from complex_edit.server.lsp.abilities import ClientAbilities
from complex_edit.server.lsp.editor import whole_lines
from complex_edit.server.text.diff import TextChange, apply_changes
from tests.conftest import TEST_KEY
from tests.editor.client import wait_until
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator
from tests.fakes.rawlsp import EDITOR_CAPABILITIES, RawLspClient, edit_groups, frame, server_env

URI = "file:///echo/doc.py"
DOC = "alpha = 1\nbeta = 2\ngamma = 3\n"
EDITED = DOC.replace("alpha = 1", "alpha = 10")
BUMP_ALPHA = calls(replace("alpha = 1", "alpha = 10"), done("alpha bumped"))


@dataclass
class Emacs(RawLspClient):
    """An Emacs client: eglot by default. `holding`: its didChange notifications wait for
    `release` (eglot blocked in the command; its idle timer cannot fire). `stale`: how it
    refuses a versioned edit for a version its document has left behind, as eglot words it
    (an error answer, as eglot 1.9's `jsonrpc-error`, or `applied: false`)."""

    client_name: ClassVar[str] = "Eglot"
    default_capabilities: ClassVar[dict[str, Any]] = EDITOR_CAPABILITIES

    holding: bool = False
    held: list[bytes] = field(default_factory=list)
    stale: Literal["error", "applied-false"] = "error"
    apply_received_at: list[float] = field(default_factory=list)
    release_after_refusal: float | None = None
    before_apply: Callable[[], None] | None = None

    def notify(self, method: str, params: Any) -> None:
        if self.holding and method == "textDocument/didChange":
            self.held.append(
                frame({"jsonrpc": "2.0", "method": method, "params": params}),
            )
            return
        super().notify(method, params)

    def release(self) -> None:
        """Send the held didChange notifications (Emacs is idle again)."""
        self.holding = False
        for data in self.held:
            self.write_bytes(data)
        self.held.clear()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("method") == "workspace/applyEdit":
            self.apply_received_at.append(time.perf_counter())
            if self.before_apply is not None:
                self.before_apply()
            refusal = self._stale_refusal(message["params"])
            if refusal is not None:
                self.applies.append(message["params"])
                if self.release_after_refusal is not None:
                    asyncio.get_running_loop().call_later(self.release_after_refusal, self.release)
                if self.stale == "error":
                    error = {"code": -32603, "message": refusal}
                    self.write_bytes(frame({"jsonrpc": "2.0", "id": message["id"], "error": error}))
                else:
                    result = {"applied": False, "failureReason": refusal}
                    self.write_bytes(
                        frame({"jsonrpc": "2.0", "id": message["id"], "result": result})
                    )
                return
        super()._dispatch(message)

    def _stale_refusal(self, params: dict[str, Any]) -> str | None:
        for uri, version, _ in edit_groups(params["edit"]):
            doc = self.docs.get(uri)
            if doc is not None and version is not None and version != doc.version:
                name = uri.rsplit("/", 1)[-1]
                return f"Edits on `{name}' require version {version}, you have {doc.version}"
        return None

    def run(self, prompt: str = "bump alpha") -> tuple[Any, asyncio.Future[Any]]:
        arguments = {"textDocument": {"uri": URI}, "prompt": prompt}
        return self.send_request(
            "workspace/executeCommand", {"command": "performComplexEdit", "arguments": [arguments]}
        )

    def type_over(self, old: str, new: str) -> None:
        """The user replaces the only `old` (reported now, or held)."""
        doc = self.docs[URI]
        assert doc.text.count(old) == 1
        start = doc.text.index(old)
        self.type_text(URI, start, start + len(old), new, doc.version + 1)


@dataclass
class LspMode(Emacs):
    """lsp-mode 8.0: clientInfo "emacs", no position encodings announced, columns counted in
    code points; it reports its changes at once."""

    client_name: ClassVar[str] = "emacs"


# What eglot 1.9 (Emacs 28's ELPA package) announces, in part; it sends no clientInfo.
EGLOT_19_CAPABILITIES: dict[str, Any] = {
    "workspace": {
        "applyEdit": True,
        "executeCommand": {"dynamicRegistration": False},
        "workspaceEdit": {"documentChanges": True},
        "configuration": True,
        "workspaceFolders": True,
    },
    "textDocument": {
        "synchronization": {
            "dynamicRegistration": False,
            "willSave": True,
            "willSaveWaitUntil": True,
            "didSave": True,
        }
    },
    "experimental": {},
}


@dataclass
class Eglot19(Emacs):
    """eglot 1.9: no clientInfo."""

    async def initialize(
        self, capabilities: Any = None, init_options: Any = None, *, within: float = 60.0
    ) -> dict[str, Any]:
        params = {"processId": None, "rootUri": None, "capabilities": EGLOT_19_CAPABILITIES}
        result = await self.request("initialize", params, within=within)
        self.notify("initialized", {})
        return dict(result)


StartEmacs = Callable[..., Awaitable[Emacs]]


@pytest.fixture
async def start_emacs(emulator: GeminiEmulator) -> AsyncIterator[StartEmacs]:
    """`await start_emacs(kind=Emacs)`: a server of its own, initialized, `DOC` open."""
    started: list[Emacs] = []

    async def start(kind: type[Emacs] = Emacs, text: str = DOC) -> Emacs:
        client = await kind.spawn(server_env(emulator.base_url, TEST_KEY))
        started.append(client)
        await client.initialize()
        client.open(URI, text)
        return client

    yield start
    for client in started:
        with contextlib.suppress(Exception):
            await client.close()


def shown(client: Emacs) -> str:
    return "\n".join(client.shown_messages)


# --- a report that can only follow the answer ------------------------------------------------


@pytest.mark.parametrize("kind", [Emacs, Eglot19], ids=["eglot", "eglot-1.9"])
async def test_a_blocked_eglot_is_answered_at_once_and_confirmed_quietly(
    start_emacs: StartEmacs, emulator: GeminiEmulator, kind: type[Emacs]
) -> None:
    emacs = await start_emacs(kind)
    emacs.holding = True
    emulator.enqueue(BUMP_ALPHA)
    msg_id, future = emacs.run()

    result = await emacs.answer(future)
    answered_in = emacs.answered_at[msg_id] - emacs.apply_received_at[0]
    assert result["success"] is True, result
    assert result["applied"] is True, result
    assert result["confirmed"] is False, result
    assert "+alpha = 10" in result["diff"], result
    assert answered_in < 1.0, f"answered {answered_in:.2f} s after the edit was applied"
    assert emacs.docs[URI].text == EDITED

    emacs.release()
    await wait_until(lambda: any("confirmed" in m for m in emacs.log_messages), what="the log")
    assert not emacs.shown_messages, emacs.shown_messages
    assert not any("check the document" in m for m in emacs.log_messages), emacs.log_messages


async def test_a_blocked_eglot_that_reports_a_different_change_is_told(
    start_emacs: StartEmacs, emulator: GeminiEmulator
) -> None:
    emacs = await start_emacs()
    emacs.holding = True
    emulator.enqueue(BUMP_ALPHA)
    _, future = emacs.run()

    result = await emacs.answer(future)
    assert result["success"] is True, result
    assert result["confirmed"] is False, result
    # What it then reports is not the edit: its buffer holds something else.
    emacs.held.clear()
    emacs.holding = False
    doc = emacs.docs[URI]
    doc.text, doc.version = DOC, doc.version - 1
    emacs.type_over("beta = 2", "beta = 20")

    await wait_until(lambda: "different change" in shown(emacs), what="the warning")
    assert "check the document" in shown(emacs)
    assert any("different change" in m for m in emacs.log_messages), emacs.log_messages


async def test_eglot_reporting_before_its_answer_is_confirmed_as_usual(
    start_emacs: StartEmacs, emulator: GeminiEmulator
) -> None:
    """The Emacs package (and eglot through an asynchronous request) reports the change before
    it answers: a plain success, no `confirmed: false`."""
    emacs = await start_emacs()
    emulator.enqueue(BUMP_ALPHA)
    _, future = emacs.run()

    result = await emacs.answer(future)
    assert result["success"] is True, result
    assert "confirmed" not in result, result
    assert emacs.docs[URI].text == EDITED


async def test_another_client_answering_without_a_report_is_still_refused(
    emulator: GeminiEmulator,
) -> None:
    """Only a client known to report after the answer is answered unconfirmed."""

    @dataclass
    class Silent(Emacs):
        client_name: ClassVar[str] = "some-editor"

    client = await Silent.spawn(
        server_env(emulator.base_url, TEST_KEY, {"COMPLEX_EDIT_APPLY_TIMEOUT_SECONDS": "1"})
    )
    try:
        await client.initialize()
        client.open(URI, DOC)
        client.holding = True
        emulator.enqueue(BUMP_ALPHA)
        _, future = client.run()
        result = await client.answer(future)
        assert result["success"] is False, result
        assert result["reason"] == "client_rejected", result
        assert "confirmed" not in result, result
    finally:
        await client.close()


# --- a refused stale version: rebased and sent once more -------------------------------------


@pytest.mark.parametrize("refusal", ["error", "applied-false"])
async def test_a_stale_version_refusal_is_rebased_and_sent_once_more(
    start_emacs: StartEmacs, emulator: GeminiEmulator, refusal: Literal["error", "applied-false"]
) -> None:
    emacs = await start_emacs()
    emacs.stale = refusal
    emulator.enqueue(BUMP_ALPHA)
    emacs.holding = True  # typed just before the edit arrives, reported from the idle timer
    emacs.type_over("gamma = 3", "gamma = 33")
    emacs.release_after_refusal = 0.2
    _, future = emacs.run()

    result = await emacs.answer(future)
    assert result["success"] is True, result
    assert result["applied"] is True, result
    assert len(emacs.applies) == 2, emacs.applies
    (_, second_version, _), *_ = edit_groups(emacs.applies[1]["edit"])
    assert second_version == 2
    assert emacs.docs[URI].text == EDITED.replace("gamma = 3", "gamma = 33")


async def test_a_stale_refusal_over_an_overlapping_change_applies_nothing(
    start_emacs: StartEmacs, emulator: GeminiEmulator
) -> None:
    emacs = await start_emacs()
    emulator.enqueue(BUMP_ALPHA)
    emacs.holding = True
    emacs.type_over("alpha = 1", "alpha = 7")
    emacs.release_after_refusal = 0.2
    _, future = emacs.run()

    result = await emacs.answer(future)
    assert result["success"] is False, result
    assert result["reason"] == "document_changed", result
    assert not result.get("applied"), result
    assert len(emacs.applies) == 1, emacs.applies
    assert emacs.docs[URI].text == DOC.replace("alpha = 1", "alpha = 7")


async def test_a_stale_refusal_is_sent_once_more_only_once(
    start_emacs: StartEmacs, emulator: GeminiEmulator
) -> None:
    """The user types (unreported) as each edit arrives: the second refusal is the answer."""
    emacs = await start_emacs()
    emulator.enqueue(BUMP_ALPHA)
    emacs.release_after_refusal = 0.2
    typed = iter(["beta = 2", "gamma = 3"])

    def type_unreported() -> None:
        emacs.holding = True
        old = next(typed)
        emacs.type_over(old, old + "0")

    emacs.before_apply = type_unreported
    _, future = emacs.run()

    result = await emacs.answer(future)
    assert result["success"] is False, result
    assert result["reason"] == "client_rejected", result
    assert "require version 2, you have 3" in result["error"], result
    assert len(emacs.applies) == 2, emacs.applies
    assert emacs.docs[URI].text == DOC.replace("= 2", "= 20").replace("= 3", "= 30")


# --- lsp-mode: columns in code points ---------------------------------------------------------

EMOJI_DOC = 'smile = "😀"\nE = "🎉🎉"; V = old_name(1)\nomega = 5\n'


async def test_lsp_mode_gets_whole_lines_that_land_right_after_an_emoji(
    start_emacs: StartEmacs, emulator: GeminiEmulator
) -> None:
    emacs = await start_emacs(LspMode, EMOJI_DOC)
    emacs.encoding = "utf-32"  # what lsp-mode counts, whatever the server announced
    # Its own report of a keystroke after an emoji, in code points.
    emacs.type_over('"🎉🎉"', '"🎉🎉!"')
    emulator.enqueue(calls(replace("old_name(1)", "new_name(1)"), done()))
    _, future = emacs.run("rename")

    result = await emacs.answer(future)
    assert result["success"] is True, result
    expected = EMOJI_DOC.replace('"🎉🎉"', '"🎉🎉!"').replace("old_name", "new_name")
    assert emacs.docs[URI].text == expected
    (applied,) = emacs.applies
    ((_, _, edits),) = edit_groups(applied["edit"])
    for edit in edits:
        assert edit["range"]["start"]["character"] == 0, edits
        assert edit["range"]["end"]["character"] == 0, edits


def test_whole_lines_joins_changes_that_share_a_line() -> None:
    text = "a = 1\nb = 2\nc = 3"
    changes = [TextChange(4, 5, "10"), TextChange(6, 7, "B"), TextChange(10, 11, "20")]
    lines = whole_lines(text, changes)
    assert lines == [TextChange(0, 12, "a = 10\nB = 20\n")]
    assert apply_changes(text, lines) == apply_changes(text, changes)
    last = whole_lines(text, [TextChange(16, 17, "30")])
    assert last == [TextChange(12, 17, "c = 30")]


# --- didSave ---------------------------------------------------------------------------------


async def test_did_save_is_handled_quietly(start_emacs: StartEmacs) -> None:
    emacs = await start_emacs()
    emacs.notify("textDocument/didSave", {"textDocument": {"uri": URI}})
    await emacs.stats()  # answered after the notification was handled
    await asyncio.sleep(0.1)
    noise = [line for line in [*emacs.stderr, *emacs.log_messages] if "didSave" in line]
    assert not noise, noise


@pytest.mark.parametrize(
    "client", ["neovim@v0.6", "neovim@v0.9", "neovim@v0.11", "visual-studio-code"]
)
def test_other_clients_are_neither_eglot_nor_counting_code_points(client: str) -> None:
    for name in (None, "Neovim", "Visual Studio Code"):
        info = ClientInfo(name=name) if name is not None else None
        abilities = ClientAbilities.of(client_capabilities(client), "utf-16", info)
        assert not abilities.reports_after_answer, (client, name)
        assert not abilities.whole_lines, (client, name)
        assert abilities.position_encoding == "utf-16"


def test_lsp_mode_announcing_an_encoding_is_taken_at_its_word() -> None:
    capabilities = client_capabilities("neovim@v0.11")  # announces positionEncodings
    abilities = ClientAbilities.of(capabilities, "utf-8", ClientInfo(name="emacs"))
    assert not abilities.whole_lines
    assert abilities.position_encoding == "utf-8"
