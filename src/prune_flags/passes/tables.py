"""Option tables: once a flag's command-line option is gone, the names that spell it
(`"--use-x"`, `"--section.use_x"`, `"use_x"`) go from list, tuple and set literals and
from dict keys, in code and tests alike (argument lists, option registries, defaults maps).
Only for flags that are switches (bool): an option that takes a value would leave its value
behind in an argument list.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

import libcst as cst

from prune_flags.constants import constant_value
from prune_flags.passes.body import BodyEditor
from prune_flags.shapes import spells_option

Element = TypeVar("Element", cst.BaseElement, cst.BaseDictElement)


class PruneOptionTables(BodyEditor):
    def _option_named(self, node: cst.BaseExpression) -> str | None:
        value = constant_value(node)
        if not isinstance(value, str):
            return None
        flags = self.context.option_flags
        return next((name for name, strings in flags.items() if spells_option(value, name, strings)), None)

    def _prune(self, original: cst.CSTNode, elements: Sequence[Element], key: str) -> list[Element] | None:
        kept = []
        for element in elements:
            name = self._option_named(getattr(element, key)) if hasattr(element, key) else None
            if name is None:
                kept.append(element)
                continue
            death = self.context.dead_names[name]
            self.record(original, "removed-option-name", f"it names the option of {name}, which is gone", death.flag)
        if len(kept) == len(elements):
            return None
        if kept and len(elements) and elements[-1].comma is cst.MaybeSentinel.DEFAULT:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return kept

    def _leave_sequence(self, original: cst.CSTNode, updated: cst.List | cst.Set | cst.Tuple) -> cst.BaseExpression:
        kept = self._prune(original, updated.elements, "value")
        if kept is None:
            return updated
        if isinstance(updated, cst.Tuple) and len(kept) == 1 and kept[0].comma is cst.MaybeSentinel.DEFAULT:
            kept[0] = kept[0].with_changes(comma=cst.Comma())  # still a tuple
        if isinstance(updated, cst.Set) and not kept:
            return updated  # `{}` would be a dict: leave an empty set alone
        return updated.with_changes(elements=kept)

    def leave_List(self, original_node: cst.List, updated_node: cst.List) -> cst.BaseExpression:
        return self._leave_sequence(original_node, updated_node)

    def leave_Tuple(self, original_node: cst.Tuple, updated_node: cst.Tuple) -> cst.BaseExpression:
        return self._leave_sequence(original_node, updated_node)

    def leave_Set(self, original_node: cst.Set, updated_node: cst.Set) -> cst.BaseExpression:
        return self._leave_sequence(original_node, updated_node)

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
        kept = self._prune(original_node, updated_node.elements, "key")
        return updated_node if kept is None else updated_node.with_changes(elements=kept)
