"""Screenshots of a real terminal Emacs for emacs-client/README.md (docs/images/emacs-*.png).

Run from the repository root with the project's venv, on a machine with `emacs-nox`,
`elpa-eglot`, `tmux` and `rsvg-convert` (Debian: librsvg2-bin):

    .venv/bin/python emacs-client/tools/screenshots.py

It starts the Gemini emulator with scripted model turns, runs `emacs -nw -q -l demo-init.el` in
a tmux pane (120x30), types the commands, captures the pane with its colours
(`tmux capture-pane -e`) and draws the captured cells as SVG, which rsvg-convert turns into PNG.
Nothing here is used by the package or the tests.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.fakes.gemini_emulator import GeminiEmulator, Reply  # noqa: E402

COLUMNS, ROWS = 120, 30
CELL_W, CELL_H, FONT = 8.4, 17, 14
DEFAULT_FG, DEFAULT_BG = "#1a1a1a", "#fdfdfd"
BASE16 = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
]  # fmt: skip
SGR = re.compile(r"\x1b\[([0-9;]*)m")

SAMPLE = """import json


def load(path):
    with open(path) as f:
        return json.load(f)


def save(path, data):
    with open(path, "w") as f:
        json.dump(data, f)
"""


def color256(n: int) -> str:
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return f"#{steps[n // 36]:02x}{steps[n // 6 % 6]:02x}{steps[n % 6]:02x}"
    level = 8 + (n - 232) * 10
    return f"#{level:02x}{level:02x}{level:02x}"


def parse(ansi: str) -> list[list[tuple[str, str, str, bool]]]:
    """Rows of cells (char, fg, bg, bold) from `tmux capture-pane -e -p` output."""
    rows = []
    for line in ansi.split("\n")[:ROWS]:
        fg, bg, bold, reverse = DEFAULT_FG, DEFAULT_BG, False, False
        cells: list[tuple[str, str, str, bool]] = []
        pos = 0
        for match in [*SGR.finditer(line), None]:
            end = match.start() if match else len(line)
            for char in line[pos:end]:
                cells.append((char, bg, fg, bold) if reverse else (char, fg, bg, bold))
            if match is None:
                break
            pos = match.end()
            codes = [int(c) if c else 0 for c in match.group(1).split(";")]
            i = 0
            while i < len(codes):
                code = codes[i]
                if code == 0:
                    fg, bg, bold, reverse = DEFAULT_FG, DEFAULT_BG, False, False
                elif code == 1:
                    bold = True
                elif code == 22:
                    bold = False
                elif code == 7:
                    reverse = True
                elif code == 27:
                    reverse = False
                elif 30 <= code <= 37 or 90 <= code <= 97:
                    fg = BASE16[code - 30 if code < 90 else code - 82]
                elif 40 <= code <= 47 or 100 <= code <= 107:
                    bg = BASE16[code - 40 if code < 100 else code - 92]
                elif code in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    if code == 38:
                        fg = color256(codes[i + 2])
                    else:
                        bg = color256(codes[i + 2])
                    i += 2
                elif code == 39:
                    fg = DEFAULT_FG
                elif code == 49:
                    bg = DEFAULT_BG
                i += 1
        rows.append(cells)
    return rows


def svg(rows: list[list[tuple[str, str, str, bool]]]) -> str:
    width, height = COLUMNS * CELL_W + 16, ROWS * CELL_H + 16
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}">',
        f'<rect width="100%" height="100%" fill="{DEFAULT_BG}"/>',
        f'<g font-family="DejaVu Sans Mono" font-size="{FONT}" transform="translate(8,8)">',
    ]
    for y, cells in enumerate(rows):
        padded = cells + [(" ", DEFAULT_FG, cells[-1][2] if cells else DEFAULT_BG, False)] * (
            COLUMNS - len(cells)
        )
        for x, (_, _, bg, _) in enumerate(padded[:COLUMNS]):
            if bg != DEFAULT_BG:
                out.append(
                    f'<rect x="{x * CELL_W:.1f}" y="{y * CELL_H}" width="{CELL_W + 0.5:.1f}" '
                    f'height="{CELL_H}" fill="{bg}"/>'
                )
        for x, (char, fg, _, bold) in enumerate(padded[:COLUMNS]):
            if char.strip():
                weight = ' font-weight="bold"' if bold else ""
                out.append(
                    f'<text x="{x * CELL_W:.1f}" y="{y * CELL_H + 13}" fill="{fg}"{weight}>'
                    f"{html.escape(char)}</text>"
                )
    out.append("</g></svg>")
    return "\n".join(out)


class Pane:
    def __init__(self, name: str, command: list[str], env: dict[str, str], cwd: Path) -> None:
        self.name = name
        exports = " ".join(f"{k}={json.dumps(v)}" for k, v in env.items())
        shell = f"cd {json.dumps(str(cwd))} && env {exports} " + " ".join(map(json.dumps, command))
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", name, "-x", str(COLUMNS), "-y", str(ROWS), shell],
            check=True,
        )

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)
        time.sleep(0.3)

    def text(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-t", self.name, "-p"], capture_output=True, text=True
        ).stdout

    def wait(self, needle: str, within: float = 30) -> None:
        deadline = time.monotonic() + within
        while needle not in self.text():
            if time.monotonic() > deadline:
                raise SystemExit(f"{needle!r} never appeared:\n{self.text()}")
            time.sleep(0.2)

    def shoot(self, target: Path) -> None:
        ansi = subprocess.run(
            ["tmux", "capture-pane", "-t", self.name, "-e", "-p"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        with tempfile.NamedTemporaryFile("w", suffix=".svg", delete=False) as handle:
            handle.write(svg(parse(ansi)))
        subprocess.run(["rsvg-convert", "-o", str(target), handle.name], check=True)
        os.unlink(handle.name)
        print("wrote", target)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], check=False)


def main() -> None:
    images = REPO / "docs" / "images"
    work = Path(tempfile.mkdtemp(prefix="emacs-shots-"))
    (work / "project").mkdir()
    (work / "home").mkdir()
    sample = work / "project" / "store.py"
    sample.write_text(SAMPLE)
    with GeminiEmulator() as emulator:
        emulator.enqueue(
            # 1. an edit the model takes a few seconds over (the mode line shows the run)
            Reply.function_calls(
                [("replace_text", {"old_text": "def load(path):", "new_text": "def load(path):\n"
                                   '    """Read the JSON document at path."""'})],
                usage=(900, 40),
            ).delayed(4),
            Reply.function_calls(
                [("complete_task", {"success": True, "message": "Added a docstring to load"})],
                usage=(950, 20),
            ),
            # 2. a review of two changes
            Reply.function_calls(
                [
                    ("replace_text", {"old_text": "with open(path) as f:",
                                      "new_text": 'with open(path, encoding="utf-8") as f:'}),
                    ("replace_text", {"old_text": 'with open(path, "w") as f:',
                                      "new_text": 'with open(path, "w", encoding="utf-8") as f:'}),
                    ("complete_task", {"success": True, "message": "Both files opened as UTF-8"}),
                ],
                usage=(1000, 80),
            ),
        )  # fmt: skip
        env = {
            "HOME": str(work / "home"),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "GEMINI_API_KEY": "demo-key",
            "GOOGLE_GEMINI_BASE_URL": emulator.base_url,
            "COMPLEX_EDIT_DEMO_CLIENT": str(REPO / "emacs-client"),
            "COMPLEX_EDIT_DEMO_EXE": str(Path(sys.executable).parent / "complex-edit"),
        }
        init = Path(__file__).parent / "demo-init.el"
        pane = Pane("complex-edit-shots", ["emacs", "-nw", "-q", "-l", str(init), str(sample)],
                    env, work / "project")  # fmt: skip
        try:
            pane.wait("eglot:")
            pane.keys("M-x", "complex-edit", "Enter", "add a docstring to load", "Enter")
            pane.wait("Turn 1/8")
            time.sleep(1.2)
            pane.shoot(images / "emacs-running.png")
            pane.wait("Complex Edit: Added a docstring")
            pane.shoot(images / "emacs-done.png")
            pane.keys("M-x", "complex-edit-review", "Enter", "open both files as UTF-8", "Enter")
            pane.wait("Change 1/2")
            pane.shoot(images / "emacs-review.png")
            pane.keys("y", "y")
            pane.wait("kept 2 of 2")
            pane.keys("M-x", "complex-edit-doctor", "Enter")
            pane.wait("complex-edit doctor:")
            pane.shoot(images / "emacs-doctor.png")
        finally:
            pane.close()


if __name__ == "__main__":
    main()
