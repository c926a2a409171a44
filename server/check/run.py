"""One session's check: the checkers of the edited documents' languages, fed each document's
text before the edit (once, cached for the session; the command's own document while the
model works on its first turn) and after it, compared (`compare.py`). The editor's unsaved
buffers of a checker's languages are open in it first, as the user sees them (`context`): a
type checker resolves names against them, not their files.

Each checker has `checkTimeoutSeconds` for one check, its start included when it was not warm
yet; one that stays silent is `timeout` and is not asked again in this session, one whose
process ended is `crashed` (the pool starts it again for the next session), one that cannot
start is `failed` or `missing`. None of them fails the edit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from complex_edit.server.check.client import CheckerGone, CheckerProcess, file_uri
from complex_edit.server.check.compare import SEVERITY_NAMES, Found, compare
from complex_edit.server.check.discovery import Checker, language_id
from complex_edit.server.check.pool import CheckerPool, Entry
from complex_edit.server.outcome import (
    CheckDiagnostic,
    CheckerStatus,
    Diagnostics,
    WirePosition,
    WireRange,
)

log = logging.getLogger("complex_edit.check")
CLOSE_SECONDS = 1.0


@dataclass(frozen=True)
class CheckedDocument:
    """A document of the edit: its file, its label for the model, its language (an editor's
    languageId or filetype, when known), its text before and after."""

    path: str
    label: str
    language: str | None
    before: str
    after: str

    @property
    def uri(self) -> str:
        return file_uri(self.path)

    @property
    def language_id(self) -> str | None:
        return language_id(self.path, self.language)


@dataclass
class CheckResult:
    """`introduced` and `fixed` by document (the order the documents were given)."""

    statuses: list[CheckerStatus] = field(default_factory=list)
    introduced: list[tuple[CheckedDocument, Found]] = field(default_factory=list)
    fixed: list[tuple[CheckedDocument, Found]] = field(default_factory=list)

    @property
    def checked(self) -> bool:
        return bool(self.statuses) and all(status.status == "ok" for status in self.statuses)


class SessionCheck:
    def __init__(
        self,
        pool: CheckerPool,
        checkers: Sequence[Checker],
        root: str,
        *,
        threshold: int,
        timeout: float,
        context: Sequence[CheckedDocument] = (),
    ) -> None:
        self._pool = pool
        self._context = list(context)
        self._given: dict[str, CheckerProcess] = {}  # checker → the process given `context`
        self._checkers = list(checkers)
        self._root = root
        self._threshold = threshold
        self._timeout = timeout
        self._before: dict[tuple[str, str], list[Found]] = {}  # (checker, uri)
        self._given_up: dict[str, CheckerStatus] = {}
        self._shown: dict[str, set[str]] = {}  # checker → uris open in it
        self._warming: list[asyncio.Task[Any]] = []

    def start(self, own: CheckedDocument) -> None:
        """Start the checkers of `own`'s language and take its diagnostics before the edit,
        in the background."""
        for checker in self._checkers:
            if checker.found and own.language_id in checker.languages:
                task = asyncio.ensure_future(self._befores(checker, [own]))
                task.add_done_callback(_ignored)
                self._warming.append(task)

    def serves(self, documents: Sequence[CheckedDocument]) -> bool:
        """Whether a checker takes one of `documents`' languages."""
        return bool(self._chosen(documents))

    def _chosen(self, documents: Sequence[CheckedDocument]) -> list[Checker]:
        languages = {doc.language_id for doc in documents}
        return [c for c in self._checkers if languages & set(c.languages)]

    async def check(self, documents: Sequence[CheckedDocument]) -> CheckResult:
        result = CheckResult()
        chosen = self._chosen(documents)
        runs = await asyncio.gather(*(self._run(checker, documents) for checker in chosen))
        per_doc: dict[str, tuple[list[Found], list[Found]]] = {}
        for status, found in runs:
            result.statuses.append(status)
            for uri, (before, after) in found.items():
                both = per_doc.setdefault(uri, ([], []))
                both[0].extend(before)
                both[1].extend(after)
        for doc in documents:
            if doc.uri in per_doc:
                before, after = per_doc[doc.uri]
                compared = compare(doc.before, doc.after, before, after, self._threshold)
                result.introduced.extend((doc, found) for found in compared.introduced)
                result.fixed.extend((doc, found) for found in compared.fixed)
        return result

    def close(self) -> None:
        """Close the documents given to the checkers (they read the files again), in the
        background: the answer does not wait for it."""
        for task in self._warming:
            task.cancel()
        for checker in self._checkers:
            uris = self._shown.pop(checker.name, set())
            entry = self._pool.running(checker, self._root)
            if uris and entry is not None:
                self._pool.background(_close_documents(entry, uris))

    async def _run(
        self, checker: Checker, documents: Sequence[CheckedDocument]
    ) -> tuple[CheckerStatus, dict[str, tuple[list[Found], list[Found]]]]:
        if checker.name in self._given_up:
            return self._given_up[checker.name], {}
        if not checker.found:
            detail = f"{checker.name} was not found ({checker.argv[0]})"
            return CheckerStatus(name=checker.name, status="missing", detail=detail), {}
        mine = [doc for doc in documents if doc.language_id in checker.languages]
        began = time.monotonic()
        found: dict[str, tuple[list[Found], list[Found]]] = {}
        try:
            async with asyncio.timeout(self._timeout):
                entry = await self._befores(checker, mine)
                async with entry.lock:
                    versions = [
                        (doc, await entry.process.show(doc.uri, doc.language_id or "", doc.after))
                        for doc in mine
                    ]
                    # One analysis answers them all: waited for together.
                    answers = await asyncio.gather(
                        *(entry.process.diagnostics(doc.uri, version) for doc, version in versions)
                    )
                    for (doc, _), items in zip(versions, answers, strict=True):
                        found[doc.uri] = (self._before[(checker.name, doc.uri)], _founds(items))
        except TimeoutError:
            status = self._status(checker, "timeout", began)
            status.detail = f"{checker.name} gave no diagnostics in {self._timeout:g} s"
            self._given_up[checker.name] = status
            return status, {}
        except CheckerGone as exc:
            status = self._status(checker, "crashed", began)
            status.detail = f"{checker.name} stopped: {exc}"
            self._given_up[checker.name] = status
            return status, {}
        except (OSError, RuntimeError) as exc:
            status = self._status(checker, "failed", began)
            status.detail = f"{checker.name} could not check: {exc}"
            self._given_up[checker.name] = status
            return status, {}
        status = self._status(checker, "ok", began)
        status.version = entry.process.version
        return status, found

    def _status(self, checker: Checker, status: Any, began: float) -> CheckerStatus:
        waited = round((time.monotonic() - began) * 1000)
        return CheckerStatus(name=checker.name, status=status, waited_ms=waited)

    async def _befores(self, checker: Checker, documents: Sequence[CheckedDocument]) -> Entry:
        """The diagnostics of each document's text before the edit, unless taken already;
        returns the checker's entry in the pool."""
        entry = self._pool.warm(checker, self._root)
        await asyncio.shield(entry.started)
        async with entry.lock:
            await self._give_context(checker, entry.process)
            for doc in documents:
                key = (checker.name, doc.uri)
                if key in self._before:
                    continue
                self._shown.setdefault(checker.name, set()).add(doc.uri)
                version = await entry.process.show(doc.uri, doc.language_id or "", doc.before)
                self._before[key] = _founds(await entry.process.diagnostics(doc.uri, version))
        return entry

    async def _give_context(self, checker: Checker, process: CheckerProcess) -> None:
        """Open the unsaved buffers of `checker`'s languages in `process` (once; again in a
        process started after a crash), before any document of the edit is checked."""
        if self._given.get(checker.name) is process:
            return
        self._given[checker.name] = process
        for doc in self._context:
            if doc.language_id in checker.languages and (checker.name, doc.uri) not in self._before:
                self._shown.setdefault(checker.name, set()).add(doc.uri)
                await process.show(doc.uri, doc.language_id or "", doc.after)


