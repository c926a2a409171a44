"""Secret values in text read from other files, masked before the model sees them.

The rules are detect-secrets' plugins (Yelp's maintained rule set): its token detectors' own
regular expressions (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, PyPI, npm, JWT, SendGrid,
Azure, Twilio, …), its private-key headers, and its `KeywordDetector` (values assigned to names
like `password`, `secret`, `api_key`, with the file type's own assignment forms), with its
heuristic filters (templated values, `$VARS`, indirect references). Two rules it lacks are
added here: Google API keys (Gemini, GCP: `AIza…`) and Anthropic keys (`sk-ant-…`).

Speed (masking must cost at most ~10 ms per MB): a rule's expression runs only when one of its
literal triggers occurs in the text (a C-speed `in` test), and the keyword detector runs only on
the lines where a keyword occurs. Detectors with no usable trigger (Discord, Telegram) and the
generic high-entropy detectors (every hash and lock-file digest would be masked) are left out,
and so are the ones whose expressions cost 20-90 ms per MB for vendors rarely seen (Artifactory,
Cloudant, IBM Cloud, IBM COS, Mailchimp, SoftLayer): the keyword detector still masks their
values where they are assigned to a name like `api_key` or `password`.

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
from typing import Any

# detect-secrets is imported when the first text is masked (~0.3 s): a command that reads no
# other file does not pay for it.

MARKER_OPEN = "«secret: "

# detect-secrets detector → literal triggers (any one present lets its expressions run; a
# detector whose expressions ignore case is triggered on the lower-cased text).
_TRIGGERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "AWSKeyDetector": ("A3T", "ABIA", "ACCA", "AKIA", "ASIA", "aws"),
        "AzureStorageKeyDetector": ("AccountKey=",),
        "BasicAuthDetector": ("://",),
        "GitHubTokenDetector": ("gh",),
        "GitLabTokenDetector": ("gl", "GR1348941"),
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
_KEY_BLOCK_END = re.compile(r"-----END[ A-Z0-9]*-----|---- END SSH2|Private-MAC:")
_VALUE_EDGES = " \t\r\n=:\"'"
_MIN_KEYWORD_VALUE = 4
_MIN_GROUP = 8
# Every keyword of detect-secrets' KeywordDetector holds one of these.
_KEYWORD_STEMS = ("pass", "pwd", "secret", "key", "contrase")


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
    lower: bool  # triggers looked for in the lower-cased text
    patterns: tuple[re.Pattern[str], ...]


@functools.cache
def shared_masker() -> Masker:
    """One `Masker` per process: its rules are compiled once, and it keeps nothing of what it
    masked."""
    return Masker()


def marker(kind: str, chars: int) -> str:
    return f"{MARKER_OPEN}{kind}, {chars} chars»"


def holds_marker(text: str) -> bool:
    return MARKER_OPEN in text


class Masker:
    """The rules, compiled once (one per workspace)."""

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
            lower = any(pattern.flags & re.IGNORECASE for pattern in denylist)
            patterns = tuple(re.compile(p.pattern, p.flags | re.MULTILINE) for p in denylist)
            if lower:
                triggers = tuple(sorted({trigger.lower() for trigger in triggers}))
            rules.append(_Rule(_kind(secret_type), triggers, lower, patterns))
        for kind, triggers, pattern in _EXTRA:
            rules.append(_Rule(kind, triggers, False, (re.compile(pattern),)))
        self._rules = tuple(rules)
        self._headers = tuple(PrivateKeyDetector().denylist)
        self._keywords = re.compile("|".join(DENYLIST))
        self._keyword = KeywordDetector()

    def mask(self, text: str, label: str) -> Masked:
        """`text` (the file `label`) with its secret values masked."""
        found: list[tuple[int, int, str]] = []
        lower = text.lower()
        for rule in self._rules:
            haystack = lower if rule.lower else text
            if any(trigger in haystack for trigger in rule.triggers):
                for pattern in rule.patterns:
                    found.extend(_matches(pattern, text, rule.kind))
        if "PRIVATE KEY" in text or "PuTTY-User-Key" in text:
            found.extend(self._key_blocks(text))
        found.extend(self._keyword_values(text, lower, label))
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

    def _keyword_values(self, text: str, lower: str, label: str) -> list[tuple[int, int, str]]:
        spans: list[tuple[int, int, str]] = []
        for start in _lines_holding(lower, _KEYWORD_STEMS):
            stop = text.find("\n", start)
            stop = len(text) if stop < 0 else stop
            keyword = self._keywords.search(lower, start, stop)
            if keyword is None:
                continue
            after = lower[keyword.end() : stop]
            if "=" not in after and ":" not in after:
                continue
            line = text[start:stop]
            for found in self._keyword.analyze_line(filename=label, line=line, line_number=0):
                if not found.secret_value or _filtered(found.secret_value, line):
                    continue
                value = found.secret_value
                at = line.find(value)
                if at >= 0:
                    spans.append((start + at, start + at + len(value), "secret-keyword"))
        return spans


def _lines_holding(lower: str, stems: Sequence[str]) -> list[int]:
    """Where each line holding one of `stems` starts, in order, once each."""
    starts: set[int] = set()
    for stem in stems:
        at = lower.find(stem)
        while at >= 0:
            start = lower.rfind("\n", 0, at) + 1
            starts.add(start)
            stop = lower.find("\n", at)
            if stop < 0:
                break
            at = lower.find(stem, stop)
    return sorted(starts)


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


def _matches(pattern: re.Pattern[str], text: str, kind: str) -> list[tuple[int, int, str]]:
    spans = []
    for match in pattern.finditer(text):
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
