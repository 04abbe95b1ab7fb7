"""Option tables: once a flag goes, the strings that spell it go from the literals that list or set
it, in code and tests alike."""

# Option tables: once a flag goes (its command-line option, or its field, has no reader left), the
# strings that spell it go from the literals that list or set it, in code and tests alike:
#
# - its name in a table of names (`SCOPED_OPTIONS = {"use_x", "size"}`, `choices=["use-x", "old"]`:
#   a set, list or tuple of string literals only, none an option string) and as a dict key
#   (`{"use_x": parse_bool}`, `init(extra={"use_x": True})`), the entry's value with it when that
#   has no side effects; either only where a table stands: an assignment's value, a call's argument,
#   a dict's value (never `x == ["use_x"]`, nor a record `("use_x", bool)` in a list);
# - its option strings in argument lists (`"--use-x"`, `"--no-use-x"`, `"--section.use_x"`,
#   `"--size=3"`), with the words the option takes after them (`"--size", "3"`: see
#   options.option_arity), and a statement appending one (`args.append("--use-x")`).
#
# An option whose arity is not known (a wrapper, `nargs="?"`, a field with no option call) loses its
# string only where no word follows it that it could take: otherwise the argument list stays as it
# is. The index counts the same entries as table mentions (semantic.scan_reads.Reads._table), which
# keep no flag alive.

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import libcst as cst

from prune_flags.report import overrode
from prune_flags.rewrite.constants import constant_value
from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.editors.statements import BodyEditor
from prune_flags.rewrite.passes.params import without_element
from prune_flags.rewrite.purity import dotted_name, is_pure
from prune_flags.syntax.options import TYPE_DECLARATIONS, option_like, spells_option
from prune_flags.syntax.values import UNKNOWN, same_value
from prune_flags.vocabulary import Action

Element = TypeVar("Element", cst.BaseElement, cst.BaseDictElement)


