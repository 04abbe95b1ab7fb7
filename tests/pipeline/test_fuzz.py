"""Differential fuzzing: generated flag-shaped programs behave the same after `prune-flags apply`.

The programs and the check are in tests/support/flag_programs.py; benchmarks/fuzz.py runs
thousands and groups what it finds. Here a fixed, derandomized sample runs in CI: a failing
example is reported with the program, what went wrong, and the program reduced to the few lines
that still fail. The other tests hold the fuzzer itself to account: its programs compile and run
the same twice, every idiom is drawn, the bug shapes it exists to catch are among its programs,
and its check reports each kind of wrong rewrite.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support.flag_programs import (
    HEADER,
    MAX_LINES,
    Program,
    ProgramTest,
    check,
    compile_error,
    drive,
    idiom_names,
    programs,
    reduce,
)

FUZZ = settings(
    derandomize=True,
    deadline=None,
    database=None,
    # The fuzzer reduces a failing program itself (flag_programs.reduce), far faster than
    # hypothesis shrinks these; the first failing example is the one reported.
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
)


@settings(FUZZ, max_examples=300)
@given(programs(), st.sampled_from([False, False, False, True]))
def test_pruned_programs_behave_like_the_originals(program: Program, black: bool) -> None:
    """Same results, exceptions and log under the driver; compiles cleanly; no flag read left;
    a second run changes nothing; no undocumented refusal."""
    finding = check(program, black)
    if finding is not None:
        small, small_finding = reduce(program, finding, black, budget=150)
        pytest.fail(
            f"{program}\n{finding}\n\n=== reduced ===\n{small}\n{small_finding}", pytrace=False
        )


@settings(FUZZ, max_examples=40)
@given(programs())
def test_generated_programs_are_small_valid_and_deterministic(program: Program) -> None:
    assert compile_error(program.source) is None, program
    assert program.source.count("\n") < MAX_LINES
    output = drive(program.source, program.entries, program.modules)
    assert "ran past" not in output and "import raises" not in output, output
    assert "NameError" not in output, output
    assert drive(program.source, program.entries, program.modules) == output


@functools.cache
def sample(examples: int = 300, only: frozenset[str] | None = None) -> list[Program]:
    """The programs of one derandomized run of the generator alone (of the idioms `only` names,
    or all), for the tests of its reach."""
    drawn: list[Program] = []

    @settings(FUZZ, max_examples=examples)
    @given(programs(only))
    def collect(program: Program) -> None:
        drawn.append(program)

    collect()
    return drawn


# The statement shapes every program drawn with `only=` needs around the idiom it is about.
AROUND = frozenset({"if_elif_else", "early_return", "flag_read"})


def test_every_idiom_is_drawn() -> None:
    """Each idiom is drawn among all the others, or, if the mix's draws of a rare one happen to
    miss it, among the plain shapes alone (each draw of the mix moves every later one)."""
    drawn = set().union(*(program.idioms for program in sample(examples=1000)))
    for name in sorted(set(idiom_names()) - drawn):
        drawn |= set().union(*(program.idioms for program in sample(200, AROUND | {name})))
    assert sorted(set(idiom_names()) - drawn) == []


def _flag_name(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "FAST") or (
        isinstance(node, ast.Attribute) and node.attr in ("fast", "legacy")
    )


def _not_over_flag_or_and(tree: ast.AST) -> bool:
    """`not (FAST or x > 1 and not f())`: the shape of the precedence bug."""
    return any(
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.Not)
        and isinstance(node.operand, ast.BoolOp)
        and isinstance(node.operand.op, ast.Or)
        and _flag_name(node.operand.values[0])
        and isinstance(node.operand.values[1], ast.BoolOp)
        for node in ast.walk(tree)
    )


def _multiline_chain_ending_in_flag(tree: ast.AST) -> bool:
    """`if (a() and\\n not b and\\n not FAST):`: the shape of the unparsable output."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.BoolOp)
            and node.test.end_lineno != node.lineno
        ):
            last = node.test.values[-1]
            last = last.operand if isinstance(last, ast.UnaryOp) else last
            if _flag_name(last):
                return True
    return False


