"""Replacements fit their place: the parentheses an expression needs where it now stands.

LibCST prints a tree as it is: put `x > 1 and f()` under `not` and it prints `not x > 1 and f()`,
another condition. The passes replace expressions (a flag by its constant, an `and`/`or` by one
operand, a ternary by an arm, a helper's call by what it returns, a lookup by its value), so
every replacement goes through `ExpressionEditor`, the base of those passes, which

* gives the replacement the parentheses of what it replaced when it has none of its own (a
  multi-line operand keeps the brackets its line breaks need), and drops them again where the
  replacement is an atom that needs none (`if (FAST or x):` -> `if x:`) unless that would glue it
  to a keyword (`if(x):`, never `ifx:`; LibCST refuses such a node);
* parenthesises it where its precedence is lower than its position allows, by Python's grammar
  (`-1 ** 2` is not `(-1) ** 2`);
* keeps a constant out of the receiver of an attribute, call or subscript (`None(d)`,
  `False.value`): the node stays as it was;
* and keeps a replacement out of an f-string where it cannot be written there (`f"{FLAG=}"`
  prints the expression's text; before Python 3.12 an expression cannot hold the f-string's quote
  or a backslash).

Only replaced expressions are looked at: parsed code already satisfies all of this, so what the
passes leave alone keeps its bytes.
"""

from __future__ import annotations

import dataclasses
from enum import IntEnum
from typing import Final

import libcst as cst

from prune_flags.constants import UNKNOWN, constant_node, constant_value
from prune_flags.context import RewriteContext
from prune_flags.passes.body import BodyEditor


class Level(IntEnum):
    """Python's precedence levels, loosest first (the grammar's `expression` down to its atoms)."""

    TUPLE = 0  # a bare tuple, `yield`, a starred element: only where a statement takes them
    NAMED = 1  # `x := y`
    LAMBDA = 2
    TERNARY = 3
    OR = 4
    AND = 5
    NOT = 6
    COMPARISON = 7
    BIT_OR = 8
    BIT_XOR = 9
    BIT_AND = 10
    SHIFT = 11
    SUM = 12
    TERM = 13
    FACTOR = 14  # unary `-`, `+`, `~`
    POWER = 15
    AWAIT = 16
    ATOM = 17  # names, literals, displays, attributes, calls, subscripts, anything in parentheses


_BINARY: Final[dict[type, Level]] = {
    cst.BitOr: Level.BIT_OR, cst.BitXor: Level.BIT_XOR, cst.BitAnd: Level.BIT_AND,
    cst.LeftShift: Level.SHIFT, cst.RightShift: Level.SHIFT, cst.Add: Level.SUM, cst.Subtract: Level.SUM,
    cst.Multiply: Level.TERM, cst.Divide: Level.TERM, cst.FloorDivide: Level.TERM, cst.Modulo: Level.TERM,
    cst.MatrixMultiply: Level.TERM, cst.Power: Level.POWER,
}  # fmt: skip
_KINDS: Final[dict[type, Level]] = {
    cst.Tuple: Level.TUPLE, cst.Yield: Level.TUPLE, cst.StarredElement: Level.TUPLE, cst.NamedExpr: Level.NAMED,
    cst.Lambda: Level.LAMBDA, cst.IfExp: Level.TERNARY, cst.Comparison: Level.COMPARISON, cst.Await: Level.AWAIT,
}  # fmt: skip
# The least level a child needs in its place, where that does not depend on the operator.
_POSITIONS: Final[dict[tuple[type, str], Level]] = {
    (cst.Comparison, "left"): Level.BIT_OR, (cst.ComparisonTarget, "comparator"): Level.BIT_OR,
    (cst.IfExp, "body"): Level.OR, (cst.IfExp, "test"): Level.OR, (cst.IfExp, "orelse"): Level.LAMBDA,
    (cst.Lambda, "body"): Level.LAMBDA, (cst.NamedExpr, "value"): Level.LAMBDA,
    (cst.Await, "expression"): Level.ATOM, (cst.Attribute, "value"): Level.ATOM,
    (cst.Subscript, "value"): Level.ATOM, (cst.Call, "func"): Level.ATOM,
    (cst.StarredElement, "value"): Level.BIT_OR, (cst.StarredDictElement, "value"): Level.BIT_OR,
    (cst.Element, "value"): Level.NAMED,
    (cst.DictElement, "key"): Level.LAMBDA, (cst.DictElement, "value"): Level.LAMBDA,
    (cst.Index, "value"): Level.NAMED, (cst.Slice, "lower"): Level.LAMBDA, (cst.Slice, "upper"): Level.LAMBDA,
    (cst.Slice, "step"): Level.LAMBDA,
    (cst.ListComp, "elt"): Level.NAMED, (cst.SetComp, "elt"): Level.NAMED, (cst.GeneratorExp, "elt"): Level.NAMED,
    (cst.DictComp, "key"): Level.LAMBDA, (cst.DictComp, "value"): Level.LAMBDA,
    (cst.CompFor, "iter"): Level.OR, (cst.CompIf, "test"): Level.OR,
    (cst.FormattedStringExpression, "expression"): Level.TERNARY,
    (cst.If, "test"): Level.NAMED, (cst.While, "test"): Level.NAMED, (cst.Decorator, "decorator"): Level.NAMED,
    (cst.Assert, "test"): Level.LAMBDA, (cst.Assert, "msg"): Level.LAMBDA, (cst.WithItem, "item"): Level.LAMBDA,
    (cst.Raise, "exc"): Level.LAMBDA, (cst.From, "item"): Level.LAMBDA,
    (cst.Param, "default"): Level.LAMBDA, (cst.Annotation, "annotation"): Level.LAMBDA,
}  # fmt: skip


