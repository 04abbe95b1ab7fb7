"""Parameters that are flags: the parameter of a fixed flag, and those a chain of calls links to it,
go once nothing reads them, with the arguments passing them and their docstring entries."""

# Parameters that are flags: `def f(..., use_x=False)` where use_x is fixed at False, and the
# parameters a chain of calls links to a flag whatever their default (the engine names them).
#
# Inline reads the parameter inside the body (see inline.py); once the flag has no reader left this
# pass removes the parameter, its entry in the docstring, and the argument passing it at every call
# of its function (or class), by keyword, or by position where the engine found that nothing after
# it shifts. An argument or default of another value goes too, reported as overridden: the config is
# the decision. A call whose argument cannot go (strict, a value with side effects, a shifting
# position) is a conflict found by the index before any file is touched.

from __future__ import annotations

from typing import cast

import libcst as cst

from prune_flags.config import Flag
from prune_flags.rewrite.constants import constant_value
from prune_flags.rewrite.docstrings import without_parameter
from prune_flags.rewrite.editors.shapes import without_element
from prune_flags.rewrite.editors.statements import BodyEditor
from prune_flags.rewrite.passes.prune import _overrode
from prune_flags.rewrite.scopes import (
    all_params,
    flag_parameters,
    linked_flags,
    mentions,
)
from prune_flags.syntax.values import same_value
from prune_flags.vocabulary import Action


class PruneFlagParameters(BodyEditor):
    # In the Rewriter this one, first in the MRO, is PruneOptions' `_dead_flag` too: it takes
    # None (no flag), as that one does.
    def _dead_flag(self, name: str | None) -> bool:
        return name in self.context.flags and name in self.context.dead_names

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        # Every pass's leave_FunctionDef gives back a function, LibCST's the one it is given.
        updated_node = cast(cst.FunctionDef, super().leave_FunctionDef(original_node, updated_node))
        # Decided on the original: the option decorator that makes a click parameter a flag may be
        # gone by now.
        linked = linked_flags(self.context.flag_functions, self.scopes)
        dead = [
            name
            for name in flag_parameters(original_node, self.context.flags, linked)
            if self._dead_flag(name) and _bound_before_read(updated_node, name)
        ]
        if not dead:
            return updated_node
        params = updated_node.params
        for name in dead:
            self._record_parameter(original_node, name, name in linked)
            params = _without_param(params, name)
        body = updated_node.body
        if isinstance(body, cst.IndentedBlock) and body.body:
            body = body.with_changes(body=[_without_docs(body.body[0], dead), *body.body[1:]])
        return updated_node.with_changes(params=params, body=body)

    def _record_parameter(self, function: cst.FunctionDef, name: str, linked: bool) -> None:
        """A parameter a chain of calls links to the flag goes at its own line, where the engine
        looks for it: overridden when its default is another value; any other at its function's."""
        flag, death = self.context.flags[name], self.context.dead_names[name]
        param = next((param for param in all_params(function) if param.name.value == name), None)
        if not linked or param is None:
            self.record(
                function,
                Action.REMOVED_PARAMETER,
                f"parameter {name} is the flag: {death.reason}",
                death.flag,
            )
        elif param.default is not None and not _holds(param.default, flag):
            self.record(param, Action.OVERRIDDEN, _overrode(flag, param.default), death.flag)
        else:
            self.record(
                param,
                Action.REMOVED_PARAMETER,
                f"parameter {name} is the flag: {death.reason}",
                death.flag,
            )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if not isinstance(result, cst.Call):
            return result
        args = list(result.args)
        func = result.func
        callee = (
            func.attr.value
            if isinstance(func, cst.Attribute)
            else func.value if isinstance(func, cst.Name) else ""
        )
        for index in reversed(range(len(args))):
            flag = self._passed_flag(result, callee, index)
            if flag is None:
                continue
            arg, death = args[index], self.context.dead_names[flag.name]
            where = (
                original_node.args[index] if len(original_node.args) == len(args) else original_node
            )
            if _holds(arg.value, flag):
                how = (
                    f"{flag.name}={flag.source}"
                    if arg.keyword is not None
                    else f"{flag.source}, by position,"
                )
                self.record(
                    where, Action.REMOVED_ARGUMENT, f"{how} passes the fixed value", death.flag
                )
            else:
                self.record(where, Action.OVERRIDDEN, _overrode(flag, arg.value), death.flag)
            args = without_element(args, index)
        if len(args) == len(result.args):
            return result
        return result.with_changes(args=_without_magic_comma(args) if len(args) == 1 else args)

    def _passed_flag(self, call: cst.Call, callee: str, index: int) -> Flag | None:
        """The dead flag an argument of a call passes to the parameter that is it: a keyword of
        the flag's name at a call of one of its owners, or the argument at the flag's place in a
        call of a function the engine found passes it by position."""
        arg = call.args[index]
        if arg.keyword is not None:
            name = arg.keyword.value
            owned = callee in self.context.flag_owners.get(name, ())
            return self.context.flags[name] if owned and self._dead_flag(name) else None
        if any(before.keyword is not None or before.star for before in call.args[: index + 1]):
            return None
        for name, places in self.context.flag_positions.items():
            place = places.get(callee)
            if place is None or not self._dead_flag(name):
                continue
            position, method = place
            if index == position - (1 if method and isinstance(call.func, cst.Attribute) else 0):
                return self.context.flags[name]
        return None


