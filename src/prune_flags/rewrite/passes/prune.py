"""Prune: writes of names nothing reads any more, and asserts about them.

A write goes whole when its right-hand side has no side effect; otherwise the
right-hand side stays as an expression statement, and the report says so.
Which names are dead is decided repository-wide by the index; this pass only
applies that decision to one file.
"""

from __future__ import annotations

from typing import cast

import libcst as cst
from libcst.metadata import PositionProvider

from prune_flags.config import Flag
from prune_flags.report import overrode
from prune_flags.rewrite.constants import constant_value
from prune_flags.rewrite.context import Death
from prune_flags.rewrite.editors.lines import detached_lines
from prune_flags.rewrite.editors.shapes import Decorated, is_empty, without_decorators
from prune_flags.rewrite.editors.statements import Edit
from prune_flags.rewrite.passes.lookups import FlagNaming, cst_unfold
from prune_flags.rewrite.passes.withs import Record, WithItemEditor
from prune_flags.rewrite.purity import consuming_calls, is_pure
from prune_flags.rewrite.scopes import elsewhere, scope_name
from prune_flags.syntax.values import PURE_BUILTINS, same_value
from prune_flags.vocabulary import Action


def _overrode(flag: Flag, value: cst.BaseExpression) -> str:
    """The reason of a removed write that gave a flag another value than the configured one."""
    return overrode(flag.name, cst.Module(body=[]).code_for_node(value), flag.source)


def _calls(node: cst.CSTNode) -> list[str]:
    """The calls a value makes that may have effects, outermost first, each as `callee(...)`."""
    if is_pure(node):
        return []
    if isinstance(node, cst.Call) and not (
        isinstance(node.func, cst.Name) and node.func.value in PURE_BUILTINS
    ):
        return [f"{cst.Module(body=[]).code_for_node(node.func)}(...)"]
    return list(dict.fromkeys(call for child in node.children for call in _calls(child)))


def _kept_calls(kept: list[cst.BaseExpression]) -> str:
    """What a removed definition left as statements (purity.consuming_calls)."""
    shown = ", ".join(cst.Module(body=[]).code_for_node(call) for call in kept)
    return f"kept {shown} as a statement: it takes something out of what it acts on"