def _one_local_name_in_two_functions(tree: ast.AST) -> bool:
    """Two functions each assigning a local of one name: where one loses its last read, the
    other's reads are not its own (a dead local kept, or a local read elsewhere deleted)."""
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    assigned = [
        {
            target.id
            for statement in ast.walk(function)
            if isinstance(statement, ast.Assign)
            for target in statement.targets
            if isinstance(target, ast.Name)
        }
        for function in functions
    ]
    return any(
        first & second for index, first in enumerate(assigned) for second in assigned[index + 1 :]
    )


@pytest.mark.parametrize(
    "shape",
    [_not_over_flag_or_and, _multiline_chain_ending_in_flag, _one_local_name_in_two_functions],
)
def test_the_generator_writes_the_known_bug_shapes(shape) -> None:
    """The fuzzer would find these bugs again if they came back: its programs hold their shapes."""
    assert any(shape(ast.parse(program.source)) for program in sample())


# -- the check reports every kind of wrong rewrite --------------------------------------------
PRECEDENCE = Program(
    HEADER + "\n\nFAST = False\n\n\ndef entry0(x):\n"
    "    if not (FAST or x > 1 and not log('t1', x)):\n        return 1\n    return 2\n\n\n"
    "__all__ = ['LOG', 'entry0', 'log']\n",
    {"FAST": False},
    ("entry0",),
)


def _writes(text: str | None, code: int = 0, stderr: str = ""):
    """A stand-in for `prune-flags apply` that writes `text` on its first run and nothing after."""
    runs = []

    def rewrite(directory: Path) -> tuple[int, str, str | None]:
        if text is not None and not runs:
            (directory / "program.py").write_text(text)
        runs.append(directory)
        return code, stderr, None

    return rewrite


@pytest.mark.parametrize(
    ("after", "code", "stderr", "kind"),
    [
        # the precedence bug itself: `not x > 1 and not f()` for `not (x > 1 and not f())`
        (
            PRECEDENCE.source.replace("FAST = False\n", "").replace(
                "not (FAST or x > 1 and not log('t1', x))", "not x > 1 and not log('t1', x)"
            ),
            0,
            "",
            "output-differs",
        ),
        # the lost parentheses of a multi-line chain: its newline is outside any bracket
        (
            PRECEDENCE.source.replace(
                "(FAST or x > 1 and not log('t1', x))", "x > 1 and\n            not log('t1', x)"
            ),
            0,
            "",
            "does-not-compile",
        ),
        (PRECEDENCE.source, 0, "", "flag-remains"),
        (None, 123, "prune-flags: skipped program.py: internal error: boom\n", "refused"),
    ],
    ids=["output-differs", "does-not-compile", "flag-remains", "refused"],
)
def test_the_check_reports_a_wrong_rewrite(
    after: str | None, code: int, stderr: str, kind: str
) -> None:
    finding = check(PRECEDENCE, rewrite=_writes(after, code, stderr))
    assert finding is not None and finding.kind == kind, finding


def test_the_check_reports_a_second_run_that_changes_something() -> None:
    right = PRECEDENCE.source.replace("FAST = False\n", "").replace(
        "not (FAST or x > 1 and not log('t1', x))", "not (x > 1 and not log('t1', x))"
    )
    runs = []

    def rewrite(directory: Path) -> tuple[int, str, str | None]:
        runs.append(directory)
        (directory / "program.py").write_text(right + "\n" * len(runs))
        return 0, "", None

    finding = check(PRECEDENCE, rewrite=rewrite)
    assert finding is not None and finding.kind == "not-idempotent", finding


