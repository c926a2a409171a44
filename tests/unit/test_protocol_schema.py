"""docs/protocol.md's schema blocks and docs/protocol.schema.json are generated from the
server's own models (`python -m complex_edit.server.schema`): they fail here when they drift."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from complex_edit.server.lsp.arguments import PerformArgs
from complex_edit.server.outcome import REASON_REMEDIES, REASON_TEXTS, EditResult
from complex_edit.server.schema import (
    MARKDOWN_FILE,
    PACKAGE_FILE,
    SCHEMA_FILE,
    expected_files,
    main,
    protocol_schema,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("path", [SCHEMA_FILE, MARKDOWN_FILE, PACKAGE_FILE], ids=str)
def test_the_generated_files_are_what_the_models_give(path: Path) -> None:
    expected = expected_files(ROOT)[path]
    assert (ROOT / path).read_text(encoding="utf-8") == expected, (
        f"{path} differs from the models: run python -m complex_edit.server.schema"
    )


def test_every_definition_has_its_block_on_the_page() -> None:
    page = (ROOT / MARKDOWN_FILE).read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- schema ([\w-]+) -->", page)
    assert len(blocks) == len(set(blocks))
    assert set(blocks) == {*protocol_schema()["$defs"], "tools"}


def test_check_reports_drift_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "docs").mkdir()
    page = (ROOT / MARKDOWN_FILE).read_text(encoding="utf-8")
    stale = page.replace('"title": "EditResult"', '"title": "OldResult"')
    (tmp_path / MARKDOWN_FILE).write_text(stale, encoding="utf-8")
    assert main(["--check", "--root", str(tmp_path)]) == 1
    assert (tmp_path / MARKDOWN_FILE).read_text(encoding="utf-8") == stale
    assert not (tmp_path / SCHEMA_FILE).exists()
    assert "docs/protocol.md: differs from the models" in capsys.readouterr().err
    assert main(["--root", str(tmp_path)]) == 0
    assert main(["--check", "--root", str(tmp_path)]) == 0


def test_the_reasons_carry_their_texts() -> None:
    reason = protocol_schema()["$defs"]["Reason"]
    texts = {entry["const"]: entry["description"] for entry in reason["oneOf"]}
    assert texts == dict(REASON_TEXTS)
    remedies = {
        entry["const"]: entry["x-remedy"] for entry in reason["oneOf"] if "x-remedy" in entry
    }
    assert remedies == dict(REASON_REMEDIES)


def test_an_answer_the_server_sends_leaves_absent_fields_out() -> None:
    """The schema of what is sent has no `null` for optional fields: `to_wire` drops them."""
    wire = EditResult.failure("busy", "another edit runs").to_wire()
    result = protocol_schema()["$defs"]["EditResult"]
    assert "null" not in str(result["properties"])
    assert set(wire) <= set(result["properties"])
    assert set(result["required"]) <= set(wire)


def test_the_arguments_schema_is_the_one_the_server_validates_with() -> None:
    schema = protocol_schema()["$defs"]["PerformArgs"]
    assert set(schema["properties"]) == {field.alias for field in PerformArgs.model_fields.values()}