class PruneDeadWrites(FlagNaming, WithItemEditor):
    def edit_statement(
        self, original: cst.BaseStatement, updated: cst.BaseStatement
    ) -> Edit | None:
        """A function, method or class with no caller left goes whole: decorators, docstring,
        the comments attached above it."""
        if isinstance(updated, (cst.FunctionDef, cst.ClassDef)):
            name = updated.name.value
            death = self._dead_member(name) if self.in_class_body else None
            if self.at_module_level:
                death = self.context.dead_globals.get(name)
            if death is not None:
                what, action = (
                    ("class", Action.REMOVED_CLASS)
                    if isinstance(updated, cst.ClassDef)
                    else (
                        ("method", Action.REMOVED_METHOD)
                        if self.in_class_body
                        else ("function", Action.REMOVED_FUNCTION)
                    )
                )
                self.record(
                    original,
                    action,
                    f"{what} {name} has no caller left: {death.reason}",
                    death.flag,
                )
                return Edit(carry=detached_lines(updated.leading_lines))
            if (
                isinstance(updated, cst.FunctionDef)
                and is_empty(updated.body)
                and not is_empty(cast(cst.FunctionDef, original).body)  # the function's original
            ):
                flag = self.context.flag_changed_within(
                    self.get_metadata(PositionProvider, original)
                )
                if self.in_class_body and self.dotted(name) in self.context.droppable_hooks:
                    reason = (
                        f"{name}'s body folded away, and no base class defines it:"
                        " nothing is left to run or override"
                    )
                    self.record(original, Action.REMOVED_METHOD, reason, flag)
                    return Edit(carry=detached_lines(updated.leading_lines))
                reason = (
                    f"{name}'s body folded away; it stays (with `pass`) while something may call it"
                )
                self.record(original, Action.EMPTIED_FUNCTION, reason, flag)
        return super().edit_statement(original, updated)

    def edit_small_statement(
        self, original: cst.BaseSmallStatement, updated: cst.BaseSmallStatement
    ) -> list[cst.BaseSmallStatement] | None:
        if isinstance(updated, cst.Assert):
            # An assert on a flag was inlined to a constant: fold decides (`assert False` stays).
            if self.line_of(original) in self.context.removable_asserts and self._dead_subjects(
                updated.test
            ):
                death = self._death(updated.test)
                self.record(
                    original,
                    Action.REMOVED_ASSERT,
                    f"it only checks {death[0]}, which has no reader left",
                    death[1].flag,
                )
                return []
            return super().edit_small_statement(original, updated)
        if isinstance(updated, cst.Assign):
            line = self.line_of(original)
            dead = [t for t in updated.targets if self._target_death(t.target, line)]
            if not dead:
                return super().edit_small_statement(original, updated)
            if len(dead) < len(updated.targets):
                live = [t for t in updated.targets if not self._target_death(t.target, line)]
                self._record_write(original, dead[0].target, kept_value=False, value=updated.value)
                return [updated.with_changes(targets=live)]
            return self._remove_write(original, dead[0].target, updated.value)
        if isinstance(updated, (cst.AnnAssign, cst.AugAssign)) and self._target_death(
            updated.target, self.line_of(original)
        ):
            return self._remove_write(original, updated.target, updated.value)
        if isinstance(updated, cst.Del):
            return self._prune_del(original, updated)
        if isinstance(updated, cst.Expr) and isinstance(updated.value, cst.Call):
            setter = self._flag_setter(updated.value)
            if setter is not None:
                self._record_setter(
                    original, *setter, "registration" if self.at_module_level else "statement"
                )
                return []
        return super().edit_small_statement(original, updated)

    def _record_setter(
        self, original: cst.CSTNode, flag: Flag, value: cst.BaseExpression | None, how: str
    ) -> None:
        """The change of a setter call that goes, standing as a "statement", a "registration" (a
        statement at module level: `config.define_bool_state(name="use_x", default=False)`, the
        flag's definition, which goes whatever it holds) or a "setter" (a `with` item or a
        decorator): of the configured value, or of none (a bare registration), a removed write or
        setter; of another, an override."""
        death = self.context.dead_names[flag.name]
        registers = how == "registration"
        if value is not None and not same_value(constant_value(value), flag.value):
            reason = _overrode(flag, value) + (
                "; it registered the flag, whose definition goes" if registers else ""
            )
            self.record(original, Action.OVERRIDDEN, reason, death.flag)
        elif registers:
            reason = (
                f"it registered {flag.name}, whose definition goes; the config fixes"
                f" it at {flag.source}"
            )
            self.record(original, Action.REMOVED_WRITE, reason, death.flag)
        else:
            action = Action.REMOVED_SETTER if how == "setter" else Action.REMOVED_WRITE
            self.record(
                original,
                action,
                f"it sets {flag.name} to the value it is fixed at, {flag.source}",
                death.flag,
            )

    def with_item_removal(self, original: cst.With, index: int) -> Record | None:
        """A setter of a flag with no reader left as a `with` item binding nothing
        (`with config.use_x(True):`): it goes, the `with` unwrapped when nothing else is left."""
        item = original.items[index]
        setter = (
            self._flag_setter(item.item)
            if isinstance(item.item, cst.Call) and item.asname is None
            else None
        )
        if setter is None:
            return super().with_item_removal(original, index)
        return lambda: self._record_setter(item, *setter, "setter")

    def _without_setters(self, original: Decorated, updated: Decorated) -> Decorated:
        """A function or class without its decorators that set a flag with no reader left
        (`@config.use_x(True)`, `@override_settings(USE_X=True)`); those a test's plan removes are
        the tests pass's."""
        edits = self.context.tests
        kept = []
        for before, decorator in zip(original.decorators, updated.decorators):
            planned = edits is not None and ("decorator", self.line_of(before)) in edits.removals
            setter = (
                self._flag_setter(decorator.decorator)
                if isinstance(decorator.decorator, cst.Call) and not planned
                else None
            )
            if setter is None:
                kept.append(decorator)
            else:
                self._record_setter(before, *setter, "setter")
        return without_decorators(updated, kept)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        # Every pass's leave_FunctionDef gives back a function, LibCST's the one it is given.
        updated_node = cast(cst.FunctionDef, super().leave_FunctionDef(original_node, updated_node))
        return self._without_setters(original_node, updated_node)

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        # Every pass's leave_ClassDef gives back a class, LibCST's the one it is given.
        updated_node = cast(cst.ClassDef, super().leave_ClassDef(original_node, updated_node))
        return self._without_setters(original_node, updated_node)

    def _flag_setter(self, call: cst.Call) -> tuple[Flag, cst.BaseExpression | None] | None:
        """`setattr(obj, "flag", value)` or a call of a writer template writing a flag that has no
        reader left, with the value it writes (None: a registration giving none): the fixed one
        goes, and so does another (the engine let the flag through: the config is the decision,
        unless strict refused it)."""
        func = call.func
        value: cst.BaseExpression | None
        if isinstance(func, cst.Name) and func.value == "setattr" and len(call.args) == 3:
            name, value = constant_value(call.args[1].value), call.args[2].value
            flag = self.context.attribute_flag(name)
            if flag is not None and self._elsewhere(call.args[0].value):
                flag = None
        else:
            written = next(
                (
                    w
                    for template in self.context.writers
                    if (w := template.written(call, cst_unfold))
                ),
                None,
            )
            if written is None:
                return None
            if written.named is not None:
                # "enable_fast", or FAST_KEY holding it (matched with cst_unfold: LibCST nodes)
                flag = self.named_flag(cast(cst.BaseExpression, written.named))
            else:
                flag = self.context.attribute_flag(written.identifier)
            value = cast("cst.BaseExpression | None", written.value)
        if flag is None or flag.name not in self.context.dead_names:
            return None
        return flag, value

    def _prune_del(
        self, original: cst.BaseSmallStatement, updated: cst.Del
    ) -> list[cst.BaseSmallStatement] | None:
        """`del self.dead` goes; `del self.live, self.dead` keeps its live targets."""
        targets = (
            [e.value for e in updated.target.elements]
            if isinstance(updated.target, cst.Tuple)
            else [updated.target]
        )
        dead = [target for target in targets if self._target_death(target)]
        if not dead:
            return None
        for target in dead:
            self._record_write(original, target, kept_value=False)
        if len(dead) == len(targets):
            return []
        assert isinstance(updated.target, cst.Tuple)
        live = [e for e in updated.target.elements if not self._target_death(e.value)]
        if len(live) == 1:  # `del a,` would still be a tuple: say `del a`
            return [updated.with_changes(target=live[0].value)]
        live[-1] = live[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return [updated.with_changes(target=updated.target.with_changes(elements=live))]

    def _elsewhere(self, receiver: cst.BaseExpression) -> bool:
        """Whether an attribute of the receiver is another library's, never the repository's."""
        return elsewhere(receiver, self.context.outside)

    def _dead_member(self, name: str) -> Death | None:
        """Why an attribute or class member of the name may go: its name has no reader left. A
        flag that is a function's parameter is only its bare name: a field of the name is another
        variable, whose reads the flag's facts leave out."""
        return None if name in self.context.parameters else self.context.dead_names.get(name)

    def _target_death(self, target: cst.BaseExpression, line: int | None = None) -> Death | None:
        """Why a write's target may go: its name has no reader left, or (at `line` of the original
        text) the write is one the config overrides."""
        if isinstance(target, cst.Attribute):
            if self._elsewhere(target.value):
                return None  # another library's attribute of the name
            name = target.attr.value
            if line is not None and self.context.overridden_writes.get(line) == name:
                return Death(name, "the config fixes it")
            return self._dead_member(name)
        if isinstance(target, cst.Name):
            if self.in_class_body:
                if self._in_member_class():
                    return None  # an enum's member, which a template reads the flag as
                return self._dead_member(target.value)
            if self.at_module_level:
                return self.context.dead_globals.get(target.value)
            return self.context.dead_locals.get((scope_name(self.scopes), target.value))
        return None

    def _remove_write(
        self,
        original: cst.BaseSmallStatement,
        target: cst.BaseExpression,
        value: cst.BaseExpression | None,
    ) -> list[cst.BaseSmallStatement] | None:
        # A flag's own definition goes whole, whatever computes its value (`os.environ.get(...)`,
        # `registry.bool_flag(...)`): those side effects were the flag's. What it takes out of
        # something else (`options.pop("fast", False)`) stays: the program still needs that.
        definition = self._flag_written(target) is not None
        keep_value = value is not None and not is_pure(value) and not definition
        if keep_value and self.at_module_level and isinstance(target, cst.Name):
            # `logger = logging.getLogger(...)` is set-up, not a value to strip down to its call
            return None
        kept = consuming_calls(value) if definition and value is not None else []
        self._record_write(original, target, kept_value=keep_value, value=value, kept=kept)
        if keep_value:
            assert value is not None
            return [cst.Expr(value=value)]
        return [cst.Expr(value=call) for call in kept]

    def _record_write(
        self,
        original: cst.CSTNode,
        target: cst.BaseExpression,
        kept_value: bool,
        value: cst.BaseExpression | None = None,
        kept: list[cst.BaseExpression] | None = None,
    ) -> None:
        name = (
            target.attr.value
            if isinstance(target, cst.Attribute)
            else cst.ensure_type(target, cst.Name).value
        )
        death = self._target_death(target, self.line_of(original))
        assert death is not None
        flag = self._flag_written(target)
        if (
            flag is not None
            and value is not None
            and not same_value(constant_value(value), flag.value)
        ):
            reason = _overrode(flag, value)
            if kept_value:
                reason += "; the right-hand side may have side effects, so it stays as a statement"
            elif kept:
                reason += f"; {_kept_calls(kept)}"
            elif dropped := _calls(value):
                reason += f"; dropped with the definition: {', '.join(dropped)}"
            self.record(original, Action.OVERRIDDEN, reason, death.flag)
            return
        reason = f"{name} has no reader left: {death.reason}"
        if kept_value:
            reason += "; the right-hand side may have side effects, so it stays as a statement"
        elif kept:
            reason += f"; {_kept_calls(kept)}"
        self.record(
            original,
            Action.REMOVED_WRITE if not kept_value else Action.REMOVED_WRITE_KEPT_VALUE,
            reason,
            death.flag,
        )

    def _flag_written(self, target: cst.BaseExpression) -> Flag | None:
        """The flag a write's target is: an attribute of its name, or its name bound in a class
        body or at module level (a function's local only shares the name)."""
        if isinstance(target, cst.Attribute):
            flag = self.context.attribute_flag(target.attr.value)
            if flag is not None and self._elsewhere(target.value):
                return None
            return flag
        if isinstance(target, cst.Name) and (self.in_class_body or self.at_module_level):
            if self.in_class_body and self._in_member_class():
                return None  # an enum's member, which a template reads the flag as
            return self.context.flags.get(target.value)
        return None

    def _in_member_class(self) -> bool:
        """Whether the innermost scope is a class a template reads flags as members of (its
        attributes are the members: syntax.templates.Template.members)."""
        scope = self.scopes[-1]
        return isinstance(scope, cst.ClassDef) and any(
            member.rpartition(".")[2] == scope.name.value
            for template in self.context.accessors
            for member in template.members
        )

    def _dead_subjects(self, test: cst.BaseExpression) -> list[str]:
        names: list[str] = []

        class Collect(cst.CSTVisitor):
            def visit_Attribute(self, node: cst.Attribute) -> None:
                names.append(node.attr.value)

        test.visit(Collect())
        return list(dict.fromkeys(name for name in names if self._dead_member(name) is not None))

    def _death(self, test: cst.BaseExpression) -> tuple[str, Death]:
        """The dead names an assert checks, for its reason."""
        dead = self._dead_subjects(test)
        return ", ".join(dead), self.context.dead_names[dead[0]]
