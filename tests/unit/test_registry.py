"""Declarations, dispatch and argument checking: nothing the model sends makes the toolbox
raise, and every mistake names what was wrong."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from complex_edit.edit_tools.registry import (
    TOOL_NAMES,
    Completion,
    Toolbox,
    ToolDeclaration,
    ToolOutcome,
)

TEXT = "alpha\nbeta\ngamma\n"


def error_of(outcome: ToolOutcome) -> str:
    assert not outcome.ok
    message = outcome.response["error"]
    assert isinstance(message, str)
    return message


def walk(node: Any) -> list[Any]:
    found = [node]
    if isinstance(node, dict):
        for value in node.values():
            found += walk(value)
    elif isinstance(node, list):
        for value in node:
            found += walk(value)
    return found


class TestDeclarations:
    def test_six_tools_in_contract_order(self) -> None:
        assert TOOL_NAMES == (
            "get_document",
            "set_document",
            "replace_text",
            "undo",
            "redo",
            "complete_task",
        )
        assert [d.name for d in Toolbox.declarations()] == list(TOOL_NAMES)

    def test_parameter_names_are_the_contract_ones(self) -> None:
        params = {d.name: d.parameters for d in Toolbox.declarations()}
        assert set(params["get_document"]["properties"]) == {"start_line", "end_line"}
        assert set(params["set_document"]["properties"]) == {"content"}
        assert set(params["replace_text"]["properties"]) == {"old_text", "new_text", "replace_all"}
        assert params["undo"]["properties"] == {}
        assert params["redo"]["properties"] == {}
        assert set(params["complete_task"]["properties"]) == {"success", "message", "error"}
        assert params["replace_text"]["required"] == ["old_text", "new_text"]
        assert params["complete_task"]["required"] == ["success"]
        assert "required" not in params["get_document"]

    def test_schemas_are_inline_typed_objects(self) -> None:
        for declaration in Toolbox.declarations():
            schema = declaration.parameters
            assert schema["type"] == "object"
            assert schema["additionalProperties"] is False
            nodes = walk(schema)
            for node in nodes:
                if isinstance(node, dict):
                    assert not {"$ref", "$defs", "title", "anyOf"} & set(node)
            for prop in schema["properties"].values():
                assert prop["type"] in {"integer", "string", "boolean"}
                assert prop["description"]
            json.dumps(schema)

    def test_line_numbers_are_integers_from_one(self) -> None:
        (get_document,) = [d for d in Toolbox.declarations() if d.name == "get_document"]
        assert get_document.parameters["properties"]["start_line"]["type"] == "integer"
        assert get_document.parameters["properties"]["start_line"]["minimum"] == 1

    def test_descriptions_are_single_paragraphs(self) -> None:
        for declaration in Toolbox.declarations():
            assert isinstance(declaration, ToolDeclaration)
            assert len(declaration.description) > 40
            assert "\n" not in declaration.description

    def test_other_files_off_declares_exactly_the_six_tools(self) -> None:
        assert Toolbox.declarations("off") == Toolbox.declarations()

    def test_reading_other_files_adds_path_to_get_document_and_find_in_files(self) -> None:
        declared = {d.name: d for d in Toolbox.declarations("read")}
        assert list(declared) == [
            "get_document",
            "find_in_files",
            *TOOL_NAMES[1:],
        ]
        with_path = {name for name, d in declared.items() if "path" in d.parameters["properties"]}
        assert with_path == {"get_document"}
        find = declared["find_in_files"]
        assert set(find.parameters["properties"]) == {"pattern", "glob", "regex"}
        assert find.parameters["required"] == ["pattern"]
        for refused in (".gitignore", "readExclude", "binary", "maxDocumentBytes", ".git/"):
            assert refused in find.description
            assert (
                refused in declared["get_document"].parameters["properties"]["path"]["description"]
            )

    def test_editing_other_files_adds_path_to_every_tool_acting_on_a_document(self) -> None:
        declared = {d.name: d for d in Toolbox.declarations("edit")}
        with_path = {name for name, d in declared.items() if "path" in d.parameters["properties"]}
        assert with_path == {"get_document", "set_document", "replace_text", "undo", "redo"}
        assert "joins the edit" in declared["replace_text"].description
        for declaration in declared.values():
            assert "\n" not in declaration.description
            assert declaration.parameters["additionalProperties"] is False

    def test_the_progress_line_names_the_other_file(self) -> None:
        line = Toolbox.summarize_call(
            "replace_text", {"old_text": "a", "new_text": "b", "path": "src/x.py"}
        )
        assert line == "replace_text 'a' → 'b' in src/x.py"
        assert Toolbox.summarize_call("find_in_files", {"pattern": "foo"}) == "find_in_files 'foo'"

    def test_models_are_frozen(self) -> None:
        declaration = Toolbox.declarations()[0]
        with pytest.raises(ValueError, match="frozen"):
            declaration.name = "other"  # type: ignore[misc]
        with pytest.raises(ValueError, match="frozen"):
            Completion(success=True).success = False  # type: ignore[misc]


class TestDispatch:
    def test_unknown_tool_lists_the_real_ones(self) -> None:
        toolbox = Toolbox(TEXT)
        outcome = toolbox.execute("write_file", {"path": "/etc/passwd"})
        message = error_of(outcome)
        assert outcome.name == "write_file"
        assert "'write_file'" in message
        for name in TOOL_NAMES:
            assert name in message
        assert outcome.summary == "error: unknown tool"
        assert toolbox.text == TEXT

    def test_unknown_tool_suggests_a_close_name(self) -> None:
        message = error_of(Toolbox(TEXT).execute("replaceText", {}))
        assert "Did you mean replace_text?" in message

    def test_a_huge_unknown_name_is_cut_short(self) -> None:
        message = error_of(Toolbox(TEXT).execute("x" * 10_000, {}))
        assert len(message) < 400

    def test_arguments_none_means_no_arguments(self) -> None:
        outcome = Toolbox(TEXT).execute("get_document", None)
        assert outcome.ok
        assert outcome.response["result"].startswith("[lines 1-3 of 3]")

    def test_arguments_that_are_not_an_object(self) -> None:
        message = error_of(Toolbox(TEXT).execute("get_document", ["a"]))  # type: ignore[arg-type]
        assert "must be an object" in message
        assert "an array" in message

    def test_text_and_changed(self) -> None:
        toolbox = Toolbox(TEXT)
        assert toolbox.text == TEXT
        assert not toolbox.changed
        assert toolbox.execute("replace_text", {"old_text": "beta", "new_text": "BETA"}).ok
        assert toolbox.text == "alpha\nBETA\ngamma\n"
        assert toolbox.changed

    def test_toolboxes_do_not_share_history(self) -> None:
        first, second = Toolbox(TEXT), Toolbox(TEXT)
        assert first.execute("replace_text", {"old_text": "beta", "new_text": "B"}).ok
        assert not second.execute("undo", {}).ok
        assert second.text == TEXT


class TestArguments:
    def test_missing_parameter_is_named_with_its_type(self) -> None:
        message = error_of(Toolbox(TEXT).execute("replace_text", {"old_text": "beta"}))
        assert "`new_text`" in message
        assert "missing" in message
        assert "a string" in message

    def test_extra_parameter_is_named_and_the_real_ones_listed(self) -> None:
        toolbox = Toolbox(TEXT)
        message = error_of(
            toolbox.execute("replace_text", {"old_text": "beta", "new_text": "b", "path": "x"})
        )
        assert "`path` is not a parameter" in message
        assert "old_text, new_text, replace_all" in message
        assert toolbox.text == TEXT

    def test_parameters_on_a_tool_without_any(self) -> None:
        message = error_of(Toolbox(TEXT).execute("undo", {"steps": 2}))
        assert "`steps`" in message
        assert "undo takes no parameters" in message

    @pytest.mark.parametrize(
        ("value", "described"),
        [
            ("2", "the string '2'"),
            (2.5, "the number 2.5"),
            (True, "true"),
            (0, "the number 0"),
            (-1, "the number -1"),
            (math.nan, "the number nan"),
            ([2], "an array"),
        ],
    )
    def test_bad_line_numbers_are_rejected(self, value: Any, described: str) -> None:
        message = error_of(Toolbox(TEXT).execute("get_document", {"start_line": value}))
        assert "`start_line` must be a whole number, 1 or more" in message
        assert described in message

    def test_integral_floats_are_accepted(self) -> None:
        outcome = Toolbox(TEXT).execute("get_document", {"start_line": 2.0, "end_line": 3.0})
        assert outcome.ok
        assert outcome.response["result"] == "[lines 2-3 of 3]\n     2\tbeta\n     3\tgamma"

    def test_null_optional_parameters_count_as_absent(self) -> None:
        toolbox = Toolbox(TEXT)
        assert toolbox.execute("get_document", {"start_line": None, "end_line": None}).ok
        assert toolbox.execute(
            "replace_text", {"old_text": "beta", "new_text": "b", "replace_all": None}
        ).ok

    def test_null_required_parameter_is_rejected(self) -> None:
        message = error_of(Toolbox(TEXT).execute("set_document", {"content": None}))
        assert "`content` must be a string, got null" in message

    @pytest.mark.parametrize("value", ["true", 1, 1.0])
    def test_booleans_are_strict(self, value: Any) -> None:
        message = error_of(
            Toolbox(TEXT).execute(
                "replace_text", {"old_text": "beta", "new_text": "b", "replace_all": value}
            )
        )
        assert "`replace_all` must be true or false" in message

    def test_strings_are_strict(self) -> None:
        message = error_of(Toolbox(TEXT).execute("replace_text", {"old_text": 5, "new_text": "b"}))
        assert "`old_text` must be a string, got the number 5" in message

    def test_oversized_arguments_are_refused_with_the_limit(self) -> None:
        toolbox = Toolbox(TEXT, max_argument_bytes=1_000)
        outcome = toolbox.execute("set_document", {"content": "é" * 600})
        message = error_of(outcome)
        assert "1,200 bytes" in message
        assert "1,000 bytes" in message
        assert outcome.summary == "set_document: error: arguments too large"
        assert toolbox.text == TEXT

    def test_arguments_at_the_limit_are_accepted(self) -> None:
        toolbox = Toolbox(TEXT, max_argument_bytes=1_000)
        assert toolbox.execute("set_document", {"content": "x" * 1_000}).ok

    def test_lone_surrogate_in_set_document(self) -> None:
        toolbox = Toolbox(TEXT)
        message = error_of(toolbox.execute("set_document", {"content": "ok\udc00"}))
        assert "`content`" in message
        assert "character 2" in message
        assert toolbox.text == TEXT

    def test_surrogates_in_the_document_itself_do_not_crash(self) -> None:
        toolbox = Toolbox("bad \ud800 text\n")
        assert toolbox.execute("get_document", {}).ok
        assert toolbox.execute("replace_text", {"old_text": "text", "new_text": "t"}).ok
        assert toolbox.text == "bad \ud800 t\n"

    @pytest.mark.parametrize(
        "args",
        [
            {"start_line": {"nested": [1, {"deep": None}]}},
            {"": ""},
            {"start_line": 10**100},
            {"start_line": -(10**100)},
            {"start_line": math.inf},
            {1: 2},
        ],
    )
    def test_odd_arguments_never_raise(self, args: dict[Any, Any]) -> None:
        toolbox = Toolbox(TEXT)
        outcome = toolbox.execute("get_document", args)
        assert not outcome.ok
        assert outcome.response["error"]
        assert toolbox.text == TEXT


class TestSummaries:
    @pytest.mark.parametrize(
        ("name", "args", "summary"),
        [
            ("get_document", {}, "get_document"),
            ("get_document", {"start_line": 3.0, "end_line": 9}, "get_document lines 3-9"),
            ("get_document", {"start_line": 3}, "get_document lines 3-end"),
            ("set_document", {"content": "x" * 1234}, "set_document (1,234 chars)"),
            (
                "replace_text",
                {"old_text": "def foo(", "new_text": "def bar("},
                "replace_text 'def foo(' → 'def bar('",
            ),
            (
                "replace_text",
                {"old_text": "a\nb", "new_text": "c", "replace_all": True},
                "replace_text 'a⏎b' → 'c' (all)",
            ),
            ("replace_text", {"old_text": 3}, "replace_text"),
            ("undo", {}, "undo"),
            ("redo", None, "redo"),
            ("complete_task", {"success": True}, "complete_task success=true"),
            ("complete_task", {"success": "yes"}, "complete_task"),
            ("frobnicate", {"x": 1}, "frobnicate"),
        ],
    )
    def test_call_summaries(self, name: str, args: dict[str, Any] | None, summary: str) -> None:
        assert Toolbox.summarize_call(name, args) == summary

    def test_call_summaries_cut_document_text_short(self) -> None:
        summary = Toolbox.summarize_call(
            "replace_text", {"old_text": "a" * 5_000, "new_text": "b" * 5_000}
        )
        assert len(summary) < 80
        assert "…" in summary

    def test_outcome_summaries_hold_no_document_text(self) -> None:
        secret = "TOPSECRET" * 20
        toolbox = Toolbox(f"{secret}\n{secret}\n")
        calls: list[tuple[str, dict[str, Any]]] = [
            ("get_document", {}),
            ("replace_text", {"old_text": secret, "new_text": "x"}),
            ("replace_text", {"old_text": secret + "!", "new_text": "x"}),
            ("replace_text", {"old_text": secret, "new_text": "x", "replace_all": True}),
            ("undo", {}),
            ("set_document", {"content": secret}),
            ("complete_task", {"success": True, "message": secret}),
        ]
        for name, args in calls:
            outcome = toolbox.execute(name, args)
            assert "TOPSECRET" not in outcome.summary
            assert len(outcome.summary) <= 80
