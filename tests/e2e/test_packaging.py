"""One import name: the wheel installs `complex_edit` and nothing else at the top level, every
folder of modules is packaged, and no folder is importable by its bare name once installed."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = {"complex_edit.server": "server", "complex_edit.edit_tools": "edit_tools"}


def _pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def test_every_folder_of_modules_is_listed() -> None:
    setuptools = _pyproject()["tool"]["setuptools"]  # type: ignore[index]
    listed = set(setuptools["packages"])
    found = {"complex_edit", "complex_edit.prompts"}
    for package, folder in PACKAGE_DIRS.items():
        for path in (ROOT / folder).rglob("*.py"):
            relative = path.parent.relative_to(ROOT / folder)
            if "__pycache__" not in relative.parts:
                found.add(".".join([package, *relative.parts]))
    assert found <= listed


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (path,) = out.glob("complex_edit-*.whl")
    return path


def test_the_wheel_has_one_top_level_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        top_level = archive.read(
            next(name for name in names if name.endswith(".dist-info/top_level.txt"))
        )
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"complex_edit"}
    assert top_level.decode().split() == ["complex_edit"]
    assert "complex_edit/__main__.py" in names
    assert "complex_edit/prompts/system.md" in names
    assert "complex_edit/server/eval/data/editeval.jsonl" in names
    assert "complex_edit/server/demo/sample/inventory.py" in names
    assert "complex_edit/server/demo/sample/recording.json" in names


def test_try_runs_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    """`complex-edit try` needs its sample and recording as package data: installed from the
    wheel (not the checkout), it still edits the sample."""
    site = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet"]
    subprocess.run(
        [*install, "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("COMPLEX_EDIT_", "GEMINI_", "GOOGLE_"))
    }
    env.update(PYTHONPATH=str(site), TMPDIR=str(tmp_path))
    where = subprocess.run(
        [sys.executable, "-c", "import complex_edit.server.demo as d; print(d.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert where.stdout.startswith(str(site))
    for extra in ([], ["--other-files"]):  # the second sample ships too (issue 38)
        result = subprocess.run(
            [sys.executable, "-m", "complex_edit", "try", "--keep", *extra],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert "replayed" in result.stdout
    (edited,) = tmp_path.glob("complex-edit-try-*/inventory.py")
    assert "def reorder_list(self, threshold: int = 5)" in edited.read_text(encoding="utf-8")
    (across,) = tmp_path.glob("complex-edit-try-*/report.py")
    assert "order_total" in across.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["server", "edit_tools", "prompts"])
def test_bare_folder_names_are_not_importable(tmp_path: Path, name: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", f"import {name}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert f"No module named '{name}'" in result.stderr


def test_python_dash_m_complex_edit_is_the_console_script(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "complex_edit", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("complex-edit ")
