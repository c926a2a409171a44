"""End-to-end harness: the real `complex-edit lsp` process driven by an editor-like client.

* The server runs as a subprocess (``python -m complex_edit lsp``) with the real google-genai SDK
  pointed at the session's Gemini emulator (``GOOGLE_GEMINI_BASE_URL``) and ``TEST_KEY``.
* ``EditorSession`` wraps pytest-lsp's test client and behaves like an editor: it keeps its own
  copy of every open document, sends incremental ``didChange`` notifications, answers
  ``workspace/applyEdit`` by applying the edits to its copy (positions read in the negotiated
  encoding by an implementation independent of the server's), checks versions like a strict
  editor (or like Neovim, lax), bumps the version and echoes the change back with ``didChange``.
  It can also reject the edit, answer with an error, answer late or never.
* Servers are pooled for the whole test session, one per (client kind, environment,
  initializationOptions); each test gets a clean view of one (its own documents, default
  applyEdit behaviour, empty configuration), and anything it opened is closed afterwards.

Set ``E2E_SERVER_COMMAND`` (a shell-quoted command line) to run another server build.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import json
import os
import re
import shlex
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from tests.conftest import TEST_KEY
from tests.fakes.gemini_emulator import GeminiEmulator, RecordedRequest, Reply

COMMAND = "performComplexEdit"
SERVER_COMMAND: list[str] = (
    shlex.split(os.environ["E2E_SERVER_COMMAND"])
    if os.environ.get("E2E_SERVER_COMMAND")
    else [sys.executable, "-m", "complex_edit", "lsp"]
)
# Generous bounds for waiting on the server; tests wait on conditions, never fixed sleeps.
RESPONSE_TIMEOUT = 20.0
START_TIMEOUT = 30.0

ClientKind = Literal["vscode", "neovim", "utf-32", "bare", "no-config", "vscode-preview"]


# ------------------------------------------------------------------------------------------
# Positions: an implementation independent of the server's (LSP line rules, three encodings)
# ------------------------------------------------------------------------------------------

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class ProtocolViolation(AssertionError):
    """The server sent something a strict editor refuses (bad position, overlapping edits)."""


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end of content) of every line; lines break only on \\r\\n, \\r and \\n."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    return 1


def position_to_offset(text: str, position: types.Position, encoding: str) -> int:
    """Strict: the position must name a character boundary inside an existing line."""
    spans = line_spans(text)
    if position.line < 0 or position.line >= len(spans):
        raise ProtocolViolation(f"line {position.line} does not exist ({len(spans)} lines)")
    start, end = spans[position.line]
    column, offset = 0, start
    while column < position.character:
        if offset >= end:
            raise ProtocolViolation(
                f"character {position.character} is past the end of line {position.line} "
                f"({column} {encoding} units)"
            )
        column += _units(text[offset], encoding)
        offset += 1
    if column != position.character:
        raise ProtocolViolation(
            f"position {position.line}:{position.character} falls inside a character ({encoding})"
        )
    return offset


def offset_to_position(text: str, offset: int, encoding: str) -> types.Position:
    spans = line_spans(text)
    starts = [start for start, _ in spans]
    line = bisect.bisect_right(starts, offset) - 1
    start, end = spans[line]
    if offset > end:
        raise ValueError(f"offset {offset} is inside a line break")
    return types.Position(line=line, character=sum(_units(c, encoding) for c in text[start:offset]))


def to_range(text: str, start: int, end: int, encoding: str) -> types.Range:
    return types.Range(
        start=offset_to_position(text, start, encoding),
        end=offset_to_position(text, end, encoding),
    )


# ------------------------------------------------------------------------------------------
# The editor-like client
# ------------------------------------------------------------------------------------------


@dataclass
class Document:
    uri: str
    text: str
    version: int


@dataclass
class AppliedEdit:
    """One TextEdit as the test editor applied it (offsets into the text before the edit)."""

    start: int
    end: int
    new_text: str


@dataclass
class ApplyRecord:
    params: types.ApplyWorkspaceEditParams
    received_at: float
    answer: str = "pending"  # applied | skipped | rejected | error | hang | violation
    edits: dict[str, list[AppliedEdit]] = field(default_factory=dict)
    before: dict[str, str] = field(default_factory=dict)


@dataclass
class ApplyBehaviour:
    """How the test editor answers ``workspace/applyEdit``.

    mode: ``apply`` (normal), ``reject`` (``applied: false`` + ``failure_reason``), ``error``
    (a JSON-RPC error), ``hang`` (never answers), ``drop`` (answers ``applied: true`` but
    changes nothing, as Neovim does for an edit it skipped), ``garble`` (applies the edit with
    an extra character, echoes that, and answers ``applied: true``).
    versions: ``strict`` refuses a versioned edit whose version is not the document's;
    ``lax`` behaves like Neovim 0.11: no check for version 0, and a stale edit is silently
    skipped while still answering ``applied: true``.
    delay: seconds to wait before answering (after applying). echo: send ``didChange``.
    """

    mode: Literal["apply", "reject", "error", "hang", "drop", "garble"] = "apply"
    versions: Literal["strict", "lax"] = "strict"
    failure_reason: str | None = "The user declined the edit."
    delay: float = 0.0
    echo: bool = True
    before_apply: Callable[[], None] | None = None
    """Runs when the request arrives, before anything else (e.g. the user types)."""


class EditorClient(LanguageClient):
    """pytest-lsp's client, keeping the server's stderr instead of only forwarding it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stderr_lines: list[str] = []

    async def start_io(self, cmd: str, *args: Any, **kwargs: Any) -> None:
        await super().start_io(cmd, *args, **kwargs)
        if self._stderr_forwarder is not None:
            self._stderr_forwarder.cancel()
        if self._server is not None and self._server.stderr is not None:
            self._stderr_forwarder = asyncio.create_task(self._keep_stderr(self._server))

    async def _keep_stderr(self, server: asyncio.subprocess.Process) -> None:
        assert server.stderr is not None
        while (line := await server.stderr.readline()) != b"":
            decoded = line.decode("utf-8", "replace")
            self.stderr_lines.append(decoded)
            sys.stderr.write(decoded)


