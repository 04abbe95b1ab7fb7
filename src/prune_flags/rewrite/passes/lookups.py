"""Lookups by name: `getattr`/`hasattr` with the flag's name, environment variables, and the reads
the config declares in `accessors`; each becomes the flag's constant."""

# Lookups by name: `getattr`/`hasattr` with the flag's name, environment variables, and the reads
# the config declares in `accessors` (calls, attributes, subscripts, membership tests: see
# templates.Template). Each becomes the flag's constant; `{name} not in ...` against a template of
# `in` (or the reverse), its negation.
#
# `getattr(obj, "flag", d)` is the flag's value and `hasattr(obj, "flag")` is True: the attribute
# exists while the code runs with the flag fixed. An environment flag's value is a string, or None
# for unset: `os.environ.get("NAME")` and `os.getenv("NAME", d)` give it (or d when unset),
# `os.environ["NAME"]` gives it when set, and `"NAME" in os.environ` whether it is. A lookup that an
# attribute, call or subscript acts on stays, as a flag's read does (see inline), unless it is an
# environment variable's string (`os.environ.get("NAME", "").lower()`).

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.config import Flag
from prune_flags.rewrite.constants import (
    bool_node,
    builtin_result,
    constant_node,
    constant_value,
)
from prune_flags.rewrite.context import RewriteContext
from prune_flags.rewrite.editors.expressions import ExpressionEditor
from prune_flags.rewrite.editors.statements import BodyEditor
from prune_flags.rewrite.passes.simplify import string_method
from prune_flags.rewrite.purity import dotted_name, is_pure
from prune_flags.rewrite.scopes import Carried, elsewhere
from prune_flags.syntax.spellings import FlagNames
from prune_flags.syntax.values import UNKNOWN
from prune_flags.vocabulary import Action

_ENV_GETTERS = ("os.environ.get", "os.getenv", "environ.get", "getenv")
_ENVIRON = ("os.environ", "environ")
_ENVIRONMENT = "environment variable"


def cst_unfold(node: object) -> tuple:
    """A LibCST node as the template matcher sees it (templates.Unfold, as templates.ast_unfold)."""
    value = constant_value(node) if isinstance(node, cst.BaseExpression) else UNKNOWN
    if value is not UNKNOWN or isinstance(node, cst.Ellipsis):
        return ("constant", Ellipsis if isinstance(node, cst.Ellipsis) else value)
    if isinstance(node, cst.Name):
        return ("name", node.value)
    if isinstance(node, cst.Attribute):
        return ("attribute", node.value, node.attr.value)
    if isinstance(node, cst.Call):
        positional = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        keywords = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
        return ("call", node.func, positional, keywords, any(arg.star for arg in node.args))
    if isinstance(node, cst.Subscript):
        only = node.slice[0].slice if len(node.slice) == 1 else None
        index = only if isinstance(only, cst.Index) and not getattr(only, "star", None) else None
        return ("subscript", node.value, index.value if index is not None else None)
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        target = node.comparisons[0]
        operator = {cst.In: "in", cst.NotIn: "not in"}.get(type(target.operator), "")
        return ("compare", node.left, operator, target.comparator)
    return ("other",)


class FlagNaming(BodyEditor):
    """What names a flag in this module, for the passes that read (lookups) and write (prune)
    through accessor and writer calls: the one resolution, spellings.FlagNames."""

    def __init__(self, context: RewriteContext) -> None:
        super().__init__(context)
        self._flag_names = FlagNames({}, context.name_constants)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Module):  # (not visit_Module, which another pass ends)
            self._flag_names = self._module_names(node)
        return super().on_visit(node)

    def _module_names(self, node: cst.Module) -> FlagNames:
        # The names the module assigns: the string each holds, or None (as
        # spellings.module_strings).
        assigned: dict[str, str | None] = {}
        for statement in node.body:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
                    targets = (
                        [t.target for t in small.targets]
                        if isinstance(small, cst.Assign)
                        else [small.target]
                    )
                    value = constant_value(small.value)
                    assigned.update(
                        (t.value, value if isinstance(value, str) else None)
                        for t in targets
                        if isinstance(t, cst.Name)
                    )
        imported = _ImportedAliases()
        if self.context.name_constants:
            node.visit(imported)
        return FlagNames.of_module(assigned, imported.found, self.context.name_constants)

    def named_flag(self, node: cst.BaseExpression) -> Flag | None:
        """The flag an argument names: a string literal, or a constant holding one."""
        value: object
        if isinstance(node, cst.Name):
            value = self._flag_names.of(bare=node.value)
        elif isinstance(node, cst.Attribute):  # flag_names.EXPRESS_SHIPPING
            value = self._flag_names.of(attribute=node.attr.value)
        else:
            value = constant_value(node)
        return self.context.attribute_flag(value)


