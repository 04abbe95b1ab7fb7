"""Constant values of LibCST expressions, and expressions built from constants.

Folding needs to know the value of an expression only when it is a literal the
flag was inlined as, or an operator over such literals; anything else is
`UNKNOWN`. Values are compared by type as well as by value so that `1 == True`
never folds an `if` the way Python's `==` would not have.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Sequence
from typing import Any, Final, cast

import libcst as cst

from prune_flags.syntax.values import UNKNOWN

_NAMED_CONSTANTS: Final = {"True": True, "False": False, "None": None}


def constant_value(node: cst.BaseExpression) -> object:
    """The Python value of a literal expression, or UNKNOWN."""
    if isinstance(node, cst.Name):
        return _NAMED_CONSTANTS.get(node.value, UNKNOWN)
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return ast.literal_eval(node.value)
    if isinstance(node, cst.ConcatenatedString):
        left, right = constant_value(node.left), constant_value(node.right)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        return UNKNOWN
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        operand = constant_value(node.expression)
        if type(operand) in (int, float):  # not a bool, which isinstance would take
            number = cast("int | float", operand)
            return -number if isinstance(node.operator, cst.Minus) else number
        return UNKNOWN
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        items = _element_values(node.elements)
        if items is None:
            return UNKNOWN
        return _built(_DISPLAYS[type(node)], items)
    if isinstance(node, cst.Dict):
        pairs = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return UNKNOWN  # a `**spread`
            key, value = constant_value(element.key), constant_value(element.value)
            if key is UNKNOWN or value is UNKNOWN:
                return UNKNOWN
            pairs.append((key, value))
        return _built(dict, pairs)
    if isinstance(node, cst.Call):
        return _set_call(node)
    return UNKNOWN


_DISPLAYS: Final[dict[type, type]] = {cst.Tuple: tuple, cst.List: list, cst.Set: set}


def _element_values(elements: Sequence[cst.BaseElement]) -> list[object] | None:
    items = []
    for element in elements:
        if not isinstance(element, cst.Element):
            return None  # a `*spread`
        value = constant_value(element.value)
        if value is UNKNOWN:
            return None
        items.append(value)
    return items


def _set_call(call: cst.Call) -> object:
    """`set()` and `frozenset(...)` of a literal: how a set without items, and a frozenset, are
    written (the names taken to be the builtins, as everywhere in the passes)."""
    if (
        not isinstance(call.func, cst.Name)
        or call.func.value not in ("set", "frozenset")
        or len(call.args) > 1
        or any(arg.keyword or arg.star for arg in call.args)
    ):
        return UNKNOWN
    items = constant_value(call.args[0].value) if call.args else ()
    if not isinstance(items, (tuple, list, set, frozenset)):
        return UNKNOWN
    return _built(set if call.func.value == "set" else frozenset, items)


def _built(kind: type, items: object) -> object:
    try:
        return kind(items)
    except TypeError:
        return UNKNOWN  # an unhashable item of a set or key of a dict raises at run time


def constant_node(value: object, quote: str = '"') -> cst.BaseExpression:
    """A LibCST literal for a value that `constant_value` can return; a string in `quote` where
    it needs no more escapes than repr's."""
    if value is None or isinstance(value, bool):
        return cst.Name(repr(value))
    if isinstance(value, int):
        node: cst.BaseExpression = cst.Integer(str(abs(value)))
    elif isinstance(value, float):
        node = cst.Float(repr(abs(value)))
    elif isinstance(value, str):
        return cst.SimpleString(_quoted(value, quote))
    elif isinstance(value, tuple):
        elements = [cst.Element(constant_node(item, quote)) for item in value]
        if len(elements) == 1:
            elements = [elements[0].with_changes(comma=cst.Comma())]
        return cst.Tuple(elements)
    elif isinstance(value, list):
        return cst.List([cst.Element(constant_node(item, quote)) for item in value])
    elif isinstance(value, dict):
        return cst.Dict(
            [
                cst.DictElement(constant_node(key, quote), constant_node(item, quote))
                for key, item in value.items()
            ]
        )
    elif isinstance(value, (set, frozenset)):
        # Written in the order it iterates in, which a set made from that text iterates in too;
        # but a string's hash differs between runs (so does a set's order): sorted then, so that
        # every run writes the same text.
        ordered = (
            sorted(value, key=lambda item: (type(item).__name__, repr(item)))
            if any(isinstance(item, (str, tuple)) for item in value)
            else list(value)
        )
        items = [cst.Element(constant_node(item, quote)) for item in ordered]
        shown = cst.Set(items) if items else None
        if isinstance(value, set) and shown is not None:
            return shown
        name = "set" if isinstance(value, set) else "frozenset"
        return cst.Call(cst.Name(name), [cst.Arg(shown)] if shown is not None else [])
    else:
        raise TypeError(f"not a constant: {value!r}")
    if value < 0:
        return cst.UnaryOperation(cst.Minus(), node)
    return node


