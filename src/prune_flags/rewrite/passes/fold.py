"""Fold: `if`/`elif`/`else`, `while` and `assert` whose test became a constant; empty shells.

The live branch is kept, dedented, with every comment inside it; the dead branch
goes with the comments attached above it and on its header line. An `if` left
with an empty body by the passes (its test free of side effects) goes too.
"""

from __future__ import annotations

from typing import cast

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.rewrite.constants import bool_node, truthiness
from prune_flags.rewrite.editors.expressions import standing_alone
from prune_flags.rewrite.editors.lines import (
    detached_lines,
    is_blank,
    leading_lines,
    merge_lines,
)
from prune_flags.rewrite.editors.shapes import (
    block_footer,
    block_statements,
    fill_empty_blocks,
    is_empty,
)
from prune_flags.rewrite.editors.statements import BodyEditor, Edit
from prune_flags.rewrite.purity import is_pure
from prune_flags.vocabulary import Action


class FoldBranches(BodyEditor):
    def edit_statement(
        self, original: cst.BaseStatement, updated: cst.BaseStatement
    ) -> Edit | None:
        if isinstance(updated, cst.If):
            assert isinstance(original, cst.If)
            return self._fold_if(original, updated, list(updated.leading_lines))
        if isinstance(updated, cst.While):
            assert isinstance(original, cst.While)
            return self._fold_while(original, updated)
        return super().edit_statement(original, updated)

    def edit_small_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement
    ) -> list[cst.BaseSmallStatement] | None:
        if isinstance(updated, cst.Assert) and truthiness(updated.test) is True:
            test = cast(cst.Assert, original).test  # the original of an assert is one
            if self._flag(test):
                self.record(
                    original,
                    Action.REMOVED_ASSERT,
                    "the assertion always holds",
                    self._flag(test),
                )
                return []
        return super().edit_small_statement(original, updated)

    def _flag(self, test: cst.CSTNode) -> str:
        flags = self.context.flags_within(self.get_metadata(PositionProvider, test))
        return flags[0] if flags else ""

    def _fold_if(
        self, original: cst.If, updated: cst.If, leading: list[cst.EmptyLine]
    ) -> Edit | None:
        value = truthiness(updated.test)
        flag = self._flag(original.test) if value is not None else ""
        effect = _effect_then_constant(updated.test)
        if value is None and effect is not None and self._flag(original.test):
            return self._fold_keeping_effect(original, updated, leading, *effect)
        if value is None or not flag:
            if _does_nothing(updated):
                flag = self.context.flag_changed_within(
                    self.get_metadata(PositionProvider, original)
                )
                self.record(original, Action.REMOVED_EMPTY_IF, "its body had nothing left", flag)
                return Edit(carry=detached_lines(leading))
            return self._fold_elifs(original, updated)
        if value:
            self.record(
                original,
                Action.FOLDED_BRANCH,
                f"the condition is always true once {flag} is inlined",
                flag,
            )
            return self._flatten(updated.body, leading, [])
        self.record(
            original,
            Action.REMOVED_BRANCH,
            f"the condition is always false once {flag} is inlined",
            flag,
        )
        orelse = updated.orelse
        if orelse is None:
            return Edit(carry=detached_lines(leading))
        if isinstance(orelse, cst.Else):
            return self._flatten(orelse.body, detached_lines(leading), list(orelse.leading_lines))
        assert isinstance(original.orelse, cst.If)
        promoted = orelse.with_changes(
            leading_lines=merge_lines(detached_lines(leading), list(orelse.leading_lines))
        )
        edit = self._fold_if(original.orelse, promoted, list(promoted.leading_lines))
        return edit if edit is not None else Edit(statements=[fill_empty_blocks(promoted)])

    def _fold_keeping_effect(
        self,
        original: cst.If,
        updated: cst.If,
        leading: list[cst.EmptyLine],
        effect: cst.BaseExpression,
        value: bool,
    ) -> Edit:
        """`if f() and False:` -> `f()`: the branch is decided, but the call must still run."""
        flag = self._flag(original.test)
        call = cst.SimpleStatementLine(
            body=[cst.Expr(standing_alone(updated.test, effect))], leading_lines=leading
        )
        self.record(
            original,
            Action.FOLDED_BRANCH_KEPT_CALL,
            f"the condition is always {str(value).lower()} once {flag} is inlined; its call"
            " stays for its side effects",
            flag,
        )
        rest = self._fold_if(original, updated.with_changes(test=bool_node(value)), [])
        assert rest is not None
        return Edit(statements=[call, *rest.statements], carry=rest.carry, flattened=rest.flattened)

    def _fold_elifs(self, original: cst.If, updated: cst.If) -> Edit | None:
        """Fold constant `elif` tests further down a chain whose head stays."""
        orelse, changed = self._fold_chain(original.orelse, updated.orelse)
        return (
            Edit(statements=[fill_empty_blocks(updated.with_changes(orelse=orelse))])
            if changed
            else None
        )

    def _fold_chain(
        self, original: cst.If | cst.Else | None, updated: cst.If | cst.Else | None
    ) -> tuple[cst.If | cst.Else | None, bool]:
        """The rest of a chain with its flag-decided `elif`s folded, walked with the original
        beside it (a user's own `elif False` is not the flag's to fold)."""
        if not isinstance(updated, cst.If) or not isinstance(original, cst.If):
            return updated, False
        value = truthiness(updated.test)
        flag = self._flag(original.test) if value is not None else ""
        if flag and value:
            self.record(
                original,
                Action.FOLDED_BRANCH,
                f"the condition is always true once {flag} is inlined",
                flag,
            )
            if _only_pass(updated.body) and all(is_blank(line) for line in updated.leading_lines):
                return None, True  # `else: pass` would do nothing: the chain ends before it
            return (
                cst.Else(
                    body=updated.body,
                    leading_lines=updated.leading_lines,
                    whitespace_before_colon=updated.whitespace_after_test,
                ),
                True,
            )
        if flag:
            self.record(
                original,
                Action.REMOVED_BRANCH,
                f"the condition is always false once {flag} is inlined",
                flag,
            )
            rest, _ = self._fold_chain(original.orelse, updated.orelse)
            return rest, True
        rest, changed = self._fold_chain(original.orelse, updated.orelse)
        return (updated.with_changes(orelse=rest) if changed else updated), changed

    def _fold_while(self, original: cst.While, updated: cst.While) -> Edit | None:
        if truthiness(updated.test) is not False or not self._flag(original.test):
            return None
        flag = self._flag(original.test)
        self.record(
            original, Action.REMOVED_LOOP, f"the loop never runs once {flag} is inlined", flag
        )
        if updated.orelse is None:
            return Edit(carry=detached_lines(updated.leading_lines))
        return self._flatten(
            updated.orelse.body,
            detached_lines(updated.leading_lines),
            list(updated.orelse.leading_lines),
        )

    def _flatten(
        self,
        block: cst.BaseSuite,
        leading: list[cst.EmptyLine],
        branch_leading: list[cst.EmptyLine],
    ) -> Edit:
        statements = block_statements(block)
        lines = merge_lines(leading, branch_leading)
        if not statements:
            return Edit(carry=detached_lines(lines))
        if all(_is_bare_pass(statement) for statement in statements):
            # The live branch does nothing: the statement goes whole, and every line above and
            # inside it moves on (the enclosing block gets `pass` back only if Python needs one).
            for statement in statements:
                lines = merge_lines(lines, list(leading_lines(statement)))
            return Edit(carry=merge_lines(lines, block_footer(block)))
        first = statements[0]
        statements[0] = first.with_changes(
            leading_lines=merge_lines(lines, list(leading_lines(first)))
        )
        return Edit(statements=statements, carry=block_footer(block), flattened=True)


