"""Replacements fit their place: the parentheses an expression needs where it now stands."""

# LibCST prints a tree as it is: put `x > 1 and f()` under `not` and it prints `not x > 1 and f()`,
# another condition. The passes replace expressions (a flag by its constant, an `and`/`or` by one
# operand, a ternary by an arm, a helper's call by what it returns, a lookup by its value), so every
# replacement goes through `ExpressionEditor`, the base of those passes, which
#
# * gives the replacement the parentheses of what it replaced when it has none of its own (a
#   multi-line operand keeps the brackets its line breaks need), and drops them again where the
#   replacement needs none (`if (FAST or x):` -> `if x:`, `f() and (FAST or x > 3)` -> `f() and x >
#   3`, but `not (FAST or x and y)` -> `not (x and y)`) unless that would glue it to a keyword
#   (`if(x):`, never `ifx:`). LibCST refuses such a node, but only the one that owns the keyword:
#   where the atom ends up at an end of its parent (`return(x), y`), the parent's parent decides,
#   and so on up to the statement;
# * parenthesises it where its precedence is lower than its position allows, by Python's grammar
#   (`-1 ** 2` is not `(-1) ** 2`);
# * keeps a constant out of the receiver of an attribute, call or subscript it lacks (`None(d)`,
#   `False.value`): the node stays as it was; one whose type has the attribute stands in parentheses
#   (`(x is None).bit_length()` -> `(False).bit_length()`, never `1 is None`);
# * and keeps a replacement out of an f-string where it cannot be written there (`f"{FLAG=}"` prints
#   the expression's text; before Python 3.12 an expression cannot hold the f-string's quote or a
#   backslash).
#
# Only replaced expressions are looked at: parsed code already satisfies all of this, so what the
# passes leave alone keeps its bytes.

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, cast

import libcst as cst

