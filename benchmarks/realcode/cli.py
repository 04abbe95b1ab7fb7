"""Command line of the real-code harness: which projects, which checks, where the results go."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from .config import ConfigError, Project, load

if TYPE_CHECKING:
    from .run import Options, ProjectRun

REPOSITORY = Path(__file__).resolve().parents[2]
PROJECTS = REPOSITORY / "benchmarks" / "realcode.toml"
WORKDIR = Path("~/.cache/prune-flags-realcode").expanduser()
REQUIREMENTS = "benchmarks/realcode/requirements.txt"


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.realcode",
        description="Prune flags in pinned real projects and check what the rewrite broke.",
    )
    parser.add_argument("--projects", type=Path, default=PROJECTS, help="the project list (TOML)")
    parser.add_argument("--only", action="append", default=[], metavar="PROJECT")
    parser.add_argument("--no-find", action="store_true", help="the named flags only")
    parser.add_argument("--max-find", type=int, metavar="N", help="find's proposals per project")
    parser.add_argument("--no-imports", action="store_true", help="no venvs, no import checks")
    parser.add_argument("--no-tests", action="store_true", help="run no test suite")
    parser.add_argument("--src", type=Path, default=REPOSITORY / "src", help="prune_flags source")
    parser.add_argument("--workdir", type=Path, default=WORKDIR)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="projects run in parallel")
    parser.add_argument("--list", action="store_true", help="list the projects and their flags")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    try:
        settings = load(args.projects)
    except ConfigError as error:
        print(f"realcode: error: {error}", file=sys.stderr)
        return 2
    projects = list(settings.projects)
    unknown = sorted(set(args.only) - {p.name for p in projects})
    if unknown:
        print(f"realcode: error: no such project: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.only:
        projects = [p for p in projects if p.name in args.only]
    if args.list:
        print(listing(projects))
        return 0
    try:
        from . import report
        from .run import Options
    except ImportError as error:  # pyflakes: the harness's own requirement
        print(f"realcode: error: {error}; pip install -r {REQUIREMENTS}", file=sys.stderr)
        return 2
    if not (args.src / "prune_flags").is_dir():
        print(f"realcode: error: {args.src} holds no prune_flags package", file=sys.stderr)
        return 2
    options = Options(
        workdir=args.workdir.expanduser().resolve(),
        src=args.src.resolve(),
        find=not args.no_find,
        max_find=settings.max_find if args.max_find is None else args.max_find,
        imports=not args.no_imports,
        tests=not args.no_tests,
    )
    started = time.monotonic()
    results = run_all(projects, options, max(1, args.jobs))
    seconds = time.monotonic() - started
    print()
    print(report.table(results))
    print()
    print(report.details(results))
    found = report.failures(results)
    runs = sum(len(result.flags) for result in results)
    print(f"\n{runs} runs over {len(results)} projects, {found} failures, {seconds:.0f} s")
    if args.json is not None:
        report.write_json(args.json, results, seconds)
    broken = any(result.error for result in results)
    return 1 if found or broken else 0


def run_all(projects: list[Project], options: Options, jobs: int) -> list[ProjectRun]:
    from .run import run_project

    lock = threading.Lock()

    def log(line: str) -> None:
        with lock:
            print(f"realcode: {line}", file=sys.stderr, flush=True)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda project: run_project(project, options, log), projects))


def listing(projects: list[Project]) -> str:
    lines = []
    for project in projects:
        tests = "" if project.tests is None else f"  [tests: pytest {' '.join(project.tests)}]"
        lines.append(f"{project.slug}{tests}  {project.why}".rstrip())
        for flag in project.flags:
            lines.append(f"    {flag.label}  {flag.note}".rstrip())
    return "\n".join(lines)
