"""Shared pytest set-up: the `slow` marker.

Slow tests (the SIGKILL trials, the corpus run) still run in the plain `python -m pytest`; the
marker only lets a quick local loop leave them out with `-m "not slow"`.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: a long-running reliability test (kill trials, corpus runs); runs by default",
    )
