"""The fault catalogue cannot rot: every fault line of the reliability brief (`catalogue.md`)
has an entry in `catalogue.py` and the other way round, and every test an entry names exists
(pytest's own collection)."""

from __future__ import annotations

import subprocess
import sys

from tests.reliability.catalogue import (
    CATALOGUE,
    DOCUMENT,
    ROOT,
    all_test_ids,
    document_faults,
    normalize,
)


def test_entries_are_unique_and_each_names_a_test() -> None:
    ids = [fault.id for fault in CATALOGUE]
    assert len(ids) == len(set(ids))
    texts = [normalize(fault.text) for fault in CATALOGUE]
    assert len(texts) == len(set(texts))
    for fault in CATALOGUE:
        assert fault.tests, fault.id
        assert len(set(fault.tests)) == len(fault.tests), fault.id


def test_every_fault_of_the_document_has_an_entry() -> None:
    listed = {(fault.category, normalize(fault.text)) for fault in CATALOGUE}
    documented = {
        (category, normalize(line)) for category, line in document_faults(DOCUMENT.read_text())
    }
    assert documented, f"no fault lines found in {DOCUMENT}"
    assert documented - listed == set(), "faults of catalogue.md missing from the catalogue"
    assert listed - documented == set(), "catalogue entries that catalogue.md no longer has"


def test_every_named_test_exists() -> None:
    files = sorted({test.split("::")[0] for test in all_test_ids()})
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    nodes = {line.strip() for line in collected.stdout.splitlines() if "::" in line}
    missing = [
        test
        for test in all_test_ids()
        if test not in nodes and not any(node.startswith(test + "[") for node in nodes)
    ]
    assert missing == [], f"tests named in the catalogue that do not exist: {missing}"
