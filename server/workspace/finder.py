"""find_in_files over ripgrep: each root searched by `rg` (in the order of the labels), the
files the session or the editor holds a text for searched in Python instead of their disk
copies, every file that matched checked against the workspace's rules again, and the lines
shown from the masked text of their file, cut around the match.

ripgrep is stopped at COUNT_LIMIT matching lines (the first MAX_HITS are shown, the rest
counted "at least") or at the deadline (the answer says it is partial).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from complex_edit.server.workspace.ripgrep import Found, command, search
from complex_edit.server.workspace.search import MAX_HITS, Matcher, Stop, answer, masked_line
from complex_edit.server.workspace.secrets import Spot

COUNT_LIMIT = 2_000


@dataclass(frozen=True)
class Place:
    label: str
    path: str  # the real file
    number: int
    line: str
    at: int


@dataclass(frozen=True)
class Scope:
    """What a search of the workspace needs from it: its roots as (label prefix, folder) in
    label order, which labels may be read (`readable`: the real path, or None), the text of
    a file, the masking, and the rules ripgrep is given."""

    roots: Sequence[tuple[str, str]]
    readable: Callable[[str], str | None]
    text_of: Callable[[str], str | None]
    mask_line: Callable[[str, str, int, str], tuple[str, list[Spot]]]
    exclude: Sequence[str]
    max_bytes: int


def find_with_ripgrep(
    rg: str,
    scope: Scope,
    matcher: Matcher,
    glob: Callable[[str], bool] | None,
    glob_text: str | None,
    overlay: Mapping[str, str],
    deadline: float,
    seconds: float,
) -> tuple[str, list[tuple[str, Spot]]]:
    """The answer and the values masked in it; raises RipgrepFailed (search in Python)."""
    places: list[Place] = []
    stopped = timed_out = False
    for prefix, folder in scope.roots:
        glob_here = glob_text if len(scope.roots) == 1 else None
        args = command(
            rg,
            matcher.pattern,
            matcher.regex is not None,
            glob_here,
            scope.exclude,
            scope.max_bytes,
        )
        found: Found = search(args, folder, COUNT_LIMIT - len(places), deadline)
        stopped, timed_out = stopped or found.stopped, timed_out or found.timed_out
        for hit in found.hits:
            label = prefix + hit.rel
            path = os.path.join(folder, *hit.rel.split("/"))
            if (glob is None or glob(label)) and path not in overlay:
                places.append(Place(label, path, hit.number, hit.line, hit.at))
        if stopped:
            break
    for path, text in overlay.items():
        places.extend(_in_text(scope, matcher, glob, path, text))
    places.sort(key=lambda place: (place.label, place.number))
    stop = (
        Stop(
            counted=COUNT_LIMIT if stopped and not timed_out else 0,
            seconds=seconds if timed_out else 0.0,
        )
        if stopped
        else None
    )
    return _answer(scope, matcher, places, overlay, stop)


def _in_text(
    scope: Scope,
    matcher: Matcher,
    glob: Callable[[str], bool] | None,
    path: str,
    text: str,
) -> list[Place]:
    """The matching lines of a text the session or the editor holds for the file `path`."""
    for prefix, folder in scope.roots:
        if path.startswith(folder.rstrip(os.sep) + os.sep):
            label = prefix + path[len(folder.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
            break
    else:
        return []
    if (glob is not None and not glob(label)) or scope.readable(label) is None:
        return []
    return [Place(label, path, number, line, at) for number, line, at in matcher.lines(text)]


def _answer(
    scope: Scope,
    matcher: Matcher,
    places: list[Place],
    overlay: Mapping[str, str],
    stop: Stop | None,
) -> tuple[str, list[tuple[str, Spot]]]:
    hits: list[str] = []
    masked: list[tuple[str, Spot]] = []
    texts: dict[str, str | None] = {}
    for place in places:
        if len(hits) >= MAX_HITS:
            break
        if place.path not in texts:
            # ripgrep applied the rules; each file shown passes the workspace's own again
            text = overlay.get(place.path)
            if scope.readable(place.label) is None:
                text = None
            elif text is None:
                text = scope.text_of(place.path)
            texts[place.path] = text
        text = texts[place.path]
        if text is None:
            continue  # refused, not UTF-8 text, or gone: never shown
        hidden, spots = scope.mask_line(text, place.label, place.number, place.line)
        masked.extend((place.label, spot) for spot in spots)
        line = masked_line(matcher, hidden, place.line, place.at)
        hits.append(f"{place.label}:{place.number}: {line}")
    total = len(places) - (min(len(places), MAX_HITS) - len(hits))
    return answer(hits, total, matcher.pattern, None, 0, stop), masked
