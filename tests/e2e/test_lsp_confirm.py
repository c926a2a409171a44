"""What the server reads from the editor after an applied edit: the edit lands, and the user's
keystrokes arrive with it.

Neovim debounces didChange (150 ms): the applied edit and the keystrokes typed around it
arrive together, in one didChange with several content changes, or the edit's first range at
once and the rest with the next keystrokes. The server confirms the edit from those changes,
not by comparing the whole document with its result, which any keystroke breaks. An edit the
editor dropped or applied elsewhere is still `client_rejected`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lsprotocol import types

from tests.editor.checks import assert_success
from tests.editor.client import ApplyRecord, to_range, wait_until
from tests.editor.fixtures import SessionFactory
from tests.editor.session import EditorSession
from tests.editor.turns import calls, done, replace
from tests.fakes.gemini_emulator import GeminiEmulator

DOC = "alpha = 1\nbeta = 2\ngamma = 3\ndelta = 4\nomega = 5\n"
EDITED = "alpha = 10\nbeta = 2\ngamma = 3\ndelta = 4\nomega = 50\n"
TWO_RANGES = calls(replace("alpha = 1", "alpha = 10"), replace("omega = 5", "omega = 50"), done())
Changes = list[types.TextDocumentContentChangePartial]


@dataclass
class Pending:
    """Changes the editor made but has not reported yet (its debounce is running)."""

    changes: Changes = field(default_factory=list)


def type_unreported(editor: EditorSession, uri: str, old: str, new: str, pending: Pending) -> None:
    """The user types over the only `old`; the editor holds the didChange back."""
    doc = editor.docs[uri]
    assert doc.text.count(old) == 1
    start = doc.text.index(old)
    end = start + len(old)
    pending.changes.append(
        types.TextDocumentContentChangePartial(
            range=to_range(doc.text, start, end, editor.encoding), text=new
        )
    )
    doc.text = doc.text[:start] + new + doc.text[end:]
    doc.version += 1


def edit_as_changes(editor: EditorSession, record: ApplyRecord, uri: str) -> Changes:
    """The applied edit as an editor reports it: one range after another, from the end."""
    text = record.before[uri]
    changes: Changes = []
    for applied in reversed(record.edits[uri]):
        changes.append(
            types.TextDocumentContentChangePartial(
                range=to_range(text, applied.start, applied.end, editor.encoding),
                text=applied.new_text,
            )
        )
        text = text[: applied.start] + applied.new_text + text[applied.end :]
    return changes


def report(editor: EditorSession, uri: str, changes: Changes) -> None:
    """One didChange carrying `changes`, at the document's current version."""
    editor.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(
                uri=uri, version=editor.docs[uri].version
            ),
            content_changes=list(changes),
        )
    )


async def applied_record(editor: EditorSession) -> ApplyRecord:
    await wait_until(
        lambda: bool(editor.applies) and editor.applies[0].answer != "pending",
        what="the applyEdit",
    )
    (record,) = editor.applies
    assert record.answer == "applied", record
    return record


async def test_the_edit_and_a_keystroke_in_one_did_change(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """The issue's case: the echo carries the edit, then what the user typed right after."""
    editor.behaviour.echo = False
    uri = editor.open(DOC)
    emulator.enqueue(TWO_RANGES)
    _, future = editor.start(uri, "bump alpha and omega")
    record = await applied_record(editor)
    edit = edit_as_changes(editor, record, uri)
    keystroke = Pending()
    type_unreported(editor, uri, "beta = 2", "beta = 2  # typed", keystroke)
    report(editor, uri, [*edit, *keystroke.changes])

    result = await editor.answer(future)
    assert_success(result)
    assert editor.text(uri) == EDITED.replace("beta = 2", "beta = 2  # typed")


async def test_the_edit_split_over_two_did_changes_with_keystrokes(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """Neovim sends a multi-range edit's first range at once and the rest after its debounce,
    with the keystrokes typed meanwhile (one right after the edit, touching it)."""
    editor.behaviour.echo = False
    uri = editor.open(DOC)
    emulator.enqueue(TWO_RANGES)
    _, future = editor.start(uri, "bump alpha and omega")
    record = await applied_record(editor)
    first, *rest = edit_as_changes(editor, record, uri)
    report(editor, uri, [first])
    typing = Pending()
    type_unreported(editor, uri, "alpha = 10", "alpha = 10.5", typing)
    type_unreported(editor, uri, "gamma", "gamma_ray", typing)
    report(editor, uri, [*rest, *typing.changes])

    result = await editor.answer(future)
    assert_success(result)
    assert editor.text(uri) == EDITED.replace("alpha = 10", "alpha = 10.5").replace(
        "gamma", "gamma_ray"
    )


async def test_a_keystroke_before_the_edit_in_the_same_did_change(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    """Typed after the server sent the edit but before Neovim applied it: Neovim applies the
    unversioned edit over it and reports both at once. The keystroke is on a line below the
    edit, so the edit landed where it belongs."""
    editor = await make_editor("neovim")
    editor.behaviour.echo = False
    uri = editor.open(DOC)
    typed_first = Pending()
    editor.behaviour.before_apply = lambda: type_unreported(
        editor, uri, "gamma = 3", "gamma = 33", typed_first
    )
    emulator.enqueue(calls(replace("alpha = 1", "alpha = 10"), done()))
    _, future = editor.start(uri, "bump alpha")
    record = await applied_record(editor)
    report(editor, uri, [*typed_first.changes, *edit_as_changes(editor, record, uri)])

    result = await editor.answer(future)
    assert_success(result)
    assert editor.text(uri) == DOC.replace("alpha = 1", "alpha = 10").replace("= 3", "= 33")


async def test_a_dropped_edit_among_keystrokes_is_client_rejected(
    make_editor: SessionFactory, emulator: GeminiEmulator
) -> None:
    """Neovim answers `applied: true` for an edit it skipped; the keystrokes it reports next
    are not the edit."""
    editor = await make_editor("neovim")
    editor.behaviour.mode = "drop"
    editor.client.set_configuration({"complexEdit": {"applyTimeoutSeconds": 1}})
    uri = editor.open(DOC)
    emulator.enqueue(calls(replace("alpha = 1", "alpha = 10"), done()))
    _, future = editor.start(uri, "bump alpha")
    await wait_until(lambda: bool(editor.applies) and editor.applies[0].answer == "skipped")
    editor.replace(uri, "beta = 2", "beta = 20")

    result = await editor.answer(future)
    assert result["success"] is False, result
    assert result["reason"] == "client_rejected", result
    assert "never reported" not in result["error"], result  # it did report changes
    assert editor.text(uri) == DOC.replace("beta = 2", "beta = 20")


async def test_the_edit_and_a_keystroke_as_one_whole_document_change(
    editor: EditorSession, emulator: GeminiEmulator
) -> None:
    """A client that sends the full text on didChange (it may, even when incremental sync is
    offered): the edit and a keystroke arrive as one new text. (The store logs it as one
    change per block of changed lines: a keystroke on a line next to the edit's would merge
    with it, and the answer would then be `client_rejected`, on the safe side.)"""
    editor.behaviour.echo = False
    uri = editor.open(DOC)
    emulator.enqueue(TWO_RANGES)
    _, future = editor.start(uri, "bump alpha and omega")
    await applied_record(editor)
    doc = editor.docs[uri]
    doc.text = doc.text.replace("gamma", "gamma_ray")
    doc.version += 1
    editor.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=doc.version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=doc.text)],
        )
    )

    result = await editor.answer(future)
    assert_success(result)
    assert editor.text(uri) == EDITED.replace("gamma", "gamma_ray")