def _retrieve_exception(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class CommandError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


async def wait_until(
    predicate: Callable[[], bool], within: float = 5.0, what: str = "condition"
) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:g} s waiting for {what}")
        await asyncio.sleep(0.01)


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
        future.add_done_callback(_retrieve_exception)
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
        except _Refused as exc:
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
            if doc is None:
                raise _Refused(f"{uri} is not open")
            if version is not None and version != doc.version:
                if behaviour.versions == "strict":
                    raise _Refused(
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


class _Refused(Exception):
    """A legitimate refusal by the editor (stale version, unknown document)."""


# ------------------------------------------------------------------------------------------
# Server processes
# ------------------------------------------------------------------------------------------


def capabilities_for(kind: ClientKind) -> types.ClientCapabilities:
    if kind == "vscode":
        return client_capabilities("visual-studio-code")
    if kind == "vscode-preview":
        # VS Code's, opting in to the live preview (`complexEdit/preview`).
        caps = client_capabilities("visual-studio-code")
        caps.experimental = {"complexEditPreview": True}
        return caps
    if kind == "neovim":
        return client_capabilities("neovim@v0.11")
    if kind == "utf-32":
        # Neovim's capabilities, asking for code points first.
        caps = client_capabilities("neovim@v0.11")
        assert caps.general is not None
        caps.general.position_encodings = [
            types.PositionEncodingKind.Utf32,
            types.PositionEncodingKind.Utf16,
        ]
        return caps
    if kind == "no-config":
        # applyEdit with documentChanges, but no workspace/configuration and no progress.
        return types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                apply_edit=True,
                workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            )
        )
    # bare: no applyEdit, no progress, no configuration.
    return types.ClientCapabilities()


def server_environment(base_url: str, extra: Mapping[str, str]) -> dict[str, str]:
    """os.environ (pytest-lsp replaces the environment) without any ambient model settings."""
    drop = {
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_GEMINI_BASE_URL",
    }
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in drop and not key.startswith(("COMPLEX_EDIT_", "OPENAI_", "ANTHROPIC_"))
    }
    env.update(
        {
            "GEMINI_API_KEY": TEST_KEY,
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "COMPLEX_EDIT_REQUEST_TIMEOUT_SECONDS": "15",
            "COMPLEX_EDIT_MAX_RETRIES": "0",
            "COMPLEX_EDIT_APPLY_TIMEOUT_SECONDS": "10",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


async def start_session(
    kind: ClientKind,
    base_url: str,
    *,
    env: Mapping[str, str] | None = None,
    init_options: Any = None,
) -> EditorSession:
    client = EditorClient()
    register_lsp_features(client)
    session = EditorSession(kind, client)
    await client.start_io(*SERVER_COMMAND, env=server_environment(base_url, env or {}))
    async with asyncio.timeout(START_TIMEOUT):
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities_for(kind),
                initialization_options=init_options,
                client_info=types.ClientInfo(name=f"e2e-{kind}"),
            )
        )
    session.init_result = result
    encoding = result.capabilities.position_encoding
    session.encoding = str(getattr(encoding, "value", encoding) or "utf-16")
    return session


async def stop_session(session: EditorSession) -> None:
    session._release_hangs.set()
    client = session.client
    try:
        if session.alive:
            async with asyncio.timeout(10):
                await client.shutdown_session()
    except Exception as exc:  # a dead or stuck server must not block the other teardowns
        sys.stderr.write(f"e2e: shutdown of the {session.kind} server failed: {exc!r}\n")
    if client._server is not None and client._server.returncode is None:
        # Still running: the shutdown failed, or pytest-lsp skipped it after a client error.
        # `client.stop()` would wait for it forever. (Its session process exits with it.)
        client._server.kill()
    await client.stop()


