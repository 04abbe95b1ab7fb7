"""What the scanner of one module gathers as it walks, and the scopes it keeps."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from prune_flags.semantic.bindings import ScopeNode, class_bindings
from prune_flags.semantic.facts import ITSELF, AssertRead, NameFacts, Site, Write
from prune_flags.syntax.environment import environment_writes
from prune_flags.syntax.expressions import (
    HARMLESS_DECORATORS,
    _field_default,
    ast_dotted,
    literal,
)
from prune_flags.syntax.spellings import FlagNames
from prune_flags.syntax.templates import Template, template_read
from prune_flags.syntax.values import FIELD_CONSTRUCTORS, UNKNOWN
from prune_flags.vocabulary import WriteKind

# Lookups of a mapping by a key (`options.get("fast", False)`, `options.pop("fast")`): of
# `**kwargs`, by the flag's name, where a function takes the flag's keyword.
KEY_LOOKUPS = frozenset({"get", "pop", "setdefault"})


class ScanState(ast.NodeVisitor):
    # Defined by the scanner's other parts (scan.Scanner combines them), called from
    # scan_calls.Calls: by scan_reads.Reads,
    _template_reads: Callable[[ast.expr], tuple[str, ast.expr, Template] | None]
    _receiver: Callable[[ast.expr, str], None]
    # and by scan_writes.Writes.
    _carried: Callable[[ast.expr | None, str], str]
    _from_parameter: Callable[[ast.AST | None], bool]
    _parameters_read: Callable[[ast.AST | None], tuple[tuple[str, str], ...]]

    def __init__(
        self,
        path: str,
        names: frozenset[str],
        writers: tuple[Template, ...] = (),
        accessors: tuple[Template, ...] = (),
        flag_names: FlagNames = FlagNames({}, {}),
        option_calls: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.names = names
        self.writers = writers
        self.accessors = accessors
        self.flag_names = flag_names
        self.option_calls = option_calls  # the config's wrappers of add_argument
        # The receivers accessor templates read flags as members of (Template.members): outside
        # the templates' shapes, `Feature.x` is the member, and a class of that name defines it.
        self.members = frozenset().union(*(template.members for template in accessors))
        self.member_classes = frozenset(member.rpartition(".")[2] for member in self.members)
        # Names only an `import` binds in the module: a module there, never the flag of its name.
        self.modules: frozenset[str] = frozenset()
        # Names bound only to other libraries: an attribute read through one is theirs.
        self.outside: frozenset[str] = frozenset()
        # The strings naming another library's attribute (`getattr(torch, "x")`): no reads.
        self._elsewhere_names: set[int] = set()
        # The strings naming an environment variable a write sets: the write's, not reads.
        self._variable_names: set[int] = set()
        # Constants holding a name asked about (`FAST_KEY = "enable_fast"`): a use of one is a read
        # of that name, except as the name a writer call writes; its definition is not.
        self.constants = flag_names.holding(names)
        # The node naming the flag a writer call writes (`"use_x"`, FAST_KEY, `config.use_x` of
        # `config.use_x(True)`): not a read of the flag.
        self._written_name: object = None
        # The calls that stand alone where they are, as a `with` item binding nothing or a
        # decorator: a writer's there can go as one standing as a statement can (a setter).
        self._setter_places: set[int] = set()
        self.facts: dict[str, NameFacts] = {}
        self._scopes: list[str] = []  # "class" / "function"
        self._globals: list[set[str]] = [set()]
        self._locals: list[ScopeNode | set[str]] = (
            []
        )  # enclosing scopes, then the candidate names they bind
        self._flag_params: list[dict[str, ast.expr]] = (
            []
        )  # candidate-named parameters -> their defaults
        # The enclosing functions, lambdas and comprehensions.
        self._scope_nodes: list[ScopeNode] = []
        self._classes: list[str] = []  # enclosing class names
        self._class_bindings: list[set[str]] = []  # what each enclosing class body binds
        self._qualname: list[str] = []  # the names of the enclosing classes and functions
        self._function_names: dict[int, str] = (
            {}
        )  # each enclosing function, qualified (Write.scope)
        # Per enclosing class and function: the name `self` or `cls` has in the innermost method
        # (a nested function sees its method's), "" where there is none.
        self._methods: list[str] = []
        self._assert: AssertRead | None = None
        self._statement_call: ast.expr | None = None  # the call an expression statement makes
        self._defining: frozenset[str] = (
            frozenset()
        )  # the names whose definition's value is visited
        # The nodes that name a flag in a read through an accessor template (`config.use_x` of
        # `config.use_x.value`): the template reads them, they are no objects the code asks about.
        self._templated: set[int] = set()
        # The literals in the places of a table (see _table): an assignment's value, a call's
        # argument, a dict's value.
        self._table_places: set[int] = set()

    def _value(self, node: ast.expr | None, name: str) -> object:
        """What a write of `name` stores: a literal, the name's own value passed along, or
        UNKNOWN."""
        if isinstance(node, ast.Attribute) and node.attr == name:
            return ITSELF
        if isinstance(node, ast.Call) and ast_dotted(node.func) in FIELD_CONSTRUCTORS:
            return _field_default(node)
        read = template_read(self.accessors, node, self.flag_names)
        if read is not None and read[0] == name:
            # `self.x = extra_args.get("x", False)`: the accessor is inlined to the flag's value
            return ITSELF
        if isinstance(node, ast.Name) and node.id == name:
            for parameters in reversed(self._flag_params):
                if (
                    name in parameters
                ):  # a parameter passed along holds its default unless a caller says otherwise
                    return literal(parameters[name])
        return literal(node)

    def _elsewhere(self, receiver: ast.expr) -> bool:
        """Whether a receiver is plainly another library's object (`torch.backends.cudnn` of
        `import torch`): an attribute of it is that library's, never a name of the repository's."""
        while isinstance(receiver, (ast.Attribute, ast.Subscript, ast.Call)):
            receiver = receiver.func if isinstance(receiver, ast.Call) else receiver.value
        return isinstance(receiver, ast.Name) and receiver.id in self.outside

    def _of(self, name: str) -> NameFacts:
        return self.facts.setdefault(name, NameFacts())

    def _site(self, node: ast.AST) -> Site:
        return Site(self.path, getattr(node, "lineno", 0))

    def _environment_write(self, node: ast.Assign | ast.Delete | ast.Call) -> None:
        """A write to the environment (`os.environ["NAME"] = value`, `monkeypatch.setenv`,
        `mock.patch.dict(os.environ, {...})`, `del`) gives an environment flag a value; the string
        naming the variable is the write's, not a read."""
        for written in environment_writes(node):
            if written.variable in self.names:
                write = Write(self._site(node), WriteKind.ENVIRON, literal(written.value))
                self._of(written.variable).writes.append(write)
                self._variable_names.add(id(written.spelling))

    # -- scopes -----------------------------------------------------------------------
    def _scoped(self, node: ScopeNode, kind: str) -> None:
        defaults = self._parameter_defaults(node)
        self._scopes.append(kind)
        self._globals.append(set())
        self._locals.append(node)  # its local names are learnt only if a candidate name is read
        self._scope_nodes.append(node)
        self._flag_params.append(defaults)
        outside = evaluated_outside(node)
        self._visit_inside(node, {id(child) for child in outside}, _holding(node, outside))
        self._flag_params.pop()
        self._scope_nodes.pop()
        self._locals.pop()
        self._globals.pop()
        self._scopes.pop()

    def _visit_inside(self, node: ast.AST, outside: set[int], holding: set[int]) -> None:
        """The children of a scope's node, in `generic_visit`'s order, each in the scope but those
        Python evaluates where the definition stands (`outside`), visited there."""
        for _, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else [value]:
                if not isinstance(child, ast.AST):
                    continue
                if id(child) in outside:
                    self._in_enclosing_scope(child)
                elif id(child) in holding:
                    self._visit_inside(child, outside, holding)
                else:
                    self.visit(child)

    def _in_enclosing_scope(self, node: ast.AST) -> None:
        saved = (
            self._scopes.pop(),
            self._globals.pop(),
            self._locals.pop(),
            self._scope_nodes.pop(),
            self._flag_params.pop(),
        )
        self.visit(node)
        self._scopes.append(saved[0])
        self._globals.append(saved[1])
        self._locals.append(saved[2])
        self._scope_nodes.append(saved[3])
        self._flag_params.append(saved[4])

    def _parameter_defaults(self, node: ast.AST) -> dict[str, ast.expr]:
        """Parameters named like a candidate, each a write of kind "parameter" (its default's
        literal value, else UNKNOWN: whether it is the flag depends on the chains of calls linking
        it, see plumbing.plumbing), and those with a literal default, which a read passes along."""
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return {}
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        pairs = list(
            zip(
                positional,
                [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults),
            )
        )
        pairs += list(zip(arguments.kwonlyargs, arguments.kw_defaults))
        found: dict[str, ast.expr] = {}
        method = bool(positional) and positional[0].arg in ("self", "cls")
        name = getattr(node, "name", "")
        scope = self._function_names.get(id(node), "")
        constructor = (
            name == "__init__"
            and bool(self._classes)
            and bool(self._scopes)
            and self._scopes[-1] == "class"
        )
        if constructor:
            name = self._classes[-1]  # the class is called to reach its __init__, self filled in
        for argument, default in pairs:
            if argument.arg not in self.names:
                continue
            value = literal(default) if default is not None else UNKNOWN
            position = positional.index(argument) if argument in positional else None
            if constructor and position is not None:
                position -= 1  # counted among the arguments the call writes
            write = Write(
                self._site(argument),
                WriteKind.PARAMETER,
                value,
                name,
                position,
                method and not constructor,
                scope=scope,
            )
            self._of(argument.arg).writes.append(write)
            if value is not UNKNOWN and default is not None:  # (UNKNOWN without a default)
                found[argument.arg] = default
        return found

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """A function, method or class is a write of its name; one that something outside the
        code may call can never go, so it is told apart: a dunder, anything under a decorator that
        may register it, and a public method (callers may reach it through an instance of a class
        that lives on, from code outside the repository)."""
        scope = self._scopes[-1] if self._scopes else "module"
        if node.name not in self.names or scope not in ("module", "class"):
            return
        if scope == "class" and _is_property(node):
            # `@property def optimized(self): ...` is the flag's definition, computed as a field
            # assigned in `__init__` may be: it goes whole as one would.
            owner = self._classes[-1] if self._classes else ""
            self._of(node.name).writes.append(
                Write(self._site(node), WriteKind.CLASS, UNKNOWN, owner)
            )
            return
        public_method = scope == "class" and not node.name.startswith("_")
        removable = (
            not public_method
            and not (node.name.startswith("__") and node.name.endswith("__"))
            and all(
                ast_dotted(d.func if isinstance(d, ast.Call) else d) in HARMLESS_DECORATORS
                for d in node.decorator_list
            )
        )
        kind = (
            (WriteKind.MODULE_DEF if scope == "module" else WriteKind.CLASS_DEF)
            if removable
            else WriteKind.REGISTERED_DEF
        )
        self._of(node.name).writes.append(Write(self._site(node), kind, UNKNOWN))

    def _setters(self, calls: Iterable[ast.expr]) -> None:
        self._setter_places.update(id(call) for call in calls if isinstance(call, ast.Call))

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        self._setters(item.context_expr for item in node.items if item.optional_vars is None)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._definition(node)
        self._setters(node.decorator_list)
        for child in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(child)
        self._scopes.append("class")
        self._classes.append(node.name)
        self._class_bindings.append(class_bindings(node) & self.names)
        self._qualname.append(node.name)
        self._methods.append("")
        for statement in node.body:
            self.visit(statement)
        self._methods.pop()
        self._qualname.pop()
        self._class_bindings.pop()
        self._classes.pop()
        self._scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._definition(node)
        self._setters(node.decorator_list)
        positional = [*node.args.posonlyargs, *node.args.args]
        in_class = bool(self._scopes) and self._scopes[-1] == "class"
        static = any(ast_dotted(decorator) == "staticmethod" for decorator in node.decorator_list)
        receiver = positional[0].arg if in_class and positional and not static else ""
        self._methods.append(receiver if in_class else (self._methods[-1] if self._methods else ""))
        self._qualname.append(node.name)
        self._function_names[id(node)] = ".".join(self._qualname)
        self._scoped(node, "function")
        self._qualname.pop()
        self._methods.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scoped(node, "function")

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
    ) -> None:
        self._scoped(node, "comprehension")

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Global(self, node: ast.Global) -> None:
        self._globals[-1].update(node.names)


def evaluated_outside(scope: ast.AST) -> list[ast.expr]:
    """What Python evaluates where a scope's definition stands, not in the scope: a function's
    decorators and parameter defaults, a lambda's defaults, a comprehension's first iterable."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = scope.args
        decorators = [] if isinstance(scope, ast.Lambda) else list(scope.decorator_list)
        defaults = [d for d in arguments.kw_defaults if d is not None]
        return decorators + list(arguments.defaults) + defaults
    generators = getattr(scope, "generators", None)
    return [generators[0].iter] if generators else []


def _holding(scope: ast.AST, outside: list[ast.expr]) -> set[int]:
    """The nodes between a scope's node and what it evaluates outside: its `arguments`, its first
    generator."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return {id(scope.args)}
    generators = getattr(scope, "generators", None)
    return {id(generators[0])} if generators and outside else set()


_PROPERTIES = frozenset({"property", "cached_property", "functools.cached_property"})


def _is_property(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """Whether a definition is a read-only property: its one decorator makes it one."""
    return (
        not isinstance(node, ast.ClassDef)
        and len(node.decorator_list) == 1
        and ast_dotted(node.decorator_list[0]) in _PROPERTIES
    )
