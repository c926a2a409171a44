"""`complex-edit edit --review`: ask about each proposed change on the terminal, hunk by hunk
(like `git add -p`), then write the kept ones with the same change-checked atomic write as a
normal edit.

The flow proposes the hunks (`hunks` in the result, nothing applied); this module shows them,
asks, applies the kept subset to the text the sub-agent started from, and writes it. The
dialogue runs on stderr, so stdout still carries only the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from complex_edit.server.edit.answer import changed_lines_of
from complex_edit.server.edit.files import FileChanged, TextFile, write_atomic
from complex_edit.server.outcome import ChangedLines, EditResult, Reason, WirePosition
from complex_edit.server.text.diff import TextChange
from complex_edit.server.text.hunks import Hunk, apply_hunks
from complex_edit.server.text.positions import LineIndex
from complex_edit.server.text.unified import unified_diff

ANSWERS = "y,n,a,d,q,?"
HELP = (
    "y - keep this change\n"
    "n - drop this change\n"
    "a - keep this change and all the remaining ones\n"
    "d - drop this change and all the remaining ones\n"
    "q - stop here: drop this change and all the remaining ones\n"
    "? - print this help\n"
)
_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


def terminal_problem(stdin: TextIO, stderr: TextIO, origin: str) -> str | None:
    """Why review cannot run here (it asks on a terminal), or None."""
    if stdin.isatty() and stderr.isatty():
        return None
    return (
        f"Review ({origin}) asks about each change on a terminal, but stdin or stderr is not "
        "one; run it in a terminal, or use --dry-run to get the change as a diff."
    )


@dataclass(frozen=True)
class Terminal:
    """Where the questions go and the answers come from."""

    answers: TextIO
    screen: TextIO
    colour: bool

    @classmethod
    def of(cls, answers: TextIO, screen: TextIO, env: Mapping[str, str]) -> Terminal:
        return cls(answers, screen, screen.isatty() and not env.get("NO_COLOR"))

    def show(self, text: str) -> None:
        self.screen.write(text)
        self.screen.flush()

    def ask(self, question: str) -> str:
        """One answer, lower-cased; "q" at the end of input. Ctrl-C raises KeyboardInterrupt."""
        self.show(question)
        line = self.answers.readline()
        if not line:
            self.show("\n")
            return "q"
        return line.strip().lower()

    def paint(self, diff: str) -> str:
        if not self.colour:
            return diff
        return "".join(_painted(line) for line in diff.splitlines(keepends=True))


def _painted(line: str) -> str:
    if line.startswith(("---", "+++")):
        return _BOLD + line.rstrip("\r\n") + _RESET + "\n"
    colour = _COLOURS.get(line[:1])
    return colour + line.rstrip("\r\n") + _RESET + "\n" if colour else line


def proposed_hunks(file: TextFile, result: EditResult) -> list[Hunk] | None:
    """The hunks a review result proposes, as the server grouped them, with offsets into
    `file.text`; None when they do not fit it (it is not what the sub-agent started from)."""
    index = LineIndex(file.text)
    hunks: list[Hunk] = []
    for proposed in result.hunks or []:
        start, end = (_offset(index, point) for point in (proposed.range.start, proposed.range.end))
        if file.text[start:end] != proposed.old_text or (hunks and start < hunks[-1].end):
            return None
        last = proposed.range.end.line + (proposed.range.end.character > 0)
        hunks.append(
            Hunk(
                start=start,
                end=end,
                old_text=proposed.old_text,
                new_text=proposed.new_text,
                changes=(TextChange(start, end, proposed.new_text),),
                first_line=proposed.range.start.line + 1,
                last_line=max(last, proposed.range.start.line + 1),
                label=proposed.label,
                diff=proposed.diff,
            )
        )
    return hunks


def _offset(index: LineIndex, point: WirePosition) -> int:
    return index.offset_of(point.line, point.character, "utf-16")


def review(file: TextFile, label: str, result: EditResult, terminal: Terminal) -> EditResult:
    """Ask about each proposed hunk, then write the kept ones. Ctrl-C during the questions
    raises KeyboardInterrupt (nothing written)."""
    hunks = proposed_hunks(file, result)
    if hunks is None:
        return _unwritten(
            result,
            "document_changed",
            f"{label} changed on disk while the sub-agent worked; nothing was written. Run the "
            "edit again.",
            result.diff,
            result.changed_lines,
        )
    if not hunks:
        return result
    return keep(file, label, result, hunks, choose(hunks, terminal))


def choose(hunks: Sequence[Hunk], terminal: Terminal) -> list[bool]:
    """Ask about each hunk in turn; which ones are kept. Ctrl-C raises KeyboardInterrupt."""
    kept: list[bool] = []
    rest: bool | None = None  # set by a, d or q: the answer for every remaining hunk
    for number, hunk in enumerate(hunks, start=1):
        if rest is not None:
            kept.append(rest)
            continue
        terminal.show(terminal.paint(_ensure_newline(hunk.diff)))
        answer = _answer(terminal, f"({number}/{len(hunks)}) Keep this change [{ANSWERS}]? ")
        kept.append(answer in ("y", "a"))
        if answer in ("a", "d", "q"):
            rest = answer == "a"
    return kept


def _answer(terminal: Terminal, question: str) -> str:
    while True:
        answer = terminal.ask(question)
        if answer in ("y", "n", "a", "d", "q"):
            return answer
        terminal.show(HELP)


def _ensure_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def keep(
    file: TextFile, label: str, result: EditResult, hunks: Sequence[Hunk], kept: Sequence[bool]
) -> EditResult:
    """Write the kept hunks over `file` (as the sub-agent read it), or nothing when none is
    kept. The answer says what was written: `applied`, `declined`, `diff`."""
    chosen = [hunk for hunk, keep_it in zip(hunks, kept, strict=True) if keep_it]
    declined = len(hunks) - len(chosen)
    reviewed = result.model_copy(
        update={
            "hunks": None,
            "version": None,
            "declined": declined,
            "diff": "",
            "changed_lines": None,
        }
    )
    if not chosen:
        message = f"Kept none of {_changes(len(hunks))}; the file was not changed."
        return reviewed.model_copy(update={"message": message})
    text = apply_hunks(file.text, chosen)
    diff = unified_diff(file.text, text, label)
    lines = changed_lines_of(file.text, [change for hunk in chosen for change in hunk.changes])
    try:
        write_atomic(file.path, file.encode(text), file.raw, file.mode)
    except FileChanged:
        return _unwritten(
            reviewed,
            "document_changed",
            f"{label} changed on disk while you reviewed; nothing was written. Run the edit again.",
            diff,
            lines,
        )
    except OSError as exc:
        return _unwritten(
            reviewed,
            "client_rejected",
            f"{label} could not be written ({exc.strerror or exc}); it is unchanged.",
            diff,
            lines,
        )
    message = f"Kept {len(chosen)} of {_changes(len(hunks))}."
    return reviewed.model_copy(
        update={"applied": True, "diff": diff, "changed_lines": lines, "message": message}
    )


def _unwritten(
    reviewed: EditResult,
    reason: Reason,
    error: str,
    diff: str,
    lines: list[ChangedLines] | None,
) -> EditResult:
    failed = EditResult.failure(reason, error)
    counts = {"turns": reviewed.turns, "tool_calls": reviewed.tool_calls, "usage": reviewed.usage}
    return failed.model_copy(update={**counts, "diff": diff, "changed_lines": lines})


def _changes(count: int) -> str:
    return "1 change" if count == 1 else f"{count} changes"