def _without_magic_comma(args: list[cst.Arg]) -> list[cst.Arg]:
    """The one argument left of several without its trailing comma, the line break before the
    closing bracket kept: `f(\n    a,\n)` would stay exploded under black's magic trailing
    comma, where people join it to `f(a)` once the others went."""
    (arg,) = args
    if not isinstance(arg.comma, cst.Comma):
        return args
    return [
        arg.with_changes(
            comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=arg.comma.whitespace_after
        )
    ]


def _holds(value: cst.BaseExpression, flag: Flag) -> bool:
    """Whether an argument or default is the flag's configured value."""
    return same_value(constant_value(value), flag.value)


def _bound_before_read(function: cst.FunctionDef, name: str) -> bool:
    """Whether the parameter can go: the body no longer uses the name, or first binds it
    unconditionally (`use_cache = model.supports_cache()`) before anything reads it."""
    statements = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in statements:
        if name not in mentions(statement).names:
            continue
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                return (
                    isinstance(target, cst.Name)
                    and target.value == name
                    and name not in mentions(small.value).names
                )
        return False
    return True


def _without_param(params: cst.Parameters, name: str) -> cst.Parameters:
    for field in ("posonly_params", "params", "kwonly_params"):
        elements = list(getattr(params, field))
        for index, param in enumerate(elements):
            if param.name.value != name:
                continue
            if (
                index == len(elements) - 1
                and field != "kwonly_params"
                and _later_elements(params, field)
            ):
                return params.with_changes(
                    **{field: elements[:index]}
                )  # the next group follows its comma
            remaining = without_element(elements, index)
            if (
                field == "kwonly_params"
                and not remaining
                and isinstance(params.star_arg, cst.ParamStar)
            ):
                return _without_bare_star(params)
            return params.with_changes(**{field: remaining})
    return params


def _later_elements(params: cst.Parameters, field: str) -> bool:
    later = {
        "posonly_params": ("params", "star_arg", "kwonly_params", "star_kwarg"),
        "params": ("star_arg", "kwonly_params", "star_kwarg"),
    }
    return any(
        getattr(params, name) not in (None, (), [], cst.MaybeSentinel.DEFAULT)
        for name in later.get(field, ())
    )


def _without_bare_star(params: cst.Parameters) -> cst.Parameters:
    """`def f(a, *, b=False)` without b: the bare `*` must go too, and the comma before it."""
    changes: dict[str, object] = {"kwonly_params": (), "star_arg": cst.MaybeSentinel.DEFAULT}
    if params.star_kwarg is None and params.params:
        last = params.params[-1]
        changes["params"] = [
            *params.params[:-1],
            last.with_changes(comma=cst.MaybeSentinel.DEFAULT),
        ]
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
    return statement.with_changes(
        body=[expression.with_changes(value=expression.value.with_changes(value=text))]
    )
