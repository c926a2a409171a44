"""Eval suites: JSONL files of instructed edits, loaded and validated (format: data/README.md).

A `--suite` value is a built-in name (`editeval`) or the path of a JSONL file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

CODE_MARKER = "{{Code}}"
BUILTIN_SUITES = {"editeval": "editeval.jsonl"}
# Tasks of the built-in suites whose reference is known to fail its own test (the JSONL files
# are kept as published upstream; a suite of your own says this with `broken_reference`).
KNOWN_BROKEN: dict[str, dict[str, str]] = {
    "editeval": {
        "EditEval/156": "the reference fails its own timing assertion (it must beat a slow "
        "merge sort by 10%) in most runs",
    }
}


class SuiteError(ValueError):
    """The suite cannot be used; the message names the file and line."""


class Task(BaseModel):
    """One instructed edit and the test that judges its result. Unknown fields are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    task_id: str = Field(min_length=1)
    instruction: str = Field(min_length=1)
    input: str
    output: str
    test: str = Field(min_length=1)
    context: str | None = None
    broken_reference: str | None = None
    language: str = "python"
    """The language of `input` for the syntax check (EditEval's tasks are all Python)."""

    def program(self, code: str) -> str:
        """The Python program that checks `code` as this task's result.

        With `{{Code}}` in `context`, the program is the context with every marker replaced by
        the code; otherwise it is the code itself. The test and a call of `check()` follow.
        """
        body = code
        if self.context and CODE_MARKER in self.context:
            body = self.context.replace(CODE_MARKER, code)
        return (body + "\n\n" + self.test + "\n\ncheck()").strip()


@dataclass(frozen=True)
class Suite:
    name: str
    source: str
    tasks: tuple[Task, ...]


def load_suite(value: str) -> Suite:
    """The built-in suite called `value`, or the JSONL file at path `value`."""
    if value in BUILTIN_SUITES:
        resource = resources.files(__package__).joinpath("data").joinpath(BUILTIN_SUITES[value])
        text = resource.read_text(encoding="utf-8")
        suite = parse_suite(text, name=value, source=f"built-in suite {value!r}")
        known = KNOWN_BROKEN.get(value, {})
        tasks = tuple(
            task.model_copy(update={"broken_reference": known[task.task_id]})
            if task.task_id in known
            else task
            for task in suite.tasks
        )
        return Suite(name=suite.name, source=suite.source, tasks=tasks)
    path = Path(value)
    if not path.is_file():
        names = ", ".join(sorted(BUILTIN_SUITES))
        raise SuiteError(f"No suite {value!r}: not a built-in suite ({names}) and not a file.")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{value}: cannot be read ({exc}).") from None
    return parse_suite(text, name=path.stem, source=str(path))


def parse_suite(text: str, *, name: str, source: str) -> Suite:
    """Tasks from JSONL text: one object per line, blank lines skipped, task ids unique."""
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}, line {number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SuiteError(f"{where}: not valid JSON ({exc.msg}).") from None
        if not isinstance(raw, dict):
            raise SuiteError(f"{where}: expected a JSON object.")
        try:
            task = Task.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or 'task'}: {error['msg']}"
                for error in exc.errors()
            )
            raise SuiteError(f"{where}: {problems}.") from None
        if task.task_id in seen:
            raise SuiteError(
                f"{where}: task_id {task.task_id!r} was already used on line {seen[task.task_id]}."
            )
        seen[task.task_id] = number
        tasks.append(task)
    if not tasks:
        raise SuiteError(f"{source}: no tasks.")
    return Suite(name=name, source=source, tasks=tuple(tasks))