def _quoted(text: str, quote: str) -> str:
    """A string literal in `quote` where it needs no more escapes than repr's. Double quotes are
    the style of black and of most code; an f-string may need the other."""
    literal = repr(text)
    if quote == "'" or '"' in text or literal[0] != "'":
        return literal
    return '"' + literal[1:-1].replace("\\'", "'") + '"'


def truthiness(node: cst.BaseExpression) -> bool | None:
    """bool(node) when the node is a constant, else None."""
    value = constant_value(node)
    return None if value is UNKNOWN else bool(value)


def bool_node(value: bool) -> cst.Name:
    return cst.Name("True" if value else "False")


# Builtins whose call on a constant is certain and side-effect free; a call that raises at run
# time (`int("x")`, `len(None)`) is left to do so.
_ON_CONSTANT: Final[dict[str, Callable[[Any], object]]] = {
    "bool": bool, "int": int, "float": float, "str": str, "len": len, "callable": callable,
}  # fmt: skip
_BUILTIN_TYPES: Final[dict[str, type]] = {
    "bool": bool, "int": int, "float": float, "complex": complex, "str": str, "bytes": bytes,
    "tuple": tuple, "list": list, "dict": dict, "set": set, "frozenset": frozenset, "type": type,
    "object": object,
}  # fmt: skip


def builtin_result(call: cst.Call) -> object:
    """What a call of a pure builtin over constants returns (`callable(None)`, `len("ab")`,
    `isinstance(False, (int, str))`), when a literal can say it; UNKNOWN otherwise. The names
    are taken to be the builtins, as everywhere in the passes."""
    if (
        not isinstance(call.func, cst.Name)
        or any(arg.keyword or arg.star for arg in call.args)
        or not call.args
    ):
        return UNKNOWN
    name, value = call.func.value, constant_value(call.args[0].value)
    if value is UNKNOWN:
        return UNKNOWN
    if name == "isinstance" and len(call.args) == 2:
        types = builtin_types(call.args[1].value)
        return UNKNOWN if types is None else isinstance(value, types)
    function = _ON_CONSTANT.get(name)
    if function is None or len(call.args) != 1:
        return UNKNOWN
    try:
        result = function(value)
    except (TypeError, ValueError):
        return UNKNOWN
    if isinstance(result, float) and not math.isfinite(result):
        return UNKNOWN  # float("nan") has no literal
    return result


def builtin_types(node: cst.BaseExpression) -> tuple[type, ...] | None:
    """The builtin types `int` or `(int, str)` names, or None."""
    elements = (
        [element.value for element in node.elements] if isinstance(node, cst.Tuple) else [node]
    )
    if isinstance(node, cst.Tuple) and not all(
        isinstance(element, cst.Element) for element in node.elements
    ):
        return None
    names = [element.value if isinstance(element, cst.Name) else "" for element in elements]
    if not names or not all(name in _BUILTIN_TYPES for name in names):
        return None
    return tuple(_BUILTIN_TYPES[name] for name in names)
