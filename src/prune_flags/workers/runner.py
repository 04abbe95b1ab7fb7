"""`Workers`: rewrites run in the process `warm` started, in this one, or in a pool."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from prune_flags.rewrite.context import RewriteTask, Rewritten
from prune_flags.workers import warm
from prune_flags.workers.heartbeat import Say, heartbeat
from prune_flags.workers.pool import process_pool
from prune_flags.workers.tasks import rewrite_outcome

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

Task = TypeVar("Task")


Outcome = TypeVar("Outcome")


class Workers:
    """Rewrites in the process `warm` started, or in this one, or in a pool of processes once a
    round has enough files to pay for starting one (the pool is started once, on first need,
    and shut down with the run)."""

    THRESHOLD = 16  # files in a round: below this the pool costs more than it saves

    def __init__(self, jobs: int, slow: Say | None = None) -> None:
        self.jobs = jobs
        self.slow = slow  # told which rewrite takes long (see heartbeat)
        self._passes = 0  # rewrites so far: a cascade rewrites a file over several passes
        self._pool: ProcessPoolExecutor | None = None

    def map(self, function: Callable[[Task], Outcome], tasks: list[Task]) -> list[Outcome]:
        if self.jobs <= 1 or len(tasks) < self.THRESHOLD:
            child = warm.rewriter()
            outcomes = child.map(function, tasks) if child is not None and tasks else None
            return outcomes if outcomes is not None else [function(task) for task in tasks]
        if self._pool is None:
            import prune_flags.rewrite.file  # noqa: F401  (imported once here, inherited by the forked workers)

            self._pool = process_pool(self.jobs)
        return list(
            self._pool.map(function, tasks, chunksize=max(1, len(tasks) // (4 * self.jobs)))
        )

    def rewrite(self, tasks: list[RewriteTask]) -> list[Rewritten | str]:
        """Each file's rewrite, or why it is left untouched (rewrite_outcome)."""
        self._passes += 1
        with heartbeat(self.slow, f"{_rewriting(tasks)}, pass {self._passes}"):
            return self.map(rewrite_outcome, tasks)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()


def _rewriting(tasks: list[RewriteTask]) -> str:
    """What a round rewrites, as a slow one is named: the file, or how many and the largest."""
    sizes = {task[0]: task[1].count("\n") + 1 for task in tasks}
    if not sizes:
        return "rewriting"
    largest = max(sizes, key=lambda path: sizes[path])
    what = f"{os.path.relpath(largest)} ({sizes[largest]:,} lines)"
    return (
        f"rewriting {what}"
        if len(sizes) == 1
        else f"rewriting {len(sizes)} files, the largest {what}"
    )
