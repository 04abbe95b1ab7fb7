"""The process environment with `ast`: what each write sets (and whether only that), and the
value a definition computed from a variable takes at a given setting of it."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from prune_flags.syntax.expressions import ENVIRON, ast_dotted, literal
from prune_flags.syntax.values import UNKNOWN

_SETTERS = ("environ.setdefault", "putenv", "setenv")  # setenv: pytest's monkeypatch
_UNSETTERS = ("environ.pop", "unsetenv", "delenv")  # delenv: pytest's monkeypatch


@dataclass(frozen=True)
class EnvironmentWrite:
    """One variable a write sets (`value`, a `None` constant for unset), the string spelling it,
    and whether the write sets nothing else, so that it can go on its own."""

    variable: str
    value: ast.expr
    spelling: ast.expr | None
    alone: bool = True


def environment_writes(node: ast.AST) -> tuple[EnvironmentWrite, ...]:
    """What a statement or call writes to the environment: `os.environ["X"] = v` (`del`: unset),
    `monkeypatch.setenv("X", v)`, `os.putenv`, `os.environ.setdefault`, an unset
    (`monkeypatch.delenv("X")`, `os.unsetenv`, `os.environ.pop`), and
    `mock.patch.dict(os.environ, {"X": v})`, which also sets its other keys (and with
    `clear=True` unsets every other variable)."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        value = node.value if isinstance(node, ast.Assign) else ast.Constant(None)
        return tuple(
            EnvironmentWrite(key, value, target.slice, alone=len(node.targets) == 1)
            for target in node.targets
            if isinstance(target, ast.Subscript)
            and ast_dotted(target.value) in ENVIRON
            and isinstance(key := literal(target.slice), str)
        )
    if not isinstance(node, ast.Call):
        return ()
    func = ast_dotted(node.func)
    key = literal(node.args[0]) if node.args else None
    if func.endswith(_SETTERS) and len(node.args) == 2 and isinstance(key, str):
        return (EnvironmentWrite(key, node.args[1], node.args[0]),)
    if func.endswith(_UNSETTERS) and node.args and isinstance(key, str):
        return (EnvironmentWrite(key, ast.Constant(None), node.args[0]),)
    if func.endswith("patch.dict") and node.args:
        target = node.args[0]
        if ast_dotted(target) not in ENVIRON and literal(target) != "os.environ":
            return ()
        named = {k.arg: k.value for k in node.keywords if k.arg is not None}
        given = node.args[1] if len(node.args) > 1 else named.pop("values", None)
        clears = literal(named.pop("clear", ast.Constant(False))) is not False
        entries = list(zip(given.keys, given.values)) if isinstance(given, ast.Dict) else []
        pairs = [(k, literal(k) if k else None, v) for k, v in entries]
        pairs += [(None, k, v) for k, v in named.items()]
        known = (given is None or isinstance(given, ast.Dict)) and all(k.arg for k in node.keywords)
        alone = len(pairs) == 1 and not clears and known and len(node.args) <= 2
        return tuple(
            EnvironmentWrite(variable, value, spelling, alone)
            for spelling, variable, value in pairs
            if isinstance(variable, str)
        )
    return ()


def environment_entry(node: ast.AST, variable: str) -> ast.expr | None:
    """The key spelling `variable` in the dict of a `mock.patch.dict` of the environment
    (`{"X": "1", "Y": "2"}`): removing that entry removes the write of it alone."""
    if not isinstance(node, ast.Call):
        return None
    dicts = [a for a in (*node.args, *(k.value for k in node.keywords)) if isinstance(a, ast.Dict)]
    return next(
        (
            written.spelling
            for written in environment_writes(node)
            if written.variable == variable
            and any(written.spelling in given.keys for given in dicts)
        ),
        None,
    )


_GETTERS = ("os.environ.get", "environ.get", "os.getenv", "getenv")
_CONVERSIONS: dict[str, Callable[..., object]] = {
    "bool": bool, "int": int, "float": float, "str": str, "len": len,
}  # fmt: skip
_STRING_METHODS = frozenset({"lower", "upper", "strip", "casefold", "startswith", "endswith"})
# Python's own comparisons, as the definition runs them (find.estimate.compare_constants is the
# engine's type-strict equality, where `True == 1` is no constant test; here it is True).
_COMPARISONS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}  # fmt: skip


class _Unknown(Exception):
    """The expression does more than read the variable, compare, test and convert."""


def computed_value(value: ast.expr, variable: str, setting: str | None) -> object:
    """The value a definition computed from the environment (`os.environ.get("X", "0") == "1"`,
    `bool(int(os.getenv("X", "1")))`, `"X" in os.environ`) takes with `variable` at `setting`
    (None: unset); UNKNOWN where it does anything else, reads another variable, or fails."""
    try:
        return _computed(value, variable, setting)
    except (_Unknown, ValueError, TypeError, KeyError, AttributeError):
        return UNKNOWN


def _computed(node: ast.expr, variable: str, setting: str | None) -> Any:
    def inner(child: ast.expr) -> Any:
        return _computed(child, variable, setting)

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [inner(element) for element in node.elts]
        return {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.BoolOp):
        result = inner(node.values[0])
        for operand in node.values[1:]:
            if bool(result) is isinstance(node.op, ast.Or):
                return result
            result = inner(operand)
        return result
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not inner(node.operand)
    if isinstance(node, ast.IfExp):
        return inner(node.body) if inner(node.test) else inner(node.orelse)
    if isinstance(node, ast.Compare):
        if (
            len(node.ops) == 1
            and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and ast_dotted(node.comparators[0]) in ENVIRON
        ):
            if literal(node.left) != variable:
                raise _Unknown
            return (setting is not None) is isinstance(node.ops[0], ast.In)
        left = inner(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = inner(comparator)
            identity = isinstance(op, (ast.Is, ast.IsNot))
            if identity and not any(v is None or isinstance(v, bool) for v in (left, right)):
                raise _Unknown  # whether two equal strings are one object is CPython's business
            if not _COMPARISONS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Subscript) and ast_dotted(node.value) in ENVIRON:
        if literal(node.slice) != variable or setting is None:
            raise _Unknown
        return setting
    if isinstance(node, ast.Call) and not node.keywords:
        func = ast_dotted(node.func)
        if func in _GETTERS and 1 <= len(node.args) <= 2:
            if literal(node.args[0]) != variable:
                raise _Unknown
            if setting is not None:
                return setting
            return inner(node.args[1]) if len(node.args) == 2 else None
        if func in _CONVERSIONS:
            return _CONVERSIONS[func](*(inner(argument) for argument in node.args))
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_METHODS:
            receiver = inner(node.func.value)
            if not isinstance(receiver, str):
                raise _Unknown
            return getattr(receiver, node.func.attr)(*(inner(a) for a in node.args))
    raise _Unknown
