"""A function run once more with a big stack when it recurses too deeply: `ast` parsing and
walking, and LibCST's rewrite, of a file that nests very deeply (generated code)."""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

DEEP_RECURSION = 30_000
DEEP_STACK = 512 * 1024 * 1024
Result = TypeVar("Result")


def deeply(function: Callable[..., Result], *args: object) -> Result:
    """`function(*args)`; if it runs out of recursion, once more in a thread with a big stack and a
    high recursion limit (the limit is the process's: restored after; the caller waits, so nothing
    else recurses meanwhile). A RecursionError there too is the caller's to report."""
    try:
        return function(*args)
    except RecursionError:
        pass
    outcome: list[tuple[bool, object]] = []

    def target() -> None:
        try:
            outcome.append((True, function(*args)))
        except BaseException as error:  # handed to the caller's thread
            outcome.append((False, error))

    limit, size = sys.getrecursionlimit(), threading.stack_size()
    try:
        sys.setrecursionlimit(max(limit, DEEP_RECURSION))
        threading.stack_size(DEEP_STACK)
        thread = threading.Thread(target=target, name="prune-flags-deep")
        thread.start()
        thread.join()
    except (RuntimeError, ValueError, MemoryError):  # no thread with such a stack here
        raise RecursionError("no thread with a big enough stack") from None
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(size)
    succeeded, value = outcome[0]
    if not succeeded:
        raise value  # type: ignore[misc]
    return value  # type: ignore[return-value]


def too_deep(what: str) -> str:
    return f"nests too deeply to {what}, even with a raised recursion limit; left untouched"