from prune_flags.rewrite.constants import UNKNOWN, constant_node, constant_value
from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.editors.statements import BodyEditor


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
    cst.LeftShift: Level.SHIFT, cst.RightShift: Level.SHIFT, cst.Add: Level.SUM,
    cst.Subtract: Level.SUM, cst.Multiply: Level.TERM, cst.Divide: Level.TERM,
    cst.FloorDivide: Level.TERM, cst.Modulo: Level.TERM, cst.MatrixMultiply: Level.TERM,
    cst.Power: Level.POWER,
}  # fmt: skip
_KINDS: Final[dict[type, Level]] = {
    cst.Tuple: Level.TUPLE, cst.Yield: Level.TUPLE, cst.StarredElement: Level.TUPLE,
    cst.NamedExpr: Level.NAMED, cst.Lambda: Level.LAMBDA, cst.IfExp: Level.TERNARY,
    cst.Comparison: Level.COMPARISON, cst.Await: Level.AWAIT,
}  # fmt: skip
# The least level a child needs in its place, where that does not depend on the operator.
_POSITIONS: Final[dict[tuple[type, str], Level]] = {
    (cst.Comparison, "left"): Level.BIT_OR, (cst.ComparisonTarget, "comparator"): Level.BIT_OR,
    (cst.IfExp, "body"): Level.OR, (cst.IfExp, "test"): Level.OR,
    (cst.IfExp, "orelse"): Level.LAMBDA, (cst.Lambda, "body"): Level.LAMBDA,
    (cst.NamedExpr, "value"): Level.LAMBDA, (cst.Await, "expression"): Level.ATOM,
    (cst.Attribute, "value"): Level.ATOM, (cst.Subscript, "value"): Level.ATOM,
    (cst.Call, "func"): Level.ATOM, (cst.StarredElement, "value"): Level.BIT_OR,
    (cst.StarredDictElement, "value"): Level.BIT_OR, (cst.Element, "value"): Level.NAMED,
    (cst.DictElement, "key"): Level.LAMBDA, (cst.DictElement, "value"): Level.LAMBDA,
    (cst.Index, "value"): Level.NAMED, (cst.Slice, "lower"): Level.LAMBDA,
    (cst.Slice, "upper"): Level.LAMBDA, (cst.Slice, "step"): Level.LAMBDA,
    (cst.ListComp, "elt"): Level.NAMED, (cst.SetComp, "elt"): Level.NAMED,
    (cst.GeneratorExp, "elt"): Level.NAMED, (cst.DictComp, "key"): Level.LAMBDA,
    (cst.DictComp, "value"): Level.LAMBDA, (cst.CompFor, "iter"): Level.OR,
    (cst.CompIf, "test"): Level.OR, (cst.FormattedStringExpression, "expression"): Level.TERNARY,
    (cst.If, "test"): Level.NAMED, (cst.While, "test"): Level.NAMED,
    (cst.Decorator, "decorator"): Level.NAMED, (cst.Assert, "test"): Level.LAMBDA,
    (cst.Assert, "msg"): Level.LAMBDA, (cst.WithItem, "item"): Level.LAMBDA,
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


def in_place_of(
    old: cst.BaseExpression, new: cst.BaseExpression
) -> tuple[cst.BaseExpression, bool]:
    """`new` where `old` was: it takes `old`'s parentheses when it has none of its own, and
    whether those are loose: not needed for a line break (an atom has none outside its own
    brackets), so that only precedence or a keyword next to them can keep them."""
    if new.lpar or not old.lpar:
        return new, False
    placed = new.with_changes(lpar=old.lpar, rpar=old.rpar)
    return placed, kind_level(new) is Level.ATOM or "\n" not in cst.Module([]).code_for_node(new)


def standing_alone(old: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """`new` as a statement of its own in place of `old`: parentheses only to span lines."""
    placed, _ = in_place_of(old, new)
    bare = placed.with_changes(lpar=(), rpar=())
    return placed if "\n" in cst.Module([]).code_for_node(bare) else bare


def lacks_member(node: cst.BaseExpression, member: str | None) -> bool:
    """A constant (None, a bool, a number) that the attribute `member`, or a call or subscript
    (member None), makes no sense on. A string's methods and a tuple's items are what the code
    computes, and so is a method the constant's type has (`(x > 1).bit_length()`)."""
    value = constant_value(node)
    if value is UNKNOWN or isinstance(value, (str, tuple)):
        return False
    return member is None or not hasattr(value, member)


def _always_bool(node: cst.BaseExpression) -> bool:
    """An expression that gives a bool whatever its operands are (`not x`, `x is not None`,
    `x in y`): its folded constant lacks what the bool lacks, so a receiver of it fails alike
    (and a literal left as an operand of `is` would be a SyntaxWarning of its own)."""
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    identity = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
    return isinstance(node, cst.Comparison) and all(
        isinstance(target.operator, identity) for target in node.comparisons
    )


_STATEMENTS: Final = (cst.BaseSmallStatement, cst.BaseCompoundStatement)
# Takes a node and gives it back with a pair of loose parentheses somewhere in it dropped.
Strip = Callable[[cst.CSTNode], cst.CSTNode]


def _without_parentheses(node: cst.CSTNode) -> cst.CSTNode:
    return node.with_changes(lpar=(), rpar=())


def _word_edges(node: cst.CSTNode) -> set[str]:
    """The ends of the node's code that a keyword next to it would run into."""
    code = cst.Module([]).code_for_node(node)
    return {
        side
        for side, char in (("first", code[:1]), ("last", code[-1:]))
        if char.isalnum() or char == "_"
    }


@dataclass(frozen=True)
class _Slot:
    """Where a child sits in its parent: a field, or an item of a field's sequence."""

    field: str
    index: int | None = None

    def get(self, parent: cst.CSTNode) -> cst.CSTNode:
        value = getattr(parent, self.field)
        return value if self.index is None else value[self.index]

    def put(self, parent: cst.CSTNode, child: cst.CSTNode) -> cst.CSTNode:
        if self.index is None:
            return parent.with_changes(**{self.field: child})
        items = list(getattr(parent, self.field))
        items[self.index] = child
        return parent.with_changes(**{self.field: items})

    def deeper(self, strip: Strip) -> Strip:
        """`strip`, applied to the child in this slot of the node it is given."""
        return lambda parent: self.put(parent, strip(self.get(parent)))


def _slots(parent: cst.CSTNode) -> Iterator[_Slot]:
    for field in dataclasses.fields(parent):
        value = getattr(parent, field.name)
        if isinstance(value, cst.CSTNode):
            yield _Slot(field.name)
        elif isinstance(value, (list, tuple)):
            yield from (
                _Slot(field.name, index)
                for index, item in enumerate(value)
                if isinstance(item, cst.CSTNode)
            )


@dataclass(frozen=True)
class _Pending:
    """A node its parent has to look at: a replacement, or a node holding loose parentheses
    that only an ancestor can tell are safe to drop."""

    depth: int
    node: cst.CSTNode
    replaced: bool
    strips: tuple[Strip, ...] = ()


class ExpressionEditor(BodyEditor):
    """The base of the passes that replace expressions (see the module's docstring)."""

    def __init__(self, context: RewriteContext) -> None:
        super().__init__(context)
        self._depth = 0  # of the node being visited
        self._pending: list[_Pending] = []  # waiting for their parent, innermost last
        # Original expressions an attribute (by its name), call or subscript (None) acts on.
        self._receivers: dict[int, str | None] = {}
        self._quotes: list[str] = []  # the quote of each enclosing f-string
        self._verbatim = 0  # enclosing `{expr=}` f-string parts: their text is printed

    def is_receiver(self, original: cst.CSTNode) -> bool:
        return id(original) in self._receivers

    def fitted(
        self, original: cst.BaseExpression, new: cst.BaseExpression
    ) -> cst.BaseExpression | None:
        """`new` as it may stand in `original`'s place, or None where it may not: a constant
        as a receiver of what it lacks, anything in a `{expr=}`, or what an f-string cannot hold.
        A constant receiver of a member it has stands in parentheses (`(1).bit_length()`)."""
        if self._verbatim:
            return None
        if self.is_receiver(original) and constant_value(new) is not UNKNOWN:
            if lacks_member(new, self._receivers[id(original)]) and not _always_bool(original):
                return None
            if not new.lpar and not isinstance(new, (cst.SimpleString, cst.Tuple)):
                new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        if not self._quotes:
            return new
        text = constant_value(new) if isinstance(new, cst.SimpleString) else UNKNOWN
        if isinstance(text, str):  # the same string, in a quote no enclosing f-string uses
            quotes = [quote for quote in ('"', "'") if quote not in self._quotes]
            new = (
                constant_node(text, quotes[0]).with_changes(lpar=new.lpar, rpar=new.rpar)
                if quotes
                else new
            )
        code = cst.Module([]).code_for_node(new)
        return None if "\\" in code or any(quote in code for quote in self._quotes) else new

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._depth += 1
        if isinstance(node, cst.Attribute):
            self._receivers[id(node.value)] = node.attr.value
        elif isinstance(node, cst.Subscript):
            self._receivers[id(node.value)] = None
        elif isinstance(node, cst.Call):
            self._receivers[id(node.func)] = None
        elif isinstance(node, cst.FormattedString):
            self._quotes.append(node.end[0])
        elif isinstance(node, cst.FormattedStringExpression) and node.equal is not None:
            self._verbatim += 1
        return super().on_visit(node)

    # Its return is left to inference: LibCST's is generic in the node's type.
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        depth = self._depth
        self._depth -= 1
        children: dict[int, _Pending] = {}
        while (
            self._pending and self._pending[-1].depth > depth
        ):  # deeper ones had their parent's turn
            entry = self._pending.pop()
            if entry.depth == depth + 1:
                children[id(entry.node)] = entry
        deferred: list[Strip] = []
        if children:
            updated_node = self._fit_children(updated_node, children, deferred)
        if isinstance(original_node, cst.FormattedString):
            self._quotes.pop()
        elif (
            isinstance(original_node, cst.FormattedStringExpression)
            and original_node.equal is not None
        ):
            self._verbatim -= 1
        result = super().on_leave(original_node, updated_node)
        if result is not updated_node:
            if not isinstance(original_node, cst.BaseExpression) or not isinstance(
                result, cst.BaseExpression
            ):
                return result  # a statement edited, or an expression removed
            fitted = self.fitted(original_node, result)
            if fitted is not None:
                placed, loose = in_place_of(
                    cst.ensure_type(updated_node, cst.BaseExpression),  # type: ignore[type-abstract]  # an isinstance check: fine for an ABC
                    fitted,
                )
                self._pending.append(
                    _Pending(depth, placed, True, (_without_parentheses,) if loose else ())
                )
                return placed
            # a pass that records what it replaces asked first; the others are overruled
            result = updated_node
        if deferred:
            self._pending.append(_Pending(depth, result, False, tuple(deferred)))
        return result

    def _fit_children(
        self, parent: cst.CSTNode, children: dict[int, _Pending], deferred: list[Strip]
    ) -> cst.CSTNode:
        """Parenthesise each replaced child its place needs to; drop loose parentheses where
        LibCST takes the node without them and nothing beyond it could run into what they held
        (else `deferred` gets them, for the grandparent to try)."""
        for slot in _slots(parent):
            entry = children.get(id(slot.get(parent)))
            if entry is None:
                continue
            if entry.replaced and slot.index is None:
                child = cast(cst.BaseExpression, slot.get(parent))  # what replaced an expression
                bare = child.with_changes(lpar=(), rpar=()) if entry.strips else child
                if level(bare) < required_level(parent, slot.field):
                    parent = parent if child.lpar else slot.put(parent, parenthesized(child))
                    continue  # the parentheses it has or gets are needed
            for strip in entry.strips:
                try:
                    candidate = slot.put(parent, strip(slot.get(parent)))
                except cst.CSTValidationError:
                    continue  # `if(x):` stays so: without them it would read `ifx:`
                # A statement's own keywords are its ends; an expression's end may meet a keyword
                # beyond it (`return(x), y`), which only an ancestor's LibCST node refuses.
                if isinstance(parent, _STATEMENTS) or not _word_edges(candidate) - _word_edges(
                    parent
                ):
                    parent = candidate
                else:
                    deferred.append(slot.deeper(strip))
        return parent
