"""The scanner's handlers of definitions: functions, parameters, lambdas, classes,
comprehensions."""

from __future__ import annotations

import ast

from prune_flags.find.facts import PARAMETER, ClassFacts
from prune_flags.find.scan_state import ScanState, Scope
from prune_flags.find.syntax import called_name, parameter_defaults, plain_literal
from prune_flags.syntax.statements import first_line
from prune_flags.syntax.values import UNKNOWN

# Class decorators that leave class-body literals as plain attributes or constructor fields.
FIELD_DECORATORS = frozenset({"dataclass", "define", "frozen", "mutable", "s", "attrs"})
HARMLESS_DECORATORS = FIELD_DECORATORS | {"total_ordering", "final", "runtime_checkable"}
FUNCTION_DECORATORS = frozenset({"staticmethod", "classmethod"})


class Definitions(ScanState):
    """Definitions, and the scopes they open."""

    # -- definitions ------------------------------------------------------------------------
    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        decorators = {
            called_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list
        }
        self.visit_all(node.decorator_list)
        self.visit_all([*node.args.defaults, *node.args.kw_defaults])
        self.bind_name(node.name, UNKNOWN, node.lineno)
        self.functions.add(node.name)
        # Parameters of decorated functions, dunders and lambdas are filled by callers we cannot
        # see.
        callable_by_name = decorators <= FUNCTION_DECORATORS and not node.name.startswith("__")
        scope = self.scopes[-1]
        owner = scope.name if scope.kind == "class" else None
        positional = [*node.args.posonlyargs, *node.args.args]
        method = (owner is not None and "staticmethod" not in decorators) or (
            bool(positional) and positional[0].arg in ("self", "cls")
        )
        self.scopes.append(Scope("function"))
        parameters = self.parameters(
            node.args, node.name if callable_by_name else None, method, owner
        )
        self.enter_parameters(parameters)
        outer = self.segment
        if not self.in_function:
            self.segment = (first_line(node), node.end_lineno or node.lineno)
        self.in_function += 1
        self.visit_all(node.body)
        self.in_function -= 1
        self.segment = outer
        self.leave_parameters(parameters)
        self.scopes.pop()

    def parameters(
        self, args: ast.arguments, function: str | None, method: bool, owner: str | None = None
    ) -> dict[str, object]:
        """Defines each parameter with a literal default (one whose function we cannot follow
        is defined too, as one that never holds) and returns them; the others are locals."""
        found: dict[str, object] = {}
        for position, arg, default in parameter_defaults(args):
            value = plain_literal(default) if default is not None else UNKNOWN
            if value is UNKNOWN:
                self.local_bindings.add(arg.arg)
            else:
                found[arg.arg] = value
                self.define(
                    arg.arg,
                    PARAMETER,
                    value,
                    arg.lineno,
                    owner=owner,
                    function=function,
                    position=position,
                    method=method,
                )
        self.local_bindings.update(arg.arg for arg in (args.vararg, args.kwarg) if arg is not None)
        return found

    def enter_parameters(self, parameters: dict[str, object]) -> None:
        self.parameter_scopes.append(parameters)
        for name in parameters:
            self.parameter_names[name] = self.parameter_names.get(name, 0) + 1

    def leave_parameters(self, parameters: dict[str, object]) -> None:
        self.parameter_scopes.pop()
        for name in parameters:
            self.parameter_names[name] -= 1
            if not self.parameter_names[name]:
                del self.parameter_names[name]

    def lambda_(self, node: ast.Lambda) -> None:
        self.visit_all([*node.args.defaults, *node.args.kw_defaults])
        self.scopes.append(Scope("function"))
        parameters = self.parameters(node.args, None, False)
        self.enter_parameters(parameters)
        self.visit(node.body)
        self.leave_parameters(parameters)
        self.scopes.pop()

    def class_(self, node: ast.ClassDef) -> None:
        self.visit_all([*node.decorator_list, *node.bases, *node.keywords])
        self.bind_name(node.name, UNKNOWN, node.lineno)
        decorators = {
            called_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list
        }
        bases = tuple(
            called_name(base.value if isinstance(base, ast.Subscript) else base)
            for base in node.bases
        )
        has_fields = bool(decorators & FIELD_DECORATORS) or "NamedTuple" in bases
        plain_header = not node.keywords and decorators <= HARMLESS_DECORATORS
        self.classes.append(ClassFacts(node.name, bases, plain_header, has_fields))
        self.scopes.append(Scope("class", node.name, has_fields))
        outer, self.current_class = self.current_class, node.name
        self.visit_all(node.body)
        self.current_class = outer
        self.scopes.pop()

    def comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> None:
        self.scopes.append(Scope("comprehension"))
        for generator in node.generators:
            self.visit(generator.iter)
            self.bind_target(generator.target, UNKNOWN, node.lineno)
            for test in generator.ifs:
                self.visit_condition(test)
        if isinstance(node, ast.DictComp):
            self.visit_all([node.key, node.value])
        else:
            self.visit(node.elt)
        self.scopes.pop()
