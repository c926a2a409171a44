"""The runs of `complex-edit log` and `complex-edit revert` (their parsers: `server/cli/log.py`,
`server/cli/revert.py`): the history of landed edits under a workspace root, and taking one back
(every file or none, through the disk writer every CLI edit uses).

Exit codes as `edit`'s: 0 done, 1 refused (nothing written: a conflict, an unknown edit, a file
changed meanwhile), 2 a usage or configuration problem.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from complex_edit.server.history.store import HistoryStore
    from complex_edit.server.outcome import EditResult
    from complex_edit.server.settings import Settings

EXIT_USAGE = 2


def run(args: argparse.Namespace) -> int:
    """Run `log` or `revert`."""
    from complex_edit.server.edit.recording import history_store
    from complex_edit.server.history.store import HistoryError
    from complex_edit.server.settings import Settings, SettingsError

    try:
        settings = Settings.from_layers(os.environ)
        store = history_store(settings, _root(args.root))
    except (SettingsError, NotADirectoryError) as exc:
        return _refused(str(exc))
    except HistoryError as exc:
        return _refused(exc.message)
    if args.command == "log":
        return _log(store, args)
    return _print(_revert(store, settings, args), args)


def _log(store: HistoryStore, args: argparse.Namespace) -> int:
    import json

    entries = [record.entry() for record in store.records(args.limit)]
    if args.json:
        sys.stdout.write(json.dumps(entries, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not entries:
        sys.stderr.write(f"complex-edit: no edit is recorded for {store.root}\n")
    for item in entries:
        files = ", ".join(item["files"])
        sys.stdout.write(
            f"{item['id']}  {item['time']}  +{item['added']} -{item['removed']}  {files}  "
            f"{' '.join(item['instruction'].split())[:80]}\n"
        )
    return 0


def _revert(store: HistoryStore, settings: Settings, args: argparse.Namespace) -> EditResult:
    import asyncio

    from complex_edit.server.edit.revert import RevertOrder, on_disk
    from complex_edit.server.session.request import WorkspaceRoot

    order = RevertOrder(
        store,
        args.id,
        settings,
        force=args.force,
        dry_run=args.dry_run,
        roots=(WorkspaceRoot(store.root.name, str(store.root)),),
    )
    return asyncio.run(on_disk(order))


def _print(result: EditResult, args: argparse.Namespace) -> int:
    import json

    from complex_edit.server.cli_edit import exit_status

    wire = result.scrubbed_wire(os.environ)
    if result.error:
        sys.stderr.write(f"complex-edit: {wire['error']} [{result.reason}]\n")
    if args.json:
        sys.stdout.write(json.dumps(wire, ensure_ascii=False, indent=2) + "\n")
    elif result.success and args.dry_run:
        sys.stdout.write(result.diff)
        sys.stderr.write(f"complex-edit: {wire.get('message', '')} (dry run: nothing written)\n")
    elif result.success:
        sys.stdout.write(f"{wire.get('message', '')}\n")
        if result.edit_id:
            sys.stdout.write(f"  (this revert is edit {result.edit_id})\n")
    return exit_status(result)


def _root(given: str | None) -> Path:
    """`--root`, else the current folder's git top level, else the folder (`record_root`)."""
    if given is not None:
        root = Path(given).expanduser().resolve()
        if not root.is_dir():
            raise NotADirectoryError(f"--root {given} is not a folder.")
        return root
    from complex_edit.server.edit.roots import record_root

    return record_root(Path.cwd().resolve() / "-")  # the rule edits are recorded by


def _refused(message: str) -> int:
    sys.stderr.write(f"complex-edit: {message} [config]\n")
    return EXIT_USAGE
