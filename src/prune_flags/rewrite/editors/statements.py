"""Editing statement lists: the shared base of every pass that removes or flattens statements."""

# Passes decide per statement (`edit_statement`, `edit_small_statement`); this base rebuilds each
# block from those decisions and owns the layout rules a careful engineer follows by hand:
#
# * a deleted statement takes the comment lines attached directly above it (a module's first
#   statement too, though LibCST keeps those in the module's header; not a block that opens the file
#   or holds an encoding declaration or a file-level directive); blank lines and detached comments
#   above it move to the next statement kept, without doubling the blank lines at the seam;
# * but a comment heading a paragraph (a blank line or the block's start above it) over a deleted
#   `if`, loop, `with` or `try` stays with the paragraph's first statement kept, when no blank line
#   comes between, and it speaks of nothing that went (a word of the flag, of a name that died, of
#   the deleted code, that the kept statement lacks);
# * a flattened branch keeps every comment inside it, its footer comments included;
# * an unconditional exit exposed by flattening ends the block: what follows is gone; a bare
#   `return` so exposed at the end of a function's body goes too, and a `continue` at the end of a
#   loop's;
# * a block left empty is for the parent statement to handle; if nobody does, it gets `pass`, which
#   is only needed where Python needs a body.

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.editors.lines import (
    FILE_DIRECTIVE,
    detached_lines,
    has_keep_pragma,
    heading_comment,
    is_blank,
    leading_lines,
    merge_lines,
    strip_leading_blanks,
    strip_trailing_blanks,
)
from prune_flags.rewrite.editors.shapes import (
    SCOPES,
    Statements,
    block_footer,
    block_statements,
    ends_flow,
    fill_empty_blocks,
    is_attribute_docstring,
    is_bare_return,
    is_continue,
    is_empty,
    names,
    speaks_of,
)
from prune_flags.syntax.lines import Spans
from prune_flags.syntax.statements import KEEP_PRAGMA
from prune_flags.vocabulary import Action


@dataclass(frozen=True)
class Edit:
    """What becomes of one statement: the statements replacing it and the lines it leaves behind."""

    statements: Statements = ()
    carry: Sequence[cst.EmptyLine] = ()  # lines for the next statement kept (or the block's footer)
    flattened: bool = False  # the statements come out of a folded branch
    takes_docstring: bool = False  # a deleted field: the string documenting it right below goes too


@dataclass
class _BlockBuilder:
    statements: list[cst.BaseStatement] = field(default_factory=list)
    pending: list[cst.EmptyLine] = field(default_factory=list)
    dropped_first: bool = (
        False  # the block's first statement went: the new first needs no blank above
    )
    below_comment: bool = False  # ...unless a comment stays above the block (a module's header)
    # The comment heading a paragraph whose first statements went, waiting for the first kept,
    # and the names of what went (see heading_comment).
    heading: list[cst.EmptyLine] = field(default_factory=list)
    heading_names: set[str] = field(default_factory=set)

    def add(self, statement: cst.BaseStatement) -> None:
        lines = merge_lines(self.pending, list(leading_lines(statement)))
        if not self.statements and self.dropped_first and not self.below_comment:
            lines = strip_leading_blanks(lines)
        self.statements.append(statement.with_changes(leading_lines=lines))
        self.pending = []

    def carry(self, lines: Sequence[cst.EmptyLine]) -> None:
        if not self.statements:
            self.dropped_first = True
        self.pending = merge_lines(self.pending, list(lines))

    def drop_last(self) -> None:
        """Take back the last statement added: its attached comments go with it, the lines above
        them move on."""
        dropped = self.statements.pop()
        self.pending = merge_lines(detached_lines(leading_lines(dropped)), self.pending)
        if not self.statements:
            self.dropped_first = True


