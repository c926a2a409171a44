"""One `performComplexEdit`, from its arguments to its answer: `EditCommand`.

It reads its arguments and settings, refuses what the edit flow's checks refuse (arguments as
invalid params), has its life (`CommandLife`) hold the document (a second command on it is
`busy`) and create the progress, runs the flow (`server.edit.flow.perform`) as the task its
life cancels until the edit is on its way, and hands its life how it ended, to answer.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from complex_edit.server.edit.apply import FlowEvent, FlowSink
from complex_edit.server.edit.flow import EditOrder, check, one_line, perform
from complex_edit.server.edit.review import Proposal, ReviewRefused, land_review
from complex_edit.server.lsp.arguments import (
    InvalidArguments,
    PerformArgs,
    ReviewArgs,
    parse_arguments,
    parse_review_arguments,
)
from complex_edit.server.lsp.bridge import label_for_uri, path_of
from complex_edit.server.lsp.editor import LspEditor
from complex_edit.server.lsp.folders import workspace_roots
from complex_edit.server.lsp.life import CommandLife, Ending, closed_before_start
from complex_edit.server.lsp.preview import LivePreview
from complex_edit.server.lsp.requests import Request
from complex_edit.server.lsp.server import ComplexEditServer
from complex_edit.server.outcome import EditRefused, EditResult, scrub
from complex_edit.server.session.events import SessionFinished
from complex_edit.server.settings import Settings, SettingsError

log = logging.getLogger("complex_edit")
# The `data.code` of the invalid-params error for a document the server does not have open.
DOCUMENT_NOT_OPEN = "document_not_open"
REVIEW_COMMAND = "complexEdit.applyReview"


class EditCommand:
    """One command's steps: its arguments, settings, checks, and the flow as a task. Its life
    (what cancels it, its progress, its one answer) is `CommandLife`'s."""

    def __init__(self, ls: ComplexEditServer, request: Request, args: PerformArgs) -> None:
        self._ls = ls
        self._args = args
        self.uri = args.text_document.uri
        self.label = label_for_uri(self.uri)
        self._editor = _Proposing(ls) if args.propose else LspEditor(ls)
        self._preview = LivePreview(ls, self._editor, self.uri)
        self._life = CommandLife(ls, request, self.uri, self.label, self._preview)

    @classmethod
    async def answer(cls, ls: ComplexEditServer, raw: tuple[Any, ...]) -> dict[str, Any]:
        """The answer to `performComplexEdit` with `arguments: raw`."""
        request = Request.current(ls.bookkeeping)
        command = cls(ls, request, _arguments(ls, raw))
        return command._life.end(await command._run())

    async def _run(self) -> Ending:
        settings = await self._settings()
        if isinstance(settings, EditResult):
            return Ending.of(settings)
        document = self._ls.documents.get(self.uri)
        if document is None:  # closed while the settings were read
            return closed_before_start()
        order = self._order(settings, document.text)
        refused = self._check(order, document.text)
        if refused is not None:
            return refused
        if not self._life.hold():
            return _busy()
        self._ls.state.proposals.forget_document(self.uri)  # a new command voids the old one
        await self._life.show_progress(one_line(self._args.prompt, 80))
        return self._life.stopped() or await self._perform(order)

    async def _settings(self) -> Settings | EditResult:
        """The command's settings, resolved once from every layer (the environment, the
        editor's layers, then the command's own arguments), or its `config` failure naming
        each bad setting and the layer it came from."""
        try:
            layers = await self._editor.settings_layers(self.uri)
            return Settings.from_layers(self._ls.env, *layers, self._args.overrides())
        except SettingsError as exc:
            problem = scrub(str(exc), self._ls.env)
            log.warning("performComplexEdit %s: %s", self.label, problem)
            return EditResult.failure("config", problem)

    def _order(self, settings: Settings, text: str) -> EditOrder:
        return EditOrder(
            uri=self.uri,
            prompt=self._args.prompt,
            settings=settings,
            label=self.label,
            selection=self._args.selection(text),
            dry_run=self._args.dry_run,
            dry_run_hunks=True,
            other_files=settings.other_files,  # the argument is the settings' last layer
            document_path=path_of(self.uri),
        )

    def _check(self, order: EditOrder, text: str) -> Ending | None:
        """The flow's checks, made at once on the document as it is (the flow makes them again
        on the text it snapshots)."""
        try:
            check(order, text)
        except EditRefused as refused:
            return _refusal(refused)
        return None

    async def _perform(self, order: EditOrder) -> Ending:
        """Run the flow as a task its life may cancel; how it ended."""
        try:
            return Ending.of(await self._life.run(self._flow(order)), logged=True)
        except asyncio.CancelledError:
            return self._life.after_cancel()
        except EditRefused as refused:  # the flow's own checks, on the text it snapshotted
            return _refusal(refused)
        except Exception as exc:
            return self._life.internal_error(exc)

    async def _flow(self, order: EditOrder) -> EditResult:
        # `perform` snapshots the document before its first await: the same text as the
        # state's snapshot, and the other open documents as they are now.
        snapshot = self._ls.state.snapshot(self.uri, workspace_roots(self._ls.workspace))
        if snapshot is None:  # closed since `stopped`: the flow's own snapshot refuses it
            return await perform(order, self._editor, self._ls.sessions, self._life.report)
        order = replace(order, roots=snapshot.roots, open_documents=snapshot.open_documents)
        self._preview.begin(order.open_documents)
        editor, sessions = self._editor, self._ls.sessions
        if not self._args.propose:
            return await perform(order, editor, sessions, self._life.report, snapshot.proposals)
        summary = _Summary(self._life.report)
        return summary.told(await perform(order, editor, sessions, summary, snapshot.proposals))


