"""What the `ast` index and the LibCST passes share without needing LibCST: the unknown value,
type-strict equality of constants, and the callables whose calls have no side effect.
(`find` and the index run on `ast` alone, and do not pay for importing LibCST.)"""

from __future__ import annotations

import ast
from typing import Final


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _Unknown()


def same_value(left: object, right: object) -> bool:
    """Equality that also requires the same type, of every item too: a flag fixed at False is not
    fixed at 0, nor `[1]` at `[True]`; a dict's items also in the same order, which its reads
    iterate in."""
    if type(left) is not type(right):
        return False
    if isinstance(left, (tuple, list)):
        assert isinstance(right, (tuple, list))
        return len(left) == len(right) and all(map(same_value, left, right))
    if isinstance(left, dict):
        assert isinstance(right, dict)
        return len(left) == len(right) and all(
            same_value(key, other_key) and same_value(value, other_value)
            for (key, value), (other_key, other_value) in zip(left.items(), right.items())
        )
    if isinstance(left, (set, frozenset)):
        assert isinstance(right, (set, frozenset))
        return len(left) == len(right) and all(
            any(same_value(item, other) for other in right) for item in left
        )
    return left == right


MUTABLE_TYPES: Final = (list, dict, set)


def literal_value(node: ast.expr) -> object:
    """The value of a literal expression as `ast.literal_eval` reads it, also through the
    spellings `set()` and `frozenset(...)` (a literal set or frozenset has no display of its own).
    Raises ValueError for anything else."""
    if isinstance(node, ast.Call):
        if (
            not isinstance(node.func, ast.Name)
            or node.func.id not in ("set", "frozenset")
            or node.keywords
            or len(node.args) > 1
        ):
            raise ValueError("not a literal")
        items = literal_value(node.args[0]) if node.args else ()
        if not isinstance(items, (tuple, list, set, frozenset)):
            raise ValueError("not a literal")
        return _hashed(set if node.func.id == "set" else frozenset, items)
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [literal_value(item) for item in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Set):
        return _hashed(set, [literal_value(item) for item in node.elts])
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise ValueError("not a literal")  # a `**spread`
        pairs = [
            (literal_value(key), literal_value(value))
            for key, value in zip(node.keys, node.values)
            if key is not None
        ]
        return _hashed(dict, pairs)
    return ast.literal_eval(node)


def _hashed(kind: type, items: object) -> object:
    try:
        return kind(items)
    except TypeError:
        raise ValueError("an unhashable item") from None


def plain_value(value: object) -> bool:
    """Values a derived flag or a `find` candidate can be fixed at: immutable literals whose repr
    reads back as themselves (a tuple of such too; `([],)` is not: each read would share its
    list). A configured flag may hold a list, dict or set too (config.py)."""
    if isinstance(value, tuple):
        return all(plain_value(item) for item in value)
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    return value is None or isinstance(value, (bool, int, str))


PURE_BUILTINS: Final = frozenset(
    {
        "abs", "all", "any", "bool", "callable", "chr", "dict", "divmod", "float", "frozenset",
        "hasattr", "hash", "id", "int", "isinstance", "issubclass", "len", "list", "max", "min",
        "ord", "repr", "round", "set", "sorted", "str", "sum", "tuple", "type",
    }
)  # fmt: skip

# Field declarations of dataclasses, attrs and pydantic only describe a default.
FIELD_CONSTRUCTORS: Final = frozenset(
    {
        "field",
        "dataclasses.field",
        "attr.ib",
        "attr.attrib",
        "attrs.field",
        "attr.field",
        "Field",
        "pydantic.Field",
    }
)
