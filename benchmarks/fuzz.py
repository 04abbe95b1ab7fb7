"""Differential fuzzing at length: thousands of flag-shaped programs through `prune-flags apply`.

Each program (tests/support/flag_programs.py) runs under a driver before and after the rewrite
with its flags at their configured values; a finding is output that differs, a result that does
not compile, a flag still read, a second run that changes something, a crash, or a refusal (exit
123) the README does not document. Findings are grouped by signature (their kind and message),
counted, and the smallest few of each group are reduced to a minimal program that fails the same
way.

It runs as a module from the repository's root, where it imports the generator from the test
suite's package (tests.support), with prune-flags installed (the README's `pip install -e
'.[test]'`):

    python -m benchmarks.fuzz --examples 5000 --seed 1
    python -m benchmarks.fuzz --examples 2000 --without multiline_condition not_over_operand
    python -m benchmarks.fuzz --black     # with [tool.black] in the pyproject: black runs too
    python -m benchmarks.fuzz --idioms    # the idiom names --only and --without take

Exit status: 0 when nothing was found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

from hypothesis import HealthCheck, Phase, given, seed, settings
from tests.support.flag_programs import Finding, Program, check, idiom_names, programs, reduce


def hunt(
    examples: int,
    seed_value: int,
    only: frozenset[str] | None,
    without: frozenset[str],
    black: bool,
) -> tuple[int, dict[str, list[tuple[Program, Finding]]]]:
    """(programs run, findings by signature), every example run, none stopping the search."""
    found: dict[str, list[tuple[Program, Finding]]] = defaultdict(list)
    ran = 0
    start = time.monotonic()

    @seed(seed_value)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(programs(only=only, without=without))
    def one(program: Program) -> None:
        nonlocal ran
        ran += 1
        try:
            finding = check(program, black)
        except ValueError as error:  # a generator bug: shown with the findings, the hunt goes on
            finding = Finding(
                "generator", "generator: the program itself is invalid", str(error), ""
            )
        if finding is not None:
            found[finding.signature].append((program, finding))
        if ran % 250 == 0:
            print(
                f"  {ran} programs, {sum(map(len, found.values()))} findings, "
                f"{time.monotonic() - start:.0f} s",
                file=sys.stderr,
            )

    one()
    return ran, found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000, help="programs to generate and check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", metavar="IDIOM", help="generate only these idioms")
    parser.add_argument(
        "--without", nargs="*", default=[], metavar="IDIOM", help="leave these idioms out"
    )
    parser.add_argument(
        "--black", action="store_true", help="configure black in the programs' repository"
    )
    parser.add_argument(
        "--reduce",
        type=int,
        default=2,
        metavar="K",
        help="reduce the K smallest of each group (0: none)",
    )
    parser.add_argument("--idioms", action="store_true", help="list the idiom names and stop")
    options = parser.parse_args()
    names = idiom_names()
    if options.idioms:
        print("\n".join(names))
        return 0
    unknown = sorted((set(options.only or []) | set(options.without)) - set(names))
    if unknown:
        parser.error(f"unknown idioms: {', '.join(unknown)} (see --idioms)")
    start = time.monotonic()
    only = frozenset(options.only) if options.only else None
    ran, found = hunt(
        options.examples, options.seed, only, frozenset(options.without), options.black
    )
    total = sum(map(len, found.values()))
    print(
        f"{ran} programs, {total} findings in {len(found)} groups, {time.monotonic() - start:.0f} "
        f"s (seed {options.seed})"
    )
    for signature, members in sorted(found.items(), key=lambda item: -len(item[1])):
        print(f"\n=== {len(members)} x {signature}")
        shown: set[str] = set()
        for program, finding in sorted(members, key=lambda member: len(member[0].source))[
            : options.reduce
        ]:
            if finding.kind == "generator":
                print(finding)
                continue
            small, small_finding = reduce(program, finding, options.black)
            if small.source in shown:
                continue
            shown.add(small.source)
            print(
                f"--- reduced from {len(program.source.splitlines())} to "
                f"{len(small.source.splitlines())} lines ---"
            )
            print(small)
            print(small_finding)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
