"""The line breaks of text the model sends, written the way the document writes its own there.

The rule: new text takes the one kind of line ending of the place it lands in. For
replace_text that place is the matched region: the breaks inside it and the one ending the
line it ends in (the document's most frequent ending when the region is on a last line
without one). For set_document it is the whole document. When that place writes two kinds
(a mixed region), or the document has no line break at all, the text is written as sent. (A
whitespace-tolerant match writes new lines with the matched lines' own ending: `reindent.py`.)
Breaks already in the document are never rewritten: only the sent text is converted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from complex_edit.edit_tools.lines import CR, CRLF, LF, line_endings

_BREAK = re.compile(r"\r\n|\r|\n")
NAMES = {CRLF: "CRLF", LF: "LF", CR: "CR"}


@dataclass(frozen=True)
class Written:
    """`text` with its breaks written as `ending`; `converted`: the kinds of break the model
    sent that are not the document's ones (LF into a CRLF document is not counted: the model
    cannot see or write a CR, so there is nothing to tell it); `ending`: the one written."""

    text: str
    converted: tuple[str, ...] = ()
    ending: str = LF

    def note(self, what: str) -> str:
        """A sentence for the tool result, "" when nothing worth telling was converted."""
        if not self.converted:
            return ""
        sent = "/".join(NAMES[kind] for kind in self.converted)
        return (
            f" {what}'s {sent} line breaks were written as {NAMES[self.ending]}, the "
            "document's own line ending there."
        )


def region_ending(text: str, start: int, end: int) -> str | None:
    """The one kind of line ending of `text[start:end]` and of the line it ends in; None
    when they are mixed or the document has no break."""
    kinds = set(_BREAK.findall(text, start, end))
    if not (end > start and text[end - 1] in "\r\n"):
        after = _BREAK.search(text, end)
        if after is not None:
            kinds.add(after.group())
    if not kinds:
        present = line_endings(text)
        return present[0] if present else None
    return kinds.pop() if len(kinds) == 1 else None


def document_ending(text: str) -> str | None:
    """The document's line ending when it writes one kind only, else None."""
    present = line_endings(text)
    return present[0] if len(present) == 1 else None


def write_breaks(incoming: str, ending: str | None) -> Written:
    """`incoming` with every line break written as `ending` (None: as sent)."""
    if ending is None:
        return Written(incoming)
    sent = set(_BREAK.findall(incoming))
    if not sent or sent == {ending}:
        return Written(incoming)
    converted = tuple(kind for kind in (CRLF, CR, LF) if kind in sent and kind not in (ending, LF))
    return Written(_BREAK.sub(ending, incoming), converted, ending)
