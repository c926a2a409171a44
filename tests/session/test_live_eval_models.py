"""Today's models on a few eval tasks against the real Gemini API (issue 20 item 5): runs only
when GEMINI_API_KEY is set (docs/eval.md, "Choosing a model"), and skips cleanly otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not os.environ.get("GEMINI_API_KEY"), reason="needs GEMINI_API_KEY (real Gemini API)"
    ),
]

RUNS = [("gemini-3.8-flash", None), ("gemini-3.7-flash", "low"), ("gemini-3.5-flash-lite", None)]


def test_today_s_models_run_and_compare(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPLEX_EDIT_")}
    paths = []
    for model, level in RUNS:
        out = tmp_path / f"{model}-{level or 'default'}.jsonl"
        command = [sys.executable, "-m", "complex_edit", "eval", "--limit", "3", "--quiet"]
        command += ["--model", model, "--out", str(out)]
        command += ["--thinking-level", level] if level else []
        run = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        assert run.returncode == 0, run.stderr
        assert f"model {model} · thinking {level or 'default'} · 3 tasks" in run.stdout
        paths.append(str(out))
    compared = subprocess.run(
        [sys.executable, "-m", "complex_edit", "eval", "--compare", *paths],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert compared.returncode == 0, compared.stderr
    for model, _ in RUNS:
        assert model in compared.stdout
