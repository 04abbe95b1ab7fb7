"""Constant values of LibCST expressions, and expressions built from constants.

Folding needs to know the value of an expression only when it is a literal the
flag was inlined as, or an operator over such literals; anything else is
`UNKNOWN`. Values are compared by type as well as by value so that `1 == True`
never folds an `if` the way Python's `==` would not have.
"""

from __future__ import annotations

import ast
from typing import Final

import libcst as cst

from prune_flags.values import UNKNOWN


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
        if type(operand) in (int, float):
            return -operand if isinstance(node.operator, cst.Minus) else operand  # type: ignore[operator]
        return UNKNOWN
    if isinstance(node, cst.Tuple):
        items = []
        for element in node.elements:
            if not isinstance(element, cst.Element):
                return UNKNOWN
            value = constant_value(element.value)
            if value is UNKNOWN:
                return UNKNOWN
            items.append(value)
        return tuple(items)
    return UNKNOWN


def constant_node(value: object) -> cst.BaseExpression:
    """A LibCST literal for a value that `constant_value` can return."""
    if value is None or isinstance(value, bool):
        return cst.Name(repr(value))
    if isinstance(value, int):
        node: cst.BaseExpression = cst.Integer(str(abs(value)))
    elif isinstance(value, float):
        node = cst.Float(repr(abs(value)))
    elif isinstance(value, str):
        return cst.SimpleString(_double_quoted(value))
    elif isinstance(value, tuple):
        elements = [cst.Element(constant_node(item)) for item in value]
        if len(elements) == 1:
            elements = [elements[0].with_changes(comma=cst.Comma())]
        return cst.Tuple(elements)
    else:
        raise TypeError(f"not a constant: {value!r}")
    if value < 0:  # type: ignore[operator]
        return cst.UnaryOperation(cst.Minus(), node)
    return node


def _double_quoted(text: str) -> str:
    """A string literal in double quotes where it needs no more escapes than repr's: the
    style of black and of most code."""
    single = repr(text)
    if '"' in text or single[0] != "'":
        return single
    return '"' + single[1:-1].replace("\\'", "'") + '"'


def truthiness(node: cst.BaseExpression) -> bool | None:
    """bool(node) when the node is a constant, else None."""
    value = constant_value(node)
    return None if value is UNKNOWN else bool(value)


def bool_node(value: bool) -> cst.Name:
    return cst.Name("True" if value else "False")
