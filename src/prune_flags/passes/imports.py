"""Imports: remove the import names this run left without a reader.

The engine decides which names (only names that had readers before the run and
have none after it); this pass removes them from `import` and `from ... import`
statements anywhere in the module, and the statement when no name is left.
"""

from __future__ import annotations

import libcst as cst

from prune_flags.passes.body import BodyEditor
from prune_flags.passes.context import RewriteContext


def bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return cst.ensure_type(alias.asname.name, cst.Name).value
    node = alias.name
    while isinstance(node, cst.Attribute):  # `import a.b` binds `a`
        node = node.value
    return cst.ensure_type(node, cst.Name).value


class RemoveUnusedImports(BodyEditor):
    def __init__(self, context: RewriteContext, unused: frozenset[str]) -> None:
        super().__init__(context)
        self.unused = unused

    def edit_small_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement
    ) -> list[cst.BaseSmallStatement] | None:
        if not isinstance(updated, (cst.Import, cst.ImportFrom)) or isinstance(updated.names, cst.ImportStar):
            return None
        kept = [alias for alias in updated.names if bound_name(alias) not in self.unused]
        if len(kept) == len(updated.names):
            return None
        for alias in updated.names:
            if bound_name(alias) in self.unused:
                self.record(
                    original,
                    "removed-import",
                    f"{bound_name(alias)} has no use left in this module after the cleanup",
                    self.context.flag_near(self.line_of(original)),
                )
        if not kept:
            return []
        if isinstance(updated, cst.ImportFrom) and updated.lpar:
            return [updated.with_changes(names=kept)]  # a trailing comma is fine inside parentheses
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return [updated.with_changes(names=kept)]
