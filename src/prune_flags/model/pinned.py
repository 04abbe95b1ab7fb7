"""Tests that pin a value the config rules out, found with `ast` (README: "Tests").

In a test file (`test_*.py`, `*_test.py`, `conftest.py`, or under a `tests/` directory), a test
(a `test*` function, or a `test*` method of a `Test*` class) that sets a flag to another value
for its whole body exists only to exercise what the cleanup removes. It sets it so with a
decorator (`@mock.patch("pkg.FAST", True)`, `@override_settings(FAST=True)`), a `with` around
its whole body, a write before its first other statement (`monkeypatch.setattr(cfg, "fast",
True)`, `cfg.fast = True`, `setattr`, a writer call), or a keyword passed to one of the flag's
owners in its first statement (`run(fast=True)`); a test class that a decorator of the class sets
so. With `tests = "delete"` such a test (or class) goes, with
the fixtures of its file that only deleted tests used and a test class it leaves empty; a
parametrized one whose write takes a parameter loses only the entries that give another value
(and goes when none is left). Any other write of another value in a test goes alone, and the
test is reported as possibly pinning the removed behaviour; so does every such write with
`tests = "report"`. A test double writing the configured value goes alone too: once the flag's
definition is gone, it would have nothing to patch.

The tests pass (passes/tests.py) carries the plan out by the original file's lines and columns.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

from prune_flags.config import Flag
from prune_flags.report import OVERRIDDEN, REMOVED_TEST, overrode
from prune_flags.semantic.facts import NameFacts, Write
from prune_flags.syntax.expressions import ast_dotted, literal, patched
from prune_flags.syntax.spellings import FlagNames, module_strings
from prune_flags.syntax.statements import (
    KEEP_PRAGMA,
    is_string_statement,
    nested_blocks,
)
from prune_flags.syntax.templates import Template, module_writers
from prune_flags.syntax.values import UNKNOWN, same_value

# The index's kinds of the writes a test makes that a plan can carry out.
TEST_WRITES = ("patch", "writer", "setattr", "attribute", "keyword")
Position = tuple[int, int]  # (line, column in characters) of a node in the original text
_WORD = re.compile(r"\w+")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_test_path(path: str) -> bool:
    """pytest's default test files, by the path the run shows: `test_*.py`, `*_test.py`,
    `conftest.py`, and any file under a directory named `tests`."""
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or "tests" in parts[:-1]
    )


@dataclass(frozen=True)
class Removal:
    """Something the tests pass removes, and the change it records at `line`."""

    line: int
    flag: str
    action: str
    reason: str


@dataclass(frozen=True)
class TestEdits:
    """What the tests pass does in one file: each removal keyed by its place and where that is
    in the original text: ("deleted", `def`/`class` line) for a test, fixture or class that goes
    whole; ("block", `with` line) for a `with` of another value that goes whole inside a test;
    ("statement", (line, column)), ("decorator", line), ("with", (`with` line, item index)),
    ("keyword", (line, column)) for a write that goes alone; ("entry", (parametrize line, entry
    index)) for a parametrize entry."""

    removals: Mapping[tuple[str, Any], Removal]
    tests: frozenset[int] = (
        frozenset()
    )  # the `def` lines of the tests concerned: their blocks are walked

    def lines(self) -> frozenset[int]:
        """The lines the pass acts on (and the tests holding them), which the rewrite walks."""
        return frozenset(removal.line for removal in self.removals.values()) | self.tests


@dataclass
class TestPlan:
    """The tests' edits of a run, by file, and the flags' writes they remove."""

    files: dict[str, TestEdits] = field(default_factory=dict)
    # (flag, path, line of a write as the index sees it) -> the line of the change removing it
    handled: dict[tuple[str, str, int], int] = field(default_factory=dict)

    def handles(self, name: str, write: Write) -> bool:
        return (
            write.kind in TEST_WRITES and (name, write.site.path, write.site.line) in self.handled
        )

    def change_line(self, name: str, write: Write) -> int:
        """Where the change removing a write is recorded: its own line, or its deleted test's."""
        key = (name, write.site.path, write.site.line)
        return (
            self.handled.get(key, write.site.line) if write.kind in TEST_WRITES else write.site.line
        )

    def writes(self, name: str, facts: NameFacts) -> list[Write]:
        return [write for write in facts.writes if self.handles(name, write)]

    def without_handled(self, facts: Mapping[str, NameFacts]) -> dict[str, NameFacts]:
        """The facts without the writes the plan removes: they conflict with nothing."""
        return {
            name: replace(found, writes=[w for w in found.writes if not self.handles(name, w)])
            for name, found in facts.items()
        }

    def edits(self, path: str, flags: Collection[str]) -> TestEdits | None:
        """A file's edits, while every flag they are for is still pruned."""
        edits = self.files.get(path)
        return (
            edits
            if edits is not None
            and all(removal.flag in flags for removal in edits.removals.values())
            else None
        )


