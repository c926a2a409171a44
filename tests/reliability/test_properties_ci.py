"""The text properties of the issue, at the scale of the Hypothesis profile (``dev``: 150
examples each, ``HYPOTHESIS_PROFILE=ci``: 2,000; see tests/hypothesis_profiles.py), over text
made of the characters that break editors: CRLF, lone CR, form feed, vertical tab, \\x1c,
NEL, U+2028/2029, BOM, astral characters, ZWJ sequences, combining marks, CJK.

Every check is against the strict reference positions of ``tests/fakes/lsp_positions.py``
(shared with no server code). The last property drives the whole command flow
(``server.edit.flow.perform``) in-process: a model rewrites the document while the user types,
and the editor's text must end up as both changes or as the user's alone: no byte lost, no
success reported for a text the editor does not have.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from lsprotocol.types import (
    Position,
    Range,
    TextDocumentContentChangeEvent,
    TextDocumentContentChangePartial,
    TextDocumentContentChangeWholeDocument,
)

from complex_edit.edit_tools.registry import Toolbox
from complex_edit.server.edit.flow import EditOrder, perform
from complex_edit.server.edit.port import DocumentEdit, Landing
from complex_edit.server.lsp.bridge import content_changes, offset_at, position_at, to_text_edits
from complex_edit.server.outcome import EditRefused, Usage
from complex_edit.server.providers.base import (
    ConversationRequest,
    ModelTurn,
    ToolCall,
    ToolReply,
    TurnItem,
)
from complex_edit.server.providers.base import (
    replay as replay_turn,
)
from complex_edit.server.session.result import InProcess
from complex_edit.server.settings import Settings
from complex_edit.server.text.diff import TextChange, apply_changes, compute_edits
from complex_edit.server.text.documents import DocumentStore, Snapshot
from complex_edit.server.text.positions import LineIndex
from complex_edit.server.text.rebase import Rebased, compose_changes, edit_landed, rebase_changes
from tests.fakes.lsp_positions import (
    addressable,
    line_starts,
    offset_to_position,
    position_to_offset,
)
from tests.hypothesis_profiles import active

PROFILE = active()
# The in-process command flow costs ~1 ms an example: a quarter of the profile's count.
COMMAND_PROFILE = settings(PROFILE, max_examples=max(50, PROFILE.max_examples // 4))

PIECES = [
    "a",
    "b",
    " ",
    "\t",
    "\n",
    "\n",
    "\r",
    "\r\n",
    "\r\n",
    "\f",
    "\v",
    "\x1c",
    "\x85",
    "\u2028",
    "\u2029",
    "\ufeff",
    "😀",
    "👨\u200d👩\u200d👧",
    "e\u0301",
    "\u0301",
    "中",
    "𝔘",
    "x = 1\n",
    "end\r\n",
]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
encodings = st.sampled_from(["utf-8", "utf-16", "utf-32"])


def as_dict(position: Position) -> dict[str, int]:
    return {"line": position.line, "character": position.character}


@st.composite
def text_pairs(draw: st.DrawFn) -> tuple[str, str]:
    old = draw(texts)
    if draw(st.integers(0, 9)) == 0:
        return old, draw(texts)
    new = old
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, len(new)))
        end = draw(st.integers(start, min(len(new), start + 8)))
        new = new[:start] + draw(texts) + new[end:]
    return old, new


# -- 1. edits from a to b, applied to a, give b --------------------------------------------


@settings(PROFILE)
@given(text_pairs(), encodings)
def test_edits_from_a_to_b_applied_to_a_give_b(pair: tuple[str, str], encoding: str) -> None:
    old, new = pair
    changes = compute_edits(old, new)
    assert apply_changes(old, changes) == new
    edits = to_text_edits(old, changes, encoding)  # type: ignore[arg-type]
    spans = sorted(
        (
            position_to_offset(old, as_dict(e.range.start), encoding),
            position_to_offset(old, as_dict(e.range.end), encoding),
            e.new_text,
        )
        for e in edits
    )
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        assert end <= start, "overlapping edits"
    text = old
    for start, end, new_text in reversed(spans):
        assert start <= end
        text = text[:start] + new_text + text[end:]
    assert text == new
    if old == new:
        assert edits == []


# -- 2. position conversions round-trip ----------------------------------------------------


@settings(PROFILE)
@given(texts, encodings, encodings)
def test_positions_round_trip_in_every_encoding(text: str, encoding: str, other: str) -> None:
    index = LineIndex(text)
    for offset in addressable(text):
        position = position_at(index, offset, encoding)  # type: ignore[arg-type]
        assert as_dict(position) == offset_to_position(text, offset, encoding)
        assert offset_at(index, position, encoding) == offset  # type: ignore[arg-type]
        across = position_at(index, offset, other)  # type: ignore[arg-type]
        assert offset_at(index, across, other) == offset  # type: ignore[arg-type]
    assert index.line_count == len(line_starts(text))


# -- 3. the document store follows the client ----------------------------------------------


@dataclass
class EditorEvent:
    changes: list[tuple[int, int, str]] | str
    """Splices applied one after another (offsets in the text the previous one left), or a
    whole new text."""


@st.composite
def editor_sessions(draw: st.DrawFn, *, whole: bool = True) -> tuple[str, str, list[EditorEvent]]:
    """A text, an encoding, and what a client does to it: incremental changes (several per
    event, each against the text the previous one left) and, if `whole`, full replacements."""
    text = draw(texts)
    encoding = draw(encodings)
    events = []
    current = text
    for _ in range(draw(st.integers(1, 8))):
        if whole and draw(st.integers(0, 7)) == 0:
            current = draw(texts)
            events.append(EditorEvent(current))
            continue
        splices = []
        for _ in range(draw(st.integers(1, 3))):
            offsets = addressable(current)
            start = draw(st.sampled_from(offsets))
            end = draw(st.sampled_from([o for o in offsets if start <= o <= start + 10]))
            new_text = draw(texts)
            splices.append((start, end, new_text))
            current = current[:start] + new_text + current[end:]
        events.append(EditorEvent(splices))
    return text, encoding, events


def client_event(
    text: str, event: EditorEvent, encoding: str
) -> tuple[str, list[TextDocumentContentChangeEvent]]:
    if isinstance(event.changes, str):
        return event.changes, [TextDocumentContentChangeWholeDocument(text=event.changes)]
    out: list[TextDocumentContentChangeEvent] = []
    for start, end, new_text in event.changes:
        out.append(
            TextDocumentContentChangePartial(
                range=Range(
                    start=Position(**offset_to_position(text, start, encoding)),
                    end=Position(**offset_to_position(text, end, encoding)),
                ),
                text=new_text,
            )
        )
        text = text[:start] + new_text + text[end:]
    return text, out


def replay(session: tuple[str, str, list[EditorEvent]]) -> tuple[DocumentStore, str]:
    """Feed the session to a store as didOpen/didChange; returns it and the client's text."""
    text, encoding, events = session
    store = DocumentStore(encoding)
    store.open(URI, text, 1)
    client = text
    for version, event in enumerate(events, start=2):
        client, changes = client_event(client, event, encoding)
        store.change(URI, version, content_changes(changes))
        assert store.snapshot(URI).text == client
        assert store.snapshot(URI).version == version
        assert store.line_index(URI).text == client
    return store, client


