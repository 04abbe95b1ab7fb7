"""A function run once more with a big stack when it recurses too deeply: `ast` parsing and
walking, and LibCST's rewrite, of a file that nests very deeply (generated code)."""

from __future__ import annotations

import ast
import functools
import sys
import threading
from collections.abc import Callable
from typing import TypeVar, cast

# A file nested deeper than Python's default 1,000 frames allow (thousands of implicitly
# concatenated strings, a long chain of `+`), which Python itself compiles, is walked again in a
# thread of its own with room for this many frames: 512 MiB of stack, about 17 KiB a frame, more
# than a frame of LibCST or of the `ast` parser in C takes, so the limit is met before the stack
# ends.
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
    succeeded, value = outcome[0]  # the function's result, or what it raised
    if not succeeded:
        raise cast(BaseException, value)
    return cast(Result, value)


def too_deep(what: str) -> str:
    return f"nests too deeply to {what}, even with a raised recursion limit; left untouched"


@functools.lru_cache(maxsize=16)
def parse_ast(text: str) -> ast.Module:
    """The `ast` of a text, remembered: rounds and the safety gate parse the same texts again
    (nothing mutates a tree)."""
    return ast.parse(text)
