"""What the calls of one server share, and one call's arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from complex_edit.server.edit.roots import Roots
from complex_edit.server.settings import OtherFiles, Settings, SettingsError

if TYPE_CHECKING:
    from complex_edit.server.check.pool import CheckerPool
    from complex_edit.server.session.result import SessionRunner


@dataclass(frozen=True)
class ToolCall:
    path: str
    prompt: str
    dry_run: bool = False
    start_line: int | None = None
    end_line: int | None = None
    other_files: OtherFiles | None = None  # None: the setting
    check: bool | None = None  # None: the setting checkers; False: off; True: on ("auto" if off)


@dataclass
class Workbench:
    """The server's roots, settings and environment, the session runner (made by the first
    call unless given: the providers' SDKs load then, not when the tool is listed) and the
    files whose edit is running."""

    roots: Roots
    settings: Settings | SettingsError
    env: Mapping[str, str]
    runner: SessionRunner | None = None
    running: set[Path] = field(default_factory=set)
    checks: CheckerPool | None = None
    """The checkers kept warm for the server's life (made with the runner)."""

    def session_runner(self) -> SessionRunner:
        if self.runner is None:
            from complex_edit.server.check.pool import CheckerPool
            from complex_edit.server.providers.select import ProviderHub
            from complex_edit.server.session.result import InProcess

            self.checks = CheckerPool()
            self.runner = InProcess(ProviderHub(self.env), self.checks)
        return self.runner

    async def close(self) -> None:
        """Stop the checkers (the server is ending)."""
        if self.checks is not None:
            await self.checks.close()
