"""Reads the prompt texts shipped in this package."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    """The text of `prompts/<name>.md`."""
    return resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8")