class ServerPool:
    """Server processes shared by the whole session, keyed by their configuration."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self._sessions: dict[str, EditorSession] = {}

    async def get(
        self,
        kind: ClientKind,
        *,
        env: Mapping[str, str] | None = None,
        init_options: Any = None,
    ) -> EditorSession:
        key = json.dumps([kind, sorted((env or {}).items()), init_options], sort_keys=True)
        session = self._sessions.get(key)
        if session is not None and not session.alive:
            await stop_session(session)
            session = None
        if session is None:
            session = await start_session(kind, self.base_url, env=env, init_options=init_options)
            self._sessions[key] = session
        return session

    async def close(self) -> None:
        await asyncio.gather(*(stop_session(s) for s in self._sessions.values()))
        self._sessions.clear()


@pytest.fixture(scope="session")
async def lsp_pool(emulator_server: GeminiEmulator) -> AsyncIterator[ServerPool]:
    pool = ServerPool(emulator_server.base_url)
    yield pool
    await pool.close()


SessionFactory = Callable[..., Awaitable[EditorSession]]


@pytest.fixture
async def make_editor(
    lsp_pool: ServerPool, emulator: GeminiEmulator
) -> AsyncIterator[SessionFactory]:
    """`await make_editor(kind, env=..., init_options=...)`: a pooled server for this test."""
    used: list[EditorSession] = []

    async def make(
        kind: ClientKind = "vscode",
        *,
        env: Mapping[str, str] | None = None,
        init_options: Any = None,
    ) -> EditorSession:
        session = await lsp_pool.get(kind, env=env, init_options=init_options)
        session.begin_test()
        used.append(session)
        return session

    yield make
    for session in used:
        await session.end_test()


@pytest.fixture(params=["vscode", "neovim"])
async def editor(request: pytest.FixtureRequest, make_editor: SessionFactory) -> EditorSession:
    """The same test with VS Code's capabilities (utf-16, documentChanges) and Neovim 0.11's
    (utf-8, `changes` form)."""
    return await make_editor(request.param)


@pytest.fixture
async def vscode(make_editor: SessionFactory) -> EditorSession:
    return await make_editor("vscode")


# ------------------------------------------------------------------------------------------
# Assertion helpers shared by the test modules
# ------------------------------------------------------------------------------------------


def changed_region(old: str, new: str) -> tuple[int, int]:
    """[start, end) of `old` that differs from `new` (common prefix/suffix trimmed)."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, len(old) - suffix


def assert_success(result: dict[str, Any], *, turns: int | None = None) -> None:
    assert result.get("success") is True, result
    assert result.get("applied") is True, result
    assert "reason" not in result, result
    assert "error" not in result, result
    assert isinstance(result.get("message"), str), result
    assert result["message"], result
    assert result.get("diff"), result
    assert result.get("turns", 0) >= 1, result
    assert result.get("toolCalls", 0) >= 1, result
    usage = result.get("usage")
    assert isinstance(usage, dict), result
    assert {"inputTokens", "outputTokens"} <= set(usage), result
    if turns is not None:
        assert result["turns"] == turns, result


def assert_failure(result: dict[str, Any], reason: str) -> None:
    assert result.get("success") is False, result
    assert result.get("reason") == reason, result
    assert isinstance(result.get("error"), str), result
    assert result["error"], result
    assert not result.get("applied"), result


def assert_minimal_edit(editor: EditorSession, uri: str, before: str, after: str) -> None:
    """Exactly one applyEdit with one document's edits, all inside the changed lines."""
    applied = [a for a in editor.applies if a.answer == "applied"]
    assert len(editor.applies) == 1, editor.applies
    assert len(applied) == 1, editor.applies
    record = applied[0]
    assert list(record.edits) == [uri], record.params
    if editor.kind == "vscode":
        assert record.params.edit.document_changes is not None
        assert len(record.params.edit.document_changes) == 1
    start, end = changed_region(before, after)
    spans = line_spans(before)
    starts = [s for s, _ in spans]
    first_line_start = spans[bisect.bisect_right(starts, start) - 1][0]
    last = bisect.bisect_right(starts, max(end, start)) - 1
    last_line_end = spans[last + 1][0] if last + 1 < len(spans) else len(before)
    for e in record.edits[uri]:
        outside = (
            f"edit {e} reaches outside the changed lines [{first_line_start}, {last_line_end})"
        )
        assert first_line_start <= e.start, outside
        assert e.end <= last_line_end, outside
    if len(before) > 200:
        touched = sum(e.end - e.start for e in record.edits[uri])
        assert touched < len(before) // 2, "a local change was sent as a whole-document edit"


# ------------------------------------------------------------------------------------------
# Scripted model turns
# ------------------------------------------------------------------------------------------

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
