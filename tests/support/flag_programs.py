"""Flag-shaped programs for the differential fuzzer, and the check that runs one through
prune-flags.

`programs()` is a hypothesis strategy for small (about 15 to 40 lines), valid, deterministic
modules around up to three flags: a module constant `FAST`, an instance field `self.fast` set in
`__init__`, and a class attribute `legacy` read as `self.legacy` and `Node.legacy`. Each code shape
is one strategy below, registered under its name in EXPRESSIONS or STATEMENTS (`@expression_idiom`,
`@statement_idiom`); adding an idiom is writing one more such function. A program may import
modules written beside it (`Program.modules`: the two stages of tests/support/overlays.py).
`only=`/`without=` pick idioms by name, so a hunt can leave out the shapes whose bugs are
already known.

A program may come with a test module (tests/test_program.py, the `test_double` idiom): tests
calling its entry points, most under a `mock.patch` of a flag (`mock.patch.dict(os.environ, ...)`
for the environment variable of the `environment_flag` idiom; a decorator or a `with` around the
whole test, or around its later calls), at the configured value or another.

Every call with a side effect goes through `log(tag, value)`, which appends to `LOG` and returns
its value, so short-circuit evaluation shows in the log. Loops are bounded by counters, nothing
recurses, and the driver catches every exception into its output, so the same program always
prints the same thing.

`check(program)` writes the program into a temporary repository whose pyproject.toml holds the
flags at their values, runs `prune-flags apply` in-process, and returns a `Finding` when the result
does not compile (or warns), prints something else under the driver, still reads a flag, changes
again on a second run, or was refused (exit 123) for a reason not in `DOCUMENTED_REFUSALS`; with a
test module, also when the tests deleted are not those that pin another value, or a test left
does not do what it does without its mocks at the configured values (`tests_finding`).
`reduce(program, finding)` shrinks a failing program, statement by statement and operand by
operand, to a small one that fails the same way.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import signal
import sys
import tempfile
import threading
import traceback
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import libcst as cst
from hypothesis import assume
from hypothesis import strategies as st
from typer.testing import CliRunner

from prune_flags.cli import app
from prune_flags.syntax.values import same_value
from tests.support import overlays

# -- the flags -----------------------------------------------------------------------------------
VALUES: tuple[object, ...] = (False, True, None, 0, 1, 2, "", "x")
MODULE_FLAG = "FAST"  # FAST = <value> at module level, read as FAST
FIELD_FLAG = "fast"  # self.fast = <value> in Node.__init__, read as self.fast in methods
CLASS_FLAG = "legacy"  # legacy = <value> in Node's body, read as self.legacy and Node.legacy
# A parameter of a chain of helpers, `def _deep1(x, deep=<value>)` handing it to `_deep2`, with
# any defaults (or none): only where the idiom flag_parameter_call draws a call of the chain.
PARAM_FLAG = "deep"
INPUTS = (0, 1, 2, 3)  # every entry point is called with each
RUN_SECONDS = 5  # a program (before or after) that runs longer is a finding: the driver never loops
LOG_LIMIT = 10_000  # log entries: more is a runaway loop
APPLY_SECONDS = 60  # a rewrite that takes longer is a finding (a program is under 40 lines)

# Precedence levels, lowest binding first, as Python's grammar orders them.
TERNARY, OR, AND, NOT, COMPARE, ADD, MULTIPLY, UNARY, ATOM = range(1, 10)


@dataclass(frozen=True)
class Expr:
    """Expression source and the precedence of its outermost operator."""

    text: str
    level: int

    def at(self, level: int) -> str:
        """The source, parenthesised if it binds less tightly than `level` requires."""
        return f"({self.text})" if self.level < level else self.text


@dataclass(frozen=True)
class Where:
    """Where the code being drawn goes: what it may read and which statements are legal there."""

    method: bool  # inside a Node method: `self` is there
    loop: bool  # inside a while loop: break and continue are legal
    depth: int  # statement nesting


class Builder:
    """What one program's drawing accumulates: the flags it has, unique tags, fields to declare,
    and the idioms used (a finding's program says which shapes it is made of)."""

    def __init__(self, flags: dict[str, object], enabled: frozenset[str]) -> None:
        self.flags = flags
        self.enabled = enabled
        self.count = 0
        self.fields: list[str] = []  # bookkeeping fields, declared `self.<name> = 0` in __init__
        self.helpers: list[str] = (
            []
        )  # module-level functions the statements call (a chain of PARAM_FLAG)
        self.folding: list[str] = (
            []
        )  # module-level functions that fold to a constant (folded_helper_call)
        self.idioms: set[str] = set()

    def tag(self, prefix: str = "t") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def flag_reads(self, where: Where) -> list[str]:
        reads = []
        if MODULE_FLAG in self.flags:
            reads.append(MODULE_FLAG)
        if FIELD_FLAG in self.flags and where.method:
            reads.append(f"self.{FIELD_FLAG}")
        if CLASS_FLAG in self.flags:
            reads += [f"self.{CLASS_FLAG}"] if where.method else []
            reads.append(f"Node.{CLASS_FLAG}")
        return reads


# The comment marking the module flag's definition inside a `try` (the guarded_definition idiom),
# which Program.decided gives the configured value too.
GUARDED = "  # guarded"
# The consumed_definition idiom's lookup: the module flag's definition takes its entry out of a
# table, which Program.decided keeps doing.
CONSUMED = "TABLE.pop"
# Where each flag is defined: its definition line starts so (module constant, field, class
# attribute).
DEFINITIONS: dict[str, str] = {MODULE_FLAG: f"{MODULE_FLAG} = ",
                               FIELD_FLAG: f"        self.{FIELD_FLAG} = ",
                               CLASS_FLAG: f"    {CLASS_FLAG} = "}  # fmt: skip


@dataclass(frozen=True)
class ProgramTest:
    """A test of the program in its test module (tests/test_program.py): calls of entry points,
    each result kept in RESULTS, maybe under a mock setting a flag (`double`: how, flag, value):
    a decorator or a `with` around the whole body, which pin the value for the whole test, or a
    `with` around the calls after the first ("partial")."""

    name: str
    calls: tuple[str, ...]  # `program.entry0(1)`, `program.Node().run0(2)`
    # Or "config": the calls run on a Node made first with settings giving the field a value
    # (`program.Node({"fast": True})`, of the computed_definition idiom), which pins it.
    double: tuple[str, str, object] | None = None

    def lines(self, doubles: bool = True) -> list[str]:
        body = [f"RESULTS.append({call})" for call in self.calls]
        if self.double is None or not doubles:
            return [f"def {self.name}():", *(f"    {line}" for line in body)]
        how, flag, value = self.double
        if how == "config":  # the settings the Node is made with give the field a value
            made = f"    node = program.Node({{{flag!r}: {value!r}}})"
            calls = (f"    {line.replace('program.Node()', 'node')}" for line in body)
            return [f"def {self.name}():", made, *calls]
        target = (
            f'mock.patch("program.{flag}", {value!r})'
            if flag == MODULE_FLAG
            else (
                f'mock.patch.dict(os.environ, {{"{flag}": {value!r}}})'
                if flag in (ENV_FLAG, ENV_COMPUTED)
                else f'mock.patch.object(program.Node, "{flag}", {value!r})'
            )
        )
        if how == "decorator":
            return [f"@{target}", f"def {self.name}():", *(f"    {line}" for line in body)]
        first = [f"    {body[0]}"] if how == "partial" else []
        rest = body[1:] if how == "partial" else body
        return [
            f"def {self.name}():",
            *first,
            f"    with {target}:",
            *(f"        {line}" for line in rest),
        ]

    def pins_another_value(self, flags: dict[str, object]) -> bool:
        """Whether it exists only to exercise another value than the configured one: the tool
        deletes it (README: Tests)."""
        if self.double is None or self.double[0] == "partial":
            return False
        how, flag, value = self.double
        given = environment_setting(str(value)) if flag == ENV_COMPUTED else value
        return not same_value(given, flags[flag])


TEST_HEADER = "import os\nfrom unittest import mock\n\nimport program\n\nRESULTS = []\n"


@dataclass(frozen=True)
class Program:
    source: str
    flags: dict[str, object]  # name -> the value it is fixed at
    entries: tuple[str, ...]  # "entry0" (a function) or "Node.run0" (a method, on a fresh Node)
    idioms: frozenset[str] = frozenset()
    tests: tuple[ProgramTest, ...] = ()  # the test module's, if it has one
    # Flags the config names by a qualified key (`"program.Node.fast"`): an unrelated class TWIN
    # carries the same name with another value, which the rewrite must leave alone.
    scoped: frozenset[str] = frozenset()
    modules: overlays.Modules = ()  # the modules beside it it imports (settings_overlay)

    def __str__(self) -> str:
        flags = ", ".join(f"{name}={value!r}" for name, value in self.flags.items())
        tests = f"\n# --- tests/test_program.py ---\n{self.test_source()}" if self.tests else ""
        modules = overlays.shown(self.modules)
        return (
            f"# flags: {flags}; entries: {', '.join(self.entries)}\n{self.source}{modules}{tests}"
        )

    def test_source(self, doubles: bool = True) -> str:
        """The test module; without its mocks, what the tests do at the configured values."""
        lines = [TEST_HEADER]
        for test in self.tests:
            lines += ["", "", *test.lines(doubles)]
        return "\n".join(lines) + "\n"

    @property
    def decided(self) -> str:
        """The program as its config decides it: each flag's definition holds the value the flag
        is fixed at (a stale definition, one holding the old value, is what the config overrides),
        and for a flag parameter, every default and every call passes it (see PASSED_VALUES).
        The rewrite must behave as this does."""
        lines = self.source.split("\n")
        for index, line in enumerate(lines):
            if line == f"class {TWIN}:":
                break  # the twin's same-named attribute is another variable: it keeps its value
            for name, start in DEFINITIONS.items():
                if name in self.flags and line.startswith(start):
                    comment = line.partition("  #")[2]
                    value = repr(self.flags[name])
                    if CONSUMED in line:  # what it takes out stays taken
                        value = f"({line[len(start):]}, {value})[1]"
                    lines[index] = f"{start}{value}" + (f"  #{comment}" if comment else "")
            if MODULE_FLAG in self.flags and line.endswith(GUARDED):
                lines[index] = f"    {MODULE_FLAG} = {self.flags[MODULE_FLAG]!r}{GUARDED}"
            if PARAM_FLAG in self.flags:
                configured = repr(self.flags[PARAM_FLAG])
                lines[index] = PASSED_VALUES.sub(
                    lambda m, configured=configured: m[1] + configured, lines[index]
                )
            if MODULE_FLAG in self.flags:  # a setter's value is the config's too (setter_with)
                configured = repr(self.flags[MODULE_FLAG])
                lines[index] = SETTER_VALUES.sub(
                    lambda m, configured=configured: m[1] + configured, lines[index]
                )
        if FORCE_FLAG in self.flags:  # the default holds the configured value
            forced = f"def __init__(self, {FORCE_FLAG}=None):"
            lines = [
                line.replace(
                    forced, f"def __init__(self, {FORCE_FLAG}={self.flags[FORCE_FLAG]!r}):"
                )
                for line in lines
            ]
        if LOCAL_FLAG in self.flags:  # (after the twin, which ends the loop above)
            start = f"    {LOCAL_FLAG} = "
            lines = [
                f"{start}{self.flags[LOCAL_FLAG]!r}" if line.startswith(start) else line
                for line in lines
            ]
        if ENV_COMPUTED in self.flags:
            definition = f"{ENV_COMPUTED} = {ENV_COMPUTED_READ}"
            lines[lines.index(definition)] = f"{ENV_COMPUTED} = {self.flags[ENV_COMPUTED]!r}"
        if ENV_FLAG in self.flags:  # (the tool never sees this program: no write of the flag)
            value = self.flags[ENV_FLAG]
            lines.insert(
                0,
                (
                    f'__import__("os").environ.pop("{ENV_FLAG}", None)'
                    if value is None
                    else f'__import__("os").environ["{ENV_FLAG}"] = {value!r}'
                ),
            )
        return "\n".join(lines)


# Where the chain's flag parameter is given a value: a default or keyword `deep=<literal>`, the
# last positional argument of `_deep1(x, <literal>)`, or the flag's place in `_make(_Made, x, ...)`.
_LITERALS = "|".join(re.escape(repr(value)) for value in VALUES)
PASSED_VALUES = re.compile(
    rf"(\b{PARAM_FLAG}=|\b_deep1\(x, |\b_make\((?:_Made|_Kind), x, )(?:{_LITERALS})(?=[,)])"
)


# -- the idiom registries ------------------------------------------------------------------------
Strategy = Callable[..., st.SearchStrategy[Any]]
# name -> (strategy(builder, where, depth), whether it draws sub-expressions)
EXPRESSIONS: dict[str, tuple[Strategy, bool]] = {}
# name -> (strategy(builder, where, pad), where it is legal)
STATEMENTS: dict[str, tuple[Strategy, Callable[[Where], bool]]] = {}


def expression_idiom(compound: bool) -> Callable[[Strategy], Strategy]:
    """Register an expression shape; compound ones draw sub-expressions, down to
    MAX_EXPRESSION_DEPTH."""

    def register(function: Strategy) -> Strategy:
        composite = st.composite(function)
        EXPRESSIONS[function.__name__] = (composite, compound)
        return composite

    return register


def statement_idiom(
    legal: Callable[[Where], bool] = lambda where: True,
) -> Callable[[Strategy], Strategy]:
    """Register a statement shape, drawn only where `legal(where)` holds."""

    def register(function: Strategy) -> Strategy:
        composite = st.composite(function)
        STATEMENTS[function.__name__] = (composite, legal)
        return composite

    return register


MAX_EXPRESSION_DEPTH = 3
MAX_STATEMENT_DEPTH = 2


@st.composite
def expressions(draw, builder: Builder, where: Where, depth: int = 0) -> Expr:
    """Any registered expression shape; flag reads weigh more so that most programs read flags."""
    names = [
        name
        for name, (_, compound) in EXPRESSIONS.items()
        if name in builder.enabled and (depth < MAX_EXPRESSION_DEPTH or not compound)
    ]
    if "flag_read" in names:
        names += ["flag_read"] * (2 + depth)  # and the deeper, the likelier a leaf
    name = draw(st.sampled_from(names))
    builder.idioms.add(name)
    return draw(EXPRESSIONS[name][0](builder, where, depth))


def sub(draw, builder: Builder, where: Where, depth: int) -> Expr:
    return draw(expressions(builder, where, depth + 1))


# -- expression idioms: leaves first (hypothesis shrinks toward the first) ---------------------
@expression_idiom(compound=False)
def flag_read(draw, builder: Builder, where: Where, depth: int) -> Expr:
    reads = builder.flag_reads(where)
    return Expr(draw(st.sampled_from(reads)) if reads else "x", ATOM)


# The accessor templates a program that reads the module flag by name declares (template_read).
ACCESSORS = ("globals()[{name}]", "globals().get({name}, ...)")


@expression_idiom(compound=False)
def template_read(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """The module flag read by its name through an accessor template the config declares
    (README: Accessor templates): `globals()["FAST"]`, `globals().get("FAST", 0)`."""
    if MODULE_FLAG not in builder.flags:
        return Expr("x", ATOM)
    name = repr(MODULE_FLAG)
    return Expr(
        draw(
            st.sampled_from(
                [f"globals()[{name}]", f"globals().get({name})", f"globals().get({name}, 0)"]
            )
        ),
        ATOM,
    )


@expression_idiom(compound=False)
def parameter_test(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """A condition that is not a flag: the parameter, or a comparison of it."""
    text = draw(st.sampled_from(["x", "x > 1", "x == 0", "x < 2", "x != 3"]))
    return Expr(text, ATOM if text == "x" else COMPARE)


@expression_idiom(compound=False)
def logged_call(draw, builder: Builder, where: Where, depth: int) -> Expr:
    argument = draw(st.sampled_from(["", ", False", ", x", ", x > 1", ", 0"]))
    return Expr(f"log({builder.tag()!r}{argument})", ATOM)


@expression_idiom(compound=False)
def flag_comparison(draw, builder: Builder, where: Where, depth: int) -> Expr:
    read = draw(flag_read(builder, where, depth)).text
    other = draw(st.sampled_from(VALUES))
    shape = draw(
        st.sampled_from(
            ["== {v}", "!= {v}", "is None", "is not None", "in ({v}, None)", "not in ({v},)"]
        )
    )
    return Expr(f"{read} {shape.format(v=repr(other))}", COMPARE)


@expression_idiom(compound=True)
def not_over_operand(draw, builder: Builder, where: Where, depth: int) -> Expr:
    return Expr(f"not {sub(draw, builder, where, depth).at(NOT)}", NOT)


@expression_idiom(compound=True)
def and_over_operands(draw, builder: Builder, where: Where, depth: int) -> Expr:
    left, right = sub(draw, builder, where, depth), sub(draw, builder, where, depth)
    return Expr(f"{left.at(AND)} and {right.at(AND + 1)}", AND)


@expression_idiom(compound=True)
def or_over_operands(draw, builder: Builder, where: Where, depth: int) -> Expr:
    left, right = sub(draw, builder, where, depth), sub(draw, builder, where, depth)
    return Expr(f"{left.at(OR)} or {right.at(OR + 1)}", OR)


@expression_idiom(compound=True)
def all_or_any_display(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`all([FAST, x > 1])`, `any((log(...), not self.fast))`: a builtin over a literal list or
    tuple of operands, flags among them; the display runs every element before the call."""
    elements = [sub(draw, builder, where, depth).text for _ in range(draw(st.integers(1, 3)))]
    if draw(st.booleans()):
        elements.insert(
            draw(st.integers(0, len(elements))), draw(flag_read(builder, where, depth)).text
        )
    name = draw(st.sampled_from(["all", "any"]))
    opening, closing = draw(st.sampled_from([("[", "]"), ("(", ",)")]))
    return Expr(f"{name}({opening}{', '.join(elements)}{closing})", ATOM)


@st.composite
def plain_condition(draw, builder: Builder, where: Where) -> Expr:
    """A condition that is not a flag: a parameter test or a logged call, maybe negated."""
    leaf = draw(st.sampled_from([parameter_test, logged_call]))(
        builder, where, MAX_EXPRESSION_DEPTH
    )
    operand = draw(leaf)
    return Expr(f"not {operand.at(NOT)}", NOT) if draw(st.booleans()) else operand


@expression_idiom(compound=True)
def flag_with_condition(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`FAST or x > 1`, `self.fast and not log(...)`: a flag guarding an ordinary condition, the
    commonest flag shape; the idioms that wrap an operand put it under `not`, `*`, `.attr`..."""
    read = draw(flag_read(builder, where, depth))
    condition = draw(plain_condition(builder, where))
    operator, level = draw(st.sampled_from([("or", OR), ("and", AND)]))
    if draw(st.booleans()):
        return Expr(f"{read.text} {operator} {condition.at(level + 1)}", level)
    return Expr(f"{condition.at(level)} {operator} {read.text}", level)


@expression_idiom(compound=True)
def negated_mixed_chain(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`not (FAST or x > 1 and not f())`: a negated chain that mixes `or` and `and`."""
    first = draw(flag_read(builder, where, depth))
    second, third = draw(plain_condition(builder, where)), draw(plain_condition(builder, where))
    if draw(st.booleans()):
        return Expr(f"not ({first.text} or {second.at(AND)} and {third.at(AND + 1)})", NOT)
    return Expr(f"not ({first.text} and ({second.at(OR)} or {third.at(OR + 1)}))", NOT)


@expression_idiom(compound=True)
def ternary(draw, builder: Builder, where: Where, depth: int) -> Expr:
    body, test, orelse = (sub(draw, builder, where, depth) for _ in range(3))
    return Expr(
        f"{body.at(TERNARY + 1)} if {test.at(TERNARY + 1)} else {orelse.at(TERNARY)}", TERNARY
    )


@expression_idiom(compound=True)
def compared_operand(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`(FAST or x) > 1`: a simplified operand inside a comparison."""
    operand = sub(draw, builder, where, depth).at(COMPARE + 1)
    return Expr(f"{operand} {draw(st.sampled_from(['> 1', '== 0', '!= 2', '<= x']))}", COMPARE)


@expression_idiom(compound=True)
def multiplied_operand(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`3 * (FAST or x)`."""
    return Expr(f"3 * {sub(draw, builder, where, depth).at(MULTIPLY + 1)}", MULTIPLY)


@expression_idiom(compound=True)
def added_operand(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`x + (FAST or 1)`."""
    return Expr(f"x + {sub(draw, builder, where, depth).at(ADD + 1)}", ADD)


@expression_idiom(compound=True)
def negated_operand(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`-(FAST or x)`."""
    return Expr(f"-{sub(draw, builder, where, depth).at(UNARY)}", UNARY)


@expression_idiom(compound=True)
def method_on_operand(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`(FAST or x).bit_length()`: the operand as an attribute's receiver."""
    return Expr(f"{sub(draw, builder, where, depth).at(ATOM)}.bit_length()", ATOM)


@expression_idiom(compound=True)
def subscripted_operand(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`(FAST or "ab")[0]`, `self.legacy[0]`: the operand as a subscript's receiver."""
    return Expr(f"{sub(draw, builder, where, depth).at(ATOM)}[0]", ATOM)


@expression_idiom(compound=True)
def subscripted_ternary(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`("ab" if FAST else "cd")[0]`: a folded ternary as a subscript's receiver."""
    test = sub(draw, builder, where, depth).at(TERNARY + 1)
    return Expr(f'("ab" if {test} else "cd")[{draw(st.sampled_from([0, 1]))}]', ATOM)


@expression_idiom(compound=True)
def lambda_body(draw, builder: Builder, where: Where, depth: int) -> Expr:
    """`(lambda: FAST or x)()`: a simplified expression as a lambda's body."""
    return Expr(f"(lambda: {sub(draw, builder, where, depth).at(TERNARY)})()", ATOM)


# -- statement idioms ----------------------------------------------------------------------------
def condition(draw, builder: Builder, where: Where) -> str:
    return draw(expressions(builder, where)).text


def deeper(where: Where, loop: bool | None = None) -> Where:
    return Where(where.method, where.loop if loop is None else loop, where.depth + 1)


@st.composite
def blocks(draw, builder: Builder, where: Where, pad: str, most: int = 1) -> list[str]:
    """One to `most` statements, each a registered shape legal here (nested bodies hold one, so
    that programs stay readable)."""
    names = [
        name for name, (_, legal) in STATEMENTS.items() if name in builder.enabled and legal(where)
    ]
    # What only a loop's body can hold weighs more there, or it would drown among the others.
    names += [name for name in names if not STATEMENTS[name][1](replace(where, loop=False))] * 3
    lines: list[str] = []
    for _ in range(draw(st.integers(1, most))):
        name = draw(st.sampled_from(names))
        builder.idioms.add(name)
        lines += draw(STATEMENTS[name][0](builder, where, pad))
    return lines


def nested(where: Where) -> bool:
    return where.depth < MAX_STATEMENT_DEPTH


@statement_idiom()
def value_assignment(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    return [f"{pad}y = {draw(expressions(builder, where)).text}"]


@statement_idiom()
def logged_statement(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    return [f"{pad}log({builder.tag()!r}, {draw(expressions(builder, where)).text})"]


@statement_idiom(nested)
def if_elif_else(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    inner = deeper(where)
    comment = draw(st.sampled_from(["", f"  # {MODULE_FLAG} path", "  # fast path"]))
    lines = [
        f"{pad}if {condition(draw, builder, where)}:{comment}",
        *draw(blocks(builder, inner, pad + "    ")),
    ]
    for _ in range(draw(st.integers(0, 1))):
        lines += [
            f"{pad}elif {condition(draw, builder, where)}:",
            *draw(blocks(builder, inner, pad + "    ")),
        ]
    if draw(st.booleans()):
        lines += [f"{pad}else:", *draw(blocks(builder, inner, pad + "    "))]
    return lines


@statement_idiom()
def early_return(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    value = draw(st.sampled_from(["y", "x", repr(builder.tag("r"))]))
    return [f"{pad}if {condition(draw, builder, where)}:", f"{pad}    return {value}"]


@statement_idiom(nested)
def multiline_condition(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`if (a() and\\n        not b and\\n        not FAST):`, a parenthesised chain over lines."""
    operator = draw(st.sampled_from(["and", "or"]))
    operands = [
        draw(expressions(builder, where, MAX_EXPRESSION_DEPTH)).at(NOT)
        for _ in range(draw(st.integers(2, 3)))
    ]
    operands = [f"not {operand}" if draw(st.booleans()) else operand for operand in operands]
    head = f" {operator}\n{pad}        ".join(operands)
    return [f"{pad}if ({head}):", *draw(blocks(builder, deeper(where), pad + "    "))]


@statement_idiom(nested)
def bounded_while(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    counter = builder.tag("n")
    test = draw(expressions(builder, where))
    body = draw(blocks(builder, deeper(where, loop=True), pad + "    ", most=2))
    if draw(st.booleans()):  # the counter in the test
        head = f"while {counter} < 3 and {test.at(AND + 1)}:"
        return [f"{pad}{counter} = 0", f"{pad}{head}", f"{pad}    {counter} += 1", *body]
    return [
        f"{pad}{counter} = 0",
        f"{pad}while {test.text}:",
        f"{pad}    {counter} += 1",
        f"{pad}    if {counter} > 2:",
        f"{pad}        break",
        *body,
    ]


@statement_idiom(lambda where: where.loop)
def loop_exit(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    return [
        f"{pad}if {condition(draw, builder, where)}:",
        f"{pad}    {draw(st.sampled_from(['break', 'continue']))}",
    ]


@statement_idiom(nested)
def flag_in_local(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`use = self.fast` then `if use and ...:`: a local that only carries the flag."""
    local = builder.tag("use")
    read = draw(flag_read(builder, where, 0)).text
    test = draw(st.sampled_from([local, f"not {local}", f"{local} and x > 1", f"x > 1 or {local}"]))
    return [
        f"{pad}{local} = {read}",
        f"{pad}if {test}:",
        *draw(blocks(builder, deeper(where), pad + "    ")),
    ]


@statement_idiom()
def shared_local(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`total = x + 1`, read only under a flag condition: every function drawing it has its own
    `total`, so one losing its last read goes while another's is still read."""
    return [
        f"{pad}total = x + {draw(st.integers(0, 3))}",
        f"{pad}if {condition(draw, builder, where)}:",
        f"{pad}    log({builder.tag()!r}, total)",
    ]


@statement_idiom()
def local_read_by_eval(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """A local read under a flag condition and by `eval`: it stays, whatever the fold does."""
    name = builder.tag("held")
    return [
        f"{pad}{name} = x * 2",
        f"{pad}if {condition(draw, builder, where)}:",
        f"{pad}    log({builder.tag()!r}, {name})",
        f"{pad}log({builder.tag()!r}, eval({name!r}))",
    ]


@statement_idiom(lambda where: where.method)
def bookkeeping_field(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`self.seen += 1`, read only under a flag condition: dead with it."""
    name = builder.tag("seen")
    builder.fields.append(name)
    test = condition(draw, builder, where)
    return [
        f"{pad}self.{name} += 1",
        f"{pad}if {test}:",
        f"{pad}    log({builder.tag()!r}, self.{name})",
    ]


@statement_idiom(lambda where: where.method)
def field_assert(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`assert self.pending >= 0`: an assert (always true) on a field that the flag's branch
    writes."""
    name = builder.tag("pending")
    builder.fields.append(name)
    test = condition(draw, builder, where)
    return [
        f"{pad}if {test}:",
        f"{pad}    self.{name} += 1",
        f"{pad}assert self.{name} >= 0, {builder.tag('a')!r}",
    ]


@statement_idiom(lambda where: where.method)
def field_set_by_table(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`extra = {"fast": <its value>, "seen3": x}` then a loop that sets each field by `setattr`, or
    `_set_all(self, extra={...})` doing it: a dict entry setting the field flag by name, which goes
    with the flag (and the keyword with its last entry). At the configured value only: one of
    another value is a write the config overrides, which a `setattr` by a computed name hides from
    the cleanup."""
    name = builder.tag("seen")
    builder.fields.append(name)
    entries = [f"{name!r}: x"]
    if FIELD_FLAG in builder.flags:
        entries.insert(draw(st.integers(0, 1)), f"{FIELD_FLAG!r}: {builder.flags[FIELD_FLAG]!r}")
    if draw(st.booleans()):
        # Through a helper taking the dict as a keyword: `extra={...}` goes when it empties.
        if not any(line.startswith("def _set_all") for line in builder.helpers):
            builder.helpers += [
                "",
                "",
                "def _set_all(node, extra=None):",
                "    for key, value in (extra or {}).items():",
            ]
            builder.helpers += ["        setattr(node, key, value)"]
        entries = (
            entries
            if len(entries) < 2 or draw(st.booleans())
            else [e for e in entries if e.startswith(repr(FIELD_FLAG))]
        )
        return [
            f"{pad}_set_all(self, extra={{{', '.join(entries)}}})",
            f"{pad}log({builder.tag()!r}, self.{name})",
        ]
    table = builder.tag("extra")
    return [
        f"{pad}{table} = {{{', '.join(entries)}}}",
        f"{pad}for key in {table}:",
        f"{pad}    setattr(self, key, {table}[key])",
        f"{pad}log({builder.tag()!r}, self.{name})",
    ]


@statement_idiom()
def flag_parameter_call(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`y = _deep1(x, deep=True)`: a call of a chain of helpers that hands a flag parameter down
    (by keyword or by position), passing it by keyword, as the last positional argument, through
    a **kwargs forwarder, or not at all; the helpers' defaults are any value, or none. The rewrite
    must behave as if every default and call held the configured value (Program.decided)."""
    if not any(line.startswith("def _deep1") for line in builder.helpers):
        if PARAM_FLAG not in builder.flags:  # (private_copy's class may have drawn it)
            builder.flags[PARAM_FLAG] = draw(st.sampled_from(VALUES))
        builder.helpers += draw(flag_parameter_chain(builder))
    value = repr(draw(st.sampled_from(VALUES)))
    calls = ["_deep1(x)", f"_deep1(x, {PARAM_FLAG}={value})", f"_deep1(x, {value})"]
    if any(line.startswith("def _relay") for line in builder.helpers):
        calls.append(f"_relay(x, {PARAM_FLAG}={value})")
    return [f"{pad}y = {draw(st.sampled_from(calls))}"]


@statement_idiom()
def private_copy(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`y = _Copy(x, deep=True).get()`: a class that keeps the flag parameter as a private copy
    (`self._deep = deep`, maybe name-mangled) read by a method; its default agrees with the config
    (a parameter that agrees is the flag), the calls pass any value or none."""
    if PARAM_FLAG not in builder.flags:
        builder.flags[PARAM_FLAG] = draw(st.sampled_from(VALUES))
    if not any(line.startswith("class _Copy") for line in builder.helpers):
        copy = draw(st.sampled_from([f"_{PARAM_FLAG}", f"__{PARAM_FLAG}"]))
        test = draw(st.sampled_from([f"self.{copy}", f"not self.{copy}", f"self.{copy} == 1"]))
        builder.helpers += [
            "",
            "",
            "class _Copy:",
            f"    def __init__(self, x, {PARAM_FLAG}={builder.flags[PARAM_FLAG]!r}):",
            "        self.x = x",
            f"        self.{copy} = {PARAM_FLAG}",
            "",
            "    def get(self):",
            f"        return log({builder.tag()!r}, self.x) if {test} else -self.x",
        ]
    value = repr(draw(st.sampled_from(VALUES)))
    call = draw(st.sampled_from(["_Copy(x)", f"_Copy(x, {PARAM_FLAG}={value})"]))
    return [f"{pad}y = {call}.get()"]


@statement_idiom()
def handed_constructor(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`y = _make(_Made, x, True, 2).x`: a class handed to a factory that calls it with its
    `*args` (`def _make(cls, *args): return cls(*args)`), maybe through an alias bound to it
    (`_Kind = _Made`), the flag parameter filled at its place (before another or last) or not at
    all; sometimes the factory also makes a class whose parameter at that place is not the flag,
    which no removal may shift (the flag is refused)."""
    if PARAM_FLAG not in builder.flags:
        builder.flags[PARAM_FLAG] = draw(st.sampled_from(VALUES))
    if not any(line.startswith("class _Made") for line in builder.helpers):
        tests = [PARAM_FLAG, f"not {PARAM_FLAG}", f"{PARAM_FLAG} == 1", f"{PARAM_FLAG} is None"]
        builder.helpers += [
            "",
            "",
            "def _make(cls, *args):",
            "    return cls(*args)",
            "",
            "",
            "class _Made:",
            f"    def __init__(self, x, {PARAM_FLAG}={builder.flags[PARAM_FLAG]!r}, tail=0):",
            f"        self.x = log({builder.tag()!r}, x + tail) if {draw(st.sampled_from(tests))}"
            " else x - tail",
            "",
            "",
            "_Kind = _Made",
        ]
        if draw(st.booleans()):
            builder.helpers += [
                "",
                "",
                "class _Plain:",
                "    def __init__(self, x, loud, tail=0):",
                "        self.x = x + loud + tail",
                "",
                "",
                "def _plain(x):",
                "    return _make(_Plain, x, 1).x",
            ]
    value = repr(draw(st.sampled_from(VALUES)))
    made = draw(st.sampled_from(["_Made", "_Kind"]))
    call = draw(
        st.sampled_from(
            [f"_make({made}, x)", f"_make({made}, x, {value})", f"_make({made}, x, {value}, 2)"]
        )
    )
    return [f"{pad}y = {call}.x"]


@st.composite
def flag_parameter_chain(draw, builder: Builder) -> list[str]:
    """`_deep1` reads the parameter and hands it to `_deep2` (`deep=deep` or by position), whose
    default may be missing; maybe `_relay(x, **kwargs)` forwarding to `_deep1`."""
    first = repr(draw(st.sampled_from(VALUES)))
    second = draw(st.sampled_from(["", *(f"={value!r}" for value in VALUES)]))
    tests = ["deep", "not deep", "deep == 1", "deep is None", "deep or x > 1"]
    handed = draw(st.sampled_from([f"{PARAM_FLAG}={PARAM_FLAG}", PARAM_FLAG]))
    lines = [
        "",
        "",
        f"def _deep1(x, {PARAM_FLAG}={first}):",
        f"    if {draw(st.sampled_from(tests))}:",
        f"        log({builder.tag()!r}, x)",
        f"    return _deep2(x, {handed})",
        "",
        "",
        f"def _deep2(x, {PARAM_FLAG}{second}):",
        f"    return log({builder.tag()!r}, x + 1) if {draw(st.sampled_from(tests))} else x",
    ]
    if draw(st.booleans()):
        lines += ["", "", "def _relay(x, **kwargs):", "    return _deep1(x, **kwargs)"]
    return lines


@statement_idiom(nested)
def overwritten_store(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`z = None` then `if FLAG: z = f()`: once the branch is flattened the first store is dead."""
    target = (
        f"self.{builder.tag('held')}"
        if where.method and draw(st.booleans())
        else builder.tag("held")
    )
    if target.startswith("self."):
        builder.fields.append(target[len("self.") :])
    value = draw(st.sampled_from(["None", "0", "x"]))
    return [
        f"{pad}{target} = {value}",
        f"{pad}if {condition(draw, builder, where)}:",
        f"{pad}    {target} = log({builder.tag()!r}, {draw(expressions(builder, where)).text})",
        f"{pad}log({builder.tag()!r}, {target})",
    ]


@statement_idiom(nested)
def reraising_handler(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """A handler that re-raises once its flag branch folds away, inside one that catches."""
    name = draw(st.sampled_from(["", " as err"]))
    return [
        f"{pad}try:",
        f"{pad}    try:",
        f"{pad}        if {condition(draw, builder, where)}:",
        f"{pad}            raise ValueError({builder.tag()!r})",
        f"{pad}        log({builder.tag()!r})",
        f"{pad}    except ValueError{name}:",
        f"{pad}        if {condition(draw, builder, where)}:",
        f"{pad}            log({builder.tag()!r})",
        f"{pad}        raise",
        f"{pad}except ValueError as caught:",
        f"{pad}    log({builder.tag()!r}, str(caught))",
    ]


@statement_idiom()
def trailing_exit(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`_tail3(x)`, a function ending in `if FAST: log(...); return` (maybe more after it), or a
    loop's body ending in `if FAST: log(...); continue`: once the branch is flattened, the bare
    return it leaves last in the function, or the continue last in the loop, goes."""
    name = builder.tag("_tail")
    inside = Where(False, False, 1)
    lines = ["", "", f"def {name}(x):", f"    log({builder.tag()!r}, x)"]
    # Or the last statement of a loop's body: `if FAST: log(...); continue` leaves a `continue`.
    loop = draw(st.booleans())
    if loop:
        lines.append("    for i in range(2):")
    indent, exit_ = ("    ", "continue") if loop else ("", "return")
    lines += [
        f"{indent}    if {condition(draw, builder, inside)}:",
        f"{indent}        log({builder.tag()!r}, x)",
        f"{indent}        {exit_}",
    ]
    if draw(st.booleans()):
        lines.append(f"{indent}    log({builder.tag()!r}, x + 1)")
    builder.helpers += lines
    return [f"{pad}{name}(x)"]


@statement_idiom(nested)
def lookup_in_local(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`use = getattr(self, "fast", 0)` (or an accessor template's read, maybe converted by a
    builtin or a string method, or a plain alias of such a local) then a condition on it and a
    read of its value: the local carries the flag unless something binds it again (`if x > 1:
    use = x` sometimes does)."""
    reads = []
    if FIELD_FLAG in builder.flags and where.method:
        reads += [f'getattr(self, "{FIELD_FLAG}")', f'getattr(self, "{FIELD_FLAG}", 0)']
        reads += [
            f'getattr(self, "{FIELD_FLAG}", log({builder.tag()!r}, 0))'
        ]  # a default with an effect
    if CLASS_FLAG in builder.flags:
        reads += [f'getattr(Node, "{CLASS_FLAG}", None)']
    if MODULE_FLAG in builder.flags and "template_read" in builder.enabled:
        reads += [
            f'globals()["{MODULE_FLAG}"]',
            f'globals().get("{MODULE_FLAG}", 1)',
            f'bool(globals().get("{MODULE_FLAG}"))',
        ]
        reads += [f'str(globals()["{MODULE_FLAG}"]).upper()']
    if not reads:
        return [f"{pad}log({builder.tag()!r})"]
    read = draw(st.sampled_from(reads))
    if "globals()" in read:
        builder.idioms.add("template_read")  # the config declares the templates
    local = builder.tag("use")
    lines = [f"{pad}{local} = {read}"]
    if draw(st.booleans()):
        alias = builder.tag("use")
        lines.append(f"{pad}{alias} = {local}")
        local = alias
    if draw(st.integers(0, 3)) == 0:
        lines += [f"{pad}if x > 1:", f"{pad}    {local} = x"]
    test = draw(
        st.sampled_from(
            [local, f"not {local}", f"{local} == 1", f"{local} and x > 1", f"x > 1 or {local}"]
        )
    )
    return [
        *lines,
        f"{pad}if {test}:",
        *draw(blocks(builder, deeper(where), pad + "    ")),
        f"{pad}log({builder.tag()!r}, {local})",
    ]


@statement_idiom(nested)
def guarded_name(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`if not (v and ...): return` then, maybe after a statement that could change `v` (or
    rebinds it), `if v and FAST:`: the exit leaves v truthy, so the flag's test folds when only
    pure statements stand between."""
    local = builder.tag("v")
    value = draw(st.sampled_from(["x", "x - 1", "[x] if x else []", "log('v', x > 2)"]))
    guard = draw(
        st.sampled_from([f"not {local}", f"not ({local} and x < 3)", f"not {local} or x == 2"])
    )
    exit_ = draw(st.sampled_from(["return y", *(["continue", "break"] if where.loop else [])]))
    between = draw(
        st.sampled_from(["", "z = x + 1", f"{local} = 0", f"log({builder.tag()!r})", "pass"])
    )
    if value.startswith("[") and draw(st.booleans()):
        between = f"{local}.pop()"
    flag = draw(flag_read(builder, where, 0)).text
    test = draw(
        st.sampled_from(
            [
                f"{local} and {flag}",
                f"{flag} and {local}",
                f"not ({local} and {flag})",
                f"{local} or {flag}",
            ]
        )
    )
    return [
        f"{pad}{local} = {value}",
        f"{pad}if {guard}:",
        f"{pad}    {exit_}",
        *([f"{pad}{between}"] if between else []),
        f"{pad}if {test}:",
        f"{pad}    log({builder.tag()!r}, {local})",
        f"{pad}else:",
        f"{pad}    log({builder.tag()!r})",
    ]


# A setter of the module flag as a context manager: `with override(FAST=True):` sets it for its
# body (the program defines `override`, SETTER, and declares WRITERS: setter_with).
SETTER = """\
import contextlib


@contextlib.contextmanager
def override(**values):
    saved = {name: globals()[name] for name in values}
    globals().update(values)
    try:
        yield
    finally:
        globals().update(saved)
"""
WRITERS = ("override({name}=...)",)
SETTER_VALUES = re.compile(rf"(\boverride\({MODULE_FLAG}=)(?:{_LITERALS})(?=\))")


@statement_idiom(nested)
def setter_with(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """A `with` setting the module flag for its body (README: Setters), alone or beside another
    context manager: the config decides, so the body runs at the configured value."""
    if MODULE_FLAG not in builder.flags:
        builder.idioms.discard("setter_with")  # (no setter to define or declare)
        return draw(blocks(builder, where, pad))
    setter = f"override({MODULE_FLAG}={draw(st.sampled_from(VALUES))!r})"
    items = draw(
        st.sampled_from(
            [
                setter,
                f"contextlib.nullcontext(), {setter}",
                f"{setter}, contextlib.suppress(KeyError)",
            ]
        )
    )
    return [f"{pad}with {items}:", *draw(blocks(builder, deeper(where), pad + "    ", most=2))]


@statement_idiom()
def folded_helper_call(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """A call of a module function (public or private) that the fold may leave returning a
    constant: then it is inlined at its calls and goes (README: Helpers that fold to a constant)."""
    if MODULE_FLAG not in builder.flags:
        builder.idioms.discard("folded_helper_call")  # (no module flag for it to fold on)
        return draw(blocks(builder, where, pad))
    name = builder.tag(draw(st.sampled_from(["should_skip", "_pick"])))
    test = draw(st.sampled_from([MODULE_FLAG, f"not {MODULE_FLAG}"]))
    value = draw(st.sampled_from(["False", "3", "'s'", "None", "(1, 2)"]))
    builder.folding += [
        "",
        "",
        f"def {name}(v):",
        f"    if {test}:",
        f"        return log({builder.tag()!r}, v)",
        f"    return {value}",
    ]
    use = draw(st.sampled_from([f"y = {name}(x)", f"log({builder.tag()!r}, {name}([x]))"]))
    if draw(st.booleans()):
        return [f"{pad}if {name}(x):", f"{pad}    log({builder.tag()!r})", f"{pad}{use}"]
    return [f"{pad}{use}"]


# The keywords of json.dumps a flag may pass (library_keyword), and what shows each one's effect.
LIBRARY_KEYWORDS = ("sort_keys", "ensure_ascii", "indent")
LIBRARY_DATA = '{"b": [1, 2], "a": "\\u00e9"}'


@statement_idiom()
def library_keyword(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """A keyword of a library call passing a flag's expression (`json.dumps(d, sort_keys=FAST)`):
    with `library_keywords`, it goes where the cleanup makes it json.dumps's default (README:
    Library keywords); any other value, or one the cleanup leaves an expression, stays."""
    keyword = draw(st.sampled_from(LIBRARY_KEYWORDS))
    value = draw(expressions(builder, where)).text
    return [f"{pad}log({builder.tag()!r}, json.dumps({LIBRARY_DATA}, {keyword}={value}))"]


def module_flag_reads(builder: Builder) -> list[str]:
    """The flag reads legal anywhere in the module (no `self`): `FAST`, `Node.legacy`."""
    return builder.flag_reads(Where(False, False, 0))


@statement_idiom()
def derived_field(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """`y = _Mode3().get(x)` of a class whose field is written under a flag branch (or from the
    flag, `self.on3 = not FAST`) and read in another method: once the branch folds it has one
    literal write, a flag of its own (README: Derived flags), unless it had one already."""
    reads = module_flag_reads(builder)
    if not reads:
        builder.idioms.discard("derived_field")  # (no flag outside Node for it to fold on)
        return [f"{pad}y = x + 1"]
    cls, name = builder.tag("_Mode"), builder.tag("on")
    read = draw(st.sampled_from(reads))
    first, second = (repr(draw(st.sampled_from(VALUES))) for _ in range(2))
    if draw(st.booleans()):
        written = [
            f"        self.{name} = {first}",
            f"        if {read}:",
            f"            self.{name} = {second}",
        ]
    else:
        written = [
            f"        self.{name} = {draw(st.sampled_from([f'not {read}', f'{read} == {first}']))}"
        ]
    builder.helpers += ["", "", f"class {cls}:", "    def __init__(self):", *written, ""]
    builder.helpers += [
        "    def get(self, x):",
        f"        return log({builder.tag()!r}, x) if self.{name} else x",
    ]
    return [f"{pad}y = {cls}().get(x)"]


@statement_idiom()
def derived_parameter(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """Calls of a helper whose parameter without a default each call passes the flag's read
    (`_pass3(x, FAST)`, `_pass3(y, mode3=self.fast)`), or a literal: once inlined, one literal at
    every call makes the parameter a flag of its own (README: Derived flags)."""
    reads = builder.flag_reads(where)
    if not reads:
        builder.idioms.discard("derived_parameter")
        return [f"{pad}y = x + 1"]
    function, name = builder.tag("_pass"), builder.tag("mode")
    builder.helpers += ["", "", f"def {function}(x, {name}):", f"    if {name}:"]
    builder.helpers += [f"        return log({builder.tag()!r}, x)", "    return x + 1"]
    passed = [draw(st.sampled_from(reads)) for _ in range(draw(st.integers(1, 2)))]
    if draw(st.integers(0, 3)) == 0:
        passed.append(repr(draw(st.sampled_from(VALUES))))
    return [
        f"{pad}y = {function}({'x' if index == 0 else 'y'}, "
        f"{f'{name}=' if draw(st.booleans()) else ''}{value})"
        for index, value in enumerate(passed)
    ]


@statement_idiom()
def folded_method_call(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    """A method of a class of its own (an instance, class or static method, public or private)
    that the fold may leave returning a constant or the module flag, called through `self` in
    another method of the class, through a local instance, through the class, or through a
    receiver with an effect; maybe a subclass overrides it, whose instances must keep calling
    theirs (README: Helpers that fold to a constant)."""
    if MODULE_FLAG not in builder.flags:
        builder.idioms.discard("folded_method_call")  # (no module flag for it to fold on)
        return draw(blocks(builder, where, pad))
    cls, name = builder.tag("Gate"), builder.tag(draw(st.sampled_from(["should_skip", "_pick"])))
    kind = draw(st.sampled_from(["instance", "class", "static"]))
    receiver = {"instance": ["self, "], "class": ["cls, "], "static": [""]}[kind][0]
    decorator = {"instance": [], "class": ["    @classmethod"], "static": ["    @staticmethod"]}[
        kind
    ]
    value = draw(st.sampled_from(["False", "3", "'s'", "None", MODULE_FLAG, f"not {MODULE_FLAG}"]))
    test = draw(st.sampled_from([MODULE_FLAG, f"not {MODULE_FLAG}"]))
    body = (
        [f"        return {value}"]
        if MODULE_FLAG in value
        else [
            f"        if {test}:",
            f"            return log({builder.tag()!r}, v)",
            f"        return {value}",
        ]
    )
    builder.folding += ["", "", f"class {cls}:", *decorator, f"    def {name}({receiver}v):", *body]
    local = builder.tag("g")
    calls = [f"{local}.{name}(x)"]
    if draw(st.booleans()):  # called through self
        builder.folding += ["", "    def check(self, v):", f"        return self.{name}(v)"]
        calls.append(f"{local}.check(x)")
    made = [cls]
    if kind == "instance" and draw(st.booleans()):
        made.append(f"{cls}Sub")
        builder.folding += [
            "",
            "",
            f"class {cls}Sub({cls}):",
            f"    def {name}(self, v):",
            f"        return log({builder.tag()!r}, v)",
        ]
    made_by = draw(st.sampled_from(made))
    calls.append(f"{made_by}().{name}(x)")
    calls += [f"{cls}.{name}(x)"] if kind != "instance" else []
    call = draw(st.sampled_from(calls))
    use = draw(st.sampled_from([f"y = {call}", f"log({builder.tag()!r}, {call})"]))
    lines = [f"{pad}{local} = {made_by}()"]
    if draw(st.booleans()):
        return [*lines, f"{pad}if {call}:", f"{pad}    log({builder.tag()!r})", f"{pad}{use}"]
    return [*lines, f"{pad}{use}"]


@statement_idiom()
def commented_statement(draw, builder: Builder, where: Where, pad: str) -> list[str]:
    comment = draw(
        st.sampled_from(
            [f"# {MODULE_FLAG}: the old path", f"# {FIELD_FLAG} is read below", "# unrelated"]
        )
    )
    return [f"{pad}{comment}", *draw(blocks(builder, where, pad, most=1))]


# -- whole programs ------------------------------------------------------------------------------
HEADER = """\
LOG = []


def log(tag, value=True):
    LOG.append((tag, value))
    return value
"""


# Shapes of a whole program rather than of an expression or statement (see `programs`).
PROGRAM_IDIOMS = (
    "stale_definition",
    "test_double",
    "scoped_twin",
    "class_body_read",
    "module_alias",
    "library_attribute",
    "public_api",
    "enum_member",
    "parameter_attribute",
    "computed_definition",
    "computed_from_parameter",
    "decorator_read",
    "local_flag",
    "guarded_definition",
    "consumed_definition",
    "container_flag",
    "chained_keys",
    "environment_flag",
    "settings_overlay",
)
# The container_flag idiom's flag, fixed at a list, dict or frozenset (of ints: their hashes,
# and so a frozenset's order, are the same in every run), and the statements of `chosen(x)` that
# read it: all but the last two use it up; those hand it on, which refuses the flag.
CONTAINER_FLAG = "CHOICES"
CONTAINER_VALUES = ([1, 2], [], [3, "a", None], {1: "one", 3: (2,)}, frozenset({0, 2}), frozenset())
CONTAINER_READS = (
    f"if x in {CONTAINER_FLAG}: found.append('in')",
    f"found.append(len({CONTAINER_FLAG}))",
    f"found.append([v for v in {CONTAINER_FLAG} if v != x])",
    f"found.append('some' if {CONTAINER_FLAG} else 'none')",
    f"found.append(x not in {CONTAINER_FLAG} and {CONTAINER_FLAG} != [1, 2])",
    f"found.append((*{CONTAINER_FLAG}, x))",
    f"found.append({CONTAINER_FLAG}[1] if len({CONTAINER_FLAG}) > 1 else x)",
    f"found.append(sorted({CONTAINER_FLAG}, key=repr))",
    f"kept = {CONTAINER_FLAG}; found.append(kept)",
)
# The environment_flag idiom's flag, an environment variable the code reads (fixed at a string, or
# None for unset), its reads, and the values tests patch it to with `mock.patch.dict`.
ENV_FLAG = "PROGRAM_ENV"
ENV_VALUES = ("1", "0", "", None)
ENV_READS = (
    f'os.environ.get("{ENV_FLAG}", "0") == "1"',
    f'os.getenv("{ENV_FLAG}")',
    f'"{ENV_FLAG}" in os.environ',
    f'os.environ.get("{ENV_FLAG}", "").lower() in ("1", "true")',
    f'os.environ.get("{ENV_FLAG}") is None',
)
# A module constant of the same idiom computed from the environment variable of its name when the
# program is imported, and fixed at a bool: a test's write of the variable gives it what that
# computes (`environment_setting`).
ENV_COMPUTED = "PROGRAM_SWITCH"
ENV_COMPUTED_READ = f'os.environ.get("{ENV_COMPUTED}", "0").lower() in ("1", "true")'


def environment_setting(setting: str) -> bool:
    """What ENV_COMPUTED_READ gives with the variable at `setting`, evaluated by Python itself."""
    environ = {ENV_COMPUTED: setting}
    fake = types.SimpleNamespace(environ=environ, getenv=environ.get)
    return bool(eval(ENV_COMPUTED_READ, {"os": fake}))


# The enum of the enum_member idiom, and the accessor template that reads a flag as the membership
# of its member in a set of modes.
MEMBERS = "Modes"
MEMBER_ACCESSOR = f"{MEMBERS}.{{name}} in MODES"
TWIN = "Twin"  # the unrelated class of the scoped_twin idiom
# The parameter_attribute idiom's flag, a parameter of PICKER scoped by a qualified key, and the
# object whose same-named attribute is another variable.
PICK_FLAG, PICKER, SPEC, SPEC_CLASS = "picky", "_pick", "SPEC", "_Spec"
SCOPES = {PICK_FLAG: PICKER}  # the owner of each flag a qualified key scopes (else Node)
# The computed_from_parameter idiom's other parameter, `__init__(self, force=None)`, a flag of
# the run whose value the field is computed from.
FORCE_FLAG = "force"
# The local_flag idiom's flag, a local of `gauge`.
LOCAL_FLAG = "gauge_on"
# The chained_keys idiom's parameter, of one name in two functions, the first passing it to the
# second: a qualified key names each (issue 27's "several scoped keys of one name").
CHAIN_FLAG, CHAIN_OWNERS = "both", ("_high", "_low")


def idiom_names() -> list[str]:
    return [*EXPRESSIONS, *STATEMENTS, *PROGRAM_IDIOMS]


MAX_LINES = 40  # a finding must be readable at a glance


@st.composite
def programs(
    draw, only: frozenset[str] | None = None, without: frozenset[str] = frozenset()
) -> Program:
    """One program under MAX_LINES lines: up to three flags, a Node class when a field or class
    flag needs it, and two entry points at most (methods of Node, module functions)."""
    enabled = frozenset(idiom_names() if only is None else only) - without
    kinds = draw(
        st.lists(
            st.sampled_from([MODULE_FLAG, FIELD_FLAG, CLASS_FLAG]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    flags = {name: draw(st.sampled_from(VALUES)) for name in sorted(kinds)}
    # A stale definition: the code holds the old value while the config fixes the flag at another
    # (a rollout flag); the rewrite carries out the config (README: The config is the decision).
    defined = dict(flags)
    if "stale_definition" in enabled and draw(st.booleans()):
        name = draw(st.sampled_from(sorted(flags)))
        defined[name] = draw(st.sampled_from([value for value in VALUES if value != flags[name]]))
    builder = Builder(flags, enabled)
    lines = [HEADER]
    if MODULE_FLAG in flags:
        comment = draw(st.sampled_from(["", "  # the old path"]))
        if "guarded_definition" in enabled and draw(st.booleans()):
            # Defined in a module-level `try` guarding an import: a module constant all the same.
            fallback = draw(st.sampled_from(VALUES))
            lines += ["", "try:", "    import json as _json", ""]
            lines += [f"    {MODULE_FLAG} = {defined[MODULE_FLAG]!r}{GUARDED}"]
            lines += ["except ImportError:", f"    {MODULE_FLAG} = {fallback!r}"]
            builder.idioms.add("guarded_definition")
        elif "consumed_definition" in enabled and draw(st.booleans()):
            # Taken out of a table (`FAST = TABLE.pop("fast_path", ...)`): the definition goes, the
            # entry stays taken, which `table_left` shows.
            lines += ["", f"TABLE = {{'fast_path': {defined[MODULE_FLAG]!r}, 'spare': 1}}"]
            lines += [f"{MODULE_FLAG} = {CONSUMED}('fast_path', {defined[MODULE_FLAG]!r})"]
            builder.folding += ["", "", "def table_left(x):", "    return (sorted(TABLE), x)"]
            builder.idioms.add("consumed_definition")
        else:
            lines += ["", f"{MODULE_FLAG} = {defined[MODULE_FLAG]!r}{comment}"]
    entries: list[str] = []
    methods: list[str] = []
    if FIELD_FLAG in flags or CLASS_FLAG in flags:
        for index in range(draw(st.integers(1, 2))):
            methods += ["", f"    def run{index}(self, x):", "        y = 0"]
            methods += draw(blocks(builder, Where(True, False, 0), " " * 8, most=2))
            methods += ["        return y"]
            entries.append(f"Node.run{index}")
    functions: list[str] = []
    for index in range(draw(st.integers(0 if methods else 1, 2 - len(entries)))):
        functions += ["", "", f"def entry{index}(x):", "    y = 0"]
        functions += draw(blocks(builder, Where(False, False, 0), " " * 4, most=2))
        functions += ["    return y"]
        entries.append(f"entry{index}")
    if methods:
        lines += ["", "", "class Node:"]
        if CLASS_FLAG in flags:
            lines += [f"    {CLASS_FLAG} = {defined[CLASS_FLAG]!r}", ""]
        # A field computed from what the constructor is handed (`settings.get("fast", ...)`): the
        # config says what the flag is, so the definition goes whole.
        computed = "computed_definition" in enabled and FIELD_FLAG in flags and draw(st.booleans())
        # Or computed from a parameter of its own name (`self.fast = detect() if fast is None else
        # fast`): that parameter carries the flag, and goes with the computation.
        own = (
            not computed
            and "computed_from_parameter" in enabled
            and FIELD_FLAG in flags
            and draw(st.booleans())
        )
        # ... or from a parameter of another name that is a flag of the run too: once it is
        # inlined, the field's computation is its definition.
        forced = own and draw(st.booleans())
        source = FORCE_FLAG if forced else FIELD_FLAG
        if forced:
            flags[FORCE_FLAG] = defined[FORCE_FLAG] = draw(st.sampled_from(VALUES))
        parameters = ", settings={}" if computed else f", {source}=None" if own else ""
        lines += [f"    def __init__(self{parameters}):"]
        if computed:
            lines += [
                f"        self.{FIELD_FLAG} = settings.get({FIELD_FLAG!r}, {defined[FIELD_FLAG]!r})"
            ]
            builder.idioms.add("computed_definition")
        elif own:
            lines += [
                f"        self.{FIELD_FLAG} = (log({builder.tag()!r}, {defined[FIELD_FLAG]!r})"
                f" if {source} is None else {source})"
            ]
            builder.idioms.add("computed_from_parameter")
        elif FIELD_FLAG in flags:
            lines += [f"        self.{FIELD_FLAG} = {defined[FIELD_FLAG]!r}"]
        lines += [f"        self.{name} = 0" for name in builder.fields]
        if FIELD_FLAG not in flags and not builder.fields:
            lines += ["        self.ready = True"]
        lines += methods
    if "consumed_definition" in builder.idioms:
        entries.append("table_left")
    lines += builder.helpers + builder.folding
    lines += functions
    if "setter_with" in builder.idioms:
        lines[1:1] = ["", SETTER]
    if "library_keyword" in builder.idioms:
        lines[0:0] = ["import json", ""]
    # An unrelated class with a same-named attribute of another value: the flag is scoped to
    # Node's by a qualified key (README: Qualified keys), and Twin's reads keep their value.
    scoped: frozenset[str] = frozenset()
    attributes = sorted({FIELD_FLAG, CLASS_FLAG} & flags.keys())
    if "scoped_twin" in enabled and methods and attributes and draw(st.booleans()):
        name = draw(st.sampled_from(attributes))
        other = draw(st.sampled_from([value for value in VALUES if value != flags[name]]))
        lines += ["", "", f"class {TWIN}:", f"    {name} = {other!r}", "", "    def read(self, x):"]
        lines += [f"        return self.{name} if x else {TWIN}.{name}"]
        entries.append(f"{TWIN}.read")
        if draw(st.booleans()):
            # A receiver of unknown class inside Twin may be a Node: the scoped flag is refused.
            lines += [
                "",
                "    def pair(self, x):",
                f"        return (Node() if x else self).{name}",
            ]
            entries.append(f"{TWIN}.pair")
        scoped = frozenset([name])
    shapes = set()
    # A bare name in Node's body reads the class's own flag (class scope), as a method's default
    # does: the class attribute stays while they read it.
    if "class_body_read" in enabled and CLASS_FLAG in flags and methods and draw(st.booleans()):
        at = lines.index(f"    {CLASS_FLAG} = {defined[CLASS_FLAG]!r}") + 1
        lines[at:at] = [f"    COPY = ({CLASS_FLAG}, 1)"]
        # (at the end of Node's body: classes the other idioms add may follow it)
        start = lines.index("class Node:")
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith(" ")),
            len(lines),
        )
        while not lines[end - 1]:
            end -= 1
        lines[end:end] = [
            "",
            f"    def pick(self, x, v={CLASS_FLAG}):",
            "        return (v, self.COPY, x)",
        ]
        entries.append("Node.pick")
        shapes.add("class_body_read")
    # A module bound to a flag's name (`import json as fast`): its attributes are the module's.
    if "module_alias" in enabled and FIELD_FLAG in flags and draw(st.booleans()):
        lines[0:0] = [f"import json as {FIELD_FLAG}", ""]
        lines += ["", "", "def dumped(x):", f"    return {FIELD_FLAG}.dumps([x])"]
        entries.append("dumped")
        shapes.add("module_alias")
    # Another library's attribute of a flag's name: `argparse.Namespace(fast=x).fast` is never
    # the flag.
    if "library_attribute" in enabled and FIELD_FLAG in flags and draw(st.booleans()):
        lines[0:0] = ["import argparse", ""]
        lines += ["", "", "def namespaced(x):"]
        lines += [f"    return argparse.Namespace({FIELD_FLAG}=x).{FIELD_FLAG}"]
        entries.append("namespaced")
        shapes.add("library_attribute")
    # A public function nothing in the module calls (outside code does: the driver, and it is not
    # in __all__), beside a same-named method of an unrelated receiver that the fold removes.
    api: list[str] = []
    if "public_api" in enabled and MODULE_FLAG in flags and draw(st.booleans()):
        lines += ["", "", "def get(key):", '    return ("api", key)']
        lines += [
            "",
            "",
            "def lookup(x):",
            f"    return {{1: 'one'}}.get(x) if {MODULE_FLAG} else x",
        ]
        entries += ["get", "lookup"]
        api = ["get"]
        shapes.add("public_api")
    # A flag read as the membership of an enum's member in a set (MEMBER_ACCESSOR): outside the
    # template's shape the member is the enum's, and its definition stays.
    if (
        "enum_member" in enabled
        and isinstance(flags.get(MODULE_FLAG), bool)
        and draw(st.booleans())
    ):
        modes = f"{{{MEMBERS}.{MODULE_FLAG}}}" if flags[MODULE_FLAG] else "set()"
        lines[0:0] = ["import enum", ""]
        lines += ["", "", f"class {MEMBERS}(enum.Enum):", f"    {MODULE_FLAG} = 'on'", ""]
        lines += ["", f"MODES = {modes}", "", "", "def moded(x):"]
        lines += [f"    if {MEMBERS}.{MODULE_FLAG} in MODES:", "        return ('on', x)"]
        lines += [f"    return ('off', [m.value for m in [{MEMBERS}.{MODULE_FLAG}]])"]
        entries.append("moded")
        shapes.add("enum_member")
    # A parameter scoped by a qualified key, beside an attribute and a lookup of its name on
    # another object in its own function: only the bare name is the parameter.
    if "parameter_attribute" in enabled and draw(st.booleans()):
        value = draw(st.sampled_from(VALUES))
        other = draw(st.sampled_from([v for v in VALUES if v != value]))
        flags[PICK_FLAG] = defined[PICK_FLAG] = value
        lines += ["", "", f"class {SPEC_CLASS}:", f"    {PICK_FLAG} = {other!r}", "", ""]
        lines += [f"{SPEC} = {SPEC_CLASS}()"]
        lines += ["", "", f"def {PICKER}(x, {PICK_FLAG}={value!r}):", f"    if {PICK_FLAG}:"]
        lines += [f"        return (x, {SPEC}.{PICK_FLAG}, getattr({SPEC}, {PICK_FLAG!r}, 0))"]
        lines += [f"    return (-x, {SPEC}.{PICK_FLAG})", "", "", "def picked(x):"]
        lines += [f"    return {PICKER}(x) if x else {PICKER}(x, {PICK_FLAG}={value!r})"]
        entries.append("picked")
        scoped |= {PICK_FLAG}
        shapes.add("parameter_attribute")
    # A function's local as the flag, by its bare name: its reads there and in a lambda nested
    # in it fold, its assignment goes (literal, or computed from the argument).
    if "local_flag" in enabled and not draw(st.integers(0, 3)):  # (a quarter: it is 5 lines)
        flags[LOCAL_FLAG] = draw(st.sampled_from(VALUES))
        value = defined[LOCAL_FLAG] = draw(st.sampled_from(VALUES))
        assigned = draw(st.sampled_from([repr(value), f"{value!r} if x >= 0 else x"]))
        lines += ["", "", "def gauge(x):", f"    {LOCAL_FLAG} = {assigned}"]
        lines += [f"    return (x if {LOCAL_FLAG} else -x, (lambda: not {LOCAL_FLAG})())"]
        entries.append("gauge")
        shapes.add("local_flag")
    # A decorator reading the module flag: its lines are its function's, and the read is inlined.
    if "decorator_read" in enabled and MODULE_FLAG in flags and draw(st.booleans()):
        read = draw(
            st.sampled_from([MODULE_FLAG, f"1 if {MODULE_FLAG} else 2", f"not {MODULE_FLAG}"])
        )
        lines += ["", "", "def _tag(value):", "    def wrap(function):"]
        lines += ["        function.tag = value", "        return function", "", "    return wrap"]
        lines += ["", "", f"@_tag({read})", "def tagged(x):", "    return (x, tagged.tag)"]
        entries.append("tagged")
        shapes.add("decorator_read")
    # A flag fixed at a container: each read that uses the value up becomes the literal.
    if "container_flag" in enabled and draw(st.booleans()):
        value = draw(st.sampled_from(CONTAINER_VALUES))
        flags[CONTAINER_FLAG] = defined[CONTAINER_FLAG] = value
        reads = draw(
            st.lists(st.sampled_from(CONTAINER_READS), min_size=1, max_size=3, unique=True)
        )
        lines += ["", f"{CONTAINER_FLAG} = {value!r}", "", "", "def chosen(x):", "    found = []"]
        lines += [f"    {read}" for read in reads]
        lines += ["    return found"]
        entries.append("chosen")
        shapes.add("container_flag")
    # One parameter name in two functions of a chain, each named by its own qualified key.
    if "chained_keys" in enabled and draw(st.booleans()):
        value = draw(st.sampled_from(VALUES))
        flags[CHAIN_FLAG] = defined[CHAIN_FLAG] = value
        high, low = CHAIN_OWNERS
        lines += ["", "", f"def {low}(x, {CHAIN_FLAG}={value!r}):"]
        lines += [f"    return (x, 'low') if {CHAIN_FLAG} else (x, {CHAIN_FLAG})"]
        lines += ["", "", f"def {high}(x, {CHAIN_FLAG}={value!r}):", f"    if {CHAIN_FLAG}:"]
        lines += ["        x = -x", f"    return {low}(x, {CHAIN_FLAG}={CHAIN_FLAG})"]
        lines += ["", "", "def chained(x):", f"    return ({high}(x), {low}(x + 1))"]
        entries.append("chained")
        shapes.add("chained_keys")
    # An environment variable read in an entry point, which tests may patch with mock.patch.dict.
    if "environment_flag" in enabled and draw(st.booleans()):
        flags[ENV_FLAG] = defined[ENV_FLAG] = draw(st.sampled_from(ENV_VALUES))
        reads = draw(st.lists(st.sampled_from(ENV_READS), min_size=1, max_size=2, unique=True))
        lines[0:0] = ["import os", ""]
        if draw(st.booleans()):
            flags[ENV_COMPUTED] = defined[ENV_COMPUTED] = draw(st.booleans())
            lines += ["", f"{ENV_COMPUTED} = {ENV_COMPUTED_READ}"]
            reads = [*reads, f"not {ENV_COMPUTED}"]
        lines += ["", "", "def from_env(x):", f"    if {reads[0]}:", "        x = -x"]
        lines += [f"    return (x, {read})" for read in reads[1:]] or ["    return x"]
        entries.append("from_env")
        shapes.add("environment_flag")
    # A setting at two stages, base and overlay, read through one of them; a stage holds the
    # configured value more often than any other.
    modules: overlays.Modules = ()
    if "settings_overlay" in enabled and not draw(st.integers(0, 3)):  # rare: it is long
        flags[overlays.OVERLAY_FLAG] = defined[overlays.OVERLAY_FLAG] = value = draw(
            st.sampled_from(VALUES)
        )
        stage_values = draw(st.lists(st.sampled_from([value, *VALUES]), min_size=2, max_size=2))
        modules = overlays.stages(*stage_values, neighbour=draw(st.booleans()))
        read = draw(st.sampled_from(overlays.READS))
        through_base = draw(st.booleans())  # or through the overlay
        lines[0:0] = [overlays.IMPORTS[through_base], ""]
        lines += ["", "", "def staged(x):"]
        lines += [read.format(stage=overlays.BASE if through_base else overlays.ALIAS)]
        lines += ["    return x"]
        entries.append("staged")
        shapes.add("settings_overlay")
    # The entry points are the module's public interface, as callers elsewhere would use them;
    # without this, prune-flags may delete a class whose last reference in the module was a flag
    # read.
    public = sorted({"LOG", "log", *(entry.partition(".")[0] for entry in entries)} - set(api))
    lines += ["", "", f"__all__ = {public!r}"]
    source = "\n".join(lines) + "\n"
    assume(source.count("\n") < MAX_LINES)
    idioms = (
        builder.idioms
        | ({"stale_definition"} if defined != flags else set())
        | ({"scoped_twin"} if scoped - {PICK_FLAG} else set())
        | shapes
    )
    configured = "computed_definition" in builder.idioms
    tests = (
        draw(test_cases(flags, entries, configured))
        if "test_double" in enabled and draw(st.booleans())
        else ()
    )
    idioms |= {"test_double"} if any(test.double for test in tests) else set()
    return Program(source, flags, tuple(entries), frozenset(idioms), tests, scoped, modules)


@st.composite
def test_cases(
    draw, flags: dict[str, object], entries: list[str], configured: bool = False
) -> tuple[ProgramTest, ...]:
    """One to three tests of the entry points, most under a mock giving a flag a value (the
    module constant, the class attribute or the environment variable, with `mock.patch.dict`: the
    field is set in `__init__`, past a mock's reach), or, where the field is `configured` from
    the settings Node is made with, a config dict giving it one."""
    patchable = [
        name for name in (MODULE_FLAG, CLASS_FLAG, ENV_FLAG, ENV_COMPUTED) if name in flags
    ]
    tests = []
    for index in range(draw(st.integers(1, 3))):
        calls = tuple(
            f"program.{entry.rpartition('.')[0] + '().' if '.' in entry else ''}"
            f"{entry.rpartition('.')[2]}({x})"
            for entry, x in draw(
                st.lists(
                    st.tuples(st.sampled_from(entries), st.sampled_from(INPUTS)),
                    min_size=1,
                    max_size=3,
                )
            )
        )
        hows = ["decorator", "whole", *(["partial"] if len(calls) > 1 else [])]
        double = None
        if configured and draw(st.booleans()):
            double = ("config", FIELD_FLAG, draw(st.sampled_from(VALUES)))
        elif patchable and draw(st.integers(0, 3)):
            flag = draw(st.sampled_from(patchable))
            environment = ("1", "0", "", "true")
            values = environment if flag in (ENV_FLAG, ENV_COMPUTED) else VALUES
            double = (draw(st.sampled_from(hows)), flag, draw(st.sampled_from(values)))
        tests.append(ProgramTest(f"test_{index}", calls, double))
    return tuple(tests)


# -- running a program ---------------------------------------------------------------------------
class RanTooLong(BaseException):
    """Raised into a program that runs past RUN_SECONDS, or a rewrite past APPLY_SECONDS (a
    BaseException: `except Exception` in the program does not catch it)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only; the generator's loops are bounded anyway
        return

    def expire(signum: int, frame: object) -> None:
        raise RanTooLong()

    previous = signal.signal(signal.SIGALRM, expire)
    # Repeating: an exception raised while the garbage collector runs a callback is swallowed.
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.05)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class BoundedLog(list):
    """The program's LOG, which stops a runaway loop before it fills the memory."""

    def append(self, item: object) -> None:
        if len(self) >= LOG_LIMIT:
            raise RanTooLong()
        super().append(item)


def drive(source: str, entries: tuple[str, ...], modules: overlays.Modules = ()) -> str:
    """What the program does, with `modules` importable: for every entry point and input, its
    result or exception and the log. An entry point the program no longer has prints as missing."""
    namespace: dict[str, Any] = {"__name__": "program"}
    out: list[str] = []
    try:
        with time_limit(RUN_SECONDS), overlays.installed(modules):
            exec(compile(source, "program.py", "exec"), namespace)
            for entry in entries:
                owner, _, method = entry.rpartition(".")
                for x in INPUTS:
                    namespace["LOG"] = BoundedLog()
                    target = namespace.get(owner or entry)
                    if target is None:
                        out.append(f"{entry}({x}) missing")
                        continue
                    try:
                        result = repr(getattr(target(), method)(x) if owner else target(x))
                    except Exception as error:  # what it raises is part of its behaviour
                        result = f"raises {type(error).__name__}: {error}"
                    out.append(f"{entry}({x}) = {result}; log {namespace['LOG']!r}")
    except RanTooLong:
        out.append(f"ran past {RUN_SECONDS} s or {LOG_LIMIT} log entries")
    except Exception as error:  # at import time
        out.append(f"import raises {type(error).__name__}: {error}")
    return "\n".join(out)


def drive_tests(source: str, tests: str, modules: overlays.Modules = ()) -> dict[str, str]:
    """What each test of a test module does against the program: the results it keeps and the
    log, or what it raises. The program is importable as `program` meanwhile (mocks patch it so),
    and so are `modules`."""
    module = types.ModuleType("program")
    namespace: dict[str, Any] = {"__name__": "tests.test_program"}
    out: dict[str, str] = {}
    saved = sys.modules.get("program")
    sys.modules["program"] = module
    try:
        with time_limit(RUN_SECONDS), overlays.installed(modules):
            exec(compile(source, "program.py", "exec"), module.__dict__)
            exec(compile(tests, "test_program.py", "exec"), namespace)
            for name in [name for name in namespace if name.startswith("test_")]:
                module.LOG = BoundedLog()
                namespace["RESULTS"].clear()
                try:
                    namespace[name]()
                    out[name] = f"{namespace['RESULTS']!r}; log {module.LOG!r}"
                except Exception as error:  # what it raises is part of its behaviour
                    out[name] = f"raises {type(error).__name__}: {error}"
    except RanTooLong:
        out["*"] = f"ran past {RUN_SECONDS} s or {LOG_LIMIT} log entries"
    except Exception as error:  # at import time
        out["*"] = f"import raises {type(error).__name__}: {error}"
    finally:
        if saved is None:
            del sys.modules["program"]
        else:
            sys.modules["program"] = saved
    return out


# -- the check -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Finding:
    kind: str  # refused, crash, does-not-compile, output-differs, flag-remains, not-idempotent
    signature: str  # kind plus what tells this failure from others of its kind (no line numbers)
    detail: str  # what a reader needs: the message, or the two outputs
    after: str  # the rewritten source ("" when nothing was written)

    def __str__(self) -> str:
        after = f"--- after ---\n{self.after}" if self.after else "(nothing written)"
        return f"{self.signature}\n{self.detail}\n{after}"


# Exit 123 is a finding unless stderr matches one of these (a regex, and why the refusal is
# right). Only refusals the README documents belong here; a skipped file ("internal error", "does
# not parse") never does. Only the tests' mocks give a flag another value, and those go.
DOCUMENTED_REFUSALS: dict[str, str] = {
    r"not pruned: it is given another value at": (
        "a write of another value that cannot go is a conflict (README: The config is the decision)"
    ),
    r"not pruned: its value is a \w+, one object all its reads share, and .* hands? it on": (
        "a read handing on a list, dict or set (rules: A list, dict or set handed on)"
    ),
    r"not pruned: it is read as an object at": (
        "a read as an object left after the cleanup (README: Read as an object)"
    ),
    r"not pruned: a lookup of it has operands with side effects at": (
        "a getattr whose default has effects (README: Lookups by name)"
    ),
    r"not pruned: the name is ambiguous: parameters that no chain of calls links to the flag": (
        "parameters of another default no call links to the flag (rules: Ambiguity)"
    ),
    r"not pruned: scoped to \S+, the name is still ambiguous at": (
        "a receiver of unknown class where another definition exists (README: Qualified keys)"
    ),
}
# What an operand raises when the program misuses a value (`(not FAST)[0]`, `"x".bit_length()`):
# the README's Safety section says an operand without side effects may go even if it could
# raise, so a program that raises these before the rewrite is outside what the check can judge.
OUT_OF_CONTRACT = re.compile(r"raises (TypeError|AttributeError|IndexError)\b")


def pyproject(
    flags: dict[str, object],
    black: bool,
    scoped: frozenset[str] = frozenset(),
    templates: bool = False,
    setters: bool = False,
    library: bool = False,
    members: bool = False,
) -> str:
    def toml(value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float, str)) or (
            isinstance(value, list) and all(isinstance(item, (int, str)) for item in value)
        ):
            return repr(value).replace("'", '"')  # TOML's scalar or array
        return f"{{ python = {json.dumps(repr(value))} }}"

    declared = [*(ACCESSORS if templates else ()), *([MEMBER_ACCESSOR] if members else [])]
    accessors = ", ".join(f'"{template}"' for template in declared)
    writers = ", ".join(f'"{template}"' for template in WRITERS)
    keys = [
        *([f"accessors = [{accessors}]"] if declared else []),
        *([f"writers = [{writers}]"] if setters else []),
    ]
    keys += ["library_keywords = true"] if library else []
    lines = [
        *(["[tool.prune-flags]", *keys, ""] if keys else []),
        "[tool.prune-flags.flags]",
        *(
            line
            for name, value in flags.items()
            for line in (
                [f'"program.{owner}.{name}" = {toml(value)}' for owner in CHAIN_OWNERS]
                if name == CHAIN_FLAG
                else [
                    (
                        f'"program.{SCOPES.get(name, "Node")}.{name}" = {toml(value)}'
                        if name in scoped
                        else f"{name} = {toml(value)}"
                    )
                ]
            )
        ),
    ]
    if black:
        lines += ["", "[tool.black]", "line-length = 100"]
    return "\n".join(lines) + "\n"


def apply(directory: Path) -> tuple[int, str, str | None]:
    """(exit code, stderr, traceback of an uncaught exception) of `prune-flags apply` in-process."""
    try:
        with time_limit(APPLY_SECONDS):
            result = CliRunner().invoke(app, ["apply", "-q", "-j", "1", str(directory)])
    except RanTooLong:
        return 1, "", f"RanTooLong: prune-flags apply ran past {APPLY_SECONDS} s"
    crash = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        crash = "".join(
            traceback.format_exception(
                type(result.exception), result.exception, result.exception.__traceback__
            )
        )
    return result.exit_code, result.stderr, crash


# The compiler's warnings about a constant expression that cannot be subscripted or called: the
# generator's receivers of any operand (`(3 * (FAST))[0]`) make them in code the driver never
# reaches, where inlining lets the compiler fold the operand. The rewrite itself never makes a
# constant such a receiver (tests/rewrite/test_expressions.py), and code that is reached raises
# before the rewrite (OUT_OF_CONTRACT).
ILL_TYPED_RECEIVER = r".*object is not (subscriptable|callable)"


def compile_error(source: str) -> str | None:
    """Why `source` does not compile cleanly (a SyntaxWarning counts, but ILL_TYPED_RECEIVER's),
    or None."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", ILL_TYPED_RECEIVER, SyntaxWarning)
        try:
            compile(source, "program.py", "exec")
        except (SyntaxError, SyntaxWarning, ValueError) as error:
            return f"{type(error).__name__}: {error.args[0] if error.args else error}"
    return None


def flag_reads(source: str, flags: dict[str, object]) -> list[str]:
    """Every identifier in `source` that names a flag: `FAST`, `x.fast`, `Node.legacy` (not in
    TWIN or SPEC_CLASS, whose same-named attributes are other variables, nor SPEC's; not a module
    an import binds, nor an attribute of one; not a bare name Node's body reads, which keeps the
    class's flag, with its definition, as it is)."""
    names = []
    tree = ast.parse(source)
    tree.body = [
        node
        for node in tree.body
        if not (isinstance(node, ast.ClassDef) and node.name in (TWIN, MEMBERS, SPEC_CLASS))
    ]
    # (but the settings' stages: what they hold is the flag's)
    modules = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.Import)
        for alias in node.names
    } - {overlays.ALIAS, overlays.BASE}
    in_class_scope = {
        id(node)
        for cls in tree.body
        if isinstance(cls, ast.ClassDef)
        for statement in cls.body
        for part in (
            [statement] if not isinstance(statement, ast.FunctionDef) else statement.args.defaults
        )
        if not isinstance(part, ast.FunctionDef)
        for node in ast.walk(part)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in flags:
            if node.id not in modules and id(node) not in in_class_scope:
                names.append(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in flags:
            root = node.value
            while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if not (isinstance(root, ast.Name) and root.id in (*modules, MEMBERS, SPEC)):
                names.append(f".{node.attr}")
    return sorted(set(names))


def mentioned_flags(program: Program) -> dict[str, object]:
    """The flags the source still names (a reduced program may have lost one entirely)."""
    tree = ast.parse(program.source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}  # a variable's
    return {name: value for name, value in program.flags.items() if name in names}


def normalized(text: str) -> str:
    """A message without paths, line numbers and tags, so findings of one kind group together."""
    text = re.sub(r"\S*/program\.py", "program.py", text)
    text = re.sub(r"\d+", "N", text)
    return " ".join(text.split())[:160]


Rewrite = Callable[[Path], tuple[int, str, str | None]]


# A second run's config error for a qualified key whose parameter the first run removed.
PRUNED_PARAMETER_KEY = re.compile(
    r"has no parameter \w+ and assigns no local of that name \(if a run pruned it, drop the key\)"
)


def check(program: Program, black: bool = False, rewrite: Rewrite = apply) -> Finding | None:
    """Run `program` through `rewrite` (`prune-flags apply`) and say what went wrong, if
    anything."""
    problem = compile_error(program.source)
    if problem is not None:
        raise ValueError(
            f"the generator made a program that does not compile: {problem}\n{program}"
        )
    before = drive(
        program.decided, program.entries, overlays.decided(program.modules, program.flags)
    )
    if "ran past" in before:
        raise ValueError(f"the generator made a program that runs away\n{program}")
    if OUT_OF_CONTRACT.search(before):
        return None
    flags = mentioned_flags(program)
    with tempfile.TemporaryDirectory(prefix="fuzz-") as name:
        root = Path(name)
        (root / ".git").mkdir()
        (root / "pyproject.toml").write_text(
            pyproject(
                flags,
                black,
                program.scoped & flags.keys(),
                "template_read" in program.idioms,
                "setter_with" in program.idioms,
                "library_keyword" in program.idioms,
                "enum_member" in program.idioms,
            )
        )
        path = root / "program.py"
        path.write_text(program.source)
        for module, text in program.modules:
            (root / f"{module}.py").write_text(text or "")
        tests = root / "tests" / "test_program.py"
        if program.tests:
            tests.parent.mkdir()
            tests.write_text(program.test_source())
        code, stderr, crash = rewrite(root)
        after = path.read_text()
        written = after if after != program.source else ""  # what a refusal or crash shows
        if crash is not None:
            last = crash.strip().splitlines()[-1]
            return Finding("crash", f"crash: {normalized(last)}", crash, written)
        if code == 123:
            if any(re.search(pattern, stderr) for pattern in DOCUMENTED_REFUSALS):
                return None
            return Finding("refused", f"refused: {normalized(stderr)}", stderr, written)
        if code != 0:
            return Finding("crash", f"exit {code}: {normalized(stderr)}", stderr, written)
        modules = overlays.written(root, program.modules)
        texts = [after, *(text for _, text in modules if text is not None)]
        shown = after + overlays.shown(modules)
        for text in texts:
            problem = compile_error(text)
            if problem is not None:
                return Finding(
                    "does-not-compile", f"does-not-compile: {normalized(problem)}", problem, shown
                )
        left = sorted({read for text in texts for read in flag_reads(text, flags)})
        if left:
            return Finding(
                "flag-remains", f"flag-remains: {' '.join(left)}", f"still read: {left}", shown
            )
        now = drive(after, program.entries, modules)
        if now != before:
            return Finding("output-differs", "output-differs", first_difference(before, now), shown)
        if program.tests:
            finding = tests_finding(program, after, tests.read_text(), modules)
            if finding is not None:
                return finding
        code, stderr, crash = rewrite(root)
        again = path.read_text()
        unchanged = again == after and overlays.written(root, program.modules) == modules
        if code == 2 and unchanged and PRUNED_PARAMETER_KEY.search(stderr):
            code = 0  # the key of a parameter the first run removed: the config says to drop it
        if crash is not None or code != 0 or not unchanged:
            detail = crash or stderr or "the second run changed the file"
            return Finding(
                "not-idempotent", "not-idempotent", f"{detail}\n--- second run ---\n{again}", shown
            )
    return None


def tests_finding(
    program: Program, after: str, tests: str, modules: overlays.Modules = ()
) -> Finding | None:
    """What is wrong with the rewritten test module: it does not compile, the tests deleted are
    not those that exist only to exercise another value, or a test left does not do what it does
    without its mocks at the configured values (a mock of another value goes, a partial one with
    the test reported; one of the configured value goes too: its flag is gone)."""
    shown = f"{after}\n--- tests/test_program.py ---\n{tests}"
    problem = compile_error(tests)
    if problem is not None:
        return Finding(
            "does-not-compile", f"tests-do-not-compile: {normalized(problem)}", problem, shown
        )
    left = [node.name for node in ast.parse(tests).body if isinstance(node, ast.FunctionDef)]
    deleted = sorted({test.name for test in program.tests} - set(left))
    pinning = sorted(test.name for test in program.tests if test.pins_another_value(program.flags))
    if deleted != pinning:
        return Finding(
            "tests-differ", "tests-differ", f"deleted {deleted}, expected {pinning}", shown
        )
    expected = drive_tests(
        program.decided,
        program.test_source(doubles=False),
        overlays.decided(program.modules, program.flags),
    )
    now = drive_tests(after, tests, modules)
    for name in left:
        if now.get(name) != expected.get(name):
            detail = (
                f"{name}: at the configured values {expected.get(name)}\nafter: {now.get(name)}"
            )
            return Finding("output-differs", "tests-output-differs", detail, shown)
    return None


def first_difference(before: str, after: str) -> str:
    for old, new in zip(before.splitlines(), after.splitlines()):
        if old != new:
            return f"before: {old}\nafter:  {new}"
    return f"before:\n{before}\nafter:\n{after}"


# -- reducing a failing program ------------------------------------------------------------------
class _Edit(cst.CSTTransformer):
    """Applies the `target`-th simplification in visiting order (or only counts them, target -1):
    drop a statement, replace an `if`/`while` by its body, drop an `else`, keep one operand of
    `and`/`or`/`not`/a comparison/a ternary, drop a comment line."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.sites = 0

    def _offer(self, original: cst.CSTNode, *alternatives: Any) -> Any:
        for alternative in alternatives:
            if getattr(original, "lpar", None) and not getattr(alternative, "lpar", True):
                alternative = alternative.with_changes(lpar=original.lpar, rpar=original.rpar)
            if self.sites == self.target:
                self.sites += 1
                return alternative
            self.sites += 1
        return original

    def _drop_statements(self, node: Any) -> Any:
        body = list(node.body)
        for index in range(len(body)):
            if len(body) > 1 and self.sites == self.target:
                self.sites += 1
                return node.with_changes(body=body[:index] + body[index + 1 :])
            self.sites += 1
        return node

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> Any:
        return self._drop_statements(updated)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> Any:
        return self._drop_statements(updated)

    def leave_If(self, original: cst.If, updated: cst.If) -> Any:
        options: list[Any] = [cst.FlattenSentinel(updated.body.body)]
        if updated.orelse is not None:
            options.append(updated.with_changes(orelse=None))
            if isinstance(updated.orelse, cst.Else):
                options.append(cst.FlattenSentinel(updated.orelse.body.body))
        return self._offer(updated, *options)

    def leave_While(self, original: cst.While, updated: cst.While) -> Any:
        return self._offer(updated, cst.FlattenSentinel(updated.body.body))

    def leave_BooleanOperation(
        self, original: cst.BooleanOperation, updated: cst.BooleanOperation
    ) -> Any:
        return self._offer(updated, updated.left, updated.right)

    def leave_UnaryOperation(
        self, original: cst.UnaryOperation, updated: cst.UnaryOperation
    ) -> Any:
        return self._offer(updated, updated.expression)

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> Any:
        return self._offer(updated, updated.body, updated.orelse, updated.test)

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> Any:
        return self._offer(updated, updated.left)

    def leave_BinaryOperation(
        self, original: cst.BinaryOperation, updated: cst.BinaryOperation
    ) -> Any:
        return self._offer(updated, updated.left, updated.right)

    def leave_EmptyLine(self, original: cst.EmptyLine, updated: cst.EmptyLine) -> Any:
        if updated.comment is None:
            return updated
        return self._offer(updated, cst.RemoveFromParent())

    def leave_TrailingWhitespace(
        self, original: cst.TrailingWhitespace, updated: cst.TrailingWhitespace
    ) -> Any:
        if updated.comment is None:
            return updated
        return self._offer(
            updated, updated.with_changes(comment=None, whitespace=cst.SimpleWhitespace(""))
        )


def _edited(source: str, target: int) -> tuple[str | None, int]:
    """(the source with edit `target` applied or None if it does not parse, number of edits)."""
    editor = _Edit(target)
    try:
        text = cst.parse_module(source).visit(editor).code
    except Exception:  # an edit LibCST cannot render (an empty body): not a candidate
        return None, editor.sites
    return text, editor.sites


def _still_a_flag_program(program: Program) -> bool:
    """A reduction keeps what makes the program meaningful: it compiles cleanly, keeps `log` and
    `__all__`, runs without NameError (a flag read whose definition was dropped is not the tool's
    bug), and every flag it still names keeps its definition."""
    if (
        compile_error(program.source) is not None
        or not program.source.startswith(HEADER)
        or "__all__" not in program.source
    ):
        return False
    output = drive(program.source, program.entries, program.modules)
    if re.search(
        r"NameError|UnboundLocalError|has no attribute '(fast|legacy|seen|pending)"
        r"|ran past|import raises",
        output,
    ):
        return False
    tree = ast.parse(program.source)
    defined = {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            defined |= {
                t.id
                for s in node.body
                if isinstance(s, ast.Assign)
                for t in s.targets
                if isinstance(t, ast.Name)
            }
        if isinstance(node, ast.Assign):
            defined |= {t.attr for t in node.targets if isinstance(t, ast.Attribute)}
        if isinstance(node, ast.FunctionDef):  # a flag parameter is defined where its function is
            defined |= {argument.arg for argument in (*node.args.args, *node.args.kwonlyargs)}
    defined |= {overlays.OVERLAY_FLAG} if program.modules else set()  # the stages define it
    bookkeeping = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and n.attr.startswith(("seen", "pending"))
    }
    return all(name in defined for name in [*mentioned_flags(program), *bookkeeping])


def reduce(
    program: Program, finding: Finding, black: bool = False, budget: int = 600
) -> tuple[Program, Finding]:
    """A smaller program that fails with the same signature: greedy, one edit at a time, until no
    single edit keeps the failure (or `budget` checks are spent)."""
    checks = 0
    changed = True
    while changed and checks < budget:
        changed = False
        target = 0
        while checks < budget:
            text, sites = _edited(program.source, target)
            if target >= sites:
                break
            target += 1
            if text is None or text == program.source:
                continue
            candidate = replace(program, source=text)
            if not _still_a_flag_program(candidate):
                continue
            checks += 1
            again = check(candidate, black)
            if again is not None and again.signature == finding.signature:
                program, finding, changed = candidate, again, True
                target -= 1  # the same position now holds the next candidate
    return replace(program, flags=mentioned_flags(program)), finding
