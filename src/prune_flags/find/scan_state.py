"""What the scanner of one file gathers as it walks, and the handlers every other one uses."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from prune_flags.find.facts import (
    ATTRIBUTE,
    CLASS_ATTRIBUTE,
    MODULE_CONSTANT,
    ClassFacts,
    Definition,
    Templates,
)
from prune_flags.find.syntax import deciding_reads, root_name
from prune_flags.semantic.bindings import module_level_names
from prune_flags.semantic.facts import Site
from prune_flags.syntax.statements import first_line
from prune_flags.syntax.templates import Template
from prune_flags.syntax.values import UNKNOWN

# Builtins whose results are objects from outside the repository (open(f).closed), but
# not type(self).x or super().x, which read the repository's own classes.
EXTERNAL_BUILTINS = frozenset(dir(builtins)) - {"type", "super", "object", "self", "cls"}


@dataclass
class Scope:
    kind: str  # "module", "class", "function", "comprehension"
    name: str | None = None  # a class's name
    has_fields: bool = False
    field_count: int = 0
    global_names: set[str] = field(default_factory=set)


class ScanState:
    """The state of one walk over a module's tree; scan.Scanner adds the walk and the handlers."""

    # Defined by the scanner's other parts (scan.Scanner, scan_reads.Reads), called from here.
    visit: Callable[[ast.AST], None]
    template_name: Callable[[ast.expr], str | None]
    template_store: Callable[[ast.Attribute | ast.Subscript], None]

    def __init__(
        self, path: str, internal_modules: frozenset[str], templates: Templates = Templates()
    ) -> None:
        self.path = path
        self.internal_modules = internal_modules
        self.accessors, self.writers = templates.parsed()
        # The nodes that name a flag in a template read or a writer call (by id): their string
        # is no write of the name, their attribute or name no plain read of it.
        self.naming: set[int] = set()
        self.statement_call: ast.expr | None = None  # the call an expression statement makes
        self.template_reads: dict[str, int] = {}
        self.template_condition_reads: dict[str, int] = {}
        self.named_template_reads: set[str] = set()
        self.bare_template_reads: set[str] = set()
        self.template_matches: dict[int, tuple[str, ast.expr, Template] | None] = {}
        self.accessors_by_kind: dict[type, tuple[Template, ...]] = {}
        for template in self.accessors:
            kind = template.tree.__class__
            self.accessors_by_kind[kind] = (*self.accessors_by_kind.get(kind, ()), template)
        self.definitions: list[Definition] = []
        self.disqualified: set[str] = set()
        self.local_bindings: set[str] = set()
        self.stored: set[str] = set()
        self.module_names: set[str] = (
            set()
        )  # bound at module level: their bare reads are flag reads
        self.mentions: set[str] = set()
        self.attribute_reads: dict[str, int] = {}
        self.attribute_condition_reads: dict[str, int] = {}
        self.name_reads: dict[str, int] = {}
        self.name_condition_reads: dict[str, int] = {}
        self.parameter_reads: dict[str, int] = {}
        self.parameter_condition_reads: dict[str, int] = {}
        # The literal-default parameters of each enclosing function, and how many of them bind each
        # name.
        self.parameter_scopes: list[dict[str, object]] = []
        self.parameter_names: dict[str, int] = {}
        self.spelled: set[str] = set()
        self.computed_names: set[tuple[str, str]] = set()
        self.functions: set[str] = set()
        self.keyword_callees: set[tuple[str, str]] = set()
        self.environment: set[str] = set()
        self.keyword_values: dict[str, set[str]] = {}
        self.imports: list[tuple[str, bool]] = []
        self.calls: dict[str, int] = {}
        self.splat_calls: set[str] = set()
        self.value_refs: set[str] = set()
        self.classes: list[ClassFacts] = []
        self.self_reads: set[tuple[str, str]] = set()
        self.external: set[str] = set(EXTERNAL_BUILTINS)
        self.scopes = [Scope("module")]
        self.current_class: str | None = None  # the innermost class around, methods included
        self.tests = 0  # > 0 inside an if/while/ternary/comprehension test or an assert
        self.segment = (0, 0)  # the lines of the outermost function or top-level statement here
        self.segments: dict[str, set[tuple[int, int]]] = {}
        self.counted: set[int] = set()  # the and/or nodes whose reads are counted (by id)
        self.in_function = 0
        self.top_level: set[str] = set()  # what the module binds at its top level

    def visit_all(self, nodes: Iterable[ast.AST | None]) -> None:
        for node in nodes:
            if node is not None:
                self.visit(node)

    def visit_condition(self, node: ast.expr) -> None:
        self.count_deciding_reads(node)
        self.tests += 1
        self.visit(node)
        self.tests -= 1

    def count_deciding_reads(self, test: ast.expr) -> None:
        templated = self.template_name if self.accessors else None
        for read in deciding_reads(test, self.counted, templated):
            if isinstance(read, str):
                counts, name = self.template_condition_reads, read
            elif isinstance(read, ast.Attribute):
                counts, name = self.attribute_condition_reads, read.attr
            else:
                counts, name = self.name_condition_reads, read.id
                if name in self.parameter_names:
                    parameters = self.parameter_condition_reads
                    parameters[name] = parameters.get(name, 0) + 1
            counts[name] = counts.get(name, 0) + 1
            spans = self.segments.get(name)
            if spans is None:
                spans = self.segments[name] = set()
            spans.add(self.segment)

    def module(self, node: ast.Module) -> None:
        self.top_level = module_level_names(node)
        for statement in node.body:
            self.segment = (first_line(statement), statement.end_lineno or statement.lineno)
            self.visit(statement)

    def site(self, line: int) -> Site:
        return Site(self.path, line)

    # -- bindings ---------------------------------------------------------------------------
    def binding_scope(self) -> Scope:
        """The scope a name binds in: a comprehension's := binds in the scope around it."""
        return next(scope for scope in reversed(self.scopes) if scope.kind != "comprehension")

    def bind_name(self, name: str, value: object, line: int, scope: Scope | None = None) -> None:
        scope = scope or self.scopes[-1]
        if scope.kind in ("function", "comprehension") and name not in scope.global_names:
            self.local_bindings.add(name)
            return
        self.stored.add(name)
        if scope.kind != "class":
            self.module_names.add(name)
        if value is UNKNOWN:
            self.disqualified.add(name)
        elif scope.kind == "class":
            self.define(name, CLASS_ATTRIBUTE, value, line, owner=scope.name)
        else:
            self.define(name, MODULE_CONSTANT, value, line)

    def bind_target(self, target: ast.expr, value: object, line: int) -> None:
        if self.accessors and isinstance(target, (ast.Attribute, ast.Subscript)):
            self.template_store(target)
        if isinstance(target, ast.Name):
            self.bind_name(target.id, value, line)
        elif isinstance(target, ast.Attribute):
            self.stored.add(target.attr)
            self.mentions.add(target.attr)
            # (another library's attribute of the name, `torch.x.deterministic = True`, is no
            # definition: find's own rules take the name for shared, as for a read of it)
            if value is UNKNOWN or root_name(target.value) in self.external:
                self.disqualified.add(target.attr)
            else:
                self.define(target.attr, ATTRIBUTE, value, line, owner=self.current_class)
            self.visit(target.value)
        elif isinstance(target, ast.Subscript):
            # obj.__dict__["x"] = v, globals()["X"] = v, vars(o)["x"] = v
            key = target.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self.disqualified.add(key.value)
            self.visit(target.value)
            self.visit(key)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind_target(element, UNKNOWN, line)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, UNKNOWN, line)

    def define(self, name: str, kind: str, value: object, line: int, **where: object) -> None:
        self.definitions.append(Definition(name, self.site(line), kind, value, **where))  # type: ignore[arg-type]  # Definition's own keywords

    def parameter_value(self, name: str) -> object:
        """The default of the innermost enclosing parameter of that name, else UNKNOWN."""
        if name in self.parameter_names:
            for parameters in reversed(self.parameter_scopes):
                if name in parameters:
                    return parameters[name]
        return UNKNOWN
