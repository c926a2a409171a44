"""``EditorSession``: one server process and the editor state around it. It keeps its own copy
of every open document, sends incremental ``didChange`` notifications, answers
``workspace/applyEdit`` by applying the edits to its copy (positions read in the negotiated
encoding), checks versions like a strict editor (or like Neovim, lax), bumps the version and
echoes the change back with ``didChange``. It can also reject the edit, answer with an error,
answer late or never (``ApplyBehaviour``)."""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Awaitable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

from tests.editor.client import (
    COMMAND,
    RESPONSE_TIMEOUT,
    AppliedEdit,
    ApplyBehaviour,
    ApplyRecord,
    ClientKind,
    CommandError,
    Document,
    EditorClient,
    ProtocolViolation,
    Refused,
    position_to_offset,
    retrieve_exception,
    to_range,
    wait_until,
)

_uri_counter = itertools.count(1)


class EditorSession:
    """One server process and the editor state around it."""

    def __init__(self, kind: ClientKind, client: EditorClient) -> None:
        self.kind = kind
        self.client = client
        self.encoding = "utf-16"
        self.init_result: types.InitializeResult | None = None
        self.docs: dict[str, Document] = {}
        self.behaviour = ApplyBehaviour()
        self.applies: list[ApplyRecord] = []
        self.violations: list[str] = []
        self.loaded: dict[str, Document] = {}  # files an edit loaded without a word (silent)
        self.folders: list[types.WorkspaceFolder] = []
        self._release_hangs = asyncio.Event()
        self._stderr_mark = 0
        self._log_mark = 0

        async def on_apply_edit(
            params: types.ApplyWorkspaceEditParams,
        ) -> types.ApplyWorkspaceEditResult:
            return await self._on_apply_edit(params)

        client.feature(types.WORKSPACE_APPLY_EDIT)(on_apply_edit)

    # -- lifecycle ----------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        server = self.client._server
        return server is not None and server.returncode is None and not self.client.stopped

    def begin_test(self) -> None:
        self.behaviour = ApplyBehaviour()
        self.applies = []
        self.violations = []
        self._release_hangs = asyncio.Event()
        self.client.set_configuration({})
        self._stderr_mark = len(self.client.stderr_lines)
        self._log_mark = len(self.client.log_messages)

    async def end_test(self) -> None:
        self._release_hangs.set()
        if not self.alive:
            code = self.client._server.returncode if self.client._server else None
            raise AssertionError(f"the {self.kind} server process died (exit code {code})")
        for uri in list(self.docs):
            self.close(uri)
        self.loaded = {}
        if self.folders:
            removed, self.folders = self.folders, []
            self._folders_changed([], removed)
        self.client.set_configuration({})
        self.behaviour = ApplyBehaviour()
        violations, self.violations = self.violations, []
        if violations:
            raise AssertionError("the server broke the protocol: " + "; ".join(violations))

    # -- documents ----------------------------------------------------------------------

    def new_uri(self, suffix: str = ".py") -> str:
        return f"file:///e2e/{self.kind}/doc{next(_uri_counter)}-{uuid.uuid4().hex[:6]}{suffix}"

    def open(
        self,
        text: str,
        *,
        uri: str | None = None,
        version: int = 1,
        language_id: str = "python",
    ) -> str:
        uri = uri or self.new_uri()
        self.docs[uri] = Document(uri, text, version)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language_id, version=version, text=text
                )
            )
        )
        return uri

    def add_folder(self, path: str, name: str | None = None) -> str:
        """Announce the folder `path` as a workspace folder (removed again at the test's end);
        its URI."""
        folder = types.WorkspaceFolder(uri=Path(path).as_uri(), name=name or Path(path).name)
        self.folders.append(folder)
        self._folders_changed([folder], [])
        return folder.uri

    def _folders_changed(
        self, added: list[types.WorkspaceFolder], removed: list[types.WorkspaceFolder]
    ) -> None:
        self.client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(added=added, removed=removed)
            )
        )

    def open_file(self, path: str, *, language_id: str = "python") -> str:
        """Open the file at `path` as it is on disk."""
        text = Path(path).read_text(encoding="utf-8")
        return self.open(text, uri=Path(path).as_uri(), language_id=language_id)

    def close(self, uri: str) -> None:
        self.docs.pop(uri, None)
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    def text(self, uri: str) -> str:
        return self.docs[uri].text

    def version(self, uri: str) -> int:
        return self.docs[uri].version

    def edit(self, uri: str, start: int, end: int, new_text: str) -> None:
        """Type: replace text[start:end] with new_text and send an incremental didChange."""
        doc = self.docs[uri]
        change = types.TextDocumentContentChangePartial(
            range=to_range(doc.text, start, end, self.encoding), text=new_text
        )
        doc.text = doc.text[:start] + new_text + doc.text[end:]
        doc.version += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=doc.version),
                content_changes=[change],
            )
        )

    def replace(self, uri: str, old: str, new: str) -> None:
        """Type over the only occurrence of `old`."""
        text = self.docs[uri].text
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
        start = text.index(old)
        self.edit(uri, start, start + len(old), new)

    async def barrier(self) -> None:
        """A round trip: once it returns, the server has handled every earlier message."""
        with pytest.raises(CommandError):
            await self.execute_raw([])

    # -- the command --------------------------------------------------------------------

    def arguments(self, uri: str, prompt: str, **extra: Any) -> dict[str, Any]:
        return {"textDocument": {"uri": uri}, "prompt": prompt, **extra}

    def start_raw(self, arguments: list[Any] | None) -> tuple[str, asyncio.Future[Any]]:
        """Send the command; returns its request id and a future for its answer."""
        msg_id = f"cmd-{uuid.uuid4().hex[:12]}"
        future = asyncio.ensure_future(
            self.client.protocol.send_request_async(
                types.WORKSPACE_EXECUTE_COMMAND,
                types.ExecuteCommandParams(command=COMMAND, arguments=arguments),
                msg_id=msg_id,
            )
        )
        # A test that fails early leaves other answers unawaited: mark their exceptions as
        # retrieved, or asyncio logs them from the garbage collector at random moments (and
        # on CPython 3.11.7 that logging can break pytest's own traceback rendering).
        future.add_done_callback(retrieve_exception)
        return msg_id, future

    def start(self, uri: str, prompt: str, **extra: Any) -> tuple[str, asyncio.Future[Any]]:
        return self.start_raw([self.arguments(uri, prompt, **extra)])

    async def answer(
        self, future: Awaitable[Any], within: float = RESPONSE_TIMEOUT
    ) -> dict[str, Any]:
        """The command's result object; a JSON-RPC error is raised as CommandError."""
        try:
            async with asyncio.timeout(within):
                result = await future
        except JsonRpcException as exc:
            raise CommandError(int(exc.code), str(exc.message)) from None
        assert isinstance(result, dict), f"the command answered {result!r}"
        return result

    async def execute_raw(
        self, arguments: list[Any] | None, within: float = RESPONSE_TIMEOUT
    ) -> dict[str, Any]:
        _, future = self.start_raw(arguments)
        return await self.answer(future, within)

    async def outcome(
        self, future: Awaitable[Any], within: float = RESPONSE_TIMEOUT
    ) -> dict[str, Any] | CommandError:
        """The result object, or the JSON-RPC error as a value."""
        try:
            return await self.answer(future, within)
        except CommandError as exc:
            return exc

    async def run(
        self, uri: str, prompt: str = "edit the document", **extra: Any
    ) -> dict[str, Any]:
        _, future = self.start(uri, prompt, **extra)
        return await self.answer(future)

    def cancel(self, msg_id: str) -> None:
        self.client.cancel_request(types.CancelParams(id=msg_id))

    # -- progress -----------------------------------------------------------------------

    def progress_tokens(self) -> set[Any]:
        return set(self.client.progress_reports)

    async def new_progress_token(self, known: set[Any], within: float = 5.0) -> Any:
        def created() -> bool:
            return any(
                token not in known and reports
                for token, reports in self.client.progress_reports.items()
            )

        await wait_until(created, within, "a new work-done progress")
        (token,) = [
            token
            for token, reports in self.client.progress_reports.items()
            if token not in known and reports
        ]
        return token

    def cancel_progress(self, token: Any) -> None:
        self.client.window_work_done_progress_cancel(
            types.WorkDoneProgressCancelParams(token=token)
        )

    # -- what the server said -----------------------------------------------------------

    def stderr_since_start(self) -> str:
        return "".join(self.client.stderr_lines[self._stderr_mark :])

    def log_since_start(self) -> str:
        logs = [m.message for m in self.client.log_messages[self._log_mark :]]
        shown = [m.message for m in self.client.messages]
        return "\n".join(logs + shown)

    # -- workspace/applyEdit ------------------------------------------------------------

    async def _on_apply_edit(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        record = ApplyRecord(params=params, received_at=time.monotonic())
        self.applies.append(record)
        behaviour = self.behaviour
        if behaviour.before_apply is not None:
            behaviour.before_apply()
        if behaviour.mode == "hang":
            record.answer = "hang"
            await self._release_hangs.wait()
            raise JsonRpcInternalError(message="test editor shut down")
        if behaviour.delay:
            await asyncio.sleep(behaviour.delay)
        if behaviour.mode == "error":
            record.answer = "error"
            raise JsonRpcInternalError(message="test editor: could not apply the edit")
        if behaviour.mode == "reject":
            record.answer = "rejected"
            return types.ApplyWorkspaceEditResult(
                applied=False, failure_reason=behaviour.failure_reason
            )
        if behaviour.mode == "drop":
            record.answer = "skipped"
            return types.ApplyWorkspaceEditResult(applied=True)
        try:
            plan = self._plan(params.edit, behaviour)
        except ProtocolViolation as exc:
            record.answer = "violation"
            self.violations.append(str(exc))
            return types.ApplyWorkspaceEditResult(
                applied=False, failure_reason=f"test editor: {exc}"
            )
        except Refused as exc:
            record.answer = "rejected"
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=str(exc))
        if not plan:
            record.answer = "skipped"  # Neovim: a stale edit dropped, yet "applied"
            return types.ApplyWorkspaceEditResult(applied=True)
        if behaviour.mode == "garble":
            plan = {
                uri: [AppliedEdit(e.start, e.end, e.new_text + "~") for e in edits]
                for uri, edits in plan.items()
            }
        for uri, edits in plan.items():
            if uri not in self.docs:
                self._load(uri, edits, behaviour)
                continue
            record.before[uri] = self.docs[uri].text
            record.edits[uri] = edits
            self._apply(uri, edits, echo=behaviour.echo)
        record.answer = "applied"
        return types.ApplyWorkspaceEditResult(applied=True)

    def _plan(
        self, edit: types.WorkspaceEdit, behaviour: ApplyBehaviour
    ) -> dict[str, list[AppliedEdit]]:
        """Every edit as offsets into its document, validated; {} when (lax) skipped."""
        groups: list[tuple[str, int | None, list[types.TextEdit]]] = []
        if edit.document_changes is not None:
            if edit.changes is not None:
                raise ProtocolViolation("both documentChanges and changes were sent")
            for change in edit.document_changes:
                if not isinstance(change, types.TextDocumentEdit):
                    raise ProtocolViolation(f"unexpected resource operation {change!r}")
                edits = [e for e in change.edits if isinstance(e, types.TextEdit)]
                if len(edits) != len(change.edits):
                    raise ProtocolViolation("annotated or snippet edits were not advertised")
                groups.append((change.text_document.uri, change.text_document.version, edits))
        elif edit.changes is not None:
            for uri, edits in edit.changes.items():
                groups.append((uri, None, list(edits)))
        plan: dict[str, list[AppliedEdit]] = {}
        for index, (uri, version, edits) in enumerate(groups):
            doc = self.docs.get(uri)
            if doc is None and version is None and behaviour.unopened != "refuse":
                path = urlparse(uri).path
                if uri.startswith("file:") and Path(path).is_file():
                    text = Path(path).read_text(encoding="utf-8")
                    plan[uri] = self._offsets(text, edits)
                    continue
            if doc is None:
                raise Refused(f"{uri} is not open")
            if version is not None and version != doc.version:
                if behaviour.versions == "strict":
                    raise Refused(
                        f"version mismatch: the edit is for version {version}, "
                        f"the document is at version {doc.version}"
                    )
                if version != 0 and index == 0:
                    return {}
            plan[uri] = self._offsets(doc.text, edits)
        return plan

    def _offsets(self, text: str, edits: list[types.TextEdit]) -> list[AppliedEdit]:
        resolved = []
        for order, e in enumerate(edits):
            start = position_to_offset(text, e.range.start, self.encoding)
            end = position_to_offset(text, e.range.end, self.encoding)
            if end < start:
                raise ProtocolViolation(f"inverted range {e.range}")
            for cut in (start, end):
                if 0 < cut < len(text) and text[cut - 1] == "\r" and text[cut] == "\n":
                    raise ProtocolViolation("an edit boundary splits a CRLF")
            resolved.append((start, end, order, e.new_text))
        resolved.sort()
        for (_, end_a, _, _), (start_b, _, _, _) in itertools.pairwise(resolved):
            if start_b < end_a:
                raise ProtocolViolation("overlapping text edits")
        return [AppliedEdit(s, e, t) for s, e, _, t in resolved]

    def _load(self, uri: str, edits: list[AppliedEdit], behaviour: ApplyBehaviour) -> None:
        """An edit of a file that is not open: loaded from disk and edited, the server told
        as `behaviour.unopened` says (the file on disk is left as it was: unsaved)."""
        text = Path(urlparse(uri).path).read_text(encoding="utf-8")
        if behaviour.unopened == "silent":
            self.loaded[uri] = Document(uri, _edited(text, edits), 1)
        elif behaviour.unopened == "open-edited":
            self.open(_edited(text, edits), uri=uri)
        else:
            self.open(text, uri=uri, version=0)
            self._apply(uri, edits, echo=behaviour.echo)

    def _apply(self, uri: str, edits: list[AppliedEdit], *, echo: bool) -> None:
        doc = self.docs[uri]
        before = doc.text
        text = before
        changes = []
        for e in reversed(edits):  # from the end: earlier offsets stay valid
            changes.append(
                types.TextDocumentContentChangePartial(
                    range=to_range(text, e.start, e.end, self.encoding), text=e.new_text
                )
            )
            text = text[: e.start] + e.new_text + text[e.end :]
        doc.text = text
        doc.version += 1
        if echo:
            self.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(
                        uri=uri, version=doc.version
                    ),
                    content_changes=changes,
                )
            )


def _edited(text: str, edits: list[AppliedEdit]) -> str:
    for e in reversed(edits):
        text = text[: e.start] + e.new_text + text[e.end :]
    return text