URI = "file:///property.txt"


@settings(PROFILE)
@given(editor_sessions())
def test_the_store_equals_the_client_after_any_changes(
    session: tuple[str, str, list[EditorEvent]],
) -> None:
    replay(session)


@settings(PROFILE)
@given(editor_sessions(whole=False))
def test_the_change_log_replays_incremental_changes(
    session: tuple[str, str, list[EditorEvent]],
) -> None:
    """What rebasing relies on: the logged changes, composed, turn the old text into the
    current one."""
    store, client = replay(session)
    logged = store.changes_since(URI, 1)
    assert logged is not None
    assert apply_changes(session[0], compose_changes(logged)) == client


@settings(PROFILE)
@given(editor_sessions())
# A whole-document change that compute_edits turns into two changes: logged against the old
# text rather than one after another, the second landed in the wrong place.
@example(("a\nb\n", "utf-16", [EditorEvent("xx\nb\nc\n")]))
@example(("a\r\nb\r\n", "utf-8", [EditorEvent([(0, 0, "😀")]), EditorEvent("😀A1\r\nb\r\nc\r\n")]))
def test_the_change_log_replays_whole_document_changes(
    session: tuple[str, str, list[EditorEvent]],
) -> None:
    store, client = replay(session)
    logged = store.changes_since(URI, 1)
    assert logged is not None
    assert apply_changes(session[0], compose_changes(logged)) == client


