"""Simplify: boolean logic and comparisons over inlined constants."""

# Only expressions that contain an inlined flag are touched; the rest of the file keeps its bytes.
# Short-circuit semantics are kept exactly: `False and f()` is `False`, but `f() and False` keeps
# the call to `f()`. Dropping an operand that is not a constant is done only in a boolean context
# (an `if`/`while`/`assert` test, a ternary's test, the operand of `not`) and only when it has no
# side effect.

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.rewrite.constants import (
    UNKNOWN,
    bool_node,
    builtin_result,
    builtin_types,
    constant_node,
    constant_value,
    truthiness,
)
from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.editors.expressions import ExpressionEditor
from prune_flags.rewrite.purity import is_pure
from prune_flags.rewrite.scopes import bound_names, truthy_names

# Over any two constants: an operator that does not take them raises TypeError (see
# leave_Comparison), and the result is taken for its truth.
_COMPARE: dict[type, Callable[[Any, Any], object]] = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.In: lambda left, right: operator.contains(right, left),
    cst.NotIn: lambda left, right: not operator.contains(right, left),
    cst.Is: operator.is_,
    cst.IsNot: operator.is_not,
}
_SINGLETONS = (type(None), bool)


def _never_same(left: object, right: object) -> bool:
    return False


def _always_different(left: object, right: object) -> bool:
    return True


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """A constant atom needs no parentheses of its own."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)) and node.lpar:
        return node.with_changes(lpar=(), rpar=())
    return node


_STRING_METHODS = frozenset(
    {"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "startswith", "endswith",
     "isdigit", "isdecimal", "isnumeric", "isalpha", "isalnum", "isspace", "islower", "isupper"}
)  # fmt: skip


def string_method(call: cst.Call) -> object:
    """`"True".lower()` and the like: a pure method of a constant string, with constant
    arguments."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in _STRING_METHODS):
        return None
    receiver = constant_value(func.value)
    arguments = [constant_value(arg.value) for arg in call.args if not arg.keyword and not arg.star]
    if not isinstance(receiver, str) or len(arguments) != len(call.args) or UNKNOWN in arguments:
        return None
    try:
        return getattr(receiver, func.attr.value)(*arguments)
    except TypeError:
        return None  # wrong arguments raise at run time too: leave the call to do so


def _in_empty(comparison: cst.Comparison) -> bool | None:
    """`x in ()` is False and `x not in ()` True, whatever x is, when x has no side effect."""
    if len(comparison.comparisons) != 1 or not is_pure(comparison.left):
        return None
    target = comparison.comparisons[0]
    if isinstance(target.operator, (cst.In, cst.NotIn)) and constant_value(target.comparator) == ():
        return isinstance(target.operator, cst.NotIn)
    return None


def _type_test(comparison: cst.Comparison) -> bool | None:
    """`type(CONST) is bool` and the like: a constant's type against a builtin type."""
    if len(comparison.comparisons) != 1 or not isinstance(comparison.left, cst.Call):
        return None
    call, target = comparison.left, comparison.comparisons[0]
    if not (isinstance(call.func, cst.Name) and call.func.value == "type" and len(call.args) == 1):
        return None
    value = constant_value(call.args[0].value)
    types = builtin_types(target.comparator)
    if (
        call.args[0].keyword
        or call.args[0].star
        or value is UNKNOWN
        or types is None
        or len(types) != 1
    ):
        return None
    if isinstance(target.operator, (cst.Is, cst.Equal)):
        return type(value) is types[0]
    if isinstance(target.operator, (cst.IsNot, cst.NotEqual)):
        return type(value) is not types[0]
    return None