def plan_tests(
    files: Mapping[str, tuple[ast.Module, str]],
    flags: Mapping[str, Flag],
    owners: Mapping[str, frozenset[str]],
    writers: tuple[Template, ...],
    constants: Mapping[str, str],
    delete: bool,
) -> TestPlan:
    """The plan over the files (path -> tree and text) that write the flags; only test files
    get edits. `owners` are the functions and classes whose parameter or field each flag is
    (what a keyword reaches); `constants` the repository's constants holding a flag's name."""
    plan = TestPlan()
    for path, (tree, text) in files.items():
        if not is_test_path(path):
            continue
        names = FlagNames.of_module(module_strings(tree), [], constants)
        edits, handled = _TestFile(
            tree, text, path, flags, owners, module_writers(tree, writers), names, delete
        ).plan()
        if edits.removals:
            plan.files[path] = edits
            plan.handled.update(
                ((flag, path, line), change) for (flag, line), change in handled.items()
            )
    return plan


@dataclass(frozen=True)
class _Write:
    """A write of a flag a test makes, where it is, and whether it holds for the whole test."""

    flag: Flag
    value: ast.expr | None  # the expression written; None: a mock stands in
    node: ast.AST  # the call, assignment or keyword that writes (its line is the index's)
    place: str  # "decorator", "with", "statement", "keyword"
    key: Any  # where it is, as TestEdits keys it with its place
    pinning: bool  # it sets the flag for the test's whole body
    binds: bool = False  # a `with` item binding a name (`as m`): it cannot go alone

    @property
    def line(self) -> int:
        """The line of its change when it goes alone: its own (for a `with` item, the `with`'s)."""
        return self.key if isinstance(self.key, int) else self.key[0]


@dataclass(frozen=True)
class _Parametrized:
    """The entries of a parametrize decorator for one of its parameters."""

    decorator: ast.Call
    values: tuple[object, ...]  # each entry's value for the parameter (UNKNOWN: not a literal)


_HOW = {
    "decorator": "by a decorator",
    "with": "by a `with` around its whole body",
    "statement": "before anything else it does",
    "keyword": "at its first call",
}