def _is_bare_pass(statement: cst.BaseStatement) -> bool:
    """`pass` on a line of its own without a comment on it (a commented one keeps its comment)."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and all(isinstance(small, cst.Pass) for small in statement.body)
        and statement.trailing_whitespace.comment is None
    )


def _only_pass(block: cst.BaseSuite) -> bool:
    """A block of bare `pass` lines with no comment anywhere in it."""
    statements = block_statements(block)
    return (
        bool(statements)
        and all(
            _is_bare_pass(s) and all(is_blank(line) for line in leading_lines(s))
            for s in statements
        )
        and all(is_blank(line) for line in block_footer(block))
    )


def _effect_then_constant(test: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """`f() and False` / `f() or True`: the truth is known, but `f()` has to run first."""
    if not isinstance(test, cst.BooleanOperation):
        return None
    right = truthiness(test.right)
    if right is None or is_pure(test.left) or truthiness(test.left) is not None:
        return None
    is_and = isinstance(test.operator, cst.And)
    if right is not is_and:  # `x and False` is false, `x or True` is true, whatever x is
        return test.left, right
    return None


def _does_nothing(statement: cst.If) -> bool:
    """Whether an `if` has nothing left in any branch (its `elif`s and `else` too) and no test
    with side effects: running it does nothing."""
    orelse = statement.orelse
    rest = (
        orelse is None
        or (isinstance(orelse, cst.Else) and is_empty(orelse.body))
        or (isinstance(orelse, cst.If) and _does_nothing(orelse))
    )
    return is_empty(statement.body) and rest and is_pure(statement.test)