class SimplifyBooleans(ExpressionEditor):
    def __init__(self, context: RewriteContext) -> None:
        super().__init__(context)
        self._boolean_context: set[int] = set()
        self._truthy_at: dict[int, frozenset[str]] = {}  # the names known truthy at an `if`, by id
        self._truthy_in: dict[int, frozenset[str]] = (
            {}
        )  # the same, at each boolean operand of its test
        self._locals: dict[int, frozenset[str]] = {}  # each function's names, by id

    # -- known truthiness -----------------------------------------------------------------
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        """A function's block: the names an early exit left truthy at each `if` (a local or
        parameter, which nothing outside the function rebinds)."""
        function = self.scopes[-1] if self.scopes else None
        if not isinstance(function, cst.FunctionDef):
            return
        for statement, names in truthy_names(node.body).items():
            if id(function) not in self._locals:
                self._locals[id(function)] = bound_names(function)
            self._truthy_at[statement] = names & self._locals[id(function)]

    def _known_truthy(self, original: cst.CSTNode, node: cst.BaseExpression) -> cst.BaseExpression:
        """An operand of an `if`'s test, where it is a name known truthy there: True. Only a
        test the flag's value changed gets here (see leave_BooleanOperation), and only one without
        effects, so that nothing the test runs before the name could change it."""
        known = self._truthy_in.get(id(original), frozenset())
        return bool_node(True) if isinstance(node, cst.Name) and node.value in known else node

    def _touched(self, original: cst.CSTNode) -> bool:
        return bool(self.context.inlined) and bool(
            self.context.flags_within(self.get_metadata(PositionProvider, original))
        )

    # -- boolean contexts ----------------------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        self._boolean_context.add(id(node.test))
        known = self._truthy_at.get(id(node))
        if known and is_pure(node.test):
            self._truthy_in[id(node.test)] = known

    def visit_While(self, node: cst.While) -> None:
        self._boolean_context.add(id(node.test))

    def visit_Assert(self, node: cst.Assert) -> None:
        self._boolean_context.add(id(node.test))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._boolean_context.add(id(node.test))

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._boolean_context.add(id(node.test))

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._boolean_context.add(id(node.expression))
            if id(node) in self._truthy_in:
                self._truthy_in[id(node.expression)] = self._truthy_in[id(node)]

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if id(node) in self._boolean_context:
            self._boolean_context.update((id(node.left), id(node.right)))
        if id(node) in self._truthy_in:
            self._truthy_in[id(node.left)] = self._truthy_in[id(node.right)] = self._truthy_in[
                id(node)
            ]

    # -- rewrites -------------------------------------------------------------------------
    def leave_UnaryOperation(
        self, original_node: cst.UnaryOperation, updated_node: cst.UnaryOperation
    ) -> cst.BaseExpression:
        if not isinstance(updated_node.operator, cst.Not) or not self._touched(original_node):
            return updated_node
        value = truthiness(updated_node.expression)
        return updated_node if value is None else bool_node(not value)

    def leave_BooleanOperation(
        self, original_node: cst.BooleanOperation, updated_node: cst.BooleanOperation
    ) -> cst.BaseExpression:
        if not self._touched(original_node):
            return updated_node
        is_and = isinstance(updated_node.operator, cst.And)
        left = self._known_truthy(original_node.left, updated_node.left)
        right = self._known_truthy(original_node.right, updated_node.right)
        left_truth = truthiness(left)
        if left_truth is not None:  # the left operand decides whether the right one runs
            return _bare(left if left_truth is not is_and else right)
        right_truth = truthiness(right)
        if right_truth is None or id(original_node) not in self._boolean_context:
            return updated_node
        if right_truth is is_and:  # `x and True`, `x or False`: the truth is x's
            return left
        if is_pure(left):  # `x and False`, `x or True`: x only matters for its effects
            return bool_node(right_truth)
        return updated_node

    def leave_Comparison(
        self, original_node: cst.Comparison, updated_node: cst.Comparison
    ) -> cst.BaseExpression:
        if not self._touched(original_node):
            return updated_node
        left = constant_value(updated_node.left)
        known = _in_empty(updated_node)
        if known is None:
            known = _type_test(updated_node)
        if known is not None:
            return bool_node(known)
        result = True
        for target in updated_node.comparisons:
            right = constant_value(target.comparator)
            compare = _COMPARE.get(type(target.operator))
            if left is UNKNOWN or right is UNKNOWN or compare is None:
                return updated_node
            if isinstance(target.operator, (cst.Is, cst.IsNot)) and not (
                isinstance(left, _SINGLETONS) and isinstance(right, _SINGLETONS)
            ):
                if type(left) is type(right):
                    # identity of equal non-singleton constants is an implementation detail
                    return updated_node
                # Constants of different types are never the same object.
                compare = _never_same if isinstance(target.operator, cst.Is) else _always_different
            try:
                result = result and bool(compare(left, right))
            except TypeError:
                return updated_node
            left = right
        return bool_node(result)

    def leave_IfExp(self, original_node: cst.IfExp, updated_node: cst.IfExp) -> cst.BaseExpression:
        if not self._touched(original_node):
            return updated_node
        value = truthiness(updated_node.test)
        if value is None:
            return updated_node
        return _bare(updated_node.body if value else updated_node.orelse)

    def leave_CompFor(self, original_node: cst.CompFor, updated_node: cst.CompFor) -> cst.CompFor:
        """A comprehension filter that is always true filters nothing."""
        kept = [
            updated
            for original, updated in zip(original_node.ifs, updated_node.ifs)
            if not (truthiness(updated.test) is True and self._touched(original))
        ]
        return (
            updated_node.with_changes(ifs=kept)
            if len(kept) < len(updated_node.ifs)
            else updated_node
        )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        method = string_method(updated_node)
        if method is not None and self._touched(original_node):
            return constant_node(method)
        result = builtin_result(updated_node)
        if result is not UNKNOWN and self._touched(original_node):
            return constant_node(result)
        if self._touched(original_node):
            folded = _all_or_any(updated_node, id(original_node) in self._boolean_context)
            if folded is not None:
                return folded
        return super().leave_Call(original_node, updated_node)


def _all_or_any(call: cst.Call, boolean_context: bool) -> cst.BaseExpression | None:
    """`all([...])`/`any([...])` over a literal list or tuple holding constants. The display is
    built whole before the call looks at it, so every element runs: a constant that decides the
    result decides it only when the other elements have no effects, and the constants that do
    not decide it go (`all([True, ready])` is `all([ready])`, in a test just `ready`)."""
    if not isinstance(call.func, cst.Name) or call.func.value not in ("all", "any"):
        return None
    if len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
        return None
    display = call.args[0].value
    if not isinstance(display, (cst.List, cst.Tuple)) or any(
        isinstance(element, cst.StarredElement) for element in display.elements
    ):
        return None
    deciding = call.func.value == "any"  # the truth that decides: any True, all False
    truths = [truthiness(element.value) for element in display.elements]
    if deciding in truths and all(
        truth is not None or is_pure(element.value)
        for truth, element in zip(truths, display.elements)
    ):
        return bool_node(deciding)
    kept = [element for truth, element in zip(truths, display.elements) if truth is None]
    if len(kept) == len(display.elements) or deciding in truths:
        return None
    if not kept:
        return bool_node(not deciding)
    if len(kept) == 1 and boolean_context:
        return _bare(kept[0].value)
    last = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    keeps_tuple = isinstance(display, cst.Tuple) and len(kept) == 1
    elements = [*kept[:-1], kept[-1] if keeps_tuple else last]
    return call.with_changes(
        args=[call.args[0].with_changes(value=display.with_changes(elements=elements))]
    )
