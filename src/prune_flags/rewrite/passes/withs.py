"""`with` statements some of whose items a pass removes: the items go, and a `with` left with none
is unwrapped, its body dedented in its place."""

# `with` statements some of whose items a pass removes: a test's write of a flag (tests.py, as
# model/test_file.py planned it) or a setter of a flag that has no reader left (prune.py), such as
# `with config.use_x(True):` or `with override_settings(USE_X=True):`. The items that go leave the
# `with`; a `with` left without items is unwrapped, its body dedented into its place with its
# comments. Each pass only says which items it removes (`with_item_removal`); this editor removes
# them once, whichever passes asked.

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import libcst as cst

from prune_flags.rewrite.editors.lines import detached_lines, leading_lines, merge_lines
from prune_flags.rewrite.editors.shapes import (
    block_footer,
    block_statements,
    without_element,
)
from prune_flags.rewrite.editors.statements import BodyEditor, Edit

Record = Callable[[], None]  # records the change of an item that goes


class WithItemEditor(BodyEditor):
    def with_item_removal(self, original: cst.With, index: int) -> Record | None:
        """Hook: how to record the removal of the `index`-th item of `original`, if a pass removes
        it (a pass that does not asks the next one, through super())."""
        return None

    def _removals(self, original: cst.With) -> list[tuple[int, Record]]:
        found = [
            (index, self.with_item_removal(original, index)) for index in range(len(original.items))
        ]
        return [(index, record) for index, record in found if record is not None]

    def edit_statement(
        self, original: cst.BaseStatement, updated: cst.BaseStatement
    ) -> Edit | None:
        if isinstance(updated, cst.With):
            assert isinstance(original, cst.With)
            removals = self._removals(original)
            if removals and len(removals) == len(original.items):
                for _, record in removals:
                    record()
                return _unwrapped(updated)
        return super().edit_statement(original, updated)

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.With:
        # LibCST's leave_With gives back the node it is given.
        updated_node = cast(cst.With, super().leave_With(original_node, updated_node))
        removals = self._removals(original_node)
        if not removals or len(removals) == len(original_node.items):
            return updated_node  # (a `with` losing every item is unwrapped by its block)
        items = list(updated_node.items)
        for index, record in reversed(removals):
            record()
            items = without_element(items, index)
        return updated_node.with_changes(items=items)


def _unwrapped(updated: cst.With) -> Edit:
    """A `with` none of whose items is left: its body takes its place, and its comments."""
    statements = block_statements(updated.body)
    if not statements:
        return Edit(carry=detached_lines(updated.leading_lines))
    leading = merge_lines(list(updated.leading_lines), list(leading_lines(statements[0])))
    statements[0] = statements[0].with_changes(leading_lines=leading)
    return Edit(statements=statements, carry=block_footer(updated.body))