class _TestFile:
    """The plan of one test file."""

    def __init__(
        self,
        tree: ast.Module,
        text: str,
        path: str,
        flags: Mapping[str, Flag],
        owners: Mapping[str, frozenset[str]],
        writers: tuple[Template, ...],
        names: FlagNames,
        delete: bool,
    ) -> None:
        self.tree, self.text, self.lines, self.path = tree, text, text.split("\n"), path
        self.flags, self.owners, self.writers, self.names, self.delete = (
            flags,
            owners,
            writers,
            names,
            delete,
        )
        self.removals: dict[tuple[str, Any], Removal] = {}  # what goes alone (see TestEdits)
        self.deleted: dict[ast.AST, Removal] = {}  # what goes whole
        self.handled: dict[tuple[str, int], int] = (
            {}
        )  # (flag, write line) -> the line of its change
        self.tests: set[int] = set()

    def plan(self) -> tuple[TestEdits, dict[tuple[str, int], int]]:
        used = _uses(self.tree, frozenset())
        for statement in self.tree.body:
            if isinstance(statement, ast.ClassDef) and _is_test_class(statement):
                self._plan_class(statement, used)
        for test in _tests(self.tree):
            if not any(test in cls.body for cls in self.deleted if isinstance(cls, ast.ClassDef)):
                self._plan_test(test, used)
        if self.deleted:
            self._delete_left_behind()
        deleted = {("deleted", node.lineno): why for node, why in self.deleted.items()}  # type: ignore[attr-defined]
        return TestEdits({**self.removals, **deleted}, frozenset(self.tests)), self.handled

    # -- a test class -----------------------------------------------------------------------
    def _plan_class(self, cls: ast.ClassDef, used: frozenset[str]) -> None:
        """A test class decorated to set a flag to another value (`@override_settings(FAST=True)`,
        `@mock.patch("pkg.FAST", True)`) exists only to exercise that value: it goes whole, and
        every write in its tests with it."""
        if not self.delete or cls.name in used or self._kept(cls):
            return
        for decorator in cls.decorator_list:
            written = self._written(decorator)
            if written is None:
                continue
            flag, value = written
            given = literal(value) if value is not None else UNKNOWN
            if given is UNKNOWN or same_value(given, flag.value):
                continue
            reason = (
                f"removed {cls.name}, whose tests exist only to exercise {flag.name} = {self._source(value)} "
                f"(set by a decorator of the class); the config fixes it at {flag.source}"
            )
            self.deleted[cls] = Removal(cls.lineno, flag.name, REMOVED_TEST, reason)
            self.handled[(flag.name, decorator.lineno)] = cls.lineno
            for test in (m for m in cls.body if isinstance(m, _FUNCTIONS)):
                for write in self._writes(test):
                    self.handled[(write.flag.name, write.node.lineno)] = cls.lineno  # type: ignore[attr-defined]
            return

    # -- one test ---------------------------------------------------------------------------
    def _plan_test(
        self, test: ast.FunctionDef | ast.AsyncFunctionDef, used: frozenset[str]
    ) -> None:
        writes = list(self._writes(test))
        if not writes:
            return
        self.tests.add(test.lineno)
        parameters = _parametrized(test)
        kinds = {id(write): self._kind(write, parameters) for write in writes}
        if self.delete and test.name not in used and not self._kept(test):
            for write in (write for write in writes if write.pinning):
                if kinds[id(write)] == "other":
                    return self._delete_test(test, writes, write, _HOW[write.place])
                cases = (
                    parameters.get(write.value.id) if isinstance(write.value, ast.Name) else None
                )
                if kinds[id(write)] != "param" or cases is None or UNKNOWN in cases.values:
                    continue
                other = [
                    index
                    for index, value in enumerate(cases.values)
                    if not same_value(value, write.flag.value)
                ]
                if len(other) == len(cases.values):
                    shown = " or ".join(dict.fromkeys(repr(value) for value in cases.values))
                    return self._delete_test(
                        test, writes, write, "by every entry of its parametrize", shown
                    )
                for index in other:
                    self._remove_entry(test, cases, index, write)
                kinds[id(write)] = "configured"  # the entries left give the configured value
        if self.delete and not self._kept(test):
            writes = self._delete_blocks(test, writes, kinds)
        for write in writes:
            self._remove_alone(test, write, kinds[id(write)])

    def _delete_blocks(
        self,
        test: ast.FunctionDef | ast.AsyncFunctionDef,
        writes: list[_Write],
        kinds: Mapping[int, str],
    ) -> list[_Write]:
        """A `with` of another value around part of a test that checks something inside it and
        binds nothing the rest of the test reads exists only to exercise that value: it goes
        whole (unwrapped, its checks would check the removed behaviour). The writes it holds go
        with it; the others are left to go alone."""
        gone: list[ast.With | ast.AsyncWith] = []
        for index, statement in enumerate(test.body):
            if not isinstance(statement, (ast.With, ast.AsyncWith)) or len(test.body) == 1:
                continue
            setting = [
                w
                for w in writes
                if w.place == "with" and w.key[0] == statement.lineno and kinds[id(w)] == "other"
            ]
            if setting and _checks(statement) and not _binds_for(statement, test.body[index + 1 :]):
                why = setting[0]
                reason = (
                    f"removed the `with` block of {test.name} that exercises {why.flag.name} = "
                    f"{self._source(why.value)} (it checks that value's behaviour); the config fixes it at {why.flag.source}"
                )
                self.removals[("block", statement.lineno)] = Removal(
                    statement.lineno, why.flag.name, REMOVED_TEST, reason
                )
                gone.append(statement)
        inside = {id(node) for block in gone for node in ast.walk(block)}
        for write in writes:
            if id(write.node) in inside:
                self.handled[(write.flag.name, write.node.lineno)] = write.line  # type: ignore[attr-defined]
        return [write for write in writes if id(write.node) not in inside]

    def _delete_test(
        self,
        test: ast.FunctionDef | ast.AsyncFunctionDef,
        writes: list[_Write],
        why: _Write,
        how: str,
        value: str = "",
    ) -> None:
        flag = why.flag
        value = value or self._source(why.value)
        reason = (
            f"removed {test.name}, which exists only to exercise {flag.name} = {value} (set {how}); "
            f"the config fixes it at {flag.source}"
        )
        self.deleted[test] = Removal(test.lineno, flag.name, REMOVED_TEST, reason)
        for write in writes:
            self.handled[(write.flag.name, write.node.lineno)] = test.lineno  # type: ignore[attr-defined]

    def _remove_entry(
        self,
        test: ast.FunctionDef | ast.AsyncFunctionDef,
        cases: _Parametrized,
        index: int,
        write: _Write,
    ) -> None:
        values = _argvalues(cases.decorator)
        assert values is not None
        flag = write.flag
        reason = (
            f"removed the case {self._source(values.elts[index])} of {test.name}, which exercises "
            f"{flag.name} = {cases.values[index]!r}; the config fixes it at {flag.source}"
        )
        key = ("entry", (cases.decorator.lineno, index))
        self.removals[key] = Removal(values.elts[index].lineno, flag.name, REMOVED_TEST, reason)

    def _remove_alone(
        self, test: ast.FunctionDef | ast.AsyncFunctionDef, write: _Write, kind: str
    ) -> None:
        """A write that goes on its own, reported as possibly pinning when it gave another value.
        One whose value is not known, or a `with` item binding a name, stays (a conflict). Of the
        writes of the configured value, only test doubles go here: with the flag's definition
        gone they would fail to patch it; the others stay, or go with the flag (the prune pass)."""
        flag = write.flag
        if (
            kind == "unknown"
            or write.binds
            or (kind == "same" and not (isinstance(write.node, ast.Call) and patched(write.node)))
        ):
            return
        if kind == "same":
            reason = f"it sets {flag.name} to the value it is fixed at, {flag.source}"
            self.removals[(write.place, write.key)] = Removal(
                write.line, flag.name, "removed-write", reason
            )
            return  # (not a write of another value: nothing waits for it to go)
        if kind == "configured":
            action = "removed-write"
            reason = f"it sets {flag.name} to a parameter its entries left give as {flag.source}, the value it is fixed at"
        else:
            what = "exists to exercise that value" if write.pinning else "also checks other things"
            setting = '; tests = "report" keeps it' if write.pinning and not self.delete else ""
            action = OVERRIDDEN
            reason = (
                f"{overrode(flag.name, self._source(write.value), flag.source)}; {test.name} {what} "
                f"and may pin the removed behaviour (possibly pinning{setting})"
            )
        self.removals[(write.place, write.key)] = Removal(write.line, flag.name, action, reason)
        self.handled[(flag.name, write.node.lineno)] = write.line  # type: ignore[attr-defined]

    def _kind(self, write: _Write, parameters: Mapping[str, _Parametrized]) -> str:
        """The value written: "other" or "same" as the configured one, "param" (a parametrize
        parameter), or "unknown"."""
        value = literal(write.value) if write.value is not None else UNKNOWN
        if value is not UNKNOWN:
            return "same" if same_value(value, write.flag.value) else "other"
        if isinstance(write.value, ast.Name) and write.value.id in parameters:
            return "param"
        return "unknown"

    def _kept(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
        """A `# prune-flags: keep` on any of its lines (decorators included): it never goes whole."""
        first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        pragma = KEEP_PRAGMA.replace(" ", "")
        return any(
            pragma in line.replace(" ", "") for line in self.lines[first - 1 : node.end_lineno]
        )

    # -- the writes of a test ---------------------------------------------------------------
    def _writes(self, test: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[_Write]:
        for decorator in test.decorator_list:
            written = self._written(decorator)
            if written is not None:
                yield _Write(*written, decorator, "decorator", decorator.lineno, True)
        body = [s for index, s in enumerate(test.body) if index or not is_string_statement(s)]
        leading = True
        for statement in body:
            write = self._statement_write(statement)
            leading = leading and write is not None
            if leading:
                yield replace(write, pinning=True)  # type: ignore[type-var]
            else:
                yield from self._nested_writes([statement], whole=len(body) == 1)
        for index, statement in enumerate(body):
            yield from self._keywords(
                statement, pinning=index == 0 and not nested_blocks(statement)
            )

    def _nested_writes(self, statements: list[ast.stmt], whole: bool) -> Iterator[_Write]:
        """The writes in statements at any depth; a `with` that is all of a test's body (or all
        of such a `with`'s body) sets the flag for the whole test."""
        for statement in statements:
            write = self._statement_write(statement)
            if write is not None:
                yield write
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                for index, item in enumerate(statement.items):
                    written = self._written(item.context_expr)
                    if written is not None:
                        key = (statement.lineno, index)
                        yield _Write(
                            *written,
                            item.context_expr,
                            "with",
                            key,
                            whole,
                            item.optional_vars is not None,
                        )
                yield from self._nested_writes(statement.body, whole and len(statement.body) == 1)
                continue
            if not isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
                for block in nested_blocks(statement):
                    yield from self._nested_writes(block, False)

    def _statement_write(self, statement: ast.stmt) -> _Write | None:
        node = statement.value if isinstance(statement, ast.Expr) else statement
        written = self._written(node) if isinstance(node, (ast.Call, ast.Assign)) else None
        return (
            _Write(*written, node, "statement", self._position(statement), False)
            if written
            else None
        )

    def _keywords(self, statement: ast.stmt, pinning: bool) -> Iterator[_Write]:
        """The flag's keywords at calls of its owners (`run(fast=True)`); in a test's first
        statement, a simple one, they set it for the whole test."""
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            callee = ast_dotted(node.func).rsplit(".", 1)[-1]
            for keyword in node.keywords:
                flag = self.flags.get(keyword.arg or "")
                if flag is not None and callee in self.owners.get(flag.name, ()):
                    yield _Write(
                        flag, keyword.value, keyword, "keyword", self._position(keyword), pinning
                    )

    def _written(self, node: ast.AST) -> tuple[Flag, ast.expr | None] | None:
        """The flag a call or an assignment writes, and the expression it writes."""
        name: object = None
        value: ast.expr | None = None
        if isinstance(node, ast.Call):
            double = patched(node)
            if double is not None:
                name, value = double
            elif (
                isinstance(node.func, ast.Name)
                and node.func.id == "setattr"
                and len(node.args) == 3
            ):
                name, value = literal(node.args[1]), node.args[2]
            else:
                written = next(
                    (
                        w
                        for template in self.writers
                        if (w := template.written_value(node, self.names))
                    ),
                    None,
                )
                if written is not None:
                    name, _, value = written
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Attribute)
        ):
            name, value = node.targets[0].attr, node.value
        flag = self.flags.get(name) if isinstance(name, str) else None
        return (flag, value) if flag is not None else None

    # -- what deleted tests leave behind ----------------------------------------------------
    def _delete_left_behind(self) -> None:
        """Fixtures of this file that only deleted tests (or fixtures) asked for, then the test
        classes left without anything but a docstring. A fixture of a conftest.py serves other
        files: it stays."""
        fixtures = (
            [] if PurePosixPath(self.path).name == "conftest.py" else list(_fixtures(self.tree))
        )
        while True:
            asked = {
                a.arg: node
                for node in self.deleted
                if isinstance(node, _FUNCTIONS)
                for a in _parameters(node)
            }
            gone = [
                fixture
                for fixture in fixtures
                if fixture not in self.deleted
                and fixture.name in asked
                and fixture.name not in _uses(self.tree, frozenset([*self.deleted, fixture]))
            ]
            if not gone:
                break
            for fixture in gone:
                cause = self.deleted[asked[fixture.name]]
                users = sorted(
                    n.name
                    for n in self.deleted
                    if isinstance(n, _FUNCTIONS) and fixture.name in {a.arg for a in _parameters(n)}
                )
                reason = f"fixture {fixture.name} was used only by tests this cleanup removed ({', '.join(users)})"
                self.deleted[fixture] = Removal(
                    fixture.lineno, cause.flag, "removed-fixture", reason
                )
        used = _uses(self.tree, frozenset(self.deleted))
        for statement in self.tree.body:
            if not isinstance(statement, ast.ClassDef):
                continue
            inside = [self.deleted[member] for member in statement.body if member in self.deleted]
            left = [
                s
                for s in statement.body
                if s not in self.deleted
                and not is_string_statement(s)
                and not isinstance(s, ast.Pass)
            ]
            if inside and not left and statement.name not in used:
                reason = f"test class {statement.name} has no test left"
                self.deleted[statement] = Removal(
                    statement.lineno, inside[0].flag, "removed-class", reason
                )

    # -- text -------------------------------------------------------------------------------
    def _position(self, node: ast.AST) -> Position:
        """A node's line and column in characters, as LibCST counts them (`ast` counts bytes)."""
        line = self.lines[node.lineno - 1]  # type: ignore[attr-defined]
        column = len(line.encode("utf-8")[: node.col_offset].decode("utf-8", "replace"))  # type: ignore[attr-defined]
        return node.lineno, column  # type: ignore[attr-defined]

    def _source(self, node: ast.expr | None) -> str:
        if node is None:
            return "a mock"
        return ast.get_source_segment(self.text, node) or ast.unparse(node)


