"""What a subcommand module of this folder provides (`commands.py` lists them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import TypeAlias

    Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class Subcommand(Protocol):
    """One subcommand: a module with these two functions."""

    def add(self, commands: Subparsers) -> argparse.ArgumentParser:
        """Add the subcommand's parser to `commands` and return it. Standard library only:
        every subcommand's parser is built on every run."""
        ...

    def load(self, args: argparse.Namespace) -> Callable[[], int]:
        """Import what the subcommand runs (Ctrl-C is deferred meanwhile) and return the run,
        which gives the exit status."""
        ...
