"""The check rounds of one session: when the model calls `complete_task(success=true)`, the
checkers' diagnostics of the documents the edit changed (`server.check`); errors it introduced
turn that call into a request to fix them or finish anyway, at most `checkRounds` times, and
never twice for the same errors. What they found goes into the answer's `diagnostics`.

The editor's unsaved buffers of the checked languages are given to the checkers as they are
(before and after the same), so that what a type checker resolves is what the user sees.

With no pool (eval, tests), `checkers: "off"`, no checker for the documents' languages, or a
command whose document is no file, nothing here does anything: the session is today's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from complex_edit.server.check.compare import Found, report_lines
from complex_edit.server.check.discovery import Checker, configured, language_id
from complex_edit.server.check.pool import CheckerPool
from complex_edit.server.check.run import CheckedDocument, CheckResult, SessionCheck, wire
from complex_edit.server.outcome import Diagnostics
from complex_edit.server.session.documents import OtherFile
from complex_edit.server.session.request import EditRequest

# Unsaved buffers given to the checkers at most (each is analysed with the edit).
MAX_UNSAVED = 50
ASK = "Fix them, or call complete_task again to finish anyway."


class Checking:
    def __init__(self, request: EditRequest, pool: CheckerPool | None) -> None:
        self._request = request
        self._check: SessionCheck | None = None
        self._rounds = 0
        self._asked: frozenset[str] | None = None
        self._first: CheckResult | None = None
        self._last: CheckResult | None = None
        self._texts: tuple[tuple[str, str], ...] = ()
        self._started: set[str] = set()
        settings = request.settings
        root = _root(request)
        if pool is None or settings.checkers == "off" or root is None:
            return
        checkers = configured(settings, os.environ)
        if checkers:
            self._check = SessionCheck(
                pool,
                checkers,
                root,
                threshold=1 if settings.check_severity == "error" else 2,
                timeout=settings.check_timeout_seconds,
                context=_unsaved(request, checkers),
            )

    def start(self) -> None:
        """Warm the checkers of the command's document up while the model works."""
        path = self._request.document_path
        if self._check is not None and path:
            text = self._request.text
            self._check.start(self._own(path, text))

    def warm(self, joined: Sequence[OtherFile]) -> None:
        """The other files that joined the edit: take the diagnostics of each new one before
        the edit now, in the background (the check at complete_task then only waits for the
        after)."""
        for other in joined:
            path = other.opened.path
            if self._check is not None and path not in self._started:
                self._started.add(path)
                text = other.opened.text
                self._check.start(CheckedDocument(path, other.label, None, text, text))

    async def judge(self, text: str, others: Sequence[OtherFile]) -> str | None:
        """On a `complete_task(success=true)`: the errors to send back to the model, or None
        when the task may end (clean, rounds used up, the same errors again, or unchecked)."""
        documents = self._changed(text, others)
        if self._check is None or not self._check.serves(documents):
            self._last = CheckResult() if self._first is not None else None
            return None
        texts = tuple((doc.path, doc.after) for doc in documents)
        if texts != self._texts or self._last is None:
            self._last = await self._check.check(documents)
            self._texts = texts
        if self._first is None:
            self._first = self._last
        lines = self._lines(self._last)
        if not lines:
            return None
        asked = frozenset(lines)
        if self._rounds >= self._request.settings.check_rounds or asked == self._asked:
            return None
        self._rounds += 1
        self._asked = asked
        count = len(self._last.introduced)
        listed = "\n".join(f"- {line}" for line in lines)
        return f"the language servers found {_errors(count)} the edit introduced:\n{listed}"

    def report(self) -> Diagnostics | None:
        """The answer's `diagnostics` (None: no checker ran)."""
        first, last = self._first, self._last
        if first is None or last is None:
            return None
        statuses = last.statuses or first.statuses
        return Diagnostics(
            checked=bool(statuses) and all(status.status == "ok" for status in statuses),
            checkers=statuses,
            introduced=[wire(doc, found) for doc, found in first.introduced],
            fixed=[wire(doc, found) for doc, found in last.fixed],
            remaining=[wire(doc, found) for doc, found in last.introduced],
        )

    def note(self) -> str:
        """What the success message adds: the errors left, or the checkers that did not
        check."""
        last = self._last
        if last is None:
            return ""
        lines = self._lines(last)
        if lines:
            more = f" (and {len(last.introduced) - 1} more)" if len(last.introduced) > 1 else ""
            return f" Left with {_errors(len(last.introduced))}: {lines[0]}{more}."
        unchecked = [status.detail for status in last.statuses if status.status != "ok"]
        return "".join(f" Not checked: {detail}." for detail in unchecked if detail)

    def close(self) -> None:
        """Give the checkers their files back (in the background)."""
        if self._check is not None:
            self._check.close()

    def _lines(self, result: CheckResult) -> list[str]:
        by_label: dict[str, list[Found]] = {}
        for doc, found in result.introduced:
            by_label.setdefault(doc.label, []).append(found)
        return report_lines(list(by_label.items()))

    def _own(self, path: str, after: str) -> CheckedDocument:
        request = self._request
        label = request.path_label or os.path.basename(path)
        return CheckedDocument(path, label, request.language, request.text, after)

    def _changed(self, text: str, others: Sequence[OtherFile]) -> list[CheckedDocument]:
        """The documents the edit changed, the command's own first."""
        documents: list[CheckedDocument] = []
        path = self._request.document_path
        if path and text != self._request.text:
            documents.append(self._own(path, text))
        documents.extend(
            CheckedDocument(
                other.opened.path, other.label, None, other.opened.text, other.toolbox.text
            )
            for other in others
            if other.toolbox.text != other.opened.text
        )
        return documents


def _errors(count: int) -> str:
    return f"{count} new error{'s' if count != 1 else ''}"


def _unsaved(request: EditRequest, checkers: Sequence[Checker]) -> list[CheckedDocument]:
    """The editor's buffers (other than the command's document) of a checked language whose
    text is not their file's: unsaved changes, or no file yet. Unchanged by the edit (before
    and after are the buffer), they are given to the checkers as open documents."""
    languages = {language for checker in checkers for language in checker.languages}
    unsaved: list[CheckedDocument] = []
    for doc in request.open_documents:
        if doc.path == request.document_path or language_id(doc.path) not in languages:
            continue
        if _on_disk(doc.path, doc.text) != doc.text:
            label = os.path.basename(doc.path)
            unsaved.append(CheckedDocument(doc.path, label, None, doc.text, doc.text))
    return unsaved[:MAX_UNSAVED]


def _on_disk(path: str, text: str) -> str | None:
    """The file's text, or None when it cannot be read or its size already says it differs
    from `text`."""
    try:
        if os.path.getsize(path) != len(text.encode("utf-8", "surrogatepass")):
            return None
        with open(path, encoding="utf-8", newline="") as file:
            return file.read()
    except (OSError, UnicodeError):
        return None


def _root(request: EditRequest) -> str | None:
    """The command's workspace root: the folder holding its document, else the first folder,
    else the document's own folder."""
    path = request.document_path
    for root in request.roots:
        if path and (path + os.sep).startswith(root.path.rstrip(os.sep) + os.sep):
            return root.path
    if request.roots:
        return request.roots[0].path
    return os.path.dirname(path) if path else None
