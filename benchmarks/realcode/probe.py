"""Import modules one by one, each in a process of its own, and print what became of each.

Run by a project's own interpreter (standard library only), as a script:

    VENV/bin/python probe.py TIMEOUT < modules.json

stdin is a JSON list of [root, dotted name]; stdout a JSON object {"root:name": outcome}, the
outcome "ok" or the last line of the exception (`ImportError: cannot import name 'X' ...`),
"timeout" when the import took longer than TIMEOUT seconds.

Each import runs in a child forked from this process, which has imported nothing of the
project: as fresh as a new interpreter, for a fraction of its start-up. The child's stdin is
/dev/null and its output is discarded, so a module that prints or reads at import does no harm.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import sys
import traceback


def import_in_child(root: str, name: str, timeout: float) -> str:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: import, report, exit without running any cleanup of the parent's
        os.close(read_end)
        devnull = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):
            os.dup2(devnull, stream)
        sys.path.insert(0, root)
        try:
            importlib.import_module(name)
            outcome = "ok"
        except BaseException as error:  # SystemExit and KeyboardInterrupt too: the import failed
            lines = traceback.format_exception_only(type(error), error)
            outcome = (lines[-1].strip() if lines else type(error).__name__) or "error"
        os.write(write_end, outcome.encode("utf-8", "replace")[:4000])
        os._exit(0)
    os.close(write_end)
    ready, _, _ = select.select([read_end], [], [], timeout)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read_end)
        return "timeout"
    chunks = []
    while chunk := os.read(read_end, 4096):
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace") or "crashed: the child died importing it"


def main() -> int:
    del sys.path[0]  # this script's directory: nothing of the harness may shadow the project
    timeout = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    modules = json.load(sys.stdin)
    results = {f"{root}:{name}": import_in_child(root, name, timeout) for root, name in modules}
    json.dump(results, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