class PruneOptionTables(BodyEditor):
    def __init__(self, context: RewriteContext) -> None:
        super().__init__(context)
        # The literals in the places of a table, by id: an assignment's value, a call's argument,
        # a dict's value.
        self._table_places: set[int] = set()
        self._gone: tuple[RewriteContext, dict[str, frozenset[str]]] | None = None

    def _gone_options(self) -> dict[str, frozenset[str]]:
        """context.gone_options, worked out once for each context (a scoped flag's class or
        function has its own, see BodyEditor._hide_foreign)."""
        if self._gone is None or self._gone[0] is not self.context:
            self._gone = (self.context, self.context.gone_options())
        return self._gone[1]

    def on_visit(self, node: cst.CSTNode) -> bool:
        # (not visit_Arg and the like, which other passes end)
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.DictElement)):
            self._table_places.add(id(node.value))
        elif (
            isinstance(node, cst.Call)
            and (dotted_name(node.func) or "").rsplit(".", 1)[-1] not in TYPE_DECLARATIONS
        ):
            self._table_places.update(id(arg.value) for arg in node.args if arg.star == "")
        return super().on_visit(node)

    def _named(self, value: object) -> str | None:
        """The gone flag a table's string names: its name, or one of its option strings."""
        if not isinstance(value, str):
            return None
        return next(
            (
                name
                for name, strings in self._gone_options().items()
                if spells_option(value, name, strings)
            ),
            None,
        )

    def _option(self, node: cst.BaseExpression) -> tuple[str, bool] | None:
        """The gone flag an argument list's word is the option string of, and whether the word holds
        its value too (`--size=3`)."""
        value = constant_value(node)
        if not option_like(value):
            return None
        assert isinstance(value, str)
        option, equals, _ = value.partition("=")
        name = self._named(option)
        return (name, bool(equals)) if name is not None else None

    def _arity(self, name: str) -> int | None:
        return self.context.option_arities.get(name) if name in self.context.option_flags else None

    def _taken(self, name: str, elements: Sequence[cst.BaseElement], index: int) -> int | None:
        """How many elements after `index` the option string there takes with it; None when the
        list cannot lose it (a word it may take, or one with side effects)."""
        following = [
            constant_value(e.value) if isinstance(e, cst.Element) else UNKNOWN
            for e in elements[index + 1 :]
        ]
        arity = self._arity(name)
        if not following or option_like(following[0]):
            return 0  # nothing it could take: a table of option names, or a switch
        if (
            arity is None
            or len(following) < arity
            or any(option_like(word) for word in following[:arity])
        ):
            return None
        words = elements[index + 1 : index + 1 + arity]
        return (
            arity if all(isinstance(e, cst.Element) and is_pure(e.value) for e in words) else None
        )

    def _record(self, original: cst.CSTNode, name: str, action: Action, reason: str) -> None:
        self.record(original, action, reason, self.context.dead_names[name].flag)

    def _prune_sequence(
        self,
        original: cst.CSTNode,
        elements: Sequence[cst.BaseElement],
        names_table: bool,
        ordered: bool,
    ) -> list[cst.BaseElement] | None:
        kept: list[cst.BaseElement] = []
        index = 0
        while index < len(elements):
            element = elements[index]
            value = element.value if isinstance(element, cst.Element) else None
            option = self._option(value) if value is not None else None
            name = (
                self._named(constant_value(value))
                if value is not None and names_table and option is None
                else None
            )
            if option is not None:
                name, whole = option
                taken = 0 if whole or not ordered else self._taken(name, elements, index)
                if taken is not None:
                    what = (
                        "its value"
                        if whole
                        else f"the {taken} word{'s' if taken > 1 else ''} it takes" if taken else ""
                    )
                    reason = f"it passes the option of {name}, which is gone" + (
                        f", with {what}" if what else ""
                    )
                    self._record(
                        original,
                        name,
                        (
                            Action.REMOVED_OPTION_ARGUMENT
                            if whole or taken
                            else Action.REMOVED_OPTION_NAME
                        ),
                        reason,
                    )
                    index += 1 + taken
                    continue
            elif name is not None:
                self._record(
                    original, name, Action.REMOVED_OPTION_NAME, f"it names {name}, which is gone"
                )
                index += 1
                continue
            kept.append(element)
            index += 1
        return _kept(elements, kept)

    def _in_table_place(self, node: cst.CSTNode) -> bool:
        """Whether a literal stands where a table does (as semantic.scan_reads.Reads._table has it):
        an assignment's value, a call's argument, a dict's value."""
        return id(node) in self._table_places

    def _leave_sequence(
        self, original: cst.List | cst.Set | cst.Tuple, updated: cst.List | cst.Set | cst.Tuple
    ) -> cst.BaseExpression:
        words = [
            constant_value(e.value) if isinstance(e, cst.Element) else UNKNOWN
            for e in original.elements
        ]
        # As semantic.scan_reads.Reads._table counts it: strings only, none an option string (an
        # argument list's words are no names: `["--mode", "use_x"]`), in a table's place.
        names_table = all(
            isinstance(w, str) and not option_like(w) for w in words
        ) and self._in_table_place(original)
        kept = self._prune_sequence(
            original, updated.elements, names_table, not isinstance(updated, cst.Set)
        )
        if kept is None:
            return updated
        if (
            isinstance(updated, cst.Tuple)
            and len(kept) == 1
            and kept[0].comma is cst.MaybeSentinel.DEFAULT
        ):
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
        """A dict entry naming a gone flag goes when its value has no side effects (the index counts
        only those: semantic.scan_reads.Reads._table); one that set it to another value is
        overridden.
        """
        if not self._in_table_place(original_node):
            return updated_node
        kept = []
        for element in updated_node.elements:
            name = (
                self._named(constant_value(element.key))
                if isinstance(element, cst.DictElement) and is_pure(element.value)
                else None
            )
            if name is None:
                kept.append(element)
                continue
            assert isinstance(element, cst.DictElement)
            flag, value = self.context.flags.get(name), constant_value(element.value)
            if flag is not None and value is not UNKNOWN and not same_value(value, flag.value):
                shown = cst.Module([]).code_for_node(element.value)
                self._record(
                    original_node,
                    name,
                    Action.OVERRIDDEN,
                    f"{overrode(name, shown, flag.source)}; the entry sets it",
                )
            else:
                self._record(
                    original_node,
                    name,
                    Action.REMOVED_OPTION_ENTRY,
                    f"the entry names {name}, which is gone",
                )
        pruned = _kept(updated_node.elements, kept)
        return updated_node if pruned is None else updated_node.with_changes(elements=pruned)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        """A keyword whose dict this pass emptied goes where the engine found an empty dict the
        same as none (`init(extra={})` -> `init()`: context.emptiable_keywords)."""
        result = super().leave_Call(original_node, updated_node)
        if not isinstance(result, cst.Call) or len(result.args) != len(original_node.args):
            return result
        callee = dotted_name(result.func) or ""
        args = list(result.args)
        for index in reversed(range(len(args))):
            before, arg = original_node.args[index], args[index]
            keyword = arg.keyword.value if arg.keyword is not None else ""
            emptied = (
                isinstance(before.value, cst.Dict)
                and before.value.elements
                and isinstance(arg.value, cst.Dict)
                and not arg.value.elements
            )
            if emptied and (callee.rsplit(".", 1)[-1], keyword) in self.context.emptiable_keywords:
                flag = self.context.flag_changed_near(self.line_of(before))
                reason = (
                    f"its dict lost its last entry with {flag}; {callee} takes an"
                    " empty one as it takes none"
                )
                self.record(before, Action.REMOVED_OPTION_KEYWORD, reason, flag)
                args = without_element(args, index)
        return result.with_changes(args=args) if len(args) < len(result.args) else result

    def edit_small_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement
    ) -> list[cst.BaseSmallStatement] | None:
        """`args.append("--use-x")` (or `"--size=3"`): the word it adds to an argument list goes
        with the option. An option that takes a word after it stays appended (the next statement may
        append that word)."""
        call = updated.value if isinstance(updated, cst.Expr) else None
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "append"
            and len(call.args) == 1
            and call.args[0].keyword is None
            and call.args[0].star == ""
            and (option := self._option(call.args[0].value)) is not None
            and (option[1] or self._arity(option[0]) == 0)
        ):
            name = option[0]
            self._record(
                original,
                name,
                Action.REMOVED_OPTION_ARGUMENT,
                f"it appends the option of {name}, which is gone",
            )
            return []
        return super().edit_small_statement(original, updated)


def _kept(elements: Sequence[Element], kept: list[Element]) -> list[Element] | None:
    """The elements left, the last one keeping the old last one's comma (a trailing comma and the
    line break before the closing bracket stay as they were); None when nothing went."""
    if len(kept) == len(elements):
        return None
    if kept and kept[-1] is not elements[-1]:
        kept[-1] = kept[-1].with_changes(comma=elements[-1].comma)
    return kept