# -- 4. rebase over a concurrent change that does not touch the result ---------------------


@settings(PROFILE)
@given(texts, st.data())
def test_rebase_over_a_change_elsewhere_keeps_both(text: str, data: st.DataObject) -> None:
    cut = sorted(data.draw(st.lists(st.integers(0, len(text)), min_size=4, max_size=4)))
    if cut[1] == cut[2]:
        return  # the two changes would touch
    first = TextChange(cut[0], cut[1], data.draw(texts))
    second = TextChange(cut[2], cut[3], data.draw(texts))
    agent, user = (first, second) if data.draw(st.booleans()) else (second, first)
    live = apply_changes(text, [user])
    rebased = rebase_changes(text, live, [agent], [user])
    assert isinstance(rebased, Rebased), rebased
    assert rebased.text == apply_changes(text, sorted([agent, user], key=lambda c: c.start))
    assert apply_changes(live, rebased.changes) == rebased.text


# -- 5. the whole command: a model rewrites the document while the user types --------------


class ScriptedConversation:
    def __init__(self, target: str, during: Any) -> None:
        self._target = target
        self._during = during
        self._turn = 0

    def stream_turn(self) -> AsyncIterator[TurnItem]:
        return replay_turn(self._next_turn())

    async def _next_turn(self) -> ModelTurn:
        self._turn += 1
        if self._turn == 1:
            self._during()  # the user types while the model thinks
            return ModelTurn(
                calls=[
                    ToolCall("set_document", {"content": self._target}, id="c1"),
                    ToolCall("complete_task", {"success": True, "message": "ok"}, id="c2"),
                ],
                usage=Usage(input_tokens=1, output_tokens=1),
            )
        raise AssertionError("the loop asked for another turn after complete_task")

    def add_tool_results(self, results: Sequence[ToolReply]) -> None:
        return None


@dataclass
class ScriptedProvider:
    target: str
    during: Any

    def open(self, request: ConversationRequest) -> ScriptedConversation:
        return ScriptedConversation(self.target, self.during)


@dataclass
class FakeEditor:
    """A strict editor over the real document store: it applies the server's edits to its own
    text by the reference positions, checks the version, and echoes a didChange."""

    uri: str
    text: str
    encoding: str
    store: DocumentStore = field(init=False)
    version: int = 1
    applies: int = 0

    def __post_init__(self) -> None:
        self.store = DocumentStore(self.encoding)
        self.store.open(self.uri, self.text, self.version)

    def type(self, start: int, end: int, new_text: str) -> None:
        event = EditorEvent([(start, end, new_text)])
        self.text, changes = client_event(self.text, event, self.encoding)
        self.version += 1
        self.store.change(self.uri, self.version, content_changes(changes))

    # EditorPort
    def is_open(self, uri: str) -> bool:
        return self.store.is_open(uri)

    def snapshot(self, uri: str) -> Snapshot:
        return self.store.snapshot(uri)

    def can_apply_edits(self) -> bool:
        return True

    def changes_since(self, uri: str, version: int) -> list[TextChange] | None:
        return self.store.changes_since(uri, version)

    async def settings_layers(self, uri: str) -> list[Mapping[str, Any] | None]:
        return [{}]

    async def apply(
        self,
        edits: Sequence[DocumentEdit],
        label: str,
        limit_seconds: float,
        review: object = None,
    ) -> _Delivery:
        (edit,) = edits  # the command's document alone
        base, changes = edit.base, edit.changes
        live = self.store.get(base.uri)
        if live is None or live.version != base.version or live.text != base.text:
            raise EditRefused("document_changed", "stale")
        self.applies += 1
        if base.version != self.version:
            return _Delivery(self, base, changes, False, "version mismatch")
        edits = to_text_edits(base.text, changes, self.encoding)  # type: ignore[arg-type]
        spans = sorted(
            (
                position_to_offset(self.text, as_dict(e.range.start), self.encoding),
                position_to_offset(self.text, as_dict(e.range.end), self.encoding),
                e.new_text,
            )
            for e in edits
        )
        for start, end, new_text in reversed(spans):
            self.type(start, end, new_text)
        return _Delivery(self, base, changes, True)


