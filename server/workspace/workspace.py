"""The workspace as the model sees it: which paths it may name, the text of a file it may
read (the editor's buffer when the file is open there, else the file on disk), find_in_files
and the masking of secrets in what it reads. The only code that touches the file system for
the model's reads. The rules a path must pass before any byte of it is read: see README.md;
every refusal is a `Refused` naming the rule, never the content.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pathspec import GitIgnoreSpec

from complex_edit.server.workspace.finder import Query, Scope, find_with_ripgrep
from complex_edit.server.workspace.kept import Kept
from complex_edit.server.workspace.reading import (
    Contents,
    binary,
    decoded,
    glob_spec,
    pattern_matcher,
    read_regular,
    relative,
    too_large,
)
from complex_edit.server.workspace.ripgrep import RipgrepFailed
from complex_edit.server.workspace.rules import (
    IgnoreRules,
    Refused,
    excluded_spec,
    in_git_folder,
)
from complex_edit.server.workspace.search import (
    MAX_HITS,
    Matcher,
    Shown,
    Stop,
    answer,
    masked_line,
)
from complex_edit.server.workspace.secrets import (
    Masked,
    Masker,
    Spot,
    holds_private_key,
    shared_masker,
)
from complex_edit.server.workspace.tree import Listed

NO_WORKSPACE = (
    "No workspace folder is open, so other files cannot be read or searched: only a project is "
    "a workspace (a folder the editor announced, the CLI's --root or the file's git repository, "
    "MCP's roots; never the home directory or /). Work on this document alone."
)


@dataclass(frozen=True)
class Located:
    """A path the model named that passed the rules: `label` as the model names it, `path`
    the real file (links resolved)."""

    label: str
    path: str


@dataclass(frozen=True)
class Opened:
    """A file read for the model: from the editor's buffer (`version` its version) or from
    disk (`version` None)."""

    label: str
    path: str
    text: str
    version: int | None
    from_editor: bool


@dataclass(frozen=True)
class _Root:
    name: str
    path: str
    ignore: IgnoreRules


class Workspace:
    """One command's view of the workspace. `roots`: (name, folder) pairs; `open_documents`:
    the editor's buffers (text, version) by absolute path; `exclude`: the `readExclude`
    patterns; `max_bytes`: `maxDocumentBytes`. File lists, ignore rules and contents read for
    find_in_files are kept between calls and checked against modification times. `ripgrep`:
    the `rg` find_in_files runs (None: Python); `search_seconds`: searchTimeoutSeconds;
    `kept`: where the rules and listing are kept between commands (`close` gives them back)."""

    def __init__(
        self,
        roots: Sequence[tuple[str, str]],
        open_documents: Mapping[str, tuple[str, int | None]],
        exclude: Sequence[str],
        max_bytes: int,
        *,
        ripgrep: str | None = None,
        search_seconds: float = 10.0,
        kept: Kept | None = None,
    ) -> None:
        reals = tuple(
            (name, real)
            for name, folder in roots
            if os.path.isdir(real := os.path.realpath(folder))
        )
        self._exclude = excluded_spec(exclude)
        self._kept, self._key = kept or Kept(), (reals, tuple(exclude))
        self._held = self._kept.take(self._key, self._exclude, self._target_allowed)
        self._roots = tuple(
            _Root(name, real, rules)
            for (name, real), rules in zip(reals, self._held.ignores, strict=True)
        )
        self._trees = self._held.trees
        self._open = {os.path.realpath(path): document for path, document in open_documents.items()}
        self._exclude_lines = tuple(exclude)
        self._ripgrep = ripgrep
        self._search_seconds = search_seconds
        self._max_bytes = max_bytes
        self._contents = Contents(max_bytes)
        self._masker: Masker | None = None  # made when the first text is masked
        self._markers: set[str] = set()  # every marker the model was shown
        self._masks: dict[str, tuple[str, Masked]] = {}  # by label: the text last masked
        self.shown = Shown()  # the values masked in what the model was shown

    def mask(self, text: str, label: str) -> Masked:
        """`text` (of the file `label`) as the model may see it: secret values masked."""
        kept = self._masks.get(label)
        if kept is not None and kept[0] == text:
            return kept[1]
        masked = self._masking().mask(text, label)
        self._masks[label] = (text, masked)
        self._markers.update(marker for _, marker in masked.values)
        return masked

    def mask_line(self, text: str, label: str, number: int, line: str) -> tuple[str, list[Spot]]:
        """Line `number` (`line`) of `text` as the model may see it, and the values masked in
        it. The line alone is masked, unless the file holds a private key block (whose body
        lines say nothing by themselves): then the whole file is."""
        if holds_private_key(text):
            masked = self.mask(text, label)
            spots = [spot for spot in masked.spots if spot.line == number]
            if not spots:
                return line, []
            return masked.text.split("\n")[number - 1].rstrip("\r"), spots
        alone = self._masking().mask(line, label)
        self._markers.update(marker for _, marker in alone.values)
        return alone.text, [Spot(number, spot.kind, spot.chars) for spot in alone.spots]

    def close(self) -> None:
        """The command is over: its rules and listing go back to `kept`."""
        self._kept.give_back(self._key, self._held)

    def _masking(self) -> Masker:
        self._masker = self._masker or shared_masker()
        return self._masker

    def shown_marker(self, text: str) -> bool:
        """`text` holds a marker the model was shown in place of a secret value."""
        return any(marker in text for marker in self._markers)

    @property
    def has_roots(self) -> bool:
        return bool(self._roots)

    def label_of(self, path: str) -> str | None:
        """How the model names the file at `path`, when it lies in a root."""
        real = os.path.realpath(path)
        for root in self._roots:
            rel = relative(real, root.path)
            if rel is not None:
                return self._label(root, rel)
        return None

    def locate(self, path: str) -> Located:
        """The file the model's `path` names, when every rule allows it; raises Refused."""
        if not self._roots:
            raise Refused(NO_WORKSPACE)
        root, rel = self._split(path)
        label = self._label(root, rel)
        self._check(root, rel, label)
        real = os.path.realpath(os.path.join(root.path, rel))
        for owner in self._roots:
            real_rel = relative(real, owner.path)
            if real_rel is not None:
                if real_rel and (owner is not root or real_rel != rel):
                    self._check(owner, real_rel, f"{label} (a link to {real_rel})")
                return Located(label, real)
        raise Refused(
            f"{label} goes through a link that leaves the workspace; only files inside the "
            "workspace folders can be read."
        )

    def read(self, path: str) -> Opened:
        """The text of the file `path` names (see `locate`); raises Refused."""
        located = self.locate(path)
        label = located.label
        document = self._open.get(located.path)
        if document is not None:
            text, version = document
            if len(text.encode("utf-8", "surrogatepass")) > self._max_bytes:
                raise too_large(label, self._max_bytes)
            if "\x00" in text:
                raise binary(label)
            return Opened(label, located.path, text, version, True)
        try:
            info = os.stat(located.path)
        except OSError:
            raise Refused(
                f"{label} does not exist. find_in_files finds files by what they hold."
            ) from None
        if stat.S_ISDIR(info.st_mode):
            raise Refused(f"{label} is a folder; name a file inside it.")
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{label} is not a regular file; it is not read.")
        if info.st_size > self._max_bytes:
            raise too_large(label, self._max_bytes)
        try:
            read = read_regular(located.path, self._max_bytes)
        except OSError as exc:
            raise Refused(f"{label} cannot be read: {exc.strerror}.") from None
        if read is None:
            raise Refused(
                f"{label} changed while it was read (it grew past maxDocumentBytes or is no "
                "longer a regular file); it is not read."
            )
        return Opened(label, located.path, decoded(read[0], label), None, False)

    def find(
        self,
        pattern: str,
        glob: str | None = None,
        regex: bool = False,
        current: Mapping[str, str] | None = None,
    ) -> str:
        """find_in_files: the lines of the readable files that hold `pattern`, as
        `path:line: text` in path order (at most MAX_HITS, then how many more). `current`:
        texts that stand for a file's (the session's working texts), by real path."""
        if not self._roots:
            raise Refused(NO_WORKSPACE)
        matcher = pattern_matcher(pattern, regex)
        only = glob_spec(glob)
        overlay = {path: document[0] for path, document in self._open.items()}
        overlay.update(current or {})
        deadline = time.monotonic() + self._search_seconds
        if self._ripgrep is not None:
            try:
                query = Query(
                    matcher,
                    None if only is None else only.match_file,
                    glob.strip() if glob and glob.strip() else None,
                    overlay,
                    deadline,
                )
                text, masked = find_with_ripgrep(
                    self._ripgrep, self._scope(), query, self._search_seconds
                )
                return text + self.shown.note(masked)
            except RipgrepFailed:
                pass  # a pattern ripgrep's dialect lacks: the Python search below
        return self._find_here(matcher, pattern, only, overlay, deadline)

    def _find_here(
        self,
        matcher: Matcher,
        pattern: str,
        only: GitIgnoreSpec | None,
        overlay: Mapping[str, str],
        deadline: float,
    ) -> str:
        """find_in_files in Python, over the listing, until the deadline."""
        hits: list[str] = []
        masked: list[tuple[str, Spot]] = []
        total = searched = skipped = 0
        stop: Stop | None = None
        for label, listed in self._listing():
            if only is not None and not only.match_file(label):
                continue
            if (searched + skipped) % 64 == 0 and time.monotonic() > deadline:
                stop = Stop(seconds=self._search_seconds)
                break
            text = overlay.get(listed.path)
            if text is None:
                text = self._contents.text(listed.path)
            if text is None:
                skipped += 1
                continue
            searched += 1
            for number, line, at in matcher.lines(text):
                total += 1
                if len(hits) < MAX_HITS:
                    hidden, spots = self.mask_line(text, label, number, line)
                    masked.extend((label, spot) for spot in spots)
                    hits.append(f"{label}:{number}: {masked_line(matcher, hidden, line, at)}")
        return answer(hits, total, pattern, searched, skipped, stop) + self.shown.note(masked)

    def _scope(self) -> Scope:
        roots = sorted(self._roots, key=lambda root: root.name)
        return Scope(
            [(self._label(root, "x")[:-1], root.path) for root in roots],
            self._readable,
            self._contents.text,
            self.mask_line,
            self._exclude_lines,
            self._max_bytes,
        )

    def _readable(self, label: str) -> str | None:
        try:
            return self.locate(label).path
        except Refused:
            return None

    def _listing(self) -> list[tuple[str, Listed]]:
        listing = [
            (self._label(root, listed.rel), listed)
            for root, tree in zip(self._roots, self._trees, strict=True)
            for listed in tree.files()
        ]
        if len(self._roots) > 1:
            listing.sort(key=lambda item: item[0])
        return listing

    def _split(self, path: str) -> tuple[_Root, str]:
        """The root and the relative path (normalized, forward slashes) `path` names."""
        if not path or "\x00" in path:
            raise Refused("The path is empty or holds a NUL character.")
        if path.startswith(("/", "\\", "~")) or re.match(r"[A-Za-z]:", path):
            raise Refused(
                f"{path} is absolute; name files relative to the workspace folder "
                f"({self._example()})."
            )
        normal = posixpath.normpath(path.replace("\\", "/"))
        if normal == ".." or normal.startswith("../"):
            raise Refused(f"{path} leaves the workspace; only files inside it can be read.")
        if len(self._roots) == 1:
            root, rel = self._roots[0], normal
        else:
            name, _, rel = normal.partition("/")
            matching = [root for root in self._roots if root.name == name]
            if not matching:
                names = ", ".join(root.name for root in self._roots)
                raise Refused(
                    f"{path} names no workspace folder: with several folders, a path starts "
                    f"with the folder's name ({names})."
                )
            root = matching[0]
        if rel in ("", "."):
            raise Refused(f"{path} is a workspace folder; name a file inside it.")
        return root, rel

    def _check(self, root: _Root, rel: str, label: str) -> None:
        if in_git_folder(rel):
            raise Refused(f"{label} is inside .git/, which is never read.")
        if self._exclude.matches(rel):
            raise Refused(
                f"{label} matches the setting readExclude (secrets such as .env files and "
                "keys); it is never read."
            )
        if root.ignore.ignored(rel):
            raise Refused(f"{label} is ignored by the workspace's .gitignore; it is not read.")

    def _target_allowed(self, real: str) -> bool:
        for root in self._roots:
            rel = relative(real, root.path)
            if rel:
                return not (
                    in_git_folder(rel) or self._exclude.matches(rel) or root.ignore.ignored(rel)
                )
        return False

    def _label(self, root: _Root, rel: str) -> str:
        return rel if len(self._roots) == 1 else f"{root.name}/{rel}"

    def _example(self) -> str:
        return "src/app.py" if len(self._roots) == 1 else f"{self._roots[0].name}/src/app.py"
