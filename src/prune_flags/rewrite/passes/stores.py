"""Stores and handlers a fold left without a purpose."""

# * `self.flusher = None` right before a branch the fold flattened whose first statement is
#   `self.flusher = make()`: nothing reads the first value, so it goes (a local the same way, where
#   no nested function can see it);
# * `except E as e: raise`, a handler the fold reduced to re-raising, at the end of its `try`: it
#   catches nothing (a handler after it could catch what it passes on, so only trailing ones go); a
#   `try` left with no handler and no `finally` is unwrapped, its `else` after its body.
#
# Only what the fold changed is touched: a user's own `x = None; x = f()` stays.

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.rewrite.editors.lines import leading_lines, merge_lines
from prune_flags.rewrite.editors.shapes import (
    block_footer,
    block_statements,
    descendants,
    names,
)
from prune_flags.rewrite.editors.statements import BodyEditor, Edit
from prune_flags.rewrite.purity import is_pure
from prune_flags.vocabulary import Action


class PruneDeadStores(BodyEditor):
    def overwritten(
        self,
        kept: cst.BaseStatement,
        kept_original: cst.BaseStatement,
        first: cst.BaseStatement,
        folded: cst.BaseStatement,
    ) -> bool:
        if not isinstance(kept_original, cst.SimpleStatementLine) or not kept.deep_equals(
            kept_original
        ):
            return super().overwritten(kept, kept_original, first, folded)
        store, again = _single_assign(kept), _single_assign(first)
        if (
            store is None
            or again is None
            or not store.targets[0].target.deep_equals(again.targets[0].target)
        ):
            return super().overwritten(kept, kept_original, first, folded)
        target = store.targets[0].target
        if not (
            is_pure(store.value)
            and not descendants(store.value, (cst.Call,))
            and self._unseen_by(again.value, target)
        ):
            return super().overwritten(kept, kept_original, first, folded)
        flag = self.context.flag_changed_within(self.get_metadata(PositionProvider, folded))
        shown = cst.Module(body=[]).code_for_node(target)
        self.record(
            kept_original,
            Action.REMOVED_DEAD_STORE,
            f"{shown} is set again right after, with nothing reading it between",
            flag,
        )
        return True

    def _unseen_by(self, value: cst.BaseExpression, target: cst.BaseExpression) -> bool:
        """Whether evaluating `value` cannot read what `target` holds: `self.x` when the value
        never names `self` (only what is handed `self` could reach its attribute); a local when
        the value never names it and no nested scope of the function does."""
        if (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
        ):
            return "self" not in names(value)
        if (
            not isinstance(target, cst.Name)
            or not self.scopes
            or not isinstance(self.scopes[-1], cst.FunctionDef)
        ):
            return False
        function = self.scopes[-1]
        if target.value in names(value) or descendants(function, (cst.Global, cst.Nonlocal)):
            return False
        nested = descendants(function.body, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
        return not any(target.value in names(scope) for scope in nested)

    def edit_statement(
        self, original: cst.BaseStatement, updated: cst.BaseStatement
    ) -> Edit | None:
        if isinstance(updated, cst.Try) and isinstance(original, cst.Try):
            return self._prune_reraising(original, updated)
        return super().edit_statement(original, updated)

    def _prune_reraising(self, original: cst.Try, updated: cst.Try) -> Edit | None:
        handlers = list(updated.handlers)
        while handlers and _reraises(handlers[-1]):
            index = len(handlers) - 1
            if original.handlers[index].deep_equals(handlers[-1]):
                break  # the user's own: not the fold's to remove
            if updated.finalbody is not None and handlers[-1].name is not None:
                break  # the handler unbinds its name, which the `finally` may see
            self.record(
                original.handlers[index],
                Action.REMOVED_HANDLER,
                "it only re-raises what it catches once the fold emptied it",
                self.context.flag_changed_within(
                    self.get_metadata(PositionProvider, original.handlers[index])
                ),
            )
            handlers.pop()
        if len(handlers) == len(updated.handlers):
            return super().edit_statement(original, updated)
        if handlers or updated.finalbody is not None:
            return Edit(statements=[updated.with_changes(handlers=handlers)])
        statements = block_statements(updated.body)
        footer = block_footer(updated.body)
        if updated.orelse is not None:
            rest = block_statements(updated.orelse.body)
            rest[0] = rest[0].with_changes(
                leading_lines=merge_lines(
                    footer + list(updated.orelse.leading_lines), list(leading_lines(rest[0]))
                )
            )
            statements, footer = statements + rest, block_footer(updated.orelse.body)
        statements[0] = statements[0].with_changes(
            leading_lines=merge_lines(
                list(updated.leading_lines), list(leading_lines(statements[0]))
            )
        )
        return Edit(statements=statements, carry=footer, flattened=True)


def _single_assign(statement: cst.BaseStatement) -> cst.Assign | None:
    """`target = value` alone on its line, one target that is a name or an attribute of a name."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    plain = isinstance(target, cst.Name) or (
        isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
    )
    return assign if plain else None


def _reraises(handler: cst.ExceptHandler) -> bool:
    """`except E: raise` or `except E as e: raise e`: the handler passes on what it caught."""
    statements = block_statements(handler.body)
    if (
        len(statements) != 1
        or not isinstance(statements[0], cst.SimpleStatementLine)
        or len(statements[0].body) != 1
    ):
        return False
    raised = statements[0].body[0]
    if not isinstance(raised, cst.Raise) or raised.cause is not None:
        return False
    bound = handler.name.name if handler.name is not None else None
    exc = raised.exc
    return exc is None or (
        isinstance(bound, cst.Name) and isinstance(exc, cst.Name) and exc.value == bound.value
    )
