"""`complex-edit edit --review`: ask about each proposed change on the terminal, hunk by hunk
(like `git add -p`).

The flow proposes the hunks (`hunks` in the result, nothing applied, the proposal kept); this
module shows them and asks; the kept ones land through the flow (`server.edit.review.
land_review`), with the same change-checked atomic write as a normal edit. The dialogue runs
on stderr, so stdout still carries only the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from complex_edit.server.outcome import ProposedHunk

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


def choose(hunks: Sequence[ProposedHunk], terminal: Terminal) -> list[bool]:
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
