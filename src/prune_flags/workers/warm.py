"""A process that imports LibCST while this one starts."""

# Importing LibCST costs about 0.2 s, more than parsing the command line and indexing a tree of a
# thousand files, and only the rewrites need it. So `diff` and `apply` fork first thing: the child
# imports the rewrite while the parent imports typer, reads the config and the files and builds the
# index; then the child rewrites what the parent sends it, one batch at a time. The parent never
# imports LibCST unless it starts a pool for a large round.
#
# The child reads requests until its pipe closes, which happens when the parent exits, however it
# exits (killed too), so it never outlives the run. Where forking is unsafe (see `fork_is_safe`), or
# the child is gone, the parent rewrites in its own process, as it would without this.

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import IO, Any


class Rewriter:
    """The parent's end of the child: `map` sends a function and its tasks, returns the outcomes."""

    def __init__(self, pid: int, requests: IO[bytes], replies: IO[bytes]) -> None:
        self.pid = pid
        self._requests = requests
        self._replies = replies
        self.alive = True

    def map(self, function: Callable[[Any], Any], tasks: list[Any]) -> list[Any] | None:
        """The outcomes in order; None when the child is gone (the caller then runs the tasks)."""
        if not self.alive:
            return None
        try:
            pickle.dump((function, tasks), self._requests, pickle.HIGHEST_PROTOCOL)
            self._requests.flush()
            return pickle.load(self._replies)
        except (OSError, EOFError, pickle.PickleError):
            self._close()
            return None

    def _close(self) -> None:
        self.alive = False
        for pipe in (self._requests, self._replies):
            try:
                # Closes the descriptor even when flushing what the dead child never read fails;
                # left open, that flush fails again at exit, and Python prints it.
                pipe.close()
            except OSError:
                pass


_rewriter: Rewriter | None = None


def fork_is_safe() -> bool:
    """Whether this process can fork a child that runs Python: a platform with `fork` other than
    macOS (whose system libraries are not safe to use in a forked child), and no thread but
    this one (a forked child inherits the locks other threads held, never released; Python
    3.12+ warns of the deadlock)."""
    return hasattr(os, "fork") and sys.platform != "darwin" and _thread_count() == 1


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))  # every thread, those started in C too
    except OSError:
        import threading

        return threading.active_count()


def start() -> None:
    """Fork the child, once per process, where it is safe (see `fork_is_safe`)."""
    global _rewriter
    if _rewriter is not None or not fork_is_safe():
        return
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (request_read, request_write, reply_read, reply_write):
            os.close(fd)
        return
    if pid == 0:
        os.close(request_write)
        os.close(reply_read)
        _serve(request_read, reply_write)  # never returns
    os.close(request_read)
    os.close(reply_write)
    _rewriter = Rewriter(pid, os.fdopen(request_write, "wb"), os.fdopen(reply_read, "rb"))


def rewriter() -> Rewriter | None:
    """The child of this process, if `start` made one and it is still there."""
    return _rewriter if _rewriter is not None and _rewriter.alive else None


def _serve(requests_fd: int, replies_fd: int) -> None:
    # Ctrl-C reaches the whole process group: the parent stops, its pipe closes, this one follows
    # without a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Nor does it hold the parent's output open: whoever reads it (`| git apply`, a test's
    # capture) sees its end when the parent ends, not when this process does.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    code = 0
    try:
        import prune_flags.rewrite.file  # noqa: F401  (LibCST: the point of this process)
        import prune_flags.workers.tasks  # noqa: F401  (what the requests name)

        requests, replies = os.fdopen(requests_fd, "rb"), os.fdopen(replies_fd, "wb")
        while True:
            try:
                function, tasks = pickle.load(requests)
            except EOFError:
                break
            pickle.dump([function(task) for task in tasks], replies, pickle.HIGHEST_PROTOCOL)
            replies.flush()
    except BaseException:  # the parent sees the pipe close and rewrites in its own process
        code = 1
    os._exit(code)
