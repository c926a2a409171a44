"""Hypothesis profiles: how many examples property tests run, by environment.

    HYPOTHESIS_PROFILE=ci   .venv/bin/python -m pytest      # thousands of examples per property
    .venv/bin/python -m pytest                              # "dev": quick, for every local run

Load globally from ``tests/conftest.py`` (``load_profile()``) so that every property test
without its own ``max_examples`` follows it; tests that must scale with it even where
another profile is loaded ask for ``active()`` explicitly (``tests/reliability``).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

ENV_VARIABLE = "HYPOTHESIS_PROFILE"
DEFAULT = "dev"

_COMMON = {
    "deadline": None,  # a loaded CI box is not a failure
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "print_blob": True,  # a failure prints the @reproduce_failure line
}

settings.register_profile(DEFAULT, max_examples=150, **_COMMON)
settings.register_profile("ci", max_examples=2000, **_COMMON)
# For a long hunt: HYPOTHESIS_PROFILE=soak
settings.register_profile("soak", max_examples=20_000, **_COMMON)


def name() -> str:
    return os.environ.get(ENV_VARIABLE) or DEFAULT


def active() -> settings:
    """The profile named by HYPOTHESIS_PROFILE (default "dev"), as a settings object."""
    return settings.get_profile(name())


def load_profile() -> None:
    """Make the named profile the default for every property test (call from conftest)."""
    settings.load_profile(name())