def _checks(block: ast.AST) -> bool:
    """Whether a block asserts something: `assert`, `self.assertTrue(...)`,
    `np.testing.assert_allclose(...)`, `pytest.raises(...)`."""
    for node in ast.walk(block):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            callee = ast_dotted(node.func).rsplit(".", 1)[-1]
            if callee.startswith(("assert", "fail")) or callee in ("raises", "warns"):
                return True
    return False


def _binds_for(block: ast.stmt, rest: list[ast.stmt]) -> bool:
    """Whether a block binds a name (or stores an attribute) that a statement after it reads,
    or declares a name global: deleting it would change what follows."""
    names: set[str] = set()
    attributes: set[str] = set()
    for node in ast.walk(block):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return True
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            attributes.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return any(
        isinstance(node, ast.Attribute) and node.attr in attributes
        for s in rest
        for node in ast.walk(s)
    ) or (_read_before_bound(names, rest))


def _read_before_bound(names: set[str], statements: list[ast.stmt]) -> bool:
    """Whether a statement reads one of `names` before straight-line code binds it again (an
    assignment at the top of the statements, or of a `with` body, which always runs)."""
    names = set(names)
    for statement in statements:
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            items = [ast.Expr(item.context_expr) for item in statement.items]
            if _read_before_bound(names, items):
                return True
            bound = {
                n.id
                for item in statement.items
                if item.optional_vars
                for n in ast.walk(item.optional_vars)
                if isinstance(n, ast.Name)
            }
            if _read_before_bound(names - bound, statement.body):
                return True
            names -= bound | _bound_at_top(statement.body)
            continue
        if any(isinstance(node, ast.Name) and node.id in names for node in ast.walk(statement)):
            if not (
                isinstance(statement, ast.Assign)
                and not _reads(statement.value, names)
                and _stores_only_names(statement)
            ):
                return True
        names -= _bound_at_top([statement])
    return False


