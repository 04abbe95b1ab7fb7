"""One test file's tests that pin another value: what goes of them, and why."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from prune_flags.config import Flag
from prune_flags.model.pinned import (
    Position,
    Removal,
    TestEdits,
)
from prune_flags.model.test_environment import (
    environment_dicts,
    environment_written,
    goes_alone,
    value_given,
    void_once_pruned,
)
from prune_flags.model.test_shapes import (
    Parametrized,
    TestWrite,
    asserts_something,
    binds_for_later,
    fixture_functions,
    is_test_class,
    named_parameters,
    names_used,
    parametrize_entries,
    parametrized_parameters,
    table_entry_written,
    test_functions,
)
from prune_flags.report import overrode
from prune_flags.syntax.environment import environment_entry, environment_writes
from prune_flags.syntax.expressions import ast_dotted, literal, patched
from prune_flags.syntax.spellings import FlagNames
from prune_flags.syntax.statements import (
    KEEP_PRAGMA,
    DefinitionNode,
    FunctionNode,
    is_string_statement,
    nested_blocks,
)
from prune_flags.syntax.templates import Template
from prune_flags.syntax.values import UNKNOWN, same_value
from prune_flags.vocabulary import Action

_IMPORTS = (ast.Import, ast.ImportFrom)
_HOW = {
    "decorator": "by a decorator",
    "with": "by a `with` around its whole body",
    "statement": "before anything else it does",
    "keyword": "at its first call",
}


class TestFile:
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
        computed: Mapping[str, ast.expr],
        delete: bool,
    ) -> None:
        self.tree, self.text, self.lines, self.path = tree, text, text.split("\n"), path
        self.computed, self.flags, self.owners, self.writers = computed, flags, owners, writers
        self.names, self.delete = names, delete
        self.removals: dict[tuple[str, Any], Removal] = {}  # what goes alone (see TestEdits)
        self.deleted: dict[ast.stmt, Removal] = {}  # what goes whole
        # (flag, write line) -> the line of its change
        self.handled: dict[tuple[str, int], int] = {}
        self.tests: set[int] = set()
        # The calls writing a flag as an entry of a dict they are handed (table_entry_written):
        # the tables pass removes the entry; such a write only ever takes its test with it.
        self.entry_writes: set[int] = set()

    def plan(self) -> tuple[TestEdits, dict[tuple[str, int], int]]:
        used = names_used(self.tree, frozenset())
        for statement in self.tree.body:
            if isinstance(statement, ast.ClassDef) and is_test_class(statement):
                self._plan_class(statement, used)
        for test in test_functions(self.tree):
            if not any(test in cls.body for cls in self.deleted if isinstance(cls, ast.ClassDef)):
                self._plan_test(test, used)
        if self.deleted:
            self._delete_left_behind()
        deleted = {("deleted", node.lineno): why for node, why in self.deleted.items()}
        dicts = frozenset(self._position(d) for d in environment_dicts(self.tree, self.flags))
        edits = TestEdits({**self.removals, **deleted}, frozenset(self.tests), dicts)
        return edits, self.handled

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
                f"removed {cls.name}, whose tests exist only to exercise {flag.name} ="
                f" {self._source(value)} "
                f"(set by a decorator of the class); the config fixes it at {flag.source}"
            )
            self.deleted[cls] = Removal(cls.lineno, flag.name, Action.REMOVED_TEST, reason)
            self.handled[(flag.name, decorator.lineno)] = cls.lineno
            for test in (m for m in cls.body if isinstance(m, FunctionNode)):
                for write in self._writes(test):
                    self.handled[(write.flag.name, write.node.lineno)] = cls.lineno
            return

    # -- one test ---------------------------------------------------------------------------
    def _plan_test(
        self, test: ast.FunctionDef | ast.AsyncFunctionDef, used: frozenset[str]
    ) -> None:
        writes = list(self._writes(test))
        if not writes:
            return
        self.tests.add(test.lineno)
        parameters = parametrized_parameters(test)
        kinds = {id(write): self._kind(write, parameters) for write in writes}
        if self.delete and test.name not in used and not self._kept(test):
            for write in (write for write in writes if write.pinning):
                if kinds[id(write)] == "other":
                    return self._delete_test(test, writes, write, _HOW[write.place])
                cases = (
                    parameters.get(write.value.id) if isinstance(write.value, ast.Name) else None
                )
                if kinds[id(write)] != "param" or cases is None:
                    continue
                given = [value_given(write, value, self.computed) for value in cases.values]
                if UNKNOWN in given:
                    continue
                other = [
                    index
                    for index, value in enumerate(given)
                    if not same_value(value, write.flag.value)
                ]
                if len(other) == len(cases.values):
                    shown = " or ".join(dict.fromkeys(repr(value) for value in cases.values))
                    return self._delete_test(
                        test, writes, write, "by every entry of its parametrize", shown
                    )
                for index in other:
                    self._remove_entry(test, cases, index, write, given[index])
                kinds[id(write)] = "configured"  # the entries left give the configured value
        if self.delete and not self._kept(test):
            writes = self._delete_blocks(test, writes, kinds)
        for write in writes:
            self._remove_alone(test, write, kinds[id(write)])

    def _delete_blocks(
        self,
        test: ast.FunctionDef | ast.AsyncFunctionDef,
        writes: list[TestWrite],
        kinds: Mapping[int, str],
    ) -> list[TestWrite]:
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
            if (
                setting
                and asserts_something(statement)
                and not binds_for_later(statement, test.body[index + 1 :])
            ):
                why = setting[0]
                reason = (
                    f"removed the `with` block of {test.name} that exercises {why.flag.name} = "
                    f"{self._source(why.value)} (it checks that value's behaviour); the"
                    f" config fixes it at {why.flag.source}"
                )
                self.removals[("block", statement.lineno)] = Removal(
                    statement.lineno, why.flag.name, Action.REMOVED_TEST, reason
                )
                gone.append(statement)
        inside = {id(node) for block in gone for node in ast.walk(block)}
        for write in writes:
            if id(write.node) in inside:
                self.handled[(write.flag.name, write.node.lineno)] = write.line
        return [write for write in writes if id(write.node) not in inside]

    def _delete_test(
        self,
        test: ast.FunctionDef | ast.AsyncFunctionDef,
        writes: list[TestWrite],
        why: TestWrite,
        how: str,
        value: str = "",
    ) -> None:
        flag = why.flag
        value = value or self._source(why.value)
        reason = (
            f"removed {test.name}, which exists only to exercise {flag.name} = {value} (set"
            f" {how}); "
            f"the config fixes it at {flag.source}"
        )
        self.deleted[test] = Removal(test.lineno, flag.name, Action.REMOVED_TEST, reason)
        for write in writes:
            self.handled[(write.flag.name, write.node.lineno)] = test.lineno

    def _remove_entry(
        self,
        test: ast.FunctionDef | ast.AsyncFunctionDef,
        cases: Parametrized,
        index: int,
        write: TestWrite,
        given: object,
    ) -> None:
        values = parametrize_entries(cases.decorator)
        assert values is not None
        flag = write.flag
        reason = (
            f"removed the case {self._source(values.elts[index])} of {test.name}, which exercises "
            f"{flag.name} = {given!r}; the config fixes it at {flag.source}"
        )
        key = ("entry", (cases.decorator.lineno, index))
        self.removals[key] = Removal(
            values.elts[index].lineno, flag.name, Action.REMOVED_TEST, reason
        )

    def _remove_alone(
        self, test: ast.FunctionDef | ast.AsyncFunctionDef, write: TestWrite, kind: str
    ) -> None:
        """A write that goes on its own, reported as possibly pinning when it gave another value.
        One whose value is not known, or a `with` item binding a name, stays (a conflict). Of the
        writes of the configured value, only test doubles go here: with the flag's definition
        gone they would fail to patch it, and writes of the environment variable, which nothing
        reads any more; the others stay, or go with the flag (the prune pass). Of a
        `mock.patch.dict` of the environment that also sets other variables, or binds a name,
        only the flag's entry goes."""
        flag = write.flag
        place, key = write.place, write.key
        if id(write.node) in self.entry_writes:
            return
        if write.binds or not goes_alone(write):
            entry = environment_entry(write.node, flag.name)
            if entry is None:
                return
            place, key = "environ-key", self._position(entry)
        if kind == "unknown" or (kind == "same" and not void_once_pruned(write)):
            return
        if kind == "same":
            reason = f"it sets {flag.name} to the value it is fixed at, {flag.source}"
            if environment_writes(write.node):
                reason += ", in the environment, where nothing reads it any more"
            self.removals[(place, key)] = Removal(
                write.line, flag.name, Action.REMOVED_WRITE, reason
            )
            # (an environment write of the configured value may look like another to the index:
            # `monkeypatch.setenv("USE_V2", "0")` of `USE_V2 = os.environ.get(...) == "1"`)
            self.handled[(flag.name, write.node.lineno)] = write.line
            return
        if kind == "configured":
            action = Action.REMOVED_WRITE
            reason = (
                f"it sets {flag.name} to a parameter its entries left give as"
                f" {flag.source}, the value it is fixed at"
            )
        else:
            what = "exists to exercise that value" if write.pinning else "also checks other things"
            setting = '; tests = "report" keeps it' if write.pinning and not self.delete else ""
            action = Action.OVERRIDDEN
            reason = (
                f"{overrode(flag.name, self._source(write.value), flag.source)};"
                f" {test.name} {what} "
                f"and may pin the removed behaviour (possibly pinning{setting})"
            )
        self.removals[(place, key)] = Removal(write.line, flag.name, action, reason)
        self.handled[(flag.name, write.node.lineno)] = write.line

    def _kind(self, write: TestWrite, parameters: Mapping[str, Parametrized]) -> str:
        """The value written: "other" or "same" as the configured one, "param" (a parametrize
        parameter), or "unknown"."""
        value = literal(write.value) if write.value is not None else UNKNOWN
        if value is not UNKNOWN:
            return "same" if same_value(value, write.flag.value) else "other"
        if isinstance(write.value, ast.Name) and write.value.id in parameters:
            return "param"
        return "unknown"

    def _kept(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
        """A `# prune-flags: keep` on any of its lines (decorators included): it never goes
        whole."""
        first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        pragma = KEEP_PRAGMA.replace(" ", "")
        return any(
            pragma in line.replace(" ", "") for line in self.lines[first - 1 : node.end_lineno]
        )

    # -- the writes of a test ---------------------------------------------------------------
    def _writes(self, test: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[TestWrite]:
        for decorator in test.decorator_list:
            written = self._written(decorator)
            if written is not None:
                yield TestWrite(*written, decorator, "decorator", decorator.lineno, True)
        # Its docstring and its imports do nothing a write could come after.
        body = [
            s
            for index, s in enumerate(test.body)
            if (index or not is_string_statement(s)) and not isinstance(s, _IMPORTS)
        ]
        leading = True
        for statement in body:
            write = self._statement_write(statement)
            leading = leading and write is not None
            if leading and write is not None:  # (leading implies it)
                yield replace(write, pinning=True)
            else:
                yield from self._nested_writes([statement], whole=len(body) == 1)
        for index, statement in enumerate(body):
            yield from self._keywords(
                statement, pinning=index == 0 and not nested_blocks(statement)
            )

    def _nested_writes(self, statements: list[ast.stmt], whole: bool) -> Iterator[TestWrite]:
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
                        yield TestWrite(
                            *written,
                            item.context_expr,
                            "with",
                            key,
                            whole,
                            item.optional_vars is not None,
                        )
                yield from self._nested_writes(statement.body, whole and len(statement.body) == 1)
                continue
            if not isinstance(statement, DefinitionNode):
                for block in nested_blocks(statement):
                    yield from self._nested_writes(block, False)

    def _statement_write(self, statement: ast.stmt) -> TestWrite | None:
        node = statement.value if isinstance(statement, ast.Expr) else statement
        written = self._written(node) if isinstance(node, (ast.Call, ast.Assign)) else None
        return (
            TestWrite(*written, node, "statement", self._position(statement), False)
            if written
            else None
        )

    def _keywords(self, statement: ast.stmt, pinning: bool) -> Iterator[TestWrite]:
        """The flag's keywords at calls of its owners (`run(fast=True)`); in a test's first
        statement, a simple one, they set it for the whole test."""
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            callee = ast_dotted(node.func).rsplit(".", 1)[-1]
            for keyword in node.keywords:
                flag = self.flags.get(keyword.arg or "")
                if flag is not None and callee in self.owners.get(flag.name, ()):
                    yield TestWrite(
                        flag, keyword.value, keyword, "keyword", self._position(keyword), pinning
                    )

    def _written(self, node: ast.AST) -> tuple[Flag, ast.expr | None] | None:
        """The flag a call or an assignment writes, and the expression it writes."""
        name: object = None
        value: ast.expr | None = None
        environment = environment_written(node, self.flags, self.computed)
        if environment is not None:
            return environment
        if isinstance(node, ast.Call):
            double = patched(node)
            if double is not None:
                name, value = double
            elif ast_dotted(node.func) == "setattr" and len(node.args) == 3:
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
        if flag is None and isinstance(node, (ast.Call, ast.Assign)):
            entry = table_entry_written(node, self.flags)
            if entry is not None:
                self.entry_writes.add(id(node))
            return entry
        return (flag, value) if flag is not None else None

    # -- what deleted tests leave behind ----------------------------------------------------
    def _delete_left_behind(self) -> None:
        """Fixtures of this file that only deleted tests (or fixtures) asked for, then the test
        classes left without anything but a docstring. A fixture of a conftest.py serves other
        files: it stays."""
        fixtures = (
            []
            if PurePosixPath(self.path).name == "conftest.py"
            else list(fixture_functions(self.tree))
        )
        while True:
            asked = {
                a.arg: node
                for node in self.deleted
                if isinstance(node, FunctionNode)
                for a in named_parameters(node)
            }
            gone = [
                fixture
                for fixture in fixtures
                if fixture not in self.deleted
                and fixture.name in asked
                and fixture.name not in names_used(self.tree, frozenset([*self.deleted, fixture]))
            ]
            if not gone:
                break
            for fixture in gone:
                cause = self.deleted[asked[fixture.name]]
                users = sorted(
                    n.name
                    for n in self.deleted
                    if isinstance(n, FunctionNode)
                    and fixture.name in {a.arg for a in named_parameters(n)}
                )
                reason = (
                    f"fixture {fixture.name} was used only by tests this cleanup"
                    f" removed ({', '.join(users)})"
                )
                self.deleted[fixture] = Removal(
                    fixture.lineno, cause.flag, Action.REMOVED_FIXTURE, reason
                )
        used = names_used(self.tree, frozenset(self.deleted))
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
                    statement.lineno, inside[0].flag, Action.REMOVED_CLASS, reason
                )

    # -- text -------------------------------------------------------------------------------
    def _position(self, node: ast.stmt | ast.expr | ast.keyword) -> Position:
        """A node's line and column in characters, as LibCST counts them (`ast` counts bytes)."""
        line = self.lines[node.lineno - 1]
        column = len(line.encode("utf-8")[: node.col_offset].decode("utf-8", "replace"))
        return node.lineno, column

    def _source(self, node: ast.expr | None) -> str:
        if node is None:
            return "a mock"
        return ast.get_source_segment(self.text, node) or ast.unparse(node)
