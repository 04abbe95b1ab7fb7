"""Time prune-flags as whole processes on trees of a chosen size and print a table.

    python3 benchmarks/bench.py --modules 200 1000 --flags 10 --runs 3 [--stdlib]
    python3 benchmarks/bench.py --scale --runs 1      # also 10, 100 and 1,000 flags in one run
    python3 benchmarks/bench.py --one-file 5000 10000 20000 --runs 1   # one module, many reads

For each size it builds a synthetic package (modules with classes whose `__init__` sets flag
fields and bookkeeping fields, methods that read them in conditions, subclasses in other
modules, and unrelated code around them), then runs `prune-flags diff` (the seed-shaped job:
inline, fold, cascade) and, when the `find` command exists, `prune-flags find`. It reports the
median wall time of the runs and the peak resident memory of each command: ru_maxrss from wait4,
the largest of the process and the children it waited for (its -j workers), not their sum.
`--stdlib` adds a copy of the installed standard library (and site-packages) with a flag that
matches nothing: the cost of looking at a large tree for nothing.

Growth: each `diff` row after the first of its sweep shows `slope`, log(time ratio) / log(size
ratio) against the row before: about 1 for linear growth (less while fixed start-up costs
dominate), about 2 for quadratic. `--flag-counts` (or `--scale`, which means 10 100 1000) adds a
sweep over the number of flags in one run on one tree of `--flag-modules` modules; every module
reads max(2, ceil(flags / modules)) distinct flags, so every flag of the config is injected and,
while flags <= 2 x modules, the tree has the same code whatever the count, only the names differ.
`--one-file` sweeps the size of one generated module (a flag read every five lines, each read's
branch folded): the work within one file, which must grow linearly with its changes.
These are figures to read, not tests: nothing here asserts a time. Other load on the machine
skews wall times: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
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


def flags_per_module(modules: int, flags: int) -> int:
    """Enough distinct flags per module that all `flags` are read somewhere (two at least)."""
    return min(flags, max(2, math.ceil(flags / modules)))


def build_tree(root: Path, modules: int, flags: int) -> Path:
    """The synthetic package under root/pkg, a git repository at root; returns its config file."""
    package = root / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    per = flags_per_module(modules, flags)
    for index in range(modules):
        # Consecutive slots: module i reads flags i*per .. i*per+per-1 (mod flags), all distinct.
        mine = [f"flag_{(index * per + k) % flags}" for k in range(per)]
        fields = "\n".join(
            f"        self.{name} = False\n        self.aux_{name}_{index} = False" for name in mine
        )
        reads = "\n".join(
            f"            # release early when {name} is on\n"
            f"            if self.{name} and not self.aux_{name}_{index}:\n"
            f"                self.cache_{index} = x"
            for name in mine
        )
        (package / f"m{index}.py").write_text(
            MODULE.format(index=index, fields=fields, reads=reads)
        )
        if index % 2 == 0:
            sub_reads = "\n".join(
                f"        if self.{name}:\n            self.aux_{name}_{index} = len(grads) > 0"
                for name in mine
            )
            (package / f"s{index}.py").write_text(SUBCLASS.format(index=index, sub_reads=sub_reads))
    config = root / "flags.toml"
    config.write_text("[flags]\n" + "".join(f"flag_{k} = false\n" for k in range(flags)))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return config


def run_measured(command: Sequence[str], cwd: Path) -> tuple[float, int, int, str]:
    """One run: wall seconds, peak RSS in KiB (ru_maxrss of this process and the children it
    waited for), exit code and stderr."""
    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(
            status
        )  # reaped here: keep Popen from waiting again
        stderr.seek(0)
        return seconds, usage.ru_maxrss, process.returncode, stderr.read().decode(errors="replace")


@dataclass(frozen=True)
class Timing:
    seconds: float  # median wall time
    peak_mib: int  # largest peak RSS over the runs
    returncode: int  # of the last run


def timed(command: Sequence[str], cwd: Path, runs: int) -> Timing:
    """Median wall seconds over the runs and the largest peak RSS of one command."""
    times, peak, returncode = [], 0, 0
    for _ in range(runs):
        seconds, peak_kib, returncode, _ = run_measured(command, cwd)
        times.append(seconds)
        peak = max(peak, peak_kib)
    return Timing(statistics.median(times), peak // 1024, returncode)


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def slope(size: float, seconds: float, previous: tuple[float, float] | None) -> str:
    """log(time ratio) / log(size ratio) against the previous row of the sweep."""
    if previous is None or previous[0] == size or previous[1] <= 0 or seconds <= 0:
        return ""
    return f"{math.log(seconds / previous[1]) / math.log(size / previous[0]):.2f}"


def has_find() -> bool:
    probe = subprocess.run(
        [sys.executable, "-m", "prune_flags", "find", "--help"], capture_output=True
    )
    return probe.returncode == 0


@dataclass(frozen=True)
class Row:
    tree: str
    files: int
    flags: int
    command: str
    timing: Timing
    slope: str = ""


def synthetic_rows(scratch: Path, modules: int, flags: int, runs: int, find: bool) -> list[Row]:
    """`diff` (and `find`) timed on a synthetic tree built for the occasion and removed after."""
    root = Path(scratch, f"tree{modules}m{flags}f")
    config = build_tree(root, modules, flags)
    files = len(list(root.rglob("*.py")))
    prune = [sys.executable, "-m", "prune_flags"]
    timing = timed(
        [*prune, "diff", "-q", "--no-format", "--config", str(config), "pkg"], root, runs
    )
    rows = [Row(f"synthetic {modules} modules", files, flags, "diff", timing)]
    if find:
        rows.append(
            Row(
                f"synthetic {modules} modules",
                files,
                flags,
                "find",
                timed([*prune, "find", "pkg"], root, runs),
            )
        )
    shutil.rmtree(root)
    return rows


def stdlib_rows(scratch: Path, runs: int, find: bool) -> list[Row]:
    """A copy of the standard library and site-packages, with a flag that matches nothing."""
    root = Path(scratch, "stdlib")
    shutil.copytree(
        sysconfig.get_paths()["stdlib"], root / "lib", symlinks=True, ignore_dangling_symlinks=True
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    files = len(list(root.rglob("*.py")))
    prune = [sys.executable, "-m", "prune_flags"]
    command = [*prune, "diff", "-q", "--flag", "no_such_flag_anywhere=False", "lib"]
    rows = [Row("stdlib + site-packages, no match", files, 1, "diff", timed(command, root, runs))]
    if find:
        rows.append(
            Row(
                "stdlib + site-packages",
                files,
                0,
                "find",
                timed([*prune, "find", "lib"], root, runs),
            )
        )
    shutil.rmtree(root)
    return rows


def one_file_rows(scratch: Path, sizes: Sequence[int], runs: int) -> list[Row]:
    """`diff` timed on one module of each size, a flag read in every function of five lines."""
    rows: list[Row] = []
    previous: tuple[float, float] | None = None
    for size in sorted(sizes):
        root = Path(scratch, f"one{size}")
        root.mkdir()
        functions = [
            f"def f{index}(x):\n    if FAST:\n        return x + {index}\n    return x\n"
            for index in range(size // 5)
        ]
        (root / "big.py").write_text("FAST = False\n\n\n" + "\n\n".join(functions))
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        command = [sys.executable, "-m", "prune_flags", "diff", "-q", "--flag", "FAST=False", "."]
        timing = timed(command, root, runs)
        tree = f"one module, {size} lines, {size // 5} reads"
        rows.append(Row(tree, 1, 1, "diff", timing, slope(size, timing.seconds, previous)))
        previous = (size, timing.seconds)
        shutil.rmtree(root)
    return rows


def print_rows(title: str, rows: Sequence[Row]) -> None:
    print(title)
    print(
        f"{'tree':40} {'files':>6} {'flags':>6} {'command':>8} {'median s':>9} {'peak MiB':>9} "
        f"{'slope':>6}"
    )
    for row in rows:
        failed = f"  (exit {row.timing.returncode})" if row.timing.returncode not in (0, 1) else ""
        print(
            f"{row.tree:40} {row.files:>6} {row.flags:>6} {row.command:>8} "
            f"{row.timing.seconds:>9.2f}"
            f" {row.timing.peak_mib:>9} {row.slope:>6}{failed}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--modules",
        type=int,
        nargs="+",
        help="synthetic tree sizes (default 200 1000; none with --one-file alone)",
    )
    parser.add_argument(
        "--flags", type=int, default=10, help="flags in the tree-size sweep (default 10)"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="runs per command; the median is shown (default 3)"
    )
    parser.add_argument(
        "--stdlib", action="store_true", help="add the standard library and site-packages, no match"
    )
    parser.add_argument("--no-find", action="store_true", help="time only diff")
    parser.add_argument(
        "--flag-counts",
        type=int,
        nargs="+",
        help="a sweep over the flags in one run (e.g. 10 100 1000)",
    )
    parser.add_argument(
        "--flag-modules",
        type=int,
        help="modules of the flag sweep's tree (default: the largest --modules)",
    )
    parser.add_argument(
        "--scale", action="store_true", help="shorthand for --flag-counts 10 100 1000"
    )
    parser.add_argument(
        "--one-file",
        type=int,
        nargs="+",
        metavar="LINES",
        help="a sweep over the size of one module full of reads (e.g. 5000 10000 20000)",
    )
    options = parser.parse_args(argv)
    if options.modules is None:
        options.modules = [] if options.one_file else [200, 1000]
    flag_counts = options.flag_counts or ([10, 100, 1000] if options.scale else [])
    flag_modules = options.flag_modules or max(options.modules, default=200)
    find = has_find() and not options.no_find
    print(f"load average before: {load_average()}  ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        size_rows: list[Row] = []
        previous: tuple[float, float] | None = None
        for modules in sorted(options.modules):
            rows = synthetic_rows(scratch, modules, options.flags, options.runs, find)
            diff = rows[0]
            rows[0] = replace(diff, slope=slope(diff.files, diff.timing.seconds, previous))
            previous = (diff.files, diff.timing.seconds)
            size_rows += rows
        if options.stdlib:
            size_rows += stdlib_rows(scratch, options.runs, find)
        if size_rows:
            print_rows("Tree size (slope: against the previous size)", size_rows)
        if flag_counts:
            flag_rows: list[Row] = []
            previous = None
            for flags in sorted(flag_counts):
                diff = synthetic_rows(scratch, flag_modules, flags, options.runs, False)[0]
                flag_rows.append(replace(diff, slope=slope(flags, diff.timing.seconds, previous)))
                previous = (flags, diff.timing.seconds)
            print()
            print_rows("Flags in one run (slope: against the previous flag count)", flag_rows)
        if options.one_file:
            print()
            print_rows(
                "One module (slope: against the previous size)",
                one_file_rows(scratch, options.one_file, options.runs),
            )
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