class BodyEditor(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: RewriteContext) -> None:
        super().__init__()
        self.context = context
        self.scopes: list[cst.CSTNode] = []  # enclosing scopes, innermost last
        self._loop_bodies: set[int] = set()  # the statement lists of loops' bodies (by id)
        # The contexts outside the classes and functions where a scoped flag's name is another
        # definition's (see scoping), with the node each was left at.
        self._outer: list[tuple[cst.CSTNode, RewriteContext]] = []
        # The relevant lines as spans, made once for the set they were made from.
        self._relevant_spans: tuple[frozenset[int] | None, Spans] = (None, Spans(()))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.ClassDef, cst.FunctionDef, cst.Module)) and self.context.foreign:
            self._hide_foreign(node)
        if isinstance(node, SCOPES):
            self.scopes.append(node)
        if isinstance(node, (cst.For, cst.While)) and isinstance(node.body, cst.IndentedBlock):
            self._loop_bodies.add(id(node.body.body))
        if isinstance(node, cst.BaseCompoundStatement) and not self._relevant(node):
            return False  # nothing in it names what this run changes: leave it as it is, unwalked
        return super().on_visit(node)

    def _hide_foreign(self, node: cst.ClassDef | cst.FunctionDef | cst.Module) -> None:
        owner = "" if isinstance(node, cst.Module) else self.dotted(node.name.value)
        hidden = frozenset(name for name, owners in self.context.foreign.items() if owner in owners)
        if hidden:
            self._outer.append((node, self.context))
            self.context = self.context.without(hidden)

    def _relevant(self, node: cst.CSTNode) -> bool:
        lines = self.context.relevant_lines
        if lines is None:
            return True
        span = self.get_metadata(PositionProvider, node)
        first = span.start.line
        decorators = getattr(node, "decorators", ())
        if decorators:  # (a def's or class's position starts at its keyword, after them)
            first = self.get_metadata(PositionProvider, decorators[0]).start.line
        if self._relevant_spans[0] is not lines:
            self._relevant_spans = (lines, Spans.of_lines(lines))
        return self._relevant_spans[1].meets(first, span.end.line)

    # Its return is left to inference: LibCST's is generic in the node's type.
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        result = super().on_leave(original_node, updated_node)
        if isinstance(original_node, SCOPES):
            self.scopes.pop()
        if self._outer and self._outer[-1][0] is original_node:
            inner, (_, self.context) = self.context, self._outer.pop()
            self.context.unreachable_outside_functions |= inner.unreachable_outside_functions
        return result

    def dotted(self, name: str) -> str:
        """The dotted path inside the module (`Car.drive`) of `name` defined in the current
        scope."""
        owners = [
            scope.name.value
            for scope in self.scopes
            if isinstance(scope, (cst.ClassDef, cst.FunctionDef))
        ]
        return ".".join([*owners, name])

    @property
    def in_class_body(self) -> bool:
        return bool(self.scopes) and isinstance(self.scopes[-1], cst.ClassDef)

    @property
    def at_module_level(self) -> bool:
        return not self.scopes

    # -- hooks for the passes -------------------------------------------------------------
    def edit_statement(
        self, original: cst.BaseStatement, updated: cst.BaseStatement
    ) -> Edit | None:
        if (
            isinstance(updated, cst.Try)
            and isinstance(original, cst.Try)
            and is_empty(updated.body)
            and not is_empty(original.body)
        ):
            return self._unwrap_emptied(original, updated)
        return None

    def _unwrap_emptied(self, original: cst.Try, updated: cst.Try) -> Edit:
        """A `try` whose body the edit emptied: nothing in it can raise any more, so its handlers
        never run; what stays is its `else` then its `finally`, in its place."""
        self.record(
            original,
            Action.REMOVED_EMPTY_TRY,
            "its body had nothing left: what its handlers catch can no longer happen",
            self.context.flag_changed_within(self.get_metadata(PositionProvider, original)),
        )
        statements: list[cst.BaseStatement] = []
        footer = list(updated.leading_lines)
        for part in (updated.orelse, updated.finalbody):
            if part is None:
                continue
            kept = block_statements(part.body)
            kept[0] = kept[0].with_changes(
                leading_lines=merge_lines(
                    footer + list(part.leading_lines), list(leading_lines(kept[0]))
                )
            )
            statements += kept
            footer = block_footer(part.body)
        if not statements:
            return Edit(carry=detached_lines(list(updated.leading_lines)))
        return Edit(statements=statements, carry=footer, flattened=True)

    def edit_small_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement
    ) -> list[cst.BaseSmallStatement] | None:
        return None

    def overwritten(
        self,
        kept: cst.BaseStatement,
        kept_original: cst.BaseStatement,
        first: cst.BaseStatement,
        folded: cst.BaseStatement,
    ) -> bool:
        """Whether `kept`, the statement before a branch that the fold of `folded` flattened into
        place, is a store that `first`, the flattened branch's first statement, overwrites
        before anything reads it (and so goes; the pass saying so records it)."""
        return False

    # -- helpers ---------------------------------------------------------------------------
    def line_of(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def record(self, node: cst.CSTNode, action: Action, reason: str, flag: str) -> None:
        self.context.record(self.line_of(node), action, reason, flag)

    # -- rebuilding ------------------------------------------------------------------------
    def leave_SimpleStatementSuite(
        self, original_node: cst.SimpleStatementSuite, updated_node: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        return updated_node.with_changes(body=self._small_statements(original_node, updated_node))

    def _small_statements(
        self,
        original: cst.SimpleStatementLine | cst.SimpleStatementSuite,
        updated: cst.SimpleStatementLine | cst.SimpleStatementSuite,
    ) -> list[cst.BaseSmallStatement]:
        result: list[cst.BaseSmallStatement] = []
        for original_small, small in zip(original.body, updated.body):
            replacement = self.edit_small_statement(original_small, small)
            result.extend([small] if replacement is None else replacement)
        if (
            result
            and result[-1].semicolon is not cst.MaybeSentinel.DEFAULT
            and len(result) < len(updated.body)
        ):
            result[-1] = result[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return result

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        body, footer = self._rebuild(original_node.body, updated_node.body)
        return updated_node.with_changes(body=body, footer=footer + list(updated_node.footer))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        # LibCST keeps the lines above a module's first statement in the module's header: the
        # blank lines ending it and the comment block attached to the statement below them (never
        # a block that opens the file, a licence or a shebang) are moved to the statement, to go
        # or stay with it as everywhere else.
        header = list(updated_node.header)
        attached = len(header) - len(detached_lines(header))
        statements = list(updated_node.body)
        if statements and attached < len(header):
            kept = len(strip_trailing_blanks(detached_lines(header)))
            if not any(
                line.comment and FILE_DIRECTIVE.match(line.comment.value) for line in header[kept:]
            ):
                moved, header = header[kept:], header[:kept]
                statements[0] = statements[0].with_changes(
                    leading_lines=[*moved, *statements[0].leading_lines]
                )
        below_comment = bool(header) and not is_blank(header[-1])
        body, footer = self._rebuild(original_node.body, statements, below_comment)
        return updated_node.with_changes(
            header=header, body=body, footer=footer + list(updated_node.footer)
        )

    def _rebuild(
        self, originals: Statements, statements: Statements, below_comment: bool = False
    ) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
        block = _BlockBuilder(below_comment=below_comment)
        documented = False
        kept_from: cst.BaseStatement | None = None  # the original of the last statement kept
        exposed: cst.BaseStatement | None = (
            None  # the folded statement the block's last ones came from
        )
        for index, (original, statement) in enumerate(zip(originals, statements)):
            if documented and is_attribute_docstring(statement):
                block.carry(detached_lines(leading_lines(statement)))
                documented = False
                if not _paragraph_goes_on(originals, index):
                    block.heading = []
                continue
            edit = self._edit(original, statement)
            documented = edit.takes_docstring
            if not edit.statements:
                self._hold_heading(block, originals, index, statement, edit)
                block.carry(edit.carry)
                continue
            if (
                edit.flattened
                and block.statements
                and kept_from is not None
                and self.overwritten(block.statements[-1], kept_from, edit.statements[0], original)
            ):
                block.drop_last()
            self._place_heading(block, original)
            for new in edit.statements:
                block.add(new)
            kept_from = original
            exposed = original if edit.flattened else None
            block.carry(edit.carry)
            if edit.flattened and edit.statements and ends_flow(edit.statements[-1]):
                if index + 1 < len(originals):
                    self.record(
                        originals[index + 1],
                        Action.REMOVED_UNREACHABLE,
                        "unreachable: it follows a return, raise, continue or break that"
                        " folding exposed",
                        self.context.flag_near(self.line_of(original)),
                    )
                    # A view holds a function whole; a module or class body maybe not
                    # (rewrite/view.py).
                    if not any(isinstance(scope, cst.FunctionDef) for scope in self.scopes):
                        self.context.unreachable_outside_functions = True
                break
        if exposed is not None and self._function_body(originals):
            self._drop_trailing_exit(
                block,
                exposed,
                is_bare_return,
                Action.REMOVED_RETURN,
                "a bare return the fold left at the end of the function",
            )
        elif exposed is not None and id(originals) in self._loop_bodies:
            self._drop_trailing_exit(
                block,
                exposed,
                is_continue,
                Action.REMOVED_CONTINUE,
                "a continue the fold left at the end of the loop's body",
            )
        footer = [line for line in block.pending if not is_blank(line)]
        return block.statements, footer

    def _hold_heading(
        self,
        block: _BlockBuilder,
        originals: Statements,
        index: int,
        statement: cst.BaseStatement,
        edit: Edit,
    ) -> None:
        """A deleted statement heading a paragraph leaves the comment above it for the next
        statement kept; one further down the paragraph adds the names of what went."""
        heading = heading_comment(leading_lines(statement), index == 0)
        if isinstance(statement, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)) or any(
            line is carried for line in heading for carried in edit.carry
        ):
            heading = (
                []
            )  # a definition's or a write's comment is about it; a carried one moves on anyway
        if heading:
            block.heading, block.heading_names = heading, set()
        if block.heading:
            block.heading_names |= names(originals[index])
        if not _paragraph_goes_on(originals, index):
            block.heading = []

    def _place_heading(self, block: _BlockBuilder, kept: cst.BaseStatement) -> None:
        """The held heading goes above `kept`, unless it speaks of what went: a flag or a name
        that died, or a word of the deleted code that `kept` lacks."""
        heading, block.heading = block.heading, []
        if not heading:
            return
        dead = {
            *self.context.flags,
            *self.context.dead_names,
            *self.context.dead_globals,
            *(name for _, name in self.context.dead_locals),
        }
        if not speaks_of(heading, block.heading_names | dead, names(kept)):
            block.carry(heading)

    def _function_body(self, originals: Statements) -> bool:
        scope = self.scopes[-1] if self.scopes else None
        return (
            isinstance(scope, cst.FunctionDef)
            and isinstance(scope.body, cst.IndentedBlock)
            and scope.body.body is originals
        )

    def _drop_trailing_exit(
        self,
        block: _BlockBuilder,
        folded: cst.BaseStatement,
        is_exit: Callable[[cst.BaseSmallStatement], bool],
        action: Action,
        reason: str,
    ) -> None:
        """A bare `return` that flattening `folded` left last in a function's body, or a `continue`
        last in a loop's, says nothing the block's end does not: it goes (and the line holding
        it, when it stands alone)."""
        last = block.statements[-1]
        if not (isinstance(last, cst.SimpleStatementLine) and is_exit(last.body[-1])):
            return
        if last.trailing_whitespace.comment is not None:
            return
        flag = self.context.flag_near(self.line_of(folded))
        self.record(folded, action, reason, flag)
        if len(last.body) == 1:
            block.drop_last()
        else:
            rest = [
                *last.body[:-2],
                last.body[-2].with_changes(semicolon=cst.MaybeSentinel.DEFAULT),
            ]
            block.statements[-1] = last.with_changes(body=rest)

    def _edit(self, original: cst.BaseStatement, statement: cst.BaseStatement) -> Edit:
        if has_keep_pragma(original):
            if not statement.deep_equals(original):
                span = self.get_metadata(PositionProvider, original)
                within = range(span.start.line, span.end.line + 1)
                self.context.changes[:] = [c for c in self.context.changes if c.line not in within]
                flag = self.context.flag_near(span.start.line)
                self.record(original, Action.KEPT_BY_PRAGMA, f"`{KEEP_PRAGMA}` protects it", flag)
            return Edit(statements=[original])
        if isinstance(statement, cst.SimpleStatementLine):
            # Small statements are edited here, not in leave_SimpleStatementLine: LibCST drops a
            # line whose statements are all removed, which would hide the comments above it.
            assert isinstance(original, cst.SimpleStatementLine)
            statement = statement.with_changes(body=self._small_statements(original, statement))
            if not statement.body:
                field_level = self.in_class_body or self.at_module_level
                return Edit(
                    carry=detached_lines(statement.leading_lines), takes_docstring=field_level
                )
        edit = self.edit_statement(original, statement)
        if edit is not None:
            return edit
        return Edit(statements=[fill_empty_blocks(statement)])


def _paragraph_goes_on(originals: Statements, index: int) -> bool:
    """Whether a statement follows the one at `index` with no blank line between."""
    return index + 1 < len(originals) and not any(
        is_blank(line) for line in leading_lines(originals[index + 1])
    )
