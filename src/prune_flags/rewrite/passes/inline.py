"""Inline: every read of a flag becomes the constant it is fixed at."""

# Reads are `anything.flag` and, where the module defines or imports the flag by name, the bare name
# outside any scope that rebinds it. Stores, `del`, import names, keyword names and definitions are
# not reads and are left to the prune pass. A read that an attribute, call or subscript acts on
# (`FLAG.value`, `self.namer(d)`) stays: the name holds an object there, not the constant.

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst
from libcst.metadata import CodePosition, PositionProvider

from prune_flags.config import Flag
from prune_flags.rewrite.constants import constant_node, constant_value
from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.editors.expressions import ExpressionEditor
from prune_flags.rewrite.purity import dotted_name
from prune_flags.rewrite.scopes import (
    Carried,
    bound_names,
    elsewhere,
    first_binding,
    flag_bindings,
    flag_locals,
    flag_parameters,
    linked_flags,
    scope_name,
)
from prune_flags.syntax.values import MUTABLE_TYPES, UNKNOWN, same_value
from prune_flags.vocabulary import Action


class InlineFlags(ExpressionEditor):
    def __init__(self, context: RewriteContext) -> None:
        super().__init__(context)
        self._not_reads: set[int] = set()  # ids of original Name/Attribute nodes that are not reads
        self._module_flags: dict[str, str] = (
            {}
        )  # local name -> flag, for flags bound at module level
        self._bound: dict[int, frozenset[str]] = {}  # names each enclosing function binds, by id
        self._carried: dict[int, dict[str, Carried]] = (
            {}
        )  # locals that only carry a flag, by function id
        self._parameters: dict[int, frozenset[str]] = {}  # flag parameters, by function id
        self._rebindings: dict[tuple[int, str], tuple[CodePosition, bool] | None] = {}
        # Outside a template's shape, `Feature.x` is the member the template reads the flag as
        # (syntax.templates.Template.members), not the flag's value.
        self._members = frozenset().union(*(t.members for t in context.accessors))

    # -- what is not a read ---------------------------------------------------------------
    def _mark_store(self, target: cst.BaseExpression) -> None:
        self._not_reads.add(id(target))
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._mark_store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._mark_store(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._mark_store(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._mark_store(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mark_store(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._mark_store(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._mark_store(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._mark_store(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._mark_store(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._mark_store(node.name)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._not_reads.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_reads.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self._not_reads.add(id(node.name))

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Global(self, node: cst.Global) -> bool:
        return False

    def visit_Nonlocal(self, node: cst.Nonlocal) -> bool:
        return False

    # -- scopes ---------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._module_flags = flag_bindings(node, self.context.flags)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._not_reads.add(id(node.name))

    def lookup_read(self, node: cst.BaseExpression) -> Carried | None:
        """The flag a lookup by name reads and its constant (passes.lookups overrides it)."""
        return None

    def _flag_named(self, name: str, read: cst.Name) -> str | None:
        """The flag a bare name reads here, where it holds the flag's own value (see
        _carried_read)."""
        found = self._carried_read(name, read)
        if found is None:
            return None
        flag = self.context.flags[found[0]]
        return (
            flag.name
            if found[1] is None or same_value(constant_value(found[1]), flag.value)
            else None
        )

    def _carried_read(
        self, name: str, read: cst.Name
    ) -> tuple[str, cst.BaseExpression | None] | None:
        """The flag a bare name reads here, and the constant it holds when not the flag's own
        value: a parameter that is the flag (it defaults to the flag's value, or a chain of calls
        links it to the flag; if the body rebinds it, only up to there), a local that carries a
        flag's read of any kind (scopes.flag_locals), else a module-level flag not rebound by an
        enclosing scope."""
        for depth in reversed(range(len(self.scopes))):
            scope = self.scopes[depth]
            if isinstance(scope, cst.ClassDef):
                continue
            key = id(scope)
            if key not in self._parameters:
                linked = linked_flags(self.context.flag_functions, self.scopes[: depth + 1])
                self._parameters[key] = flag_parameters(scope, self.context.flags, linked)
                self._carried[key] = (
                    {}
                )  # (an accessor template's read of a bare name asks meanwhile)
                self._carried[key] = flag_locals(
                    scope,
                    self.context.flags,
                    self._module_flags,
                    self._parameters[key],
                    self.lookup_read,
                    self.context.outside,
                )
            local = self.context.local_flags  # (most files have none: no scope name to make)
            if local and name in local.get(scope_name(self.scopes[: depth + 1]), ()):
                return name, None  # (only assignments bind it: scoping checked)
            if name in self._parameters[key]:
                return (name, None) if self._before_rebinding(scope, name, read) else None
            if name in self._carried[key]:
                return self._carried[key][name]
            if name not in self._module_flags:
                # only a module flag can be shadowed: no need to learn what the scope binds
                continue
            if key not in self._bound:
                self._bound[key] = bound_names(scope)
            if name in self._bound[key]:
                return None
        return None if name not in self._module_flags else (self._module_flags[name], None)

    def _before_rebinding(self, function: cst.CSTNode, name: str, read: cst.Name) -> bool:
        """Whether a read of a flag parameter comes before the body first binds the name again
        (a binding inside a loop could run before any read: then no read is the flag)."""
        key = (id(function), name)
        if key not in self._rebindings:
            binding = first_binding(function, name)
            self._rebindings[key] = (
                None
                if binding is None
                else (self.get_metadata(PositionProvider, binding[0]).start, binding[1])
            )
        rebinding = self._rebindings[key]
        if rebinding is None:
            return True
        start, in_loop = rebinding
        position = self.get_metadata(PositionProvider, read).start
        return not in_loop and (position.line, position.column) < (start.line, start.column)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._not_reads.add(id(node.name))

    # -- the reads ------------------------------------------------------------------------
    def _flag_read(
        self, original: cst.BaseExpression
    ) -> tuple[str, cst.BaseExpression | None] | None:
        """The flag an attribute or bare name reads, and the constant it holds when not the
        flag's own value (see _carried_read)."""
        if id(original) in self._not_reads:
            return None
        if isinstance(original, cst.Name):
            return self._carried_read(original.value, original)
        if not isinstance(original, cst.Attribute):
            return None
        flag = self.context.attribute_flag(original.attr.value)
        if (
            flag is None
            or elsewhere(original.value, self.context.outside)
            or dotted_name(original.value) in self._members
        ):
            return None
        return flag.name, None

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        found = self._flag_read(original_node)
        return updated_node if found is None else self._inline(original_node, updated_node, *found)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        found = self._flag_read(original_node)
        return updated_node if found is None else self._inline(original_node, updated_node, *found)

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.BaseExpression:
        """`LIMITS["line"]`, `PAIR[0]`: an item of a flag's value at a constant index is that
        item (the flag itself, a receiver, stays where the index is not known)."""
        result = super().leave_Subscript(original_node, updated_node)
        if result is not updated_node:
            return result
        if len(updated_node.slice) != 1 or not isinstance(updated_node.slice[0].slice, cst.Index):
            return updated_node
        index = constant_value(updated_node.slice[0].slice.value)
        return self._item(
            original_node, updated_node, original_node.value, lambda value: value[index], index
        )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        """`OPTIONS.get("mode", "x")`: a dict flag's entry, or the default, at constant keys."""
        result = super().leave_Call(original_node, updated_node)
        if result is not updated_node:
            return result
        func = original_node.func
        if (
            not isinstance(func, cst.Attribute)
            or func.attr.value != "get"
            or not 1 <= len(updated_node.args) <= 2
            or any(arg.keyword or arg.star for arg in updated_node.args)
        ):
            return updated_node
        arguments = [constant_value(arg.value) for arg in updated_node.args]
        return self._item(
            original_node,
            updated_node,
            func.value,
            lambda value: value.get(*arguments) if isinstance(value, dict) else UNKNOWN,
            *arguments,
        )

    def _item(
        self,
        original: cst.BaseExpression,
        updated: cst.BaseExpression,
        receiver: cst.BaseExpression,
        take: Callable[[Any], object],
        *operands: object,
    ) -> cst.BaseExpression:
        """`take(value)` of the flag `receiver` reads, as a constant in `original`'s place."""
        found = self._flag_read(receiver)
        if found is None or any(operand is UNKNOWN for operand in operands):
            return updated
        flag = self.context.flags[found[0]]
        value = constant_value(found[1]) if found[1] is not None else flag.value
        try:
            item = take(value)
        except (KeyError, IndexError, TypeError):
            return updated  # it raises at run time too: left to do so
        fitted = (
            None
            if item is UNKNOWN or isinstance(item, MUTABLE_TYPES)
            else self.fitted(original, constant_node(item))
        )
        if fitted is None:
            return updated
        shown = cst.Module([]).code_for_node(original)
        self._note_inlined(receiver, flag, f"{flag.source}, so {shown} is {item!r}")
        return fitted

    def _inline(
        self,
        original: cst.BaseExpression,
        updated: cst.Attribute | cst.Name,
        flag_name: str,
        constant: cst.BaseExpression | None = None,
    ) -> cst.BaseExpression:
        flag = self.context.flags[flag_name]
        constant = (
            constant_node(flag.value) if constant is None else constant.deep_clone()
        )  # (one node per place)
        if updated.lpar:  # keep the reader's own parentheses; a tuple brings its own otherwise
            constant = constant.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        fitted = None if self.is_receiver(original) else self.fitted(original, constant)
        if fitted is None:
            return updated
        self._note_inlined(original, flag, flag.source)
        return fitted

    def _note_inlined(self, read: cst.BaseExpression, flag: Flag, value: str) -> None:
        """A read of the flag at `read` made a constant: for the later passes, and the report."""
        start = self.get_metadata(PositionProvider, read).start
        self.context.inlined.append((start.line, start.column, flag.name))
        self.context.record(
            start.line, Action.INLINED, f"{flag.name} is fixed at {value}", flag.name
        )
