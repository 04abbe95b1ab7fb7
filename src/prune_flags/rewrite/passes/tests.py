"""Tests that pin a value the config rules out, carried out as `pinned` planned them."""

# The plan (model/test_file.py, with `ast`) names what goes by the original file's lines and
# columns; this pass finds each thing there, removes it and records the change the plan wrote:
#
# * a test, a fixture only deleted tests used, a test class left empty, a `with` block of another
#   value inside a test: whole, with decorators and the comments attached above; what other passes
#   recorded inside goes with it (a test is one change);
# * a parametrize entry that gives another value: from its list;
# * a write a test makes on the way: a statement, a decorator, a keyword of a call, an item of a
#   `with` (passes/withs.py: the `with` itself when none of its items is left, its body dedented
#   into its place), the flag's entry of a `mock.patch.dict` of the environment setting others.

from __future__ import annotations

from typing import cast

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.model.pinned import Removal, TestEdits
from prune_flags.rewrite.editors.lines import detached_lines
from prune_flags.rewrite.editors.shapes import without_decorators, without_element
from prune_flags.rewrite.editors.statements import Edit
from prune_flags.rewrite.passes.withs import Record, WithItemEditor
from prune_flags.vocabulary import Action


class PruneTests(WithItemEditor):
    def _removed(self, removal: Removal) -> None:
        self.context.record(removal.line, removal.action, removal.reason, removal.flag)

    def _position(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.get_metadata(PositionProvider, node).start
        return start.line, start.column

    def edit_statement(
        self, original: cst.BaseStatement, updated: cst.BaseStatement
    ) -> Edit | None:
        edits = self.context.tests
        if edits is not None and isinstance(updated, (cst.FunctionDef, cst.ClassDef)):
            removal = edits.removals.get(("deleted", self.line_of(original)))
            if removal is not None:
                return self._delete(original, updated, removal)
        if edits is not None and isinstance(updated, cst.With):
            removal = edits.removals.get(("block", self.line_of(original)))
            if removal is not None:
                return self._delete(original, updated, removal)
        return super().edit_statement(original, updated)

    def _delete(
        self,
        original: cst.BaseStatement,
        updated: cst.FunctionDef | cst.ClassDef | cst.With,
        removal: Removal,
    ) -> Edit:
        # A class goes after its tests, each recorded; one that goes for its own decorator is one
        # change.
        own = isinstance(original, cst.ClassDef) and removal.action == Action.REMOVED_TEST
        if isinstance(original, (cst.FunctionDef, cst.With)) or own:
            span = self.get_metadata(PositionProvider, original)
            decorators = (
                original.decorators if isinstance(original, (cst.FunctionDef, cst.ClassDef)) else ()
            )
            first = min([span.start.line, *(self.line_of(decorator) for decorator in decorators)])
            self.context.changes[:] = [
                c for c in self.context.changes if not first <= c.line <= span.end.line
            ]
        self._removed(removal)
        return Edit(carry=detached_lines(updated.leading_lines))

    def with_item_removal(self, original: cst.With, index: int) -> Record | None:
        edits = self.context.tests
        removal = (
            edits.removals.get(("with", (self.line_of(original), index)))
            if edits is not None
            else None
        )
        if removal is None:
            return super().with_item_removal(original, index)
        return lambda: self._removed(removal)

    def edit_small_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement
    ) -> list[cst.BaseSmallStatement] | None:
        edits = self.context.tests
        removal = (
            edits.removals.get(("statement", self._position(original)))
            if edits is not None
            else None
        )
        if removal is not None and isinstance(updated, (cst.Expr, cst.Assign)):
            self._removed(removal)
            return []
        return super().edit_small_statement(original, updated)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        # Every pass's leave_FunctionDef gives back a function, LibCST's the one it is given.
        result = cast(cst.FunctionDef, super().leave_FunctionDef(original_node, updated_node))
        edits = self.context.tests
        if edits is None or self.line_of(original_node) not in edits.tests:
            return result
        # Another pass may have taken decorators already: each left is matched to its original.
        originals = {
            id(new): old for old, new in zip(original_node.decorators, updated_node.decorators)
        }
        decorators, kept = [], []
        for decorator in result.decorators:
            original = originals.get(id(decorator))
            line = self.line_of(original) if original is not None else 0
            decorator = self._without_entries(decorator, line, edits)
            decorators.append(decorator)
            removal = edits.removals.get(("decorator", line))
            if removal is not None:
                self._removed(removal)
            else:
                kept.append(decorator)
        return without_decorators(result.with_changes(decorators=decorators), kept)

    def _without_entries(
        self, decorator: cst.Decorator, line: int, edits: TestEdits
    ) -> cst.Decorator:
        """A parametrize decorator without the entries the plan removes (its argvalues list)."""
        indices = sorted(
            (key[1] for place, key in edits.removals if place == "entry" and key[0] == line),
            reverse=True,
        )
        call = decorator.decorator
        if not indices or not isinstance(call, cst.Call):
            return decorator
        positional = [arg for arg in call.args if arg.keyword is None]
        values = (
            positional[1]
            if len(positional) > 1
            else next(a for a in call.args if a.keyword and a.keyword.value == "argvalues")
        )
        assert isinstance(values.value, (cst.List, cst.Tuple))
        elements = list(values.value.elements)
        for index in indices:
            self._removed(edits.removals[("entry", (line, index))])
            elements = without_element(elements, index)
        new = values.with_changes(value=values.value.with_changes(elements=elements))
        return decorator.with_changes(
            decorator=call.with_changes(args=[new if arg is values else arg for arg in call.args])
        )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        edits = self.context.tests
        if (
            edits is None
            or not isinstance(result, cst.Call)
            or not any(arg.keyword for arg in original_node.args)
        ):
            return result
        found = {
            arg.keyword.value: edits.removals.get(("keyword", self._position(arg)))
            for arg in original_node.args
            if arg.keyword
        }
        removals = {keyword: removal for keyword, removal in found.items() if removal is not None}
        args = list(result.args)
        for index in reversed(range(len(args))):
            keyword = args[index].keyword
            if keyword is not None and keyword.value in removals:
                self._removed(removals[keyword.value])
                args = without_element(args, index)
        return result.with_changes(args=args) if len(args) < len(result.args) else result

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
        # A dict `mock.patch.dict` writes into the environment is the plan's, not a table the
        # tables pass empties: only the entries the plan names go.
        edits = self.context.tests
        if edits is None or self._position(original_node) not in edits.environment_dicts:
            return super().leave_Dict(original_node, updated_node)
        if len(updated_node.elements) == len(original_node.elements):
            elements = list(updated_node.elements)
            for index in reversed(range(len(original_node.elements))):
                element = original_node.elements[index]
                if not isinstance(element, cst.DictElement):
                    continue
                removal = edits.removals.get(("environ-key", self._position(element.key)))
                if removal is not None:
                    self._removed(removal)
                    elements = without_element(elements, index)
            updated_node = updated_node.with_changes(elements=elements)
        return updated_node