class ReviewCommand:
    """One `complexEdit.applyReview`: the hunks a reviewer kept of a proposal, landed through
    the flow's apply step (`review.land_review`), with a life of its own (no progress)."""

    def __init__(self, ls: ComplexEditServer, request: Request, args: ReviewArgs) -> None:
        proposal = _proposal(ls, args)
        self._ls = ls
        self._args = args
        uri = proposal.uri
        preview = LivePreview(ls, LspEditor(ls), uri)  # never begun: nothing to preview
        self._life = CommandLife(ls, request, uri, label_for_uri(uri), preview, REVIEW_COMMAND)

    @classmethod
    async def answer(cls, ls: ComplexEditServer, raw: tuple[Any, ...]) -> dict[str, Any]:
        """The answer to `complexEdit.applyReview` with `arguments: raw`."""
        try:
            args = parse_review_arguments(raw)
        except InvalidArguments as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        command = cls(ls, Request.current(ls.bookkeeping), args)
        return command._life.end(await command._run())

    async def _run(self) -> Ending:
        if not self._life.hold():
            return _busy()
        args, life = self._args, self._life
        landing = land_review(self._ls.state.proposals, args.proposal_id, args.keep, life.report)
        try:
            return Ending.of(await life.run(landing), logged=True)
        except asyncio.CancelledError:
            return life.after_cancel()
        except ReviewRefused as refused:  # its document was closed meanwhile
            return Ending.failed(refused.code, _review_refused(refused))
        except Exception as exc:
            return life.internal_error(exc)


class _Proposing(LspEditor):
    """The editor of a command that asks for a proposal (`propose`): one that cannot review,
    so the flow keeps the change for `complexEdit.applyReview` instead of applying it."""

    def can_review(self) -> bool:
        return False


class _Summary:
    """What the session said it did, heard on its way to `report`: a proposal asked for
    (`propose`) answers with it, as a dry run does, rather than "N changes proposed for
    review" (its `proposalId` and `hunks` say that)."""

    def __init__(self, report: FlowSink) -> None:
        self._report = report
        self._text: str | None = None

    def __call__(self, event: FlowEvent) -> None:
        if isinstance(event, SessionFinished):
            self._text = event.outcome.message
        self._report(event)

    def told(self, result: EditResult) -> EditResult:
        if result.proposal_id is None or not self._text:
            return result
        return result.model_copy(update={"message": self._text})


def _busy() -> Ending:
    problem = "Another complex edit is already running on this document."
    return Ending.of(EditResult.failure("busy", problem))


def _proposal(ls: ComplexEditServer, args: ReviewArgs) -> Proposal:
    try:
        return ls.state.proposals.find(args.proposal_id, args.keep)
    except ReviewRefused as refused:
        raise _review_refused(refused) from None


def _review_refused(refused: ReviewRefused) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(refused.message, data={"code": refused.code})


def _arguments(ls: ComplexEditServer, raw: tuple[Any, ...]) -> PerformArgs:
    """The validated arguments of an open document; invalid params otherwise."""
    try:
        args = parse_arguments(raw)
    except InvalidArguments as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    uri = args.text_document.uri
    if not ls.documents.is_open(uri):
        raise JsonRpcInvalidParams(
            f"The document {uri} is not open in the editor; open it first.",
            data={"code": DOCUMENT_NOT_OPEN},
        )
    return args


def _refusal(refused: EditRefused) -> Ending:
    """A check's refusal: invalid params when it names an argument, else a failed result."""
    if refused.argument is None:
        return Ending.of(refused.result())
    problem = JsonRpcInvalidParams(f"'{refused.argument}': {refused.message}")
    return Ending.failed(refused.reason, problem)
