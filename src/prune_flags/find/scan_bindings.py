"""The scanner's handlers of bindings: assignments, fields, flag objects, loops, imports."""

from __future__ import annotations

import ast

from prune_flags.find.facts import FIELD, FLAG_OBJECT
from prune_flags.find.scan_state import ScanState
from prune_flags.find.syntax import field_default, is_field_call, plain_literal
from prune_flags.semantic.trees import MIRRORS
from prune_flags.syntax.values import UNKNOWN


class Bindings(ScanState):
    """Assignments and every other statement that binds a name."""

    def assign(self, node: ast.Assign) -> None:
        target = node.targets[0]
        if self.in_fields() and isinstance(target, ast.Name) and is_field_call(node.value):
            self.field(target.id, node.value, node.lineno)  # attrs: x = attr.ib(default=False)
        elif not (self.accessors and self.flag_object(node)):
            value = plain_literal(node.value)
            for target in node.targets:
                self.bind_target(target, value, node.lineno)
        self.visit(node.value)

    def flag_object(self, node: ast.Assign) -> bool:
        """`use_x = config.bool_state(name="app_use_x", default=False)` at module level: a flag
        object's definition at its literal `default=` (find proposes no other value; none without
        a literal default). Whether it is a flag is decided by the repository: read only through
        the accessors, by its identifier (see Candidates.object_holds). A string in the call
        that spells the name is its registration, no write of it."""
        target, call = node.targets[0], node.value
        if not (
            len(node.targets) == 1
            and isinstance(target, ast.Name)
            and isinstance(call, ast.Call)
            and self.scopes[-1].kind == "module"
        ):
            return False
        defaults = [keyword.value for keyword in call.keywords if keyword.arg == "default"]
        value = plain_literal(defaults[0]) if defaults else UNKNOWN
        if value is UNKNOWN:
            return False
        name = target.id
        self.stored.add(name)
        self.module_names.add(name)
        self.mentions.add(name)
        self.define(name, FLAG_OBJECT, value, node.lineno)
        for argument in (*call.args, *(keyword.value for keyword in call.keywords)):
            if isinstance(argument, ast.Constant) and argument.value == name:
                self.naming.add(id(argument))
        return True

    def in_fields(self) -> bool:
        return self.scopes[-1].kind == "class" and self.scopes[-1].has_fields

    def field(self, name: str, value: ast.expr | None, line: int) -> None:
        scope = self.scopes[-1]
        self.stored.add(name)
        default = field_default(value)
        # A field without a default is given its value by every constructor call.
        if default is UNKNOWN:
            self.disqualified.add(name)
        else:
            self.define(name, FIELD, default, line, owner=scope.name, position=scope.field_count)
        scope.field_count += 1

    def ann_assign(self, node: ast.AnnAssign) -> None:
        target = node.target
        if (
            self.in_fields()
            and isinstance(target, ast.Name)
            and "ClassVar" not in ast.dump(node.annotation)
        ):
            self.field(target.id, node.value, node.lineno)
        elif node.value is not None:  # a bare annotation binds nothing
            self.bind_target(target, plain_literal(node.value), node.lineno)
        self.visit_all([node.value])

    def rebind(self, node: ast.AugAssign | ast.Delete) -> None:
        for target in node.targets if isinstance(node, ast.Delete) else [node.target]:
            self.bind_target(target, UNKNOWN, node.lineno)
        if isinstance(node, ast.AugAssign):
            self.visit(node.value)

    def loop(self, node: ast.For | ast.AsyncFor) -> None:
        self.bind_target(node.target, UNKNOWN, node.lineno)
        self.visit_all([node.iter, *node.body, *node.orelse])

    def with_(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.bind_target(item.optional_vars, UNKNOWN, node.lineno)
        self.visit_all(node.body)

    def except_handler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bind_name(node.name, UNKNOWN, node.lineno)
        self.visit_all([node.type, *node.body])

    def named_expr(self, node: ast.NamedExpr) -> None:
        self.bind_name(node.target.id, plain_literal(node.value), node.lineno, self.binding_scope())
        self.visit(node.value)

    def match_capture(self, node: ast.MatchAs | ast.MatchStar | ast.MatchMapping) -> None:
        name = node.rest if isinstance(node, ast.MatchMapping) else node.name
        if name:
            self.bind_name(name, UNKNOWN, node.lineno)
        self.visit_all(ast.iter_child_nodes(node))

    def global_(self, node: ast.Global) -> None:
        self.scopes[-1].global_names.update(node.names)

    # -- imports ----------------------------------------------------------------------------
    def is_internal(self, module: str | None, level: int) -> bool:
        return level > 0 or (module or "").split(".")[0] in self.internal_modules

    def import_(self, node: ast.Import) -> None:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            self.bind_name(bound, UNKNOWN, node.lineno)
            if not self.is_internal(alias.name, 0):
                self.external.add(bound)

    def import_from(self, node: ast.ImportFrom) -> None:
        internal = self.is_internal(node.module, node.level)
        for alias in node.names:
            if alias.name == "*":
                continue
            bound = alias.asname or alias.name
            self.mentions.add(bound)
            if not internal and (node.module, alias.name) not in MIRRORS:
                self.external.add(bound)
            if bound != alias.name:
                self.value_refs.add(alias.name)  # called under another name from here on
            if bound == alias.name:
                self.imports.append((bound, internal))  # the same name: resolved when merging
                if self.scopes[-1].kind == "module":
                    self.stored.add(bound)
                    self.module_names.add(bound)
                elif self.scopes[-1].kind == "function":
                    self.local_bindings.add(bound)  # rebinds a parameter of that name
            else:
                self.bind_name(bound, UNKNOWN, node.lineno)
