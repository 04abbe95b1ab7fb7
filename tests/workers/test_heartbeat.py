"""The heartbeat of long work: nothing for work that ends soon, a line now and then after."""

from __future__ import annotations

import re
import threading

from prune_flags.workers.heartbeat import heartbeat


def test_long_work_is_said_to_go_on_with_the_time_so_far() -> None:
    said: list[str] = []
    twice = threading.Event()

    def say(line: str) -> None:
        said.append(line)
        if len(said) == 2:
            twice.set()

    with heartbeat(say, "rewriting big.py (20,004 lines)", first=0.01, every=0.01):
        assert twice.wait(timeout=30)  # the work goes on until the second line
    assert all(
        re.fullmatch(r"rewriting big\.py \(20,004 lines\): \d+ s so far", line) for line in said
    )
    count = len(said)
    threading.Event().wait(0.05)
    assert len(said) == count  # nothing once the work ended


def test_work_that_ends_soon_says_nothing() -> None:
    said: list[str] = []
    with heartbeat(said.append, "rewriting a.py (3 lines)", first=60):
        pass
    assert said == []