def kind_level(node: cst.BaseExpression) -> Level:
    """The precedence of the node's own construct, whatever parentheses it has."""
    if isinstance(node, cst.BinaryOperation):
        return _BINARY[type(node.operator)]
    if isinstance(node, cst.BooleanOperation):
        return Level.AND if isinstance(node.operator, cst.And) else Level.OR
    if isinstance(node, cst.UnaryOperation):
        return Level.NOT if isinstance(node.operator, cst.Not) else Level.FACTOR
    return _KINDS.get(type(node), Level.ATOM)


def level(node: cst.BaseExpression) -> Level:
    return Level.ATOM if node.lpar else kind_level(node)


def required_level(parent: cst.CSTNode, field: str) -> Level:
    """The least precedence an expression needs as `parent.field`."""
    if isinstance(parent, cst.BinaryOperation):
        own = _BINARY[type(parent.operator)]
        if own is Level.POWER:  # right-associative, and `2 ** -1` takes a unary operand
            return Level.AWAIT if field == "left" else Level.FACTOR
        return own if field == "left" else Level(own + 1)
    if isinstance(parent, (cst.BooleanOperation, cst.UnaryOperation)):
        own = kind_level(parent)
        if isinstance(parent, cst.UnaryOperation) or field == "left":
            return own
        return Level(own + 1)
    if isinstance(parent, cst.Arg):  # `f(x := 1)`, but `f(k=(x := 1))`, `f(*(x := y))`
        return Level.LAMBDA if parent.keyword is not None or parent.star else Level.NAMED
    return _POSITIONS.get((type(parent), field), Level.TUPLE)


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def in_place_of(old: cst.BaseExpression, new: cst.BaseExpression) -> tuple[cst.BaseExpression, bool]:
    """`new` where `old` was: it takes `old`'s parentheses when it has none of its own, and
    whether those are loose (an atom needs them for nothing but a line break or a keyword)."""
    if new.lpar or not old.lpar:
        return new, False
    return new.with_changes(lpar=old.lpar, rpar=old.rpar), kind_level(new) is Level.ATOM


