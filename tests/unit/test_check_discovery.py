"""Which checkers a document gets (`server/check/discovery.py`) and what `complex-edit doctor`
says about them."""

from __future__ import annotations

import json
from pathlib import Path

from complex_edit.server.check.discovery import auto_checkers, configured, language_id
from complex_edit.server.doctor import examine
from complex_edit.server.settings import Settings


def executable(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_a_document_s_language_comes_from_its_suffix_then_the_editor() -> None:
    assert language_id("/w/a.py") == "python"
    assert language_id("/w/a.tsx", "plaintext") == "typescriptreact"
    assert language_id("/w/Makefile", "make") == "make"
    assert language_id(None, "py") == "python"
    assert language_id(None) is None


def test_auto_takes_the_first_found_of_each_kind_on_path(tmp_path: Path) -> None:
    executable(tmp_path, "gopls")
    executable(tmp_path, "typescript-language-server")
    found = {c.name: c for c in auto_checkers({"PATH": str(tmp_path)})}
    assert found["gopls"].argv == (str(tmp_path / "gopls"),)
    assert found["typescript-language-server"].argv[1:] == ("--stdio",)
    assert "clangd" not in found
    assert not {"basedpyright", "pyright"} <= set(found)  # one of the kind at most


def test_a_configured_checker_not_found_is_missing(tmp_path: Path) -> None:
    spec = [{"name": "mine", "languages": ["python"], "command": ["no-such-checker", "--stdio"]}]
    settings = Settings.from_layers({"COMPLEX_EDIT_CHECKERS": json.dumps(spec)})
    [checker] = configured(settings, {"PATH": str(tmp_path)})
    assert (checker.name, checker.found) == ("mine", False)
    assert configured(Settings.from_layers({"COMPLEX_EDIT_CHECKERS": "off"}), {}) == []


def test_doctor_names_the_checkers_by_language(tmp_path: Path) -> None:
    tool = executable(tmp_path, "my-checker")
    spec = [{"name": "mine", "languages": ["go"], "command": [str(tool)]}]
    texts = [c.text for c in examine({"COMPLEX_EDIT_CHECKERS": json.dumps(spec)}).checks]
    assert "Checkers (setting checkers): go: mine" in texts
    off = [c.text for c in examine({"COMPLEX_EDIT_CHECKERS": "off"}).checks]
    assert "Checkers: off (setting checkers)" in off
