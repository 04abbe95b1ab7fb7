"""The scanner's handlers of writes: assignments, deletions, loops, the environment."""

from __future__ import annotations

import ast

from prune_flags.semantic.bindings import body_bindings, local_names, parameter_names
from prune_flags.semantic.facts import Write
from prune_flags.semantic.scan_state import KEY_LOOKUPS, ScanState
from prune_flags.syntax.expressions import literal
from prune_flags.syntax.templates import template_read
from prune_flags.syntax.values import UNKNOWN
from prune_flags.vocabulary import WriteKind


class Writes(ScanState):
    def _write(
        self, target: ast.expr, kind: WriteKind | None, value: object, node: ast.AST
    ) -> None:
        """A store of `target`; `kind` None for an assignment, whose target tells its kind."""
        if isinstance(target, (ast.Subscript, ast.Attribute)) and self.accessors:
            self._template_write(target, kind, node)
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._write(element, WriteKind.UNPACK, UNKNOWN, node)
        elif isinstance(target, ast.Starred):
            self._write(target.value, WriteKind.UNPACK, UNKNOWN, node)
        elif isinstance(target, ast.Attribute):
            if target.attr in self.names and not self._elsewhere(target.value):
                owner = self._receiver_class(target.value)
                carried = (
                    self._carried(node.value, target.attr)
                    if isinstance(node, (ast.Assign, ast.AnnAssign))
                    else ""
                )
                computed = "" if carried else self._computed_from(node, target.attr)
                kind = WriteKind.ATTRIBUTE if kind is None else kind
                write = Write(
                    self._site(node),
                    kind,
                    value,
                    owner,
                    carried_from=carried or computed,
                    parameters=self._parameters_read(
                        node, besides=target.attr if computed else "", own=target.attr
                    ),
                    copies=self._copies(node, target.attr),
                    takes_keyword=self._takes_keyword(node, target.attr),
                )
                self._of(target.attr).writes.append(write)
            self.visit(target.value)
        elif isinstance(target, ast.Name) and target.id in self.names:
            scope = self._scopes[-1] if self._scopes else "module"
            if scope == "function" and target.id in self._globals[-1]:
                scope = "global"
            member = scope == "class" and self._classes[-1] in self.member_classes
            if scope != "function" and not member:  # (a member's definition is not the flag's)
                owner = self._classes[-1] if scope == "class" and self._classes else ""
                kind = WriteKind(scope) if kind is None else kind
                write = Write(
                    self._site(node), kind, value, owner, parameters=self._parameters_read(node)
                )
                self._of(target.id).writes.append(write)
        else:
            self.visit(target)

    def _template_write(
        self, target: ast.Subscript | ast.Attribute, kind: WriteKind | None, node: ast.AST
    ) -> None:
        """A store through an accessor template (`options["x"] = v`, `config.x.value = v`, `del`,
        `+=`): a write of kind "template", which no pass removes, so that one of another value is a
        conflict (the reads after it would no longer see it)."""
        read = template_read(self.accessors, target, self.flag_names)
        if read is not None and read[0] in self.names:
            value = (
                literal(node.value)
                if kind is None and isinstance(node, (ast.Assign, ast.AnnAssign))
                else UNKNOWN
            )
            self._of(read[0]).writes.append(Write(self._site(node), WriteKind.TEMPLATE, value))

    def _from_parameter(self, node: ast.AST | None, besides: str = "") -> bool:
        """Whether a value (or an assignment's) carries what a caller passes: it reads a parameter
        of an enclosing function (not the method's `self` or `cls`) as a value. A parameter read
        only as a receiver (`features.get("use_v2")`, `options.fast`, `config["x"]`) is a source
        the flag is computed from, as an environment variable is, unless it is `*args` or
        `**kwargs`, which may hold the flag's own keyword."""
        return bool(self._parameters_read(node, besides))

    def _parameters_read(
        self, node: ast.AST | None, besides: str = "", own: str = ""
    ) -> tuple[tuple[str, str], ...]:
        """The parameters a value carries (see _from_parameter), each with the function whose own
        parameter it is, qualified as Write.scope is ("" for `*args`/`**kwargs`, or a name the
        function binds again). `**kwargs` looked up by the flag's `own` name
        (`self.fast = options.pop("fast", False)`) is a source too: the flag's keyword is taken
        there, and a caller passing it is a keyword of a function without the flag's parameter."""
        value = (
            node.value
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            else node if isinstance(node, ast.expr) else None
        )
        functions = [
            scope
            for scope in self._scope_nodes
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        ]
        if value is None or not functions:
            return ()
        receiver = self._methods[-1] if self._methods else ""
        parameters: set[str] = set()
        packed: set[str] = set()
        for function in functions:
            parameters.update(parameter_names(function))
            packed.update(
                argument.arg
                for argument in (function.args.vararg, function.args.kwarg)
                if argument is not None
            )
        parameters -= {receiver, besides}
        receivers = {
            id(inner.value)
            for inner in ast.walk(value)
            if isinstance(inner, (ast.Attribute, ast.Subscript))
        }
        own_lookups = {id(receiver) for receiver in _own_lookups(value, own)} if own else set()
        read = {
            inner.id
            for inner in ast.walk(value)
            if isinstance(inner, ast.Name)
            and inner.id in parameters
            and (inner.id in packed or id(inner) not in receivers)
            and id(inner) not in own_lookups
        }
        return tuple(
            ("" if name in packed else self._owning_function(name), name) for name in sorted(read)
        )

    def _takes_keyword(self, node: ast.AST, name: str) -> bool:
        """Whether an assignment in an `__init__` looks `name` up in the method's own `**kwargs`
        (`self.fast = options.pop("fast", False)`)."""
        function = next(
            (s for s in reversed(self._scope_nodes) if isinstance(s, ast.FunctionDef)), None
        )
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if function is None or function.name != "__init__" or value is None:
            return False
        kwarg = function.args.kwarg
        return kwarg is not None and any(
            isinstance(receiver, ast.Name) and receiver.id == kwarg.arg
            for receiver in _own_lookups(value, name)
        )

    def _carried(self, value: ast.expr | None, name: str) -> str:
        """The enclosing function whose own parameter `name` the value is, qualified as Write.scope
        is, when the function never binds the name again (`helper(x, fast=fast)`); "" otherwise."""
        if not (isinstance(value, ast.Name) and value.id == name):
            return ""
        return self._owning_function(name)

    def _owning_function(self, name: str) -> str:
        """The enclosing function whose own parameter `name` is, qualified as Write.scope is,
        when the function never binds the name again; "" otherwise."""
        for scope in reversed(self._scope_nodes):
            if name not in local_names(scope):
                continue
            if isinstance(
                scope, (ast.FunctionDef, ast.AsyncFunctionDef)
            ) and name not in body_bindings(scope):
                return self._function_names.get(id(scope), "")
            return ""
        return ""

    def _computed_from(self, node: ast.AST, name: str) -> str:
        """The enclosing function whose own parameter `name` an assignment's value is computed
        from, when it reads no other parameter as a value (`self.legacy = detect() if legacy is
        None else legacy`): that parameter carries the flag as `self.legacy = legacy` would, and
        the rest is how the flag was defined. "" otherwise."""
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if value is None or not any(
            isinstance(inner, ast.Name) and inner.id == name for inner in ast.walk(value)
        ):
            return ""
        function = self._owning_function(name)
        return function if function and not self._from_parameter(node, besides=name) else ""

    def _copies(self, node: ast.AST, name: str) -> tuple[str, str] | None:
        """The function and parameter an assignment copies, when its value is a parameter of
        another name than the attribute's (`self._sort = sort`) that the function never binds
        again."""
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if not isinstance(value, ast.Name) or value.id == name:
            return None
        function = self._owning_function(value.id)
        return (function, value.id) if function else None

    def _receiver_class(self, receiver: ast.expr) -> str:
        """The class whose own attribute `receiver.name` is, when the receiver is the `self` or
        `cls` of a method of that class (its first parameter); "" for any other receiver."""
        if not (isinstance(receiver, ast.Name) and self._classes and self._methods):
            return ""
        return self._classes[-1] if receiver.id == self._methods[-1] else ""

    def visit_Assign(self, node: ast.Assign) -> None:
        self._table_places.add(id(node.value))
        if any(isinstance(t, ast.Name) and t.id in ("__all__", "__slots__") for t in node.targets):
            for inner in ast.walk(node.value):  # the names exported or slotted are read by name
                if (
                    isinstance(inner, ast.Constant)
                    and isinstance(inner.value, str)
                    and inner.value in self.names
                ):
                    self._of(inner.value).string_reads.append(self._site(inner))
            return
        self._environment_write(node)
        for target in node.targets:
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            self._write(target, None, self._value(node.value, name), node)
        if not self._defines_constant(node):
            self._defining_value(node.targets, node.value)

    def _defines_constant(self, node: ast.Assign) -> bool:
        """`FAST_KEY = "enable_fast"` at module level: a spelling of the flag, not a read of it
        (the uses of FAST_KEY are)."""
        target = node.targets[0]
        return (
            not self._scopes
            and len(node.targets) == 1
            and isinstance(target, ast.Name)
            and isinstance(node.value, ast.Constant)
            and self.constants.get(target.id) == node.value.value
        )

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._table_places.add(id(node.value))
        name = (
            node.target.attr
            if isinstance(node.target, ast.Attribute)
            else getattr(node.target, "id", "")
        )
        self._write(node.target, None, self._value(node.value, name), node)
        self.visit(node.annotation)
        if node.value is not None:
            self._defining_value([node.target], node.value)

    def _defining_value(self, targets: list[ast.expr], value: ast.expr) -> None:
        """Visit the value a name is bound to. A module constant, class attribute or field
        spelling its own name in it (`ENABLE_X = os.environ.get("ENABLE_X", False)`,
        `self.use_v2 = features.get("use_v2")`) does not read itself: the string is how its
        value is computed, and goes with the definition."""
        own = (
            [t.id for t in targets if isinstance(t, ast.Name)]
            if self._scopes[-1:] in ([], ["class"])
            else []
        )
        own += [
            t.attr
            for t in targets
            if isinstance(t, ast.Attribute)
            and t.attr in self.names
            and not self._elsewhere(t.value)
        ]
        self._defining, outer = frozenset(own), self._defining
        self.visit(value)
        self._defining = outer

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._write(node.target, WriteKind.AUGMENTED, UNKNOWN, node)
        self.visit(node.value)

    def visit_Delete(self, node: ast.Delete) -> None:
        self._environment_write(node)
        for target in node.targets:
            self._write(target, WriteKind.DELETE, UNKNOWN, node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._write(node.target, WriteKind.UNPACK, UNKNOWN, node)
        for child in (node.iter, *node.body, *node.orelse):
            self.visit(child)

    visit_AsyncFor = visit_For


def _own_lookups(value: ast.expr, name: str) -> list[ast.expr]:
    """The receivers of lookups by `name` in a value: `options` of `options.get("fast", False)`,
    `options.pop("fast")`, `options["fast"]`."""
    found = []
    for inner in ast.walk(value):
        if (
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Attribute)
            and inner.func.attr in KEY_LOOKUPS
            and inner.args
            and literal(inner.args[0]) == name
        ):
            found.append(inner.func.value)
        elif isinstance(inner, ast.Subscript) and literal(inner.slice) == name:
            found.append(inner.value)
    return found