def test_the_check_passes_a_right_rewrite() -> None:
    right = PRECEDENCE.source.replace("FAST = False\n", "").replace(
        "not (FAST or x > 1 and not log('t1', x))", "not (x > 1 and not log('t1', x))"
    )
    assert check(PRECEDENCE, rewrite=_writes(right)) is None


def test_a_documented_refusal_is_not_a_finding() -> None:
    stderr = "prune-flags: FAST: not pruned: it is given another value at program.py:9\n"
    assert check(PRECEDENCE, rewrite=_writes(None, 123, stderr)) is None


def test_the_fuzzer_finds_the_precedence_bug_when_it_is_reintroduced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With replacements no longer parenthesised for their place (the precedence bug:
    `not (FAST or x > 1 and f())` became `not x > 1 and f()`), the generator's programs find it."""
    from prune_flags.rewrite.editors import expressions as parens

    monkeypatch.setattr(parens, "required_level", lambda parent, field: parens.Level.TUPLE)
    # The programs of the bug's shape in a sample of the idioms that draw it, up to the first that
    # finds it. (Over every idiom, the more the generator has, the rarer a program that also
    # reaches it: 11 of 1000 with the container idiom, none finding it; 44 of these 200.)
    idioms = frozenset({"negated_mixed_chain", "value_assignment", "logged_call", "flag_read"})
    shaped = (
        program
        for program in sample(examples=200, only=idioms)
        if _not_over_flag_or_and(ast.parse(program.source))
    )
    findings = (check(program) for program in shaped)
    assert any(finding is not None and finding.kind == "output-differs" for finding in findings)


# A test pinning FAST = True (it goes), and one setting it only around its second call (the `with`
# goes, the test stays and runs at the configured value).
WITH_TESTS = replace(
    PRECEDENCE,
    tests=(
        ProgramTest("test_0", ("program.entry0(1)",), ("decorator", "FAST", True)),
        ProgramTest(
            "test_1", ("program.entry0(0)", "program.entry0(2)"), ("partial", "FAST", True)
        ),
    ),
)
RIGHT = PRECEDENCE.source.replace("FAST = False\n", "").replace(
    "not (FAST or x > 1 and not log('t1', x))", "not (x > 1 and not log('t1', x))"
)
RIGHT_TESTS = (
    "import program\n\nRESULTS = []\n\n\n"
    "def test_1():\n    RESULTS.append(program.entry0(0))\n    RESULTS.append(program.entry0(2))\n"
)


def _writes_both(tests: str):
    """A stand-in for `prune-flags apply` that writes the right program and `tests` as its test
    module."""

    def rewrite(directory: Path) -> tuple[int, str, str | None]:
        (directory / "program.py").write_text(RIGHT)
        (directory / "tests" / "test_program.py").write_text(tests)
        return 0, "", None

    return rewrite


def test_the_check_passes_a_right_rewrite_of_the_tests() -> None:
    assert check(WITH_TESTS, rewrite=_writes_both(RIGHT_TESTS)) is None


@pytest.mark.parametrize(
    ("tests", "kind"),
    [
        (WITH_TESTS.test_source(), "tests-differ"),  # the pinning test is still there
        (
            WITH_TESTS.test_source().replace(WITH_TESTS.tests[0].lines()[0], ""),
            "tests-differ",
        ),  # the decorator went alone
        (
            RIGHT_TESTS.replace(
                "RESULTS.append(program.entry0(2))",
                'with mock.patch("program.FAST", True):\n        RESULTS.append(program.entry0(2))',
            ),
            "output-differs",
        ),
        (RIGHT_TESTS + "(", "does-not-compile"),
    ],
    ids=["kept", "decorator-only", "mock-left", "broken"],
)
def test_the_check_reports_a_wrong_rewrite_of_the_tests(tests: str, kind: str) -> None:
    finding = check(WITH_TESTS, rewrite=_writes_both(tests))
    assert finding is not None and finding.kind == kind, finding
