"""Parameters that are flags: `def f(..., use_x=False)` where use_x is fixed at False.

Inline reads the parameter inside the body (see inline.py); once the flag has no reader
left this pass removes the parameter, its entry in the docstring, and `use_x=<the same
value>` from every call. A call that passes another value is a conflict found by the index
before any file is touched, so what reaches here always agrees with the fixed value.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

import libcst as cst

from prune_flags.constants import constant_value
from prune_flags.docstrings import without_parameter
from prune_flags.passes.body import BodyEditor
from prune_flags.values import same_value
from prune_flags.purity import dotted_name
from prune_flags.passes.scopes import flag_parameters

Element = TypeVar("Element", cst.Param, cst.Arg, cst.WithItem, cst.BaseElement)


def without_element(elements: Sequence[Element], index: int) -> list[Element]:
    """Drop one comma-separated element; the new last one takes the old last one's comma,
    so a trailing comma (and the line break before the closing bracket) stays as it was."""
    kept = [element for position, element in enumerate(elements) if position != index]
    if index == len(elements) - 1 and kept:
        kept[-1] = kept[-1].with_changes(comma=elements[index].comma)
    return kept


class PruneFlagParameters(BodyEditor):
    def _dead_flag(self, name: str) -> bool:
        return name in self.context.flags and name in self.context.dead_names

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        updated_node = super().leave_FunctionDef(original_node, updated_node)  # type: ignore[misc]
        # Decided on the original: the option decorator that makes a click parameter a flag may be gone by now.
        dead = [
            name
            for name in flag_parameters(original_node, self.context.flags)
            if self._dead_flag(name) and _bound_before_read(updated_node, name)
        ]
        if not dead:
            return updated_node
        params = updated_node.params
        for name in dead:
            death = self.context.dead_names[name]
            self.record(original_node, "removed-parameter", f"parameter {name} is the flag: {death.reason}", death.flag)
            params = _without_param(params, name)
        body = updated_node.body
        if isinstance(body, cst.IndentedBlock) and body.body:
            body = body.with_changes(body=[_without_docs(body.body[0], dead), *body.body[1:]])
        return updated_node.with_changes(params=params, body=body)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)  # type: ignore[misc]
        if not isinstance(result, cst.Call):
            return result
        args = list(result.args)
        callee = dotted_name(result.func) or ""
        for index in reversed(range(len(args))):
            arg = args[index]
            if arg.keyword is None or not self._dead_flag(arg.keyword.value):
                continue
            flag = self.context.flags[arg.keyword.value]
            owned = callee.rsplit(".", 1)[-1] in self.context.flag_owners.get(flag.name, ())
            if owned and same_value(constant_value(arg.value), flag.value):
                death = self.context.dead_names[flag.name]
                self.record(original_node, "removed-argument", f"{flag.name}={flag.source} passes the fixed value", death.flag)
                args = without_element(args, index)
        return result.with_changes(args=args) if len(args) < len(result.args) else result


class _Mentions(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Name(self, node: cst.Name) -> None:
        self.found = self.found or node.value == self.name

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # a keyword's name is not a use of the variable
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # nor is an attribute's
        return False


def _mentions(node: cst.CSTNode, name: str) -> bool:
    visitor = _Mentions(name)
    node.visit(visitor)
    return visitor.found


def _bound_before_read(function: cst.FunctionDef, name: str) -> bool:
    """Whether the parameter can go: the body no longer uses the name, or first binds it
    unconditionally (`use_cache = model.supports_cache()`) before anything reads it."""
    statements = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in statements:
        if not _mentions(statement, name):
            continue
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                return isinstance(target, cst.Name) and target.value == name and not _mentions(small.value, name)
        return False
    return True


def _without_param(params: cst.Parameters, name: str) -> cst.Parameters:
    for field in ("posonly_params", "params", "kwonly_params"):
        elements = list(getattr(params, field))
        for index, param in enumerate(elements):
            if param.name.value != name:
                continue
            if index == len(elements) - 1 and field != "kwonly_params" and _later_elements(params, field):
                return params.with_changes(**{field: elements[:index]})  # the next group follows its comma
            remaining = without_element(elements, index)
            if field == "kwonly_params" and not remaining and isinstance(params.star_arg, cst.ParamStar):
                return _without_bare_star(params)
            return params.with_changes(**{field: remaining})
    return params


def _later_elements(params: cst.Parameters, field: str) -> bool:
    later = {"posonly_params": ("params", "star_arg", "kwonly_params", "star_kwarg"), "params": ("star_arg", "kwonly_params", "star_kwarg")}
    return any(getattr(params, name) not in (None, (), [], cst.MaybeSentinel.DEFAULT) for name in later.get(field, ()))


def _without_bare_star(params: cst.Parameters) -> cst.Parameters:
    """`def f(a, *, b=False)` without b: the bare `*` must go too, and the comma before it."""
    changes: dict[str, object] = {"kwonly_params": (), "star_arg": cst.MaybeSentinel.DEFAULT}
    if params.star_kwarg is None and params.params:
        last = params.params[-1]
        changes["params"] = [*params.params[:-1], last.with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return params.with_changes(**changes)


def _without_docs(statement: cst.BaseStatement, names: list[str]) -> cst.BaseStatement:
    """The docstring (if the body starts with one) without the parameters' entries."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return statement
    expression = statement.body[0]
    if not (isinstance(expression, cst.Expr) and isinstance(expression.value, cst.SimpleString)):
        return statement
    text = expression.value.value
    for name in names:
        text = without_parameter(text, name)
    return statement.with_changes(body=[expression.with_changes(value=expression.value.with_changes(value=text))])