def standing_alone(old: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """`new` as a statement of its own in place of `old`: parentheses only to span lines."""
    placed, _ = in_place_of(old, new)
    bare = placed.with_changes(lpar=(), rpar=())
    return placed if "\n" in cst.Module([]).code_for_node(bare) else bare


def has_no_members(node: cst.BaseExpression) -> bool:
    """A constant that no attribute, call or subscript of makes sense on: None, a bool, a number.
    (A string's methods and a tuple's items are what the code computes.)"""
    value = constant_value(node)
    return value is not UNKNOWN and not isinstance(value, (str, tuple))


class ExpressionEditor(BodyEditor):
    """The base of the passes that replace expressions (see the module's docstring)."""

    def __init__(self, context: RewriteContext) -> None:
        super().__init__(context)
        self._depth = 0  # of the node being visited
        # Replacements waiting for their parent: (depth, node, whether its parentheses are loose).
        self._pending: list[tuple[int, cst.BaseExpression, bool]] = []
        self._receivers: set[int] = set()  # original expressions an attribute, call or subscript acts on
        self._quotes: list[str] = []  # the quote of each enclosing f-string
        self._verbatim = 0  # enclosing `{expr=}` f-string parts: their text is printed

    def is_receiver(self, original: cst.CSTNode) -> bool:
        return id(original) in self._receivers

    def fitted(self, original: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression | None:
        """`new` as it may stand in `original`'s place, or None where it may not: a constant
        without members as a receiver, anything in a `{expr=}`, or what an f-string cannot hold."""
        if self._verbatim or (self.is_receiver(original) and has_no_members(new)):
            return None
        if not self._quotes:
            return new
        text = constant_value(new) if isinstance(new, cst.SimpleString) else UNKNOWN
        if isinstance(text, str):  # the same string, in a quote no enclosing f-string uses
            quotes = [quote for quote in ('"', "'") if quote not in self._quotes]
            new = constant_node(text, quotes[0]).with_changes(lpar=new.lpar, rpar=new.rpar) if quotes else new
        code = cst.Module([]).code_for_node(new)
        return None if "\\" in code or any(quote in code for quote in self._quotes) else new

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._depth += 1
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            self._receivers.add(id(node.value))
        elif isinstance(node, cst.Call):
            self._receivers.add(id(node.func))
        elif isinstance(node, cst.FormattedString):
            self._quotes.append(node.end[0])
        elif isinstance(node, cst.FormattedStringExpression) and node.equal is not None:
            self._verbatim += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[no-untyped-def]
        depth = self._depth
        self._depth -= 1
        children: dict[int, tuple[cst.BaseExpression, bool]] = {}
        while self._pending and self._pending[-1][0] > depth:  # deeper ones had their parent's turn
            child_depth, child, loose = self._pending.pop()
            if child_depth == depth + 1:
                children[id(child)] = (child, loose)
        if children:
            updated_node = self._fit_children(updated_node, children)
        if isinstance(original_node, cst.FormattedString):
            self._quotes.pop()
        elif isinstance(original_node, cst.FormattedStringExpression) and original_node.equal is not None:
            self._verbatim -= 1
        result = super().on_leave(original_node, updated_node)
        if result is updated_node or not isinstance(original_node, cst.BaseExpression):
            return result
        if not isinstance(result, cst.BaseExpression) or not isinstance(updated_node, cst.BaseExpression):
            return result  # removed
        fitted = self.fitted(original_node, result)
        if fitted is None:  # a pass that records what it replaces asked first; the others are overruled
            return updated_node
        placed, loose = in_place_of(updated_node, fitted)
        self._pending.append((depth, placed, loose))
        return placed

    def _fit_children(self, parent: cst.CSTNode, children: dict[int, tuple[cst.BaseExpression, bool]]) -> cst.CSTNode:
        """Parenthesise each replaced child its place needs to; drop the loose parentheses of the
        others where LibCST takes the node without them."""
        needed: dict[str, cst.BaseExpression] = {}
        loose: dict[str, cst.BaseExpression] = {}
        for field in dataclasses.fields(parent):
            entry = children.get(id(getattr(parent, field.name)))
            if entry is None:
                continue
            child, is_loose = entry
            bare = child.with_changes(lpar=(), rpar=()) if is_loose else child
            if level(bare) < required_level(parent, field.name):
                needed[field.name] = parenthesized(bare)
            elif is_loose:
                loose[field.name] = bare
        if needed:
            parent = parent.with_changes(**needed)
        for name, bare in loose.items():
            try:
                parent = parent.with_changes(**{name: bare})
            except cst.CSTValidationError:
                pass  # `if(x):` stays so: without them it would read `ifx:`
        return parent
