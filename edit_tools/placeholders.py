"""What an elision placeholder line looks like: the "keep the code that was here" line models
write instead of the code (`# ... existing code ...`, `// rest of the function unchanged`,
`<!-- ... -->`, `{/* ... */}`, a bare `...` or `…`).

This module only recognises the shape of one line. Whether a line is really standing for
dropped code (it is new, and original lines are missing where it stands) is decided by
`elision.py`; a line that merely looks like this is never enough.
"""

from __future__ import annotations

import re

# Cheap pre-filter over a whole text: a placeholder line contains one of these.
HINT = re.compile(
    r"\.\.\.|\. \. \.|…|unchanged|unmodified|existing|\brest\b|remain|omitted|elided"
    r"|skipped|snipped|\bkeep|as before",
    re.IGNORECASE,
)

_DOTS = r"(?:\.{3,}|…+)"
_BARE = re.compile(rf"{_DOTS}|\.(?: \.){{2,}}")
# Comment openers and closers of the languages models edit: `#`, `//`, `/* */`, `<!-- -->`,
# `--`, `;`, `%` (TeX, Erlang, MATLAB), `(* *)` (OCaml, Pascal), `{- -}` (Haskell), `{# #}`
# (Jinja), `<%-- --%>` (JSP), `@* *@` (Razor), `::` and `REM` (batch), `' ` (VB), `" ` (Vim).
_OPENERS = r"\#+|//+|/\*+|<!--|<%--|--|;+|%+|\(\*+|\{-+|\{\#|@\*|::|(?i:rem)\s|'\s|\"\s"
_CLOSERS = r"\*+/|--%>|-->|\*+\)|-+\}|\#\}|\*@"
# A comment line: its opener, the body, its closer; or JSX's `{/* ... */}`.
_COMMENT = re.compile(
    rf"(?:{_OPENERS})\s*(?P<body>.*?)\s*(?:{_CLOSERS})?"
    r"|\{\s*/\*+\s*(?P<jsx>.*?)\s*\*+/\s*\}",
    re.DOTALL,
)
# Dots followed by a trailing comment: `...  # unchanged`, `... // existing code`.
_DOTS_THEN_COMMENT = re.compile(rf"{_DOTS}\s*(?:\#+|//+)\s*(?P<body>.*)")
_COMMENT_OPENER = re.compile(rf"(?:{_OPENERS}|\{{\s*/\*)")
# A body wrapped in parentheses or brackets: `# (rest of code ...)`, `(unchanged code ...)`.
_WRAPPED = re.compile(r"\((?P<round>[^()]*)\)|\[(?P<square>[^\[\]]*)\]")

_NOUNS = (
    r"(?:code|methods|functions|lines|fields|cases|tests|imports|props|properties|items|"
    r"entries|members|rules|styles|routes|handlers|logic|content|implementation|config|"
    r"configuration|definitions|declarations|statements)"
)
# Words a dotted placeholder starts with (after its leading dots, if any).
_STARTERS = re.compile(
    r"\(?(?:existing|rest|remainder|remaining|other|more|same|previous|unchanged|unmodified|"
    r"omitted|elided|skipped|snip(?:ped)?|keep(?:s|ing)?|etc|original|everything|as before|"
    r"and so on|code|implementation|body|\d+ (?:more|other))\b"
)
# Only words between optional dots: no code punctuation.
_DOTTED_SHAPE = re.compile(rf"(?P<lead>{_DOTS})?\s*(?P<words>[(\w][\w\s'(),-]*?)?\s*{_DOTS}?")
_MAX_DOTTED_WORDS = 8
# Phrases that say it without dots (in a comment only), each the whole comment.
_PHRASES = re.compile(
    r"^(?:unchanged|unmodified|\((?:unchanged|unmodified|omitted)\))$|"
    r"^(?:same as before|as before)\W*$|"
    r"^\(?(?:(?:and )?the )?(?:rest|remainder|everything else|all else|(?:other|remaining) \w+|"
    r"(?:function|method|class|file) body)\b[\w\s]*\b(?:unchanged|unmodified|omitted|as before|"
    r"as is|stays the same|remains the same|is the same|stays|remains)"
    r"(?: for (?:brevity|clarity|now))?\W*$|"
    rf"^(?:your |all |any )?existing {_NOUNS}"
    r"(?: (?:here|goes here|unchanged|as is|as before|omitted|stays|remains))?\W*$|"
    r"^keep(?:s|ing)?(?: the)? (?:rest|existing(?: \w+)?|others?|remaining(?: \w+)?)"
    r"(?: of the \w+)?(?: (?:unchanged|as is|as before|the same|intact))?\W*$|"
    r"^\(?(?:code|lines|implementation|body|details|rest) (?:omitted|elided|snipped|skipped)"
    r"(?: for brevity)?\)?\W*$|^\(?(?:omitted|elided|snipped|skipped) for brevity\)?\W*$"
)
_MAX_WORDS = 8
_SINGLE_WORDS = {"unchanged", "(unchanged)", "omitted", "(omitted)", "unmodified"}