def _bound_at_top(statements: list[ast.stmt]) -> set[str]:
    """Names a plain assignment among these statements binds (`x = ...`, `x, y = ...`)."""
    return {
        node.id
        for statement in statements
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        for node in ast.walk(target)
        if isinstance(node, ast.Name)
    }


def _reads(expression: ast.expr, names: set[str]) -> bool:
    return any(isinstance(node, ast.Name) and node.id in names for node in ast.walk(expression))


def _stores_only_names(statement: ast.Assign) -> bool:
    """`x = ...` or `x, y = ...`: no subscript or attribute target that reads its base."""
    return all(
        isinstance(node, (ast.Name, ast.Tuple, ast.List, ast.Store))
        for t in statement.targets
        for node in ast.walk(t)
    )


def _is_test_class(statement: ast.ClassDef) -> bool:
    """A `Test*` class, or one of unittest's TestCase classes."""
    return statement.name.startswith("Test") or any(
        ast_dotted(b).endswith("TestCase") for b in statement.bases
    )


def _tests(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """pytest's default tests: `test*` functions, and `test*` methods of `Test*` classes (or of
    unittest's TestCase classes)."""
    for statement in tree.body:
        if isinstance(statement, _FUNCTIONS) and statement.name.startswith("test"):
            yield statement
        elif isinstance(statement, ast.ClassDef) and _is_test_class(statement):
            for member in statement.body:
                if isinstance(member, _FUNCTIONS) and member.name.startswith("test"):
                    yield member


def _fixtures(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """pytest fixtures at module level or in a class, but those that run unasked (`autouse`) or
    are asked for by another name (`name=`)."""
    for statement in tree.body:
        for node in (
            [statement, *getattr(statement, "body", [])]
            if isinstance(statement, ast.ClassDef)
            else [statement]
        ):
            if not isinstance(node, _FUNCTIONS):
                continue
            for decorator in node.decorator_list:
                call = decorator if isinstance(decorator, ast.Call) else None
                dotted = ast_dotted(call.func if call else decorator)
                if dotted.rsplit(".", 1)[-1] == "fixture":
                    if not (call and any(k.arg in ("autouse", "name") for k in call.keywords)):
                        yield node
                    break


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    arguments = function.args
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def _uses(tree: ast.Module, skipped: frozenset[ast.AST]) -> frozenset[str]:
    """Every name the module uses outside the skipped nodes: loads, attributes, parameters (a
    fixture asked for), and the words of its strings (`usefixtures("payment")`)."""
    found: set[str] = set()
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if node in skipped:
            continue
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(_WORD.findall(node.value))
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(found)


def _parametrized(test: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, _Parametrized]:
    """The test's parameters that a `pytest.mark.parametrize` gives, with their entries' values
    (a decorator whose entries are not a literal list, or that is `indirect`, gives none)."""
    found = {}
    for decorator in test.decorator_list:
        if not (
            isinstance(decorator, ast.Call)
            and ast_dotted(decorator.func).endswith("mark.parametrize")
        ):
            continue
        values = _argvalues(decorator)
        argnames = (
            decorator.args[0]
            if decorator.args
            else next((k.value for k in decorator.keywords if k.arg == "argnames"), None)
        )
        names = literal(argnames)
        if isinstance(names, str):
            names = [name.strip() for name in names.split(",") if name.strip()]
        if (
            values is None
            or not isinstance(names, (list, tuple))
            or any(k.arg == "indirect" for k in decorator.keywords)
        ):
            continue
        for index, name in enumerate(names):
            if isinstance(name, str):
                entries = tuple(_entry_value(entry, index, len(names)) for entry in values.elts)
                found[name] = _Parametrized(decorator, entries)
    return found


def _argvalues(decorator: ast.Call) -> ast.List | ast.Tuple | None:
    """A parametrize decorator's list of entries, when it is a literal list or tuple."""
    values = (
        decorator.args[1]
        if len(decorator.args) > 1
        else next((k.value for k in decorator.keywords if k.arg == "argvalues"), None)
    )
    return values if isinstance(values, (ast.List, ast.Tuple)) else None


def _entry_value(entry: ast.expr, index: int, count: int) -> object:
    """The value an entry gives the `index`-th of `count` parameters: `True`, `(True, 1)`,
    `pytest.param(True, 1, id="fast")`."""
    if isinstance(entry, ast.Call) and ast_dotted(entry.func).rsplit(".", 1)[-1] == "param":
        elements = entry.args
    elif count == 1:
        elements = [entry]
    else:
        elements = entry.elts if isinstance(entry, (ast.Tuple, ast.List)) else []
    if index >= len(elements) or any(isinstance(element, ast.Starred) for element in elements):
        return UNKNOWN
    return literal(elements[index])
