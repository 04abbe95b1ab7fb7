"""Process pools whose workers end with the run that started them, and work dealt round one."""

# A run killed with SIGKILL has no chance to shut its pool down, and the workers would wait for work
# forever; each worker watches its parent instead, and exits once it is gone.
#
# Workers are forked where that is safe (they inherit what the run imported), and spawned elsewhere:
# on macOS, on a platform without `fork`, or from a process with threads. Never the fork server (the
# default from Python 3.14 on Linux): its workers are the server's children, not the run's, and
# would find their parent gone at once.

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from prune_flags.workers.warm import fork_is_safe

if TYPE_CHECKING:
    from concurrent.futures import Executor, ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")


def process_pool(
    workers: int, initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = ()
) -> ProcessPoolExecutor:
    # Imported here: concurrent.futures brings logging and multiprocessing (40 ms), which a run
    # small enough to rewrite in its own process never needs.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    start_method = "fork" if fork_is_safe() else "spawn"
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context(start_method),
        initializer=_start_worker,
        initargs=(os.getpid(), initializer, initargs),
    )


def _start_worker(
    parent: int, initializer: Callable[..., object] | None, initargs: tuple[Any, ...]
) -> None:
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)


def chunked_map(
    pool: Executor | None, function: Callable[[Sequence[T]], list[R]], items: Sequence[T]
) -> list[R]:
    """function over items in one process, or over a pool in chunks, biggest work first."""
    if pool is None:
        return function(items)
    chunk_count = min(len(items), 16)
    chunks = [items[i::chunk_count] for i in range(chunk_count)]
    return [result for chunk in pool.map(function, chunks) for result in chunk]
