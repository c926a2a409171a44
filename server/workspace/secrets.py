"""Secret values in text read from other files, masked before the model sees them.

The rules are detect-secrets' plugins (Yelp's maintained rule set): its token detectors' own
regular expressions (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, PyPI, npm, JWT, SendGrid,
Azure, Twilio, …), its private-key headers, and its `KeywordDetector` (values assigned to names
like `password`, `secret`, `api_key`, with the file type's own assignment forms), with its
heuristic filters (templated values, `$VARS`, indirect references). Two rules it lacks are
added here: Google API keys (Gemini, GCP: `AIza…`) and Anthropic keys (`sk-ant-…`).

Speed (masking must cost at most ~10 ms per MB): the text is scanned once, as UTF-8 bytes and
again lower-cased (ASCII only, so offsets stay), by two Aho-Corasick automata (`ahocorasick-rs`)
for every rule's literal triggers and every keyword of the keyword detector; a rule's
expressions run only when one of its triggers occurred, and the keyword detector only on the
lines holding a keyword followed by `=` or `:`. Detectors with no usable trigger (Discord,
Telegram) and the generic high-entropy detectors (every hash and lock-file digest would be
masked) are left out, and so are the ones whose expressions cost 20-90 ms per MB for vendors
rarely seen (Artifactory, Cloudant, IBM Cloud, IBM COS, Mailchimp, SoftLayer): the keyword
detector still masks their values where they are assigned to a name like `api_key` or
`password`.

A value becomes `«secret: KIND, N chars»`. A private key block's lines are masked one by one
(its BEGIN/END lines stay), so line numbers never move: line N of the masked text is line N of
the file.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, cast

# detect-secrets is imported when the first text is masked (~0.3 s): a command that reads no
# other file does not pay for it.

MARKER_OPEN = "«secret: "

# detect-secrets detector → literal triggers (any one present lets its expressions run; an
# expression that ignores case is triggered on the lower-cased text). Each is a literal every
# match of the detector's expressions holds; a detector whose expressions need different ones
# gives a tuple of them per expression.
_TRIGGERS: Mapping[str, tuple[str, ...] | tuple[tuple[str, ...], ...]] = MappingProxyType(
    {
        "AWSKeyDetector": (("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), ("aws",)),
        "AzureStorageKeyDetector": ("AccountKey=",),
        "BasicAuthDetector": ("://",),
        "GitHubTokenDetector": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        "GitLabTokenDetector": (
            ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-"),
            ("GR1348941",),
            ("glcbt-",),
            ("glimt-",),
            ("glptt-",),
            ("glagent-",),
            ("gloas-",),
        ),
        "JwtTokenDetector": ("eyJ",),
        "NpmDetector": ("_authToken",),
        "OpenAIDetector": ("T3BlbkFJ",),
        "PypiTokenDetector": ("pypi-",),
        "SendGridDetector": ("SG.",),
        "SlackDetector": ("xox", "hooks.slack.com"),
        "SquareOAuthDetector": ("sq0csp-",),
        "StripeDetector": ("k_live_",),
        "TwilioKeyDetector": ("AC", "SK"),
    }
)
_EXTRA = (
    ("google-api-key", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}"),
    ("anthropic-api-key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,}"),
)
_KEY_HEADERS = ("PRIVATE KEY", "PuTTY-User-Key")
_KEY_BLOCK_END = re.compile(r"-----END[ A-Z0-9]*-----|---- END SSH2|Private-MAC:")
_VALUE_EDGES = " \t\r\n=:\"'"
_MIN_KEYWORD_VALUE = 4
_MIN_GROUP = 8
# In an automaton's list of rules: a keyword of the keyword detector, a private key's header.
_KEYWORD, _PRIVATE_KEY = -1, -2


@dataclass(frozen=True)
class Spot:
    """One masked value: its line (1-based) and kind; never the value."""

    line: int
    kind: str
    chars: int


@dataclass(frozen=True)
class Masked:
    """A text with its secret values masked (`text`), where they were (`spots`), and each
    masked value with its marker (`values`), to mask the same values wherever else they show
    (a tool's answer quoting a line, an error message)."""

    text: str
    spots: tuple[Spot, ...]
    values: tuple[tuple[str, str], ...]

    def hide(self, text: str) -> str:
        """`text` with every value masked here replaced by its marker."""
        for value, marker in self.values:
            if value in text:
                text = text.replace(value, marker)
        return text


@dataclass(frozen=True)
class _Rule:
    kind: str
    triggers: tuple[str, ...]
    lower: bool  # triggers looked for in the lower-cased text; the match is within a line
    pattern: re.Pattern[str]


@functools.cache
def shared_masker() -> Masker:
    """One `Masker` per process: its rules are compiled once, and it keeps nothing of what it
    masked."""
    return Masker()


def marker(kind: str, chars: int) -> str:
    return f"{MARKER_OPEN}{kind}, {chars} chars»"


def holds_marker(text: str) -> bool:
    return MARKER_OPEN in text


def holds_private_key(text: str) -> bool:
    """`text` may hold a private key block (whose body lines say nothing by themselves)."""
    return any(header in text for header in _KEY_HEADERS)


class Masker:
    """The rules, compiled once (one per process: `shared_masker`)."""

    def __init__(self) -> None:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.plugins.keyword import DENYLIST, KeywordDetector
        from detect_secrets.plugins.private_key import PrivateKeyDetector

        rules: list[_Rule] = []
        plugins: Mapping[str, Any] = get_mapping_from_secret_type_to_class()
        for secret_type, plugin in plugins.items():
            triggers = _TRIGGERS.get(plugin.__name__)
            if triggers is None:
                continue
            denylist: Sequence[re.Pattern[str]] = plugin().denylist
            each = _per_expression(triggers, len(denylist))
            for pattern, literals in zip(denylist, each, strict=True):
                lower = bool(pattern.flags & re.IGNORECASE)
                if lower:
                    literals = tuple(sorted({literal.lower() for literal in literals}))
                    _line_bound(pattern)
                compiled = re.compile(pattern.pattern, pattern.flags | re.MULTILINE)
                rules.append(_Rule(_kind(secret_type), literals, lower, compiled))
        for kind, triggers, expression in _EXTRA:
            rules.append(_Rule(kind, triggers, False, re.compile(expression)))
        self._rules = tuple(rules)
        self._headers = tuple(PrivateKeyDetector().denylist)
        self._keyword = KeywordDetector()
        # Each automaton: its literals, and for each the index of its rule (or a mark).
        exact: list[tuple[bytes, int]] = [
            (header.encode(), _PRIVATE_KEY) for header in _KEY_HEADERS
        ]
        folded: list[tuple[bytes, int]] = [(word, _KEYWORD) for word in _keywords(DENYLIST)]
        for index, rule in enumerate(rules):
            (folded if rule.lower else exact).extend((t.encode(), index) for t in rule.triggers)
        self._exact, self._exact_rules = _automaton(exact)
        self._folded, self._folded_rules = _automaton(folded)

    def mask(self, text: str, label: str) -> Masked:
        """`text` (the file `label`) with its secret values masked."""
        data = text.encode("utf-8", "surrogatepass")
        lower = data.lower()  # ASCII letters only: every offset stays
        hit: set[int] = set()
        for at, _, _ in self._exact.find_matches_as_indexes(data, overlapping=True):
            hit.update(self._exact_rules[at])
        keywords: list[tuple[int, int]] = []
        lines: dict[int, set[tuple[int, int]]] = {}  # a case-folded rule's lines, in bytes
        for at, start, end in self._folded.find_matches_as_indexes(lower, overlapping=True):
            for rule in self._folded_rules[at]:
                if rule == _KEYWORD:
                    keywords.append((start, end))
                else:
                    lines.setdefault(rule, set()).add(_line_of(lower, start, end))
        found: list[tuple[int, int, str]] = []
        for index in sorted(hit):
            if index == _PRIVATE_KEY:
                found.extend(self._key_blocks(text))
            else:
                found.extend(_matches(self._rules[index], text))
        # A case-folded expression never reaches past a line (see _Rule): it runs on the lines
        # holding its triggers (on the whole text unless that is ASCII, where bytes are chars).
        for index, spans in sorted(lines.items()):
            rule = self._rules[index]
            every = [(0, len(text))] if not text.isascii() else sorted(spans)
            for begin, stop in every:
                found.extend(_matches(rule, text, begin, stop))
        if keywords:
            found.extend(self._keyword_values(text, data, lower, keywords, label))
        if not found:
            return Masked(text, (), ())
        return _replace(text, found)

    def _key_blocks(self, text: str) -> list[tuple[int, int, str]]:
        spans: list[tuple[int, int, str]] = []
        for header in self._headers:
            for match in header.finditer(text):
                start = text.find("\n", match.end())
                dashes = text.find("-----", match.end(), start if start >= 0 else len(text))
                body = dashes + 5 if dashes >= 0 else (start if start >= 0 else len(text))
                end_match = _KEY_BLOCK_END.search(text, body)
                end = end_match.start() if end_match else len(text)
                spans.extend(_each_line(text, body, end))
        return spans

    def _keyword_values(
        self,
        text: str,
        data: bytes,
        lower: bytes,
        keywords: list[tuple[int, int]],
        label: str,
    ) -> list[tuple[int, int, str]]:
        """The values detect-secrets' keyword detector finds on the lines where a keyword
        (at `keywords`: byte offsets in `data`) is followed by `=` or `:`."""
        spans: list[tuple[int, int, str]] = []
        done = -1  # the lines up to here are looked at
        for start, end in sorted(keywords):
            if start < done:
                continue  # the line's first keyword decided
            begin, stop = _line_of(lower, start, end)
            done = stop
            if lower.find(b"=", end, stop) < 0 and lower.find(b":", end, stop) < 0:
                continue
            line = data[begin:stop].decode("utf-8", "surrogatepass")
            for found in self._keyword.analyze_line(filename=label, line=line, line_number=0):
                if not found.secret_value or _filtered(found.secret_value, line):
                    continue
                value = found.secret_value
                at = line.find(value)
                if at >= 0:
                    first = (
                        begin
                        if text.isascii()
                        else len(data[:begin].decode("utf-8", "surrogatepass"))
                    )
                    spans.append((first + at, first + at + len(value), "secret-keyword"))
        return spans


def _automaton(pairs: Sequence[tuple[bytes, int]]) -> tuple[Any, tuple[tuple[int, ...], ...]]:
    """An automaton finding each literal of `pairs` (literal, rule), and for each the rules
    it triggers."""
    import ahocorasick_rs

    rules: dict[bytes, list[int]] = {}
    for literal, rule in pairs:
        rules.setdefault(literal, []).append(rule)
    automaton = ahocorasick_rs.BytesAhoCorasick(list(rules))
    return automaton, tuple(tuple(each) for each in rules.values())


def _line_bound(pattern: re.Pattern[str]) -> None:
    """Raises ValueError unless no match of `pattern` can hold a line break (no `\\s`, `\\n`,
    `\\r`, negated class or DOTALL): what running it line by line relies on."""
    source = pattern.pattern
    if pattern.flags & re.DOTALL or any(part in source for part in ("\\s", "\\n", "\\r", "[^")):
        raise ValueError(f"{source!r} may match across lines")


def _per_expression(
    triggers: tuple[str, ...] | tuple[tuple[str, ...], ...], count: int
) -> list[tuple[str, ...]]:
    """The triggers of each of a detector's `count` expressions."""
    if all(isinstance(trigger, str) for trigger in triggers):
        return [cast(tuple[str, ...], triggers)] * count
    if len(triggers) != count:
        raise ValueError(f"{len(triggers)} tuples of triggers for {count} expressions")
    return [cast(tuple[str, ...], literals) for literals in triggers]


def _keywords(denylist: Sequence[str]) -> list[bytes]:
    """The literals the keyword detector's expressions (`api_?key`, `password`, …) match, as
    lower-cased UTF-8 (a non-ASCII capital stays as it was written: both forms are given)."""
    words: set[str] = set()
    for expression in denylist:
        forms = [expression.replace("_?", "_"), expression.replace("_?", "")]
        for form in forms:
            if re.escape(form) != form:
                raise ValueError(f"detect-secrets' keyword {expression!r} is not a literal")
            words.add(form)
            words.add("".join(c if c.isascii() else c.upper() for c in form))
    return sorted(word.encode() for word in words)


def _filtered(value: str, line: str) -> bool:
    """detect-secrets' filters: too short, templated (`{{x}}`, `<x>`), `$VAR`, an indirect
    reference (`os.environ[…]`), or a marker already."""
    from detect_secrets.filters.heuristic import (
        is_indirect_reference,
        is_prefixed_with_dollar_sign,
        is_templated_secret,
    )

    return (
        len(value) < _MIN_KEYWORD_VALUE
        or is_templated_secret(value)
        or is_prefixed_with_dollar_sign(value)
        or holds_marker(value)
        or is_indirect_reference(line)
    )


def _kind(secret_type: str) -> str:
    """ "AWS Access Key" → "aws-access-key"."""
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def _line_of(data: bytes, start: int, end: int) -> tuple[int, int]:
    """Where the line holding data[start:end] starts and ends (before its line break)."""
    stop = data.find(b"\n", end)
    return data.rfind(b"\n", 0, start) + 1, len(data) if stop < 0 else stop


def _matches(
    rule: _Rule, text: str, begin: int = 0, end: int | None = None
) -> list[tuple[int, int, str]]:
    """The values `rule` finds in text[begin:end]."""
    spans = []
    pattern, kind = rule.pattern, rule.kind
    for match in pattern.finditer(text, begin, len(text) if end is None else end):
        # The value is the longest group (a group may hold a prefix, `ghp`), else the match.
        groups = [n for n in range(1, pattern.groups + 1) if match.group(n)]
        group = max(groups, key=lambda n: len(match.group(n)), default=0)
        if group and len(match.group(group)) < _MIN_GROUP:
            group = 0
        start, end = match.span(group)
        while start < end and text[start] in _VALUE_EDGES:
            start += 1
        while end > start and text[end - 1] in _VALUE_EDGES:
            end -= 1
        if end - start >= _MIN_KEYWORD_VALUE:
            spans.append((start, end, kind))
    return spans


def _each_line(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """The non-blank part of each line of text[start:end], as a private key's spans."""
    spans = []
    at = start
    while at < end:
        stop = text.find("\n", at, end)
        stop = end if stop < 0 else stop
        first, last = at, stop
        while first < last and text[first] in " \t\r":
            first += 1
        while last > first and text[last - 1] in " \t\r":
            last -= 1
        if last > first:
            spans.append((first, last, "private-key"))
        at = stop + 1
    return spans


def _replace(text: str, found: list[tuple[int, int, str]]) -> Masked:
    """`text` with the spans in `found` (which may overlap) replaced by markers."""
    found.sort(key=lambda span: (span[0], -span[1]))
    parts: list[str] = []
    spots: list[Spot] = []
    values: dict[str, str] = {}
    at = 0
    line, counted = 1, 0
    for start, end, kind in found:
        if start < at:
            continue  # inside a span already masked
        parts.append(text[at:start])
        value = text[start:end]
        shown = marker(kind, len(value))
        parts.append(shown)
        values.setdefault(value, shown)
        line += text.count("\n", counted, start)
        counted = start
        spots.append(Spot(line, kind, len(value)))
        at = end
    parts.append(text[at:])
    # Longest first: a value that holds another is replaced whole.
    ordered = tuple(sorted(values.items(), key=lambda item: -len(item[0])))
    return Masked("".join(parts), tuple(spots), ordered)


def where(label: str, spots: Sequence[Spot]) -> str:
    """`label:line` of each masked value, for an answer (never the value)."""
    return ", ".join(f"{label}:{spot.line}" for spot in spots)
