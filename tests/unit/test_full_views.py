"""Keeping full copies of the document out of the context: the toolbox answers a full view of a
text the model already has with a note, and a conversation keeps only its latest full view."""

from __future__ import annotations

from complex_edit.edit_tools.registry import Toolbox, ToolOutcome
from complex_edit.server.providers.base import STALE_VIEW, FullViews, ToolCall, ToolReply

TEXT = "alpha\nbeta\ngamma\n"


def shown(outcome: ToolOutcome) -> str:
    assert outcome.ok, outcome
    text = outcome.response["result"]
    assert isinstance(text, str)
    return text


def is_note(outcome: ToolOutcome, where: str) -> bool:
    text = shown(outcome)
    return "has not changed since" in text and where in text and "beta" not in text


class TestRepeatedViews:
    def test_a_full_view_of_the_first_message_copy_is_a_note(self) -> None:
        toolbox = Toolbox(TEXT, elide_repeated_views=True)
        outcome = toolbox.execute("get_document", {})
        assert is_note(outcome, "the copy in the first message")
        assert shown(outcome).startswith("[lines 1-3 of 3]")
        assert not outcome.full_view
        assert is_note(toolbox.execute("get_document", {"start_line": 1, "end_line": 3}), "first")

    def test_a_ranged_view_is_always_shown(self) -> None:
        toolbox = Toolbox(TEXT, elide_repeated_views=True)
        outcome = toolbox.execute("get_document", {"start_line": 2, "end_line": 3})
        assert "beta" in shown(outcome)
        assert not outcome.full_view

    def test_a_changed_document_is_shown_once_then_noted(self) -> None:
        toolbox = Toolbox(TEXT, elide_repeated_views=True)
        toolbox.execute("replace_text", {"old_text": "beta", "new_text": "BETA"})
        fresh = toolbox.execute("get_document", {})
        assert "BETA" in shown(fresh)
        assert fresh.full_view
        again = toolbox.execute("get_document", {})
        assert is_note(again, "your last full get_document")
        assert not again.full_view

    def test_the_content_of_set_document_counts_as_a_copy(self) -> None:
        toolbox = Toolbox(TEXT, elide_repeated_views=True)
        assert toolbox.execute("set_document", {"content": "one\ntwo\n"}).ok
        assert is_note(toolbox.execute("get_document", {}), "the content of your set_document")

    def test_set_document_with_adopted_line_breaks_counts_as_a_copy(self) -> None:
        toolbox = Toolbox("a\r\nb\r\n", elide_repeated_views=True)
        assert toolbox.execute("set_document", {"content": "x\ny\n"}).ok
        assert toolbox.text == "x\r\ny\r\n"
        assert is_note(toolbox.execute("get_document", {}), "set_document")

    def test_a_failed_set_document_is_no_copy(self) -> None:
        toolbox = Toolbox(TEXT, max_text_chars=len(TEXT), elide_repeated_views=True)
        toolbox.execute("replace_text", {"old_text": "beta", "new_text": "b"})
        assert not toolbox.execute("set_document", {"content": "x" * 100}).ok
        assert "gamma" in shown(toolbox.execute("get_document", {}))

    def test_an_undo_to_an_older_text_is_shown(self) -> None:
        toolbox = Toolbox(TEXT, elide_repeated_views=True)
        toolbox.execute("replace_text", {"old_text": "beta", "new_text": "BETA"})
        assert toolbox.execute("get_document", {}).full_view
        toolbox.execute("replace_text", {"old_text": "gamma", "new_text": "GAMMA"})
        toolbox.execute("undo", {})
        assert is_note(toolbox.execute("get_document", {}), "your last full get_document")
        toolbox.execute("undo", {})
        back = toolbox.execute("get_document", {})
        assert back.full_view
        assert "beta" in shown(back)

    def test_an_empty_document_is_shown(self) -> None:
        outcome = Toolbox("", elide_repeated_views=True).execute("get_document", {})
        assert shown(outcome) == "[empty document: 0 lines]"

    def test_without_the_option_every_full_view_is_shown(self) -> None:
        toolbox = Toolbox(TEXT)
        for _ in range(2):
            outcome = toolbox.execute("get_document", {})
            assert "beta" in shown(outcome)
            assert outcome.full_view


def result(call_id: str, *, full_view: bool) -> ToolReply:
    call = ToolCall(name="get_document", args={}, id=call_id)
    return ToolReply(call=call, ok=True, response={"result": "view"}, full_view=full_view)


class TestFullViews:
    def test_nothing_is_replaced_until_a_second_full_view(self) -> None:
        views: FullViews[int] = FullViews()
        assert views.outdated([(0, result("a", full_view=False))]) == []
        assert views.outdated([(1, result("b", full_view=True))]) == []
        assert views.outdated([(2, result("c", full_view=False))]) == []
        ((slot, stub),) = views.outdated([(3, result("d", full_view=True))])
        assert slot == 1
        assert (stub.call.id, stub.call.name, stub.ok) == ("b", "get_document", True)
        assert stub.response == {"result": STALE_VIEW}
        assert not stub.full_view

    def test_only_the_last_view_of_a_turn_is_kept(self) -> None:
        views: FullViews[tuple[int, int]] = FullViews()
        views.outdated([((0, 0), result("a", full_view=True))])
        placed = [
            ((1, 0), result("b", full_view=True)),
            ((1, 1), result("c", full_view=False)),
            ((1, 2), result("d", full_view=True)),
        ]
        assert [slot for slot, _ in views.outdated(placed)] == [(0, 0), (1, 0)]
        ((slot, _),) = views.outdated([((2, 0), result("e", full_view=True))])
        assert slot == (1, 2)
