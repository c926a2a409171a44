"""Decoys: files under the names a plain `python -m` would import from its working directory
(`server.py`, `server/`, `complex_edit/`, ...). Each one, if imported, leaves a marker file and
exits, so a client's launch that imports from the user's folder is caught."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def marker(decoy: str) -> str:
    """The name of the marker file `decoy` leaves when imported."""
    return decoy.replace("/", ".")


def plant_decoys(folder: Path, markers: Path, decoys: Iterable[str]) -> None:
    """Writes each of `decoys` (paths relative to `folder`); an imported one writes
    `markers/<marker(decoy)>` and exits with status 97."""
    for decoy in decoys:
        path = folder / decoy
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"open({str(markers / marker(decoy))!r}, 'w').write('imported')\n"
            "raise SystemExit(97)\n",
            encoding="utf-8",
        )
