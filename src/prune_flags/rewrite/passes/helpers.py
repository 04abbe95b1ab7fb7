"""Helpers that fold to a constant: a call of a function (or method) the cleanup reduced to
`return EXPR` becomes EXPR, with the imports EXPR needs; one reduced to `return <parameter>`
becomes the argument it passes."""

# Helpers that fold to a constant: a call of a function the cleanup reduced to `return EXPR` (EXPR
# without side effects, using no parameter) becomes EXPR, and the file gets the imports EXPR needs;
# a call of one reduced to `return <parameter>` becomes the argument it passes. A method's call is
# one the engine found reaching it (by line and name), through a receiver without side effects,
# which goes with the call (`self.checker.should_skip([t])` -> `False`).
#
# Only where nothing can tell the difference: every argument is free of side effects, the call binds
# the parameters as Python would (a call that raises TypeError stays), and no enclosing scope
# rebinds a name the expression or the callee uses. Which spellings reach which helper, and the
# imports a file needs, the engine decides with `ast` (model/helpers.py).

from __future__ import annotations

import functools
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.model.helpers import Helper, HelperCall
from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.editors.expressions import ExpressionEditor
from prune_flags.rewrite.passes.imports import add_imports
from prune_flags.rewrite.purity import dotted_name, is_pure
from prune_flags.rewrite.scopes import bound_names
from prune_flags.vocabulary import Action


@functools.lru_cache(maxsize=256)
def _expression(source: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(source)
    except Exception:  # what `ast` reads and LibCST cannot: such a helper is not inlined
        return None


def _bind(helper: Helper, args: Sequence[cst.Arg]) -> dict[str, cst.BaseExpression] | None:
    """The argument each parameter receives, as Python binds the call; None for a call that
    would raise, or that passes `*args` or `**kwargs`."""
    positional = [p.name for p in helper.parameters if p.kind != "keyword-only"]
    kinds = {p.name: p.kind for p in helper.parameters}
    bound: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(positional):
                return None
            bound[positional[index]] = arg.value
        elif (
            kinds.get(arg.keyword.value, "positional-only") == "positional-only"
            or arg.keyword.value in bound
        ):
            return None
        else:
            bound[arg.keyword.value] = arg.value
    if any(p.name not in bound and not p.has_default for p in helper.parameters):
        return None
    return bound


def _assigns_itself(assign: cst.Assign) -> bool:
    """`x = x`, what `x = _maybe_cast(x)` becomes."""
    targets, value = assign.targets, assign.value
    return (
        len(targets) == 1
        and isinstance(value, cst.Name)
        and isinstance(targets[0].target, cst.Name)
        and (targets[0].target.value == value.value)
    )


class InlineHelpers(ExpressionEditor):
    def __init__(self, context: RewriteContext) -> None:
        super().__init__(context)
        self._inlined_calls: dict[int, str] = (
            {}
        )  # the original calls inlined, by id -> the helper's name
        self._helper_imports: dict[str, set[int]] = (
            {}
        )  # imports the inlined expressions need -> lines
        self._scope_names: dict[int, frozenset[str]] = {}

    def _shadowed(self, names: set[str]) -> bool:
        """Whether an enclosing scope binds one of the names (a class body: always, to be safe)."""
        for scope in self.scopes:
            if isinstance(scope, cst.ClassDef):
                if scope is self.scopes[-1]:
                    return True
                continue
            if id(scope) not in self._scope_names:
                self._scope_names[id(scope)] = bound_names(scope)
            if names & self._scope_names[id(scope)]:
                return True
        return False

    def _called(self, original: cst.Call, call: cst.Call) -> tuple[HelperCall, set[str]] | None:
        """The helper a call reaches, and the names the call's spelling binds here: by its
        spelling (`channels._get_channel`), or a method's through a receiver the call may drop
        (`self.checker.should_skip`, not `make().should_skip`)."""
        spelling = dotted_name(call.func)
        found = self.context.helpers.get(spelling) if spelling is not None else None
        if found is not None and spelling is not None:
            return found, {spelling.split(".")[0]}
        if self.context.method_calls and isinstance(call.func, cst.Attribute):
            found = self.context.method_calls.get((self.line_of(original), call.func.attr.value))
            if found is not None and is_pure(call.func.value):
                return found, set()
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if not (self.context.helpers or self.context.method_calls) or not isinstance(
            result, cst.Call
        ):
            return result
        called = self._called(original_node, result)
        if called is None or not all(is_pure(arg.value) for arg in result.args):
            return result
        call, spelt = called
        helper = call.helper
        arguments = _bind(helper, result.args)
        if arguments is None or self._shadowed({*spelt, *(need.name for need in helper.needs)}):
            return result
        if helper.returns is not None:
            value = arguments.get(helper.returns)
            how = f"{helper.qualname} returns its argument {helper.returns} unchanged"
        else:
            value = _expression(helper.expression)
            how = f"{helper.qualname} always returns {helper.expression}"
        if value is None or not is_pure(value):
            return result
        if result.lpar and not value.lpar:  # `(helper())`: its parentheses stay
            value = value.with_changes(lpar=result.lpar, rpar=result.rpar)
        value = self.fitted(original_node, value)
        if value is None:
            return result
        start = self.get_metadata(PositionProvider, original_node).start
        flag = self.context.flags.get(helper.flag)
        name = flag.name if flag is not None else self.context.flag_near(start.line)
        self.context.inlined.append((start.line, start.column, name))
        self.context.inlined_helpers.add(helper.qualname)
        fixed = f" once {flag.name} is fixed at {flag.source}" if flag is not None else ""
        self.context.record(start.line, Action.INLINED_HELPER, how + fixed, name)
        for statement in call.imports:
            if statement not in self._helper_imports:
                reason = f"`{statement}`: the inlined {helper.qualname} needs it"
                self.context.record(start.line, Action.ADDED_IMPORT, reason, name)
            self._helper_imports.setdefault(statement, set()).add(start.line)
        self._inlined_calls[id(original_node)] = helper.qualname
        return value

    def edit_small_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement
    ) -> list[cst.BaseSmallStatement] | None:
        value = getattr(updated, "value", None)
        name = self._inlined_calls.get(id(getattr(original, "value", None)))
        if name is not None:
            flag = self.context.flag_near(self.line_of(original))
            if isinstance(updated, cst.Expr):
                reason = (
                    f"the call of {name} was a statement of its own, and what it"
                    " returns has no side effect"
                )
                self.record(original, Action.REMOVED_CALL, reason, flag)
                return []
            if isinstance(updated, cst.Assign) and _assigns_itself(updated):
                reason = (
                    f"once {name} is inlined, it assigns"
                    f" {cst.ensure_type(value, cst.Name).value} to itself"
                )
                self.record(original, Action.REMOVED_SELF_ASSIGNMENT, reason, flag)
                return []
        return super().edit_small_statement(original, updated)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        module = super().leave_Module(original_node, updated_node)
        # Only for inlinings that stayed (a `# prune-flags: keep` line keeps its call).
        kept = {
            change.line for change in self.context.changes if change.action == Action.INLINED_HELPER
        }
        statements = [
            statement for statement, lines in self._helper_imports.items() if lines & kept
        ]
        return add_imports(module, statements) if statements else module