async def _close_documents(entry: Entry, uris: set[str]) -> None:
    with contextlib.suppress(Exception):
        async with asyncio.timeout(CLOSE_SECONDS), entry.lock:
            for uri in uris:
                await entry.process.close_document(uri)


def _ignored(task: asyncio.Task[Any]) -> None:
    """A warm-up that failed: the check that needs it fails the same way and says so."""
    if not task.cancelled():
        task.exception()


def _founds(items: Sequence[Mapping[str, Any]]) -> list[Found]:
    found: list[Found] = []
    for item in items:
        span = item.get("range") or {}
        start, end = span.get("start") or {}, span.get("end") or {}
        code = item.get("code")
        severity = item.get("severity")
        found.append(
            Found(
                int(start.get("line", 0)),
                int(start.get("character", 0)),
                int(end.get("line", start.get("line", 0))),
                int(end.get("character", start.get("character", 0))),
                severity if isinstance(severity, int) else 1,
                str(item.get("message", "")),
                str(item.get("source") or ""),
                "" if code is None else str(code),
            )
        )
    return found


def wire(doc: CheckedDocument, found: Found) -> CheckDiagnostic:
    """A diagnostic as the answer carries it."""
    return CheckDiagnostic(
        uri=doc.uri,
        range=WireRange(
            start=WirePosition(line=found.line, character=found.character),
            end=WirePosition(line=found.end_line, character=found.end_character),
        ),
        severity=SEVERITY_NAMES.get(found.severity, "error"),
        message=found.message,
        source=found.source or None,
        code=found.code or None,
    )


def answer_lines(diagnostics: Diagnostics, label: Callable[[str], str]) -> list[str]:
    """What front ends print of an answer's `diagnostics`: one line per error left (`label`
    names a document by its URI), one per checker that did not check."""
    severities = {name: number for number, name in SEVERITY_NAMES.items()}
    lines = [
        "New error left: "
        + Found(
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            severities.get(d.severity, 1),
            d.message,
            d.source or "",
            d.code or "",
        ).render(label(d.uri))
        for d in diagnostics.remaining
    ]
    lines.extend(
        f"Not checked: {status.detail or status.name + ' ' + status.status}"
        for status in diagnostics.checkers
        if status.status != "ok"
    )
    return lines
