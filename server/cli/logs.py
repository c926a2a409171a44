"""The process's log on stderr, for the subcommands that run something."""

from __future__ import annotations

import sys


def configure_logging(level: str, *, lines: bool = False) -> None:
    """The process's log on stderr: timestamped records for the servers, or with `lines`
    (`edit`) lines like the command's own ("complex-edit: ..."), the Python warnings an SDK
    raises included. The Gemini SDK's own records are left out below ERROR: its one warning
    (both key variables set) is told by the provider, naming the key in use."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    shape = (
        "complex-edit: %(message)s" if lines else "%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    handler.setFormatter(logging.Formatter(shape))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger("complex_edit").setLevel(level)
    for noisy in ("pygls", "httpx", "httpcore", "google"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("google_genai").setLevel(logging.ERROR)
    if lines:
        logging.captureWarnings(True)
