"""The shapes of tests with `ast`: test functions and classes, fixtures and their uses,
parametrize entries, and what a test body binds and reads before it writes a flag."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from prune_flags.config import Flag
from prune_flags.syntax.expressions import ast_dotted, literal
from prune_flags.syntax.statements import (
    FunctionNode,
)
from prune_flags.syntax.values import UNKNOWN

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Parametrized:
    """The entries of a parametrize decorator for one of its parameters."""

    decorator: ast.Call
    values: tuple[object, ...]  # each entry's value for the parameter (UNKNOWN: not a literal)


def asserts_something(block: ast.AST) -> bool:
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


def binds_for_later(block: ast.stmt, rest: list[ast.stmt]) -> bool:
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


def _read_before_bound(names: set[str], statements: Sequence[ast.stmt]) -> bool:
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


def is_test_class(statement: ast.ClassDef) -> bool:
    """A `Test*` class, or one of unittest's TestCase classes."""
    return statement.name.startswith("Test") or any(
        ast_dotted(b).endswith("TestCase") for b in statement.bases
    )


def test_functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """pytest's default tests: `test*` functions, and `test*` methods of `Test*` classes (or of
    unittest's TestCase classes)."""
    for statement in tree.body:
        if isinstance(statement, FunctionNode) and statement.name.startswith("test"):
            yield statement
        elif isinstance(statement, ast.ClassDef) and is_test_class(statement):
            for member in statement.body:
                if isinstance(member, FunctionNode) and member.name.startswith("test"):
                    yield member


def fixture_functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """pytest fixtures at module level or in a class, but those that run unasked (`autouse`) or
    are asked for by another name (`name=`)."""
    for statement in tree.body:
        for node in (
            [statement, *getattr(statement, "body", [])]
            if isinstance(statement, ast.ClassDef)
            else [statement]
        ):
            if not isinstance(node, FunctionNode):
                continue
            for decorator in node.decorator_list:
                call = decorator if isinstance(decorator, ast.Call) else None
                dotted = ast_dotted(call.func if call else decorator)
                if dotted.rsplit(".", 1)[-1] == "fixture":
                    if not (call and any(k.arg in ("autouse", "name") for k in call.keywords)):
                        yield node
                    break


def named_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    arguments = function.args
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


def names_used(tree: ast.Module, skipped: frozenset[ast.AST]) -> frozenset[str]:
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


def parametrized_parameters(
    test: ast.FunctionDef | ast.AsyncFunctionDef,
) -> dict[str, Parametrized]:
    """The test's parameters that a `pytest.mark.parametrize` gives, with their entries' values
    (a decorator whose entries are not a literal list, or that is `indirect`, gives none)."""
    found = {}
    for decorator in test.decorator_list:
        if not (
            isinstance(decorator, ast.Call)
            and ast_dotted(decorator.func).endswith("mark.parametrize")
        ):
            continue
        values = parametrize_entries(decorator)
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
                found[name] = Parametrized(decorator, entries)
    return found


def parametrize_entries(decorator: ast.Call) -> ast.List | ast.Tuple | None:
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


@dataclass(frozen=True)
class TestWrite:
    """A write of a flag a test makes, where it is, and whether it holds for the whole test."""

    flag: Flag
    value: ast.expr | None  # the expression written; None: a mock stands in
    # The call, assignment or keyword that writes (its line is the index's).
    node: ast.expr | ast.stmt | ast.keyword
    place: str  # "decorator", "with", "statement", "keyword"
    key: Any  # where it is, as TestEdits keys it with its place
    pinning: bool  # it sets the flag for the test's whole body
    binds: bool = False  # a `with` item binding a name (`as m`): it cannot go alone

    @property
    def line(self) -> int:
        """The line of its change when it goes alone: its own (for a `with` item, the `with`'s)."""
        return self.key if isinstance(self.key, int) else self.key[0]


def table_entry_written(
    node: ast.Call | ast.Assign, flags: Mapping[str, Flag]
) -> tuple[Flag, ast.expr] | None:
    """The flag a call (or the call an assignment stores) writes as a literal entry of a dict it
    is handed, at any depth of dicts (`override_config({"features": {"use_v2": True}})`,
    `app = app_with(config={"use_v2": True})`): the key spells the flag as a table entry does
    (the tables pass removes the entry)."""
    call = node.value if isinstance(node, ast.Assign) else node
    if not isinstance(call, ast.Call):
        return None
    dicts = [a for a in (*call.args, *(k.value for k in call.keywords)) if isinstance(a, ast.Dict)]
    while dicts:
        given = dicts.pop(0)
        for key, value in zip(given.keys, given.values):
            named = key.value if isinstance(key, ast.Constant) else None
            flag = flags.get(named) if isinstance(named, str) else None
            if flag is not None and literal(value) is not UNKNOWN:
                return flag, value
            if flag is None and isinstance(value, ast.Dict):
                dicts.append(value)
    return None
