"""Path confinement for the MCP server: a path is editable only inside an allowed root; and
the CLI's workspace root (`workspace_root`).

Both the roots and the requested path are resolved with every symlink followed
(`os.path.realpath`) before they are compared, and the comparison is by path components
(`Path.is_relative_to`), never by string prefix: `/work/app-old` is not inside `/work/app`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

NO_PROJECT = (
    "the file is in no git repository (or in one at the home directory), so the sub-agent "
    "works on it alone; give --root DIR to let it read a project's other files."
)


class PathRefused(ValueError):
    """The path is outside every allowed root (or malformed); the message says which roots."""


@dataclass(frozen=True)
class Roots:
    """Resolved, existing directories. Relative paths are taken from the first one."""

    paths: tuple[Path, ...]

    @classmethod
    def from_dirs(cls, dirs: Sequence[str | os.PathLike[str]], cwd: Path | None = None) -> Roots:
        """Resolve the given directories (relative ones from `cwd`); default: `cwd` itself.

        Raises PathRefused for a root that does not exist or is not a directory.
        """
        base = cwd if cwd is not None else Path.cwd()
        resolved: list[Path] = []
        for raw in dirs or [base]:
            path = Path(os.path.realpath(base / Path(raw)))
            if not path.is_dir():
                raise PathRefused(f"The root {raw} is not an existing directory.")
            if path not in resolved:
                resolved.append(path)
        return cls(tuple(resolved))

    def resolve(self, raw: str) -> Path:
        """The real path `raw` names, if it lies inside a root; raises PathRefused otherwise.

        The target need not exist yet (its existence is checked when it is read), but every
        existing symlink on the way is followed before the check.
        """
        if not raw or "\x00" in raw:
            raise PathRefused("The path is empty or contains a NUL character.")
        given = Path(raw)
        candidate = given if given.is_absolute() else self.paths[0] / given
        real = Path(os.path.realpath(candidate))
        if any(real.is_relative_to(root) for root in self.paths):
            return real
        raise PathRefused(
            f"{raw} is outside the directories this server may edit ({self.describe()}); "
            "symlinks are followed before the check."
        )

    def root_of(self, path: Path) -> Path:
        """The first root holding `path` (a path `resolve` gave)."""
        return next((root for root in self.paths if path.is_relative_to(root)), self.paths[0])

    def label(self, path: Path) -> str:
        """`path` relative to the root that holds it (for diffs and messages)."""
        for root in self.paths:
            if path.is_relative_to(root):
                return path.relative_to(root).as_posix() or path.name
        return str(path)

    def describe(self) -> str:
        return ", ".join(str(root) for root in self.paths)


def not_a_project(folder: Path, setting: str) -> str | None:
    """Why `folder` (resolved) can never be a workspace: the home directory itself or `/`
    (every credential of the user lies below them); None when it can be. `setting` names what
    to use instead, for the message."""
    home = Path(os.path.realpath(os.path.expanduser("~")))
    if folder == home or folder == Path(folder.anchor):
        which = "the home directory" if folder == home else "the file system's root"
        return (
            f"{folder} is {which}, which is never a workspace (other files would include every "
            f"credential below it); {setting} a project folder instead."
        )
    return None


def workspace_root(path: Path, given: str | None, cwd: Path | None = None) -> Path | None:
    """The CLI's workspace for the file at `path` (resolved): `given` (`--root`, relative
    ones from `cwd`), else the file's git top level (the nearest folder above it holding
    `.git`); None (the document alone) when there is neither, or the top level is the home
    directory. Raises PathRefused when `given` is not a folder, does not hold `path`, or is
    the home directory or `/`."""
    if given is None:
        folder = path.parent
        top = next(
            (above for above in (folder, *folder.parents) if (above / ".git").exists()), None
        )
        return top if top is not None and not_a_project(top, "") is None else None
    root = Roots.from_dirs([given], cwd).paths[0]
    refused = not_a_project(root, "give --root")
    if refused is not None:
        raise PathRefused(refused)
    if not path.is_relative_to(root):
        raise PathRefused(
            f"{path} is outside --root {given} ({root}); the workspace must hold the file."
        )
    return root


def file_path(uri: str) -> str:
    """The path of a file URI (an answer's `documents` entry); anything else as it is."""
    return unquote(urlparse(uri).path) if uri.startswith("file:") else uri
