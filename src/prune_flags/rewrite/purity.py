"""The side-effect model shared by simplify, fold and prune.

An expression is pure when evaluating it can be skipped without changing what
the program does, as far as a careful reviewer would accept: literals, names,
attribute reads, subscripts, operators, comparisons and calls of builtins that
only compute a value. Calls of anything else, `await`, `yield` and `:=` may
have effects and are never dropped.
"""

from __future__ import annotations

from typing import Final, cast

import libcst as cst

from prune_flags.syntax.values import FIELD_CONSTRUCTORS, PURE_BUILTINS

_PURE_LEAVES: Final = (
    cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis,
)  # fmt: skip


def is_pure(node: cst.CSTNode) -> bool:
    """True when evaluating `node` has no side effect worth keeping."""
    if isinstance(node, _PURE_LEAVES):
        return True
    if isinstance(node, cst.Attribute):
        return is_pure(node.value)
    if isinstance(node, cst.Subscript):
        return is_pure(node.value) and all(is_pure(element.slice) for element in node.slice)
    if isinstance(node, (cst.Index,)):
        return is_pure(node.value)
    if isinstance(node, cst.Slice):
        return all(part is None or is_pure(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, cst.Call):
        pure_callee = (
            isinstance(node.func, cst.Name) and node.func.value in PURE_BUILTINS
        ) or dotted_name(node.func) in FIELD_CONSTRUCTORS
        return pure_callee and all(is_pure(arg.value) for arg in node.args)
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
        return is_pure(node.left) and is_pure(node.right)
    if isinstance(node, cst.UnaryOperation):
        return is_pure(node.expression)
    if isinstance(node, cst.Comparison):
        return is_pure(node.left) and all(is_pure(target.comparator) for target in node.comparisons)
    if isinstance(node, cst.IfExp):
        return is_pure(node.test) and is_pure(node.body) and is_pure(node.orelse)
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        return all(is_pure(element.value) for element in node.elements)
    if isinstance(node, cst.Dict):
        return all(
            is_pure(element.value)
            and (not isinstance(element, cst.DictElement) or is_pure(element.key))
            for element in node.elements
        )
    if isinstance(node, (cst.FormattedString,)):
        return all(
            isinstance(part, cst.FormattedStringText)
            or is_pure(cast(cst.FormattedStringExpression, part).expression)  # the other kind
            for part in node.parts
        )
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return is_pure(node.elt) and _pure_generators(node.for_in)
    if isinstance(node, cst.DictComp):
        return is_pure(node.key) and is_pure(node.value) and _pure_generators(node.for_in)
    if isinstance(node, cst.Lambda):  # making a function runs nothing but its defaults
        return all(
            param.default is None or is_pure(param.default)
            for param in (
                *node.params.posonly_params,
                *node.params.params,
                *node.params.kwonly_params,
            )
        )
    if isinstance(node, cst.ConcatenatedString):
        return is_pure(node.left) and is_pure(node.right)
    return False


def _pure_generators(for_in: cst.CompFor | None) -> bool:
    while for_in is not None:
        if for_in.asynchronous is not None or not is_pure(for_in.iter):
            return False
        if not all(is_pure(condition.test) for condition in for_in.ifs):
            return False
        for_in = for_in.inner_for_in
    return True


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a chain of attributes on a name; None for anything else."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


# Calls that take something out of what they act on: `options.pop("fast", False)` removes the
# entry the rest of the program would otherwise see (`super().__init__(**options)`), `next(it)`
# an item of the iterator.
_CONSUMING_METHODS: Final = frozenset({"pop", "popitem", "popleft", "setdefault"})
# Where a part of an expression runs only under a condition, or not when the expression does.
_CONDITIONAL: Final = (
    cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.ListComp, cst.SetComp, cst.GeneratorExp,
    cst.DictComp,
)  # fmt: skip


def _consumes(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    return (isinstance(func, cst.Attribute) and func.attr.value in _CONSUMING_METHODS) or (
        isinstance(func, cst.Name) and func.value == "next"
    )


def consuming_calls(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What of a definition's value must still run once the definition goes: the calls in it that
    take something out of what they act on (`options.pop("fast", False)`, outermost ones, in the
    order they run), or the whole value where one of them runs only under a condition
    (`legacy and options.pop("fast")`). Reading a config, the environment or the interpreter is
    how the flag was defined and goes with it; consuming is an effect the program still needs."""
    found: list[cst.BaseExpression] = []

    def visit(node: cst.CSTNode, conditional: bool) -> bool:
        if _consumes(node):
            if conditional:
                return False
            found.append(cast(cst.BaseExpression, node))
            return True
        inner = conditional or isinstance(node, _CONDITIONAL)
        return all(visit(child, inner) for child in node.children)

    return found if visit(value, False) else [value]