class _ImportedAliases(cst.CSTVisitor):
    """(name, alias) for each `from m import NAME as ALIAS`, at any depth."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        for alias in node.names if not isinstance(node.names, cst.ImportStar) else ():
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.found.append((alias.evaluated_name, alias.asname.name.value))


_Read = tuple[
    Flag, str, cst.BaseExpression
]  # the flag, how it is read, the constant the read gives


class InlineLookups(FlagNaming, ExpressionEditor):
    # Defined by inline.InlineFlags, beside which rewriter.Rewriter puts this pass.
    _not_reads: set[int]
    _flag_named: Callable[[str, cst.Name], str | None]

    def _replace(
        self, original: cst.BaseExpression, updated: cst.BaseExpression, read: _Read | None
    ) -> cst.BaseExpression:
        if read is None or not _operands_pure(updated, read[2]):
            return updated  # (`getattr(obj, "fast", compute())` runs compute(): the read stays)
        flag, how, node = read
        environment = how == _ENVIRONMENT
        fitted = (
            None if self.is_receiver(original) and not environment else self.fitted(original, node)
        )
        if fitted is None:
            return updated
        start = self.get_metadata(PositionProvider, original).start
        self.context.inlined.append((start.line, start.column, flag.name))
        self.context.record(
            start.line, Action.INLINED, f"{flag.name} is fixed at {flag.source} ({how})", flag.name
        )
        return fitted

    def lookup_read(self, node: cst.BaseExpression) -> Carried | None:
        """The flag a lookup by name reads and the constant it gives, where that is a constant
        (`os.environ.get("NAME", compute())` for an unset variable is not): a local assigned from
        it carries the flag (passes.scopes.flag_locals)."""
        read = self._read(node)
        if read is None and isinstance(node, cst.Call):
            read = self._converted_read(node)
        if read is None or constant_value(read[2]) is UNKNOWN:
            return None
        return read[0].name, read[2]

    def _read(self, node: cst.BaseExpression) -> _Read | None:
        read: _Read | None = None
        if isinstance(node, cst.Call):
            read = self._call_read(node) or self._accessor_read(node)
        elif isinstance(node, cst.Subscript):
            read = self._environ_read(node) or self._accessor_read(node)
        elif isinstance(node, cst.Comparison):
            read = self._membership_read(node) or self._accessor_read(node)
        elif isinstance(node, cst.Attribute):
            read = self._accessor_read(node)
        return read if read is not None and _operands_pure(node, read[2]) else None

    def _converted_read(self, call: cst.Call) -> _Read | None:
        """A pure string method or builtin over a lookup (`os.environ.get("MODE", "").lower()`,
        `int(os.getenv("RETRIES", "3"))`): its result, where the simplifier would compute it (a
        conversion that raises, `int("many")`, is no constant)."""
        result: object = UNKNOWN
        read: _Read | None = None
        if isinstance(call.func, cst.Attribute):
            read = self._read(call.func.value)
            if read is not None:
                result = string_method(
                    call.with_changes(func=call.func.with_changes(value=read[2]))
                )
        elif len(call.args) == 1:
            read = self._read(call.args[0].value)
            if read is not None:
                result = builtin_result(
                    call.with_changes(args=[call.args[0].with_changes(value=read[2])])
                )
        if read is None or result is None or result is UNKNOWN:
            return None
        return read[0], read[1], constant_node(result)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        if result is not updated_node:
            return result
        read = self._call_read(updated_node) or self._accessor_read(original_node)
        return self._replace(original_node, updated_node, read)

    def _call_read(self, call: cst.Call) -> _Read | None:
        """`getattr`/`hasattr` with the flag's name, or an environment variable's getter."""
        func = dotted_name(call.func)
        args = call.args
        if any(arg.star or arg.keyword for arg in args):
            return None
        if func in ("getattr", "hasattr") and len(args) in ((2, 3) if func == "getattr" else (2,)):
            flag = self.named_flag(args[1].value)
            if (
                flag is not None
                and flag.name.isidentifier()
                and not elsewhere(args[0].value, self.context.outside)
            ):
                value = constant_node(flag.value) if func == "getattr" else bool_node(True)
                return flag, f"read through {func}", value
        if func in _ENV_GETTERS and len(args) in (1, 2):
            flag = self.named_flag(args[0].value)
            if flag is not None and (flag.value is None or isinstance(flag.value, str)):
                if flag.value is None:
                    value = args[1].value if len(args) == 2 else cst.Name("None")
                else:
                    value = constant_node(flag.value)
                return flag, _ENVIRONMENT, value
        return None

    def _accessor(
        self, original: cst.BaseExpression, updated: cst.BaseExpression
    ) -> cst.BaseExpression:
        return self._replace(original, updated, self._accessor_read(original))

    def _accessor_read(self, original: cst.BaseExpression) -> _Read | None:
        """A read through one of the config's accessor templates: the flag's constant."""
        if not self.context.accessors or id(original) in self._not_reads:
            return None  # (a store: `config.use_x.value = True`, `options["x"] = 1`)
        for template in self.context.accessors:
            found = template.match(original, cst_unfold)
            flag = (
                self._template_flag(found.identifier, found.named, found.node)
                if found is not None
                else None
            )
            if flag is not None:
                assert found is not None
                value = (
                    bool_node(bool(flag.value) != found.negated)
                    if found.membership
                    else constant_node(flag.value)
                )
                return flag, f"read through {template.text}", value
        return None

    def _template_flag(self, identifier: object, named: object, node: object) -> Flag | None:
        """The flag a template read names: an identifier (`config.use_x`, or a bare `USE_X` where
        it is the module's flag, as InlineFlags reads names), else a string or a constant."""
        if named is not None:
            return self.named_flag(cast(cst.BaseExpression, named))  # matched with cst_unfold
        if isinstance(node, cst.Name):
            identifier = self._flag_named(node.value, node)
            return self.context.flags.get(identifier) if isinstance(identifier, str) else None
        return self.context.attribute_flag(identifier)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        result = super().leave_Attribute(original_node, updated_node)
        return self._accessor(original_node, updated_node) if result is updated_node else result

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.BaseExpression:
        result = super().leave_Subscript(original_node, updated_node)
        if result is not updated_node:
            return result
        if dotted_name(updated_node.value) not in _ENVIRON or len(updated_node.slice) != 1:
            return self._accessor(original_node, updated_node)
        return self._replace(original_node, updated_node, self._environ_read(original_node))

    def _environ_read(self, subscript: cst.Subscript) -> _Read | None:
        """`os.environ["NAME"]`: the variable's string, where it is set."""
        if dotted_name(subscript.value) not in _ENVIRON or len(subscript.slice) != 1:
            return None
        index = subscript.slice[0].slice
        flag = self.named_flag(index.value) if isinstance(index, cst.Index) else None
        if flag is None or not isinstance(flag.value, str) or id(subscript) in self._not_reads:
            return None
        return flag, _ENVIRONMENT, constant_node(flag.value)

    def leave_Comparison(
        self, original_node: cst.Comparison, updated_node: cst.Comparison
    ) -> cst.BaseExpression:
        membership = self._membership_read(updated_node)
        if membership is not None:
            return self._replace(original_node, updated_node, membership)
        result = self._accessor(original_node, updated_node)
        if result is not updated_node:
            return result
        return super().leave_Comparison(original_node, updated_node)

    def _membership_read(self, comparison: cst.Comparison) -> _Read | None:
        """`"NAME" in os.environ`: whether the variable is set."""
        if len(comparison.comparisons) != 1:
            return None
        target = comparison.comparisons[0]
        if not (
            isinstance(target.operator, (cst.In, cst.NotIn))
            and dotted_name(target.comparator) in _ENVIRON
        ):
            return None
        flag = self.named_flag(comparison.left)
        if flag is None or not (flag.value is None or isinstance(flag.value, str)):
            return None
        is_set = flag.value is not None
        value = is_set if isinstance(target.operator, cst.In) else not is_set
        return flag, _ENVIRONMENT, bool_node(value)


def _operands_pure(node: cst.BaseExpression, result: cst.BaseExpression) -> bool:
    """Whether a lookup's arguments have no side effect that its `result` would drop: the object
    and the default of `getattr(obj, "x", d)`, the default of `os.environ.get("X", d)`, the further
    arguments of `features.has("x", ...)` (a default that is itself the result, an unset
    variable's, stays with its effects)."""
    if isinstance(node, cst.Call):
        return all(is_pure(arg.value) for arg in node.args if arg.value is not result)
    return True  # (a receiver is as the template declares it, or a plain chain)
