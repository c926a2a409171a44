"""Eval suites: loading, validation, and the program that checks a result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from complex_edit.server.eval.suite import KNOWN_BROKEN, SuiteError, Task, load_suite, parse_suite


def line(**fields: Any) -> str:
    task = {"task_id": "t1", "instruction": "do it", "input": "a = 1\n", "output": "a = 2\n"}
    task["test"] = "def check():\n    assert a == 2\n"
    task.update(fields)
    return json.dumps(task)


def test_the_built_in_suite_is_editeval_with_its_known_broken_task() -> None:
    suite = load_suite("editeval")
    assert suite.name == "editeval"
    assert len(suite.tasks) == 194
    assert len({task.task_id for task in suite.tasks}) == 194
    broken = [task.task_id for task in suite.tasks if task.broken_reference]
    assert broken == ["EditEval/156"] == list(KNOWN_BROKEN["editeval"])
    with_marker = [task for task in suite.tasks if task.context and "{{Code}}" in task.context]
    assert len(with_marker) == 78


def test_the_built_in_data_ships_with_its_licence_and_format() -> None:
    data = Path(__file__).parents[2] / "server" / "eval" / "data"
    assert "Copyright (c) 2023 qshu" in (data / "LICENSE-editeval").read_text()
    assert "broken_reference" in (data / "README.md").read_text()


def test_a_path_is_loaded_and_named_after_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text(line() + "\n\n" + line(task_id="t2", META={"author": "me"}) + "\n")
    suite = load_suite(str(path))
    assert suite.name == "mine"
    assert [task.task_id for task in suite.tasks] == ["t1", "t2"]


def test_without_a_marker_the_program_is_the_code_then_the_test() -> None:
    for context in ("", None):
        task = Task.model_validate_json(line(context=context))
        assert task.program("a = 2") == "a = 2\n\ndef check():\n    assert a == 2\n\n\ncheck()"


def test_a_context_marker_is_replaced_by_the_code_everywhere() -> None:
    context = "import math\n{{Code}}\n\nedited_code = '''\n{{Code}}\n'''\n"
    task = Task.model_validate_json(line(context=context))
    program = task.program("a = 2")
    assert program.startswith("import math\na = 2\n\nedited_code = '''\na = 2\n'''")
    assert program.endswith("assert a == 2\n\n\ncheck()")
    assert "{{Code}}" not in program


def test_a_context_without_the_marker_is_not_used() -> None:
    task = Task.model_validate_json(line(context="import nothing_here"))
    assert "nothing_here" not in task.program("a = 2")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "line 1: not valid JSON"),
        ("[1, 2]", "line 1: expected a JSON object"),
        (line(instruction=""), "line 1: instruction: String should have at least 1 character"),
        (json.dumps({"task_id": "x"}), "line 1: instruction: Field required"),
        (line() + "\n" + line(), "line 2: task_id 't1' was already used on line 1"),
        ("\n\n", "no tasks"),
    ],
)
def test_a_bad_suite_is_refused_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(SuiteError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_suite(text, name="bad", source="bad.jsonl")


def test_an_unknown_suite_names_the_built_in_ones(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="not a built-in suite \\(editeval\\) and not a file"):
        load_suite(str(tmp_path / "missing.jsonl"))