@dataclass
class _Delivery:
    editor: FakeEditor
    base: Snapshot
    changes: Sequence[TextChange]
    applied: bool
    failure_reason: str | None = None

    async def landed(self, hunks: Sequence[Any], limit_seconds: float, *, settle: bool) -> Landing:
        store, base = self.editor.store, self.base
        reported = store.changes_since(base.uri, base.version)
        now = store.snapshot(base.uri).text
        every = list(range(len(hunks)))
        return Landing(every if edit_landed(base.text, self.changes, reported, now) else None, True)


@st.composite
def concurrent_work(draw: st.DrawFn) -> tuple[str, str, str, tuple[int, int, str]]:
    """A document, the model's full rewrite of it, the user's splice, and the encoding."""
    text = draw(texts)
    _, target = draw(text_pairs().map(lambda pair: (text, pair[1])))
    if draw(st.booleans()):  # a local rewrite rather than a fresh text
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 8)))
        target = text[:start] + draw(texts) + text[end:]
    offsets = addressable(text)
    start = draw(st.sampled_from(offsets))
    end = draw(st.sampled_from([o for o in offsets if start <= o <= start + 6]))
    typed = draw(texts.filter(lambda t: bool(t)))
    return text, target, draw(encodings), (start, end, typed)


@COMMAND_PROFILE
@given(concurrent_work())
def test_the_command_never_loses_typing_nor_reports_a_false_success(
    work: tuple[str, str, str, tuple[int, int, str]],
) -> None:
    text, target, encoding, (start, end, typed) = work
    # What the toolbox makes of the model's text (it keeps the document's line endings).
    toolbox = Toolbox(text)
    toolbox.execute("set_document", {"content": target})
    agent = toolbox.text
    user_text = text[:start] + typed + text[end:]

    editor = FakeEditor("file:///doc.txt", text, encoding)
    provider = ScriptedProvider(target, lambda: editor.type(start, end, typed))
    order = EditOrder(uri=editor.uri, prompt="edit", settings=Settings(), label="doc.txt")
    result = asyncio.run(perform(order, editor, InProcess(provider), lambda _event: None))

    assert editor.store.snapshot(editor.uri).text == editor.text, "the store lost the editor"
    if agent == text:  # nothing to apply
        assert result.success, result
        assert editor.text == user_text
        assert editor.applies == 0
        return
    # The agent's changes as the server computes them (compute_edits is checked above).
    user = TextChange(start, end, typed)
    agent_changes = compute_edits(text, agent)
    overlapping = any(c.start < end and start < c.end for c in agent_changes)
    apart = all(c.end < start or end < c.start for c in agent_changes)
    if result.success:
        assert result.applied, result
        assert editor.applies == 1
        assert not overlapping, "a success over typing inside the edited text"
        if apart:
            merged = apply_changes(text, sorted([*agent_changes, user], key=lambda c: c.start))
            assert editor.text == merged, "reported success, but the editor has another text"
        assert typed in editor.text, "the user's typing was lost"
    else:
        assert result.reason == "document_changed", result
        assert not apart, "changes apart from each other were refused"
        assert editor.text == user_text, "the user's typing was lost or the edit half-applied"
