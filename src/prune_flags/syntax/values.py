"""What the `ast` index and the LibCST passes share without needing LibCST: the unknown value,
type-strict equality of constants, and the callables whose calls have no side effect.
(`find` and the index run on `ast` alone, and do not pay for importing LibCST.)"""

from __future__ import annotations

from typing import Final


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _Unknown()


def same_value(left: object, right: object) -> bool:
    """Equality that also requires the same type: a flag fixed at False is not fixed at 0."""
    if type(left) is not type(right):
        return False
    if isinstance(left, tuple):
        assert isinstance(right, tuple)
        return len(left) == len(right) and all(map(same_value, left, right))
    return left == right


def plain_value(value: object) -> bool:
    """Values a flag can be fixed at: immutable literals whose repr reads back as themselves (a
    tuple of such too; `([],)` is not: each read would share its list)."""
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
