"""The process `warm` forks, and the pools, wherever forking is unsafe or the child is gone.

Each `diff` runs through the console script's entry in a fresh interpreter (what a user starts),
with something done before it: the warm child killed, a thread started, the platform changed.
The last line of its stderr says whether a warm child is serving the run and whether the run
imported LibCST itself (which it does only when it rewrites in its own process).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from prune_flags.workers.pool import process_pool

MODULE = """\
class Node:
    def __init__(self):
        self.fast = False

    def run(self):
        if self.fast:
            return 1
        return 2
"""
DIFF = """\
diff --git a/node.py b/node.py
--- a/node.py
+++ b/node.py
@@ -1,8 +1,3 @@
 class Node:
-    def __init__(self):
-        self.fast = False
-
     def run(self):
-        if self.fast:
-            return 1
         return 2
"""
SUMMARY = "1 file changed, 5 lines removed, 0 added"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "node.py").write_text(MODULE)
    return tmp_path


def run_diff(
    repo: Path, before_main: str, *interpreter_options: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    code = (
        "import json, sys; sys.argv = ['prune-flags', 'diff', '--flag', 'fast=False', '.']\n"
        "import prune_flags.__main__ as entry\n"
        "from prune_flags.workers import warm\n"
        f"{before_main}\n"
        "try:\n    entry.main()\nexcept SystemExit:\n    pass\n"
        "state = {'warm': warm.rewriter() is not None, 'libcst': 'libcst' in sys.modules}\n"
        "print(json.dumps(state), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, *interpreter_options, "-c", code], capture_output=True, text=True, cwd=repo
    )
    *messages, state = done.stderr.splitlines()
    return done, {"messages": messages, **json.loads(state)}


def test_a_run_forks_its_warm_process_where_it_is_safe(repo: Path) -> None:
    done, state = run_diff(repo, "")
    assert (done.stdout, state) == (DIFF, {"messages": [SUMMARY], "warm": True, "libcst": False})


def test_a_warm_process_gone_before_the_rewrite_leaves_no_broken_pipe_behind(repo: Path) -> None:
    """The request written to a dead child stays in the pipe's buffer; left there, Python flushes
    it again at exit and prints the BrokenPipeError (always from 3.13 on, in development mode
    before)."""
    kill = (
        "import os, signal; warm.start(); pid = warm.rewriter().pid\n"
        "os.kill(pid, signal.SIGKILL); os.waitpid(pid, 0)"
    )
    done, state = run_diff(repo, kill, "-X", "dev")
    assert (done.stdout, state) == (DIFF, {"messages": [SUMMARY], "warm": False, "libcst": True})


def test_a_process_with_threads_does_not_fork_and_rewrites_in_its_own(repo: Path) -> None:
    """A forked child inherits the locks other threads hold, never released (Python 3.12+ warns
    of the deadlock); so no warm process, and the rewrite is the same."""
    thread = (
        "import threading; threading.Thread(target=threading.Event().wait, daemon=True).start()"
    )
    done, state = run_diff(repo, thread, "-W", "error::DeprecationWarning")
    assert (done.stdout, state) == (DIFF, {"messages": [SUMMARY], "warm": False, "libcst": True})


@pytest.mark.parametrize(
    "platform",
    [
        pytest.param(
            "import os, sys; sys.platform = 'darwin'; os.fork = lambda: sys.exit('forked')",
            id="macOS",
        ),
        pytest.param("import os; del os.fork", id="no fork"),
    ],
)
def test_where_fork_is_unsafe_or_absent_nothing_forks_and_the_run_rewrites_in_its_own(
    repo: Path, platform: str
) -> None:
    done, state = run_diff(repo, platform)
    assert (done.stdout, state) == (DIFF, {"messages": [SUMMARY], "warm": False, "libcst": True})


def imported(module: str) -> bool:
    return module in sys.modules


def test_a_pool_started_beside_another_thread_spawns_its_workers() -> None:
    """Forked workers would inherit what this process imported (LibCST, here); spawned ones
    start afresh, and Python says nothing about forking beside a thread."""
    import libcst  # noqa: F401

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        with warnings.catch_warnings(record=True) as caught, process_pool(1) as pool:
            warnings.simplefilter("always")
            inherited = pool.submit(imported, "libcst").result(timeout=60)
    finally:
        stop.set()
        thread.join()
    assert (inherited, [str(warning.message) for warning in caught]) == (False, [])
