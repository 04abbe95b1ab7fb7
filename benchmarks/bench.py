"""Time prune-flags as whole processes on trees of a chosen size and print a table.

    python3 benchmarks/bench.py --modules 200 1000 --flags 10 --runs 3 [--stdlib]

For each size it builds a synthetic package (modules with classes whose `__init__` sets flag
fields and bookkeeping fields, methods that read them in conditions, subclasses in other
modules, and unrelated code around them), then runs `prune-flags diff` (the seed-shaped job:
inline, fold, cascade) and, when the `find` command exists, `prune-flags find`. It reports the
median wall time of the runs and the peak resident memory of the child processes. `--stdlib`
adds a copy of the installed standard library (and site-packages) with a flag that matches
nothing: the cost of looking at a large tree for nothing.
These are figures to read, not tests: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

MODULE = '''\
"""Synthetic module {index}."""

import math


class Node{index}:
    def __init__(self, size):
        self.size = size
{fields}
        self.cache_{index} = None

    def forward(self, x):
        for step in range(self.size):
            x = math.sqrt(x + step)
{reads}
        return x

    def release(self):
        self.cache_{index} = None
'''
SUBCLASS = '''\
"""Subclass of Node{index} in another module."""

from pkg.m{index} import Node{index}


class Sub{index}(Node{index}):
    def backward(self, grads):
{sub_reads}
        return grads
'''


def build_tree(root: Path, modules: int, flags: int) -> Path:
    package = root / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for index in range(modules):
        mine = [f"flag_{(index + k) % flags}" for k in range(2)]
        fields = "\n".join(f"        self.{name} = False\n        self.aux_{name}_{index} = False" for name in mine)
        reads = "\n".join(
            f"            # release early when {name} is on\n"
            f"            if self.{name} and not self.aux_{name}_{index}:\n"
            f"                self.cache_{index} = x"
            for name in mine
        )
        (package / f"m{index}.py").write_text(MODULE.format(index=index, fields=fields, reads=reads))
        if index % 2 == 0:
            sub_reads = "\n".join(
                f"        if self.{name}:\n            self.aux_{name}_{index} = len(grads) > 0" for name in mine
            )
            (package / f"s{index}.py").write_text(SUBCLASS.format(index=index, sub_reads=sub_reads))
    config = root / "flags.toml"
    config.write_text("[flags]\n" + "".join(f"flag_{k} = false\n" for k in range(flags)))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return config


def timed(command: list[str], cwd: Path, runs: int) -> tuple[float, int]:
    """Median wall seconds over the runs, and the largest peak RSS (MiB) of the children so far."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return statistics.median(times), peak_kib // 1024


def has_find() -> bool:
    probe = subprocess.run([sys.executable, "-m", "prune_flags", "find", "--help"], capture_output=True)
    return probe.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--flags", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--stdlib", action="store_true")
    options = parser.parse_args()
    prune = [sys.executable, "-m", "prune_flags"]
    rows = []
    find = has_find()
    with tempfile.TemporaryDirectory() as scratch:
        for modules in options.modules:
            root = Path(scratch, f"tree{modules}")
            config = build_tree(root, modules, options.flags)
            files = len(list(root.rglob("*.py")))
            seconds, peak = timed([*prune, "diff", "-q", "--no-format", "--config", str(config), "pkg"], root, options.runs)
            rows.append((f"synthetic {modules} modules, {options.flags} flags", files, "diff", seconds, peak))
            if find:
                seconds, peak = timed([*prune, "find", "pkg"], root, options.runs)
                rows.append((f"synthetic {modules} modules", files, "find", seconds, peak))
        if options.stdlib:
            root = Path(scratch, "stdlib")
            shutil.copytree(sysconfig.get_paths()["stdlib"], root / "lib", symlinks=True, ignore_dangling_symlinks=True)
            subprocess.run(["git", "init", "-q", str(root)], check=True)
            files = len(list(root.rglob("*.py")))
            command = [*prune, "diff", "-q", "--flag", "no_such_flag_anywhere=False", "lib"]
            seconds, peak = timed(command, root, options.runs)
            rows.append(("stdlib + site-packages, no match", files, "diff", seconds, peak))
            if find:
                seconds, peak = timed([*prune, "find", "lib"], root, options.runs)
                rows.append(("stdlib + site-packages", files, "find", seconds, peak))
    print(f"{'tree':44} {'files':>7} {'command':>8} {'median s':>9} {'peak MiB':>9}")
    for tree, files, command, seconds, peak in rows:
        print(f"{tree:44} {files:>7} {command:>8} {seconds:>9.2f} {peak:>9}")


if __name__ == "__main__":
    main()