def _unwrapped(body: str) -> str:
    """`body` without parentheses or brackets around the whole of it, when they hold words."""
    wrapped = _WRAPPED.fullmatch(body.strip())
    if wrapped is None:
        return body
    inner = (wrapped["round"] if wrapped["round"] is not None else wrapped["square"]).strip()
    # `[...]` and `(...)` stay as they are: prose elides quoted text that way.
    return inner if re.search(r"\w", inner) else body


def _words(body: str) -> int:
    return len(body.split())


def _dotted_phrase(body: str, *, commented: bool) -> bool:
    """Dots and a few words saying the rest is kept: `... existing code ...`, `rest of
    file...`, `... (unchanged)`. Without a comment around it, one word is not enough."""
    lowered = body.lower().strip()
    shape = _DOTTED_SHAPE.fullmatch(lowered)
    if shape is None or not shape["words"]:
        return False
    words = shape["words"].strip()
    if not re.search(_DOTS, lowered) or _words(words) > _MAX_DOTTED_WORDS:
        return False
    if _words(words) == 1 and not commented:
        return words in _SINGLE_WORDS
    return _STARTERS.match(words) is not None or (
        shape["lead"] is not None and _PHRASES.search(words) is not None
    )


def _comment_body(body: str) -> bool:
    lowered = body.lower().strip()
    if not lowered or _words(lowered) > _MAX_WORDS:
        return False
    if _BARE.fullmatch(lowered):
        return True
    readings = dict.fromkeys((lowered, _unwrapped(lowered)))
    if re.search(_DOTS, lowered):
        return any(_dotted_phrase(reading, commented=True) for reading in readings)
    return any(_PHRASES.search(reading) is not None for reading in readings)


def is_bare_dots(line: str) -> bool:
    """A line that is only `...` or `…` (valid Python: the Ellipsis)."""
    return _BARE.fullmatch(line.strip()) is not None


def is_placeholder(line: str) -> bool:
    """Whether `line` (without its terminator) has the shape of an elision placeholder."""
    stripped = line.strip()
    if not stripped or HINT.search(stripped) is None:
        return False
    if _BARE.fullmatch(stripped):
        return True
    if (dots := _DOTS_THEN_COMMENT.fullmatch(stripped)) is not None:
        return _comment_body(dots["body"])
    if _COMMENT_OPENER.match(stripped) is None:
        return _dotted_phrase(stripped, commented=False) or (
            _unwrapped(stripped) != stripped
            and _dotted_phrase(_unwrapped(stripped), commented=False)
        )
    comment = _COMMENT.fullmatch(stripped)
    return comment is not None and _comment_body(comment["body"] or comment["jsx"] or "")
