"""Time the seed job, `prune-flags diff --config codemods/manual_release_grads.toml .`, at several
revisions of prune-flags on one tree, and check that they print the same diff. Run it with the
interpreter prune-flags is installed in (its dependencies are needed; its own code comes from
each revision).

    python benchmarks/seed.py --tree ~/megatron-core --rev 8068351 --rev . --runs 10
    python benchmarks/seed.py                        # the seed fixture's before/, this checkout

Each revision is checked out into a temporary git worktree (the working tree itself
is used as it is when named `.`); its `src` is put first on PYTHONPATH of a fresh
interpreter, so every run pays the start-up a user pays. Runs alternate between revisions, so
that other load on the machine falls on each alike. The table shows the median, fastest and
slowest wall time per revision and the md5 of the diff printed: a revision that prints another
diff is flagged. The default tree is the seed fixture's before/ (the PR in one module); the real
megatron-core tree (0.16.1 source distribution) is the one the maintainers measure. Figures to
read, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
SEED_FIXTURE = REPOSITORY / "fixtures" / "core" / "megatron_4511" / "before"
RECIPE = REPOSITORY / "codemods" / "manual_release_grads.toml"


def checkout(revision: str, scratch: Path) -> Path:
    """The `src` directory of prune-flags at `revision`: this checkout's for `.`."""
    if revision == ".":
        return REPOSITORY / "src"
    destination = scratch / revision.replace("/", "_")
    subprocess.run(
        [
            "git",
            "-C",
            str(REPOSITORY),
            "worktree",
            "add",
            "-q",
            "--detach",
            str(destination),
            revision,
        ],
        check=True,
    )
    return destination / "src"


def seed_run(src: Path, tree: Path) -> tuple[float, str]:
    """One seed job in a fresh interpreter: its wall time and the md5 of the diff it printed."""
    # Bytecode is written and used, as by an installed package (this machine may turn it off).
    environment = {
        key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
    }
    environment.update(PYTHONPATH=str(src), NO_COLOR="1")
    command = [sys.executable, "-m", "prune_flags", "diff", "--config", str(RECIPE), "."]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=environment, capture_output=True)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1) or (done.returncode == 1 and not done.stdout):
        raise SystemExit(f"{src}: exit {done.returncode}\n{done.stderr.decode(errors='replace')}")
    return elapsed, hashlib.md5(done.stdout).hexdigest()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--tree",
        type=Path,
        default=SEED_FIXTURE,
        help="the tree to clean (default: the seed fixture)",
    )
    parser.add_argument(
        "--rev",
        action="append",
        help="a revision to time, repeatable; `.` is this checkout (default)",
    )
    parser.add_argument(
        "--runs", type=int, default=5, help="runs per revision; the median is shown (default 5)"
    )
    options = parser.parse_args(argv)
    revisions = options.rev or ["."]
    with tempfile.TemporaryDirectory() as scratch:
        sources = {revision: checkout(revision, Path(scratch)) for revision in revisions}
        try:
            for src in sources.values():
                seed_run(src, options.tree)  # a first run warms the file cache and writes bytecode
            times: dict[str, list[float]] = {revision: [] for revision in revisions}
            digests: dict[str, set[str]] = {revision: set() for revision in revisions}
            for _ in range(options.runs):
                for revision, src in sources.items():
                    elapsed, digest = seed_run(src, options.tree)
                    times[revision].append(elapsed)
                    digests[revision].add(digest)
        finally:
            for revision, src in sources.items():
                if revision != ".":
                    subprocess.run(
                        [
                            "git",
                            "-C",
                            str(REPOSITORY),
                            "worktree",
                            "remove",
                            "--force",
                            str(src.parent),
                        ],
                        check=False,
                    )
    print(
        f"seed job on {options.tree}, {options.runs} runs each, load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(f"{'revision':<12} {'median':>8} {'fastest':>8} {'slowest':>8}  diff md5")
    first = digests[revisions[0]]
    for revision in revisions:
        spread = times[revision]
        flag = "" if digests[revision] == first and len(first) == 1 else "  (differs)"
        print(
            f"{revision:<12} {statistics.median(spread) * 1000:>6.0f}ms "
            f"{min(spread) * 1000:>6.0f}ms "
            f"{max(spread) * 1000:>6.0f}ms  {', '.join(sorted(digests[revision]))}{flag}"
        )


if __name__ == "__main__":
    main()
