"""Corpus run: the installed standard library and site-packages, copied to a temporary directory,
pruned with `prune-flags apply`.

With the default flag, whose name occurs in no file, not one byte may change. With --flag
NAME=VALUE for names that do occur, every changed file must still compile and a second run must
change nothing. Prints the files, the skipped files, the changes and the time.

    python benchmarks/corpus.py                      # the whole corpus, a flag that matches nothing
    python benchmarks/corpus.py --limit 2000         # an evenly spread sample of 2000 files
    python benchmarks/corpus.py --flag TYPE_CHECKING=False --limit 500

Exit status: 0 when the checks hold, 1 when they do not.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

NO_MATCH = "zz_prune_flags_corpus_no_such_flag"


def corpus_roots() -> list[Path]:
    """The standard library and every site-packages directory, each once."""
    roots = [Path(sysconfig.get_paths()["stdlib"]), *map(Path, site.getsitepackages())]
    seen: list[Path] = []
    for root in roots:
        root = root.resolve()
        if root.is_dir() and root not in seen:
            seen.append(root)
    return seen


def python_files(roots: list[Path]) -> list[tuple[Path, str]]:
    """(source, destination relative path) of every regular .py file; nested roots are not walked
    twice."""
    found: list[tuple[Path, str]] = []
    for index, root in enumerate(roots):
        others = [other for other in roots if other != root and root in other.parents]
        for directory, subdirectories, names in os.walk(root):
            here = Path(directory)
            subdirectories[:] = sorted(
                d for d in subdirectories if here / d not in others and d != "__pycache__"
            )
            for name in sorted(names):
                path = here / name
                if name.endswith(".py") and path.is_file() and not path.is_symlink():
                    found.append(
                        (path, f"root{index}-{root.name}/{path.relative_to(root).as_posix()}")
                    )
    return found


def sample(files: list[tuple[Path, str]], limit: int | None) -> list[tuple[Path, str]]:
    if limit is None or limit >= len(files):
        return files
    step = len(files) / limit
    return [files[int(i * step)] for i in range(limit)]


def digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def prune_flags(command: str, root: Path, flags: list[str]) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "prune_flags", command, "--no-format", "--no-color"]
    for flag in flags:
        args += ["--flag", flag]
    return subprocess.run([*args, "."], cwd=root, capture_output=True, text=True)


def run(flags: list[str], limit: int | None, keep: bool = False, out=sys.stdout) -> int:
    """The whole corpus run; returns the exit status (0: the checks held)."""
    say = lambda *parts: print(*parts, file=out, flush=True)  # noqa: E731
    workdir = Path(tempfile.mkdtemp(prefix="prune-flags-corpus-"))
    try:
        root = workdir / "corpus"
        (root / ".git").mkdir(parents=True)
        files = sample(python_files(corpus_roots()), limit)
        started = time.perf_counter()
        for source, relative in files:
            destination = root / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
        say(
            f"corpus: {len(files)} files, "
            f"{sum((root / r).stat().st_size for _, r in files)} bytes, "
            f"copied in {time.perf_counter() - started:.1f}s to {root}"
        )
        before = digest(root)

        started = time.perf_counter()
        applied = prune_flags("apply", root, flags)
        took = time.perf_counter() - started
        after = digest(root)
        changed = sorted(name for name in before if after.get(name) != before[name])
        added = sorted(set(after) - set(before))
        skipped = [
            line for line in applied.stderr.splitlines() if line.startswith("prune-flags: skipped ")
        ]
        errors = [
            line for line in applied.stderr.splitlines() if "Traceback" in line or "error:" in line
        ]
        say(
            f"apply {' '.join(flags)}: exit {applied.returncode}, {took:.1f}s, "
            f"{len(files) / took:.0f} files/s"
        )
        say(f"  {len(changed)} files changed, {len(added)} files added, {len(skipped)} skipped")
        summary = applied.stderr.strip()
        say(f"  {summary.splitlines()[-1] if summary else '(no summary)'}")
        for line in skipped[:10]:
            say(f"  {line}")
        if len(skipped) > 10:
            say(f"  ... {len(skipped) - 10} more skipped")

        problems: list[str] = []
        if applied.returncode not in (0, 123) or errors:
            problems.append(f"apply failed: exit {applied.returncode}: {applied.stderr[-2000:]}")
        if added:
            problems.append(f"files appeared: {added[:5]}")
        if flags == [f"{NO_MATCH}=False"]:
            if changed:
                problems.append(
                    f"a flag that matches nothing changed {len(changed)} files: {changed[:5]}"
                )
        else:
            for name in changed:
                try:
                    compile((root / name).read_bytes(), name, "exec", dont_inherit=True)
                except SyntaxError as err:
                    problems.append(f"{name} no longer compiles: {err}")
            started = time.perf_counter()
            again = prune_flags("diff", root, flags)
            diffs = again.stdout.count(chr(10) + "diff --git") + again.stdout.startswith(
                "diff --git"
            )
            say(
                f"second run (diff): exit {again.returncode}, "
                f"{time.perf_counter() - started:.1f}s, {diffs} files would change"
            )
            if again.stdout:
                problems.append(f"a second run changes more:\n{again.stdout[:3000]}")
        for problem in problems:
            say(f"PROBLEM: {problem}")
        say("ok" if not problems else f"{len(problems)} problems")
        return 1 if problems else 0
    finally:
        if keep:
            print(f"kept {workdir}", file=out)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--flag", action="append", help="NAME=VALUE (repeatable); default: a name no file has"
    )
    parser.add_argument("--limit", type=int, help="an evenly spread sample of this many files")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    options = parser.parse_args()
    return run(options.flag or [f"{NO_MATCH}=False"], options.limit, options.keep)


if __name__ == "__main__":
    sys.exit(main())
