"""The repository index: who reads and who writes each candidate name, built with `ast`.

It is conservative on purpose. Any attribute read `x.name`, whatever `x` is, any
string literal equal to the name, any `from m import name`, and (for module-level
names) any bare `name` load keeps a name alive. A local variable or parameter that
only shares the identifier is not an attribute read. Reads inside an `assert` test
are kept apart: an assert about names that are all dead goes with them. A statement that a
`# prune-flags: keep` pragma protects stays as it is, so any mention of a name in it (an
assert, a keyword at a call, a `del`, an augmented assignment) keeps that name alive.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping, NamedTuple
from weakref import WeakKeyDictionary

from prune_flags.source.files import lines_naming
from prune_flags.syntax.values import FIELD_CONSTRUCTORS, PURE_BUILTINS, UNKNOWN
from prune_flags.syntax.shapes import CLICK_OPTIONS, FlagNames, Template, ast_unfold, ast_dotted, defines_option, option_arity, option_dest, option_like, module_strings, module_writers, TYPE_DECLARATIONS

KEEP_PRAGMA = "# prune-flags: keep"
# The rewrite honours the pragma whatever spaces it holds (passes/body.py: has_keep_pragma).
_KEEP_PRAGMA_TEXT = re.compile(" *".join(map(re.escape, KEEP_PRAGMA.replace(" ", ""))))


@dataclass(frozen=True)
class Site:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Write:
    site: Site
    kind: str  # "attribute", "class", "module", "global", "setattr", "augmented", "del", "unpack",
    # "keyword" (name=... at a call), "parameter" (a parameter, its default the value), "environ",
    # "argument" (a positional argument passing a flag parameter, plumbing.plumbing), "template" (a
    # store through an accessor template, `options["x"] = v`)
    value: object  # the literal written, ITSELF, or UNKNOWN
    # Whose the write is: for a parameter, its function; for a class-level field, its class;
    # for a keyword, the callee's (last) name. A keyword reaches a flag only through an owner.
    owner: str = ""
    position: int | None = None  # a positional parameter's index, counting self
    method: bool = False  # the parameter's function takes self/cls: an attribute call passes it
    option_strings: tuple[str, ...] = ()  # an option's long strings, `--use-x`, `--turbo`
    option_arity: int | None = (
        None  # the words an option takes after its string (shapes.option_arity)
    )
    # A `setattr` or writer call that is a statement of its own, or a writer call as a `with` item
    # binding nothing or a decorator (the prune pass can remove it); one inside an expression is
    # not. A keyword whose value may have side effects (`run(fast=next(modes))`) is not either:
    # its argument cannot go without them.
    statement: bool = True
    # The value reads a parameter of the function it is written in (`self.fast = fast`): a
    # caller decides it, so the write is plumbing, not a definition the config overrides.
    from_parameter: bool = False
    # A parameter's function, qualified within its module (`Class.method`, `outer.inner`); "" for
    # a lambda's.
    scope: str = ""
    # A keyword or an attribute assignment whose value is the enclosing function's own parameter
    # of the name, never rebound there (`helper(x, fast=fast)`, `self.fast = fast`): that
    # function, qualified as `scope` is. The parameter's value travels on along a chain.
    carried_from: str = ""


class Argument(NamedTuple):
    """A plain positional argument at a call: where it is, what it passes, whether it can go."""

    line: int
    value: object  # a literal, or UNKNOWN
    pure: bool  # evaluating it has no side effect (helpers.pure_expression)


@dataclass(frozen=True)
class CallSite:
    """A call of a function by its (last) name: enough to tell which positional parameters it fills."""

    site: Site
    callee: str
    # The positional arguments it surely passes: plain ones, and the elements of a starred
    # literal, `f(*(a, b))`. A starred sequence of unknown length fills nothing it can be seen to.
    positional: int
    through_attribute: bool  # `obj.f(...)`: a method's self is passed implicitly
    # `f(*args)` inside `def forwarder(..., *args)`: as far as forwarder's callers reach.
    forwarder: str | None = None
    # The forwarder's positional parameters before its *args (self counted) and whether it is a
    # method: its callers' first arguments fill those, only the rest reach its *args.
    forwarder_takes: int = 0
    forwarder_method: bool = False
    arguments: tuple[Argument, ...] = ()  # the plain positional arguments before any starred one
    starred: bool = False  # some argument is starred: what follows it is at no place the call shows
    # `Name.method(...)` with a capitalised receiver, a class: a method's self may be the first
    # argument, not implied.
    class_receiver: bool = False


class _Itself:
    def __repr__(self) -> str:
        return "ITSELF"


# The value written is the name's own value passed along, `f(use_x=self.use_x)`: such a write
# agrees with whatever value the name is fixed at.
ITSELF = _Itself()


@dataclass(frozen=True)
class AssertRead:
    site: Site
    subjects: (
        frozenset[str] | None
    )  # attribute names the assert checks; None: it checks more than attributes


@dataclass(frozen=True)
class ObjectRead:
    """A read that is the receiver of an attribute, call or subscript (`FLAG.value`, `FLAG()`,
    `obj.flag[0]`): the name holds an object, not the value a flag is fixed at."""

    site: Site
    template: str  # how it is read, as an accessor template would say it: `{name}.value`
    declared: bool = (
        False  # a read through a declared template that something acts on: no template helps
    )
    # A lookup whose other operands have effects (`getattr(obj, "fast", compute())`): the rewrite
    # keeps it, since its constant would drop them; `template` is then its source as it is.
    effects: bool = False


@dataclass
class NameFacts:
    attribute_reads: list[Site] = field(default_factory=list)
    name_reads: list[Site] = field(
        default_factory=list
    )  # bare loads, imports by name, class-body loads
    string_reads: list[Site] = field(default_factory=list)
    # The name as an element of a list, tuple or set literal or a dict key (not in __all__ or
    # __slots__): for a command-line option, a table of option names, which goes with it.
    table_mentions: list[Site] = field(default_factory=list)
    assert_reads: list[AssertRead] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    object_reads: list[ObjectRead] = field(default_factory=list)  # also among the reads above
    # A function's own parameter of the name passed on by position (`helper(x, fast)`), as a
    # write of kind "argument": the callee, its index among the call's arguments, whether the call
    # goes through an attribute (`method`) and the function it is carried from.
    passed: list[Write] = field(default_factory=list)

    def merge(self, other: NameFacts) -> None:
        self.attribute_reads += other.attribute_reads
        self.name_reads += other.name_reads
        self.string_reads += other.string_reads
        self.table_mentions += other.table_mentions
        self.assert_reads += other.assert_reads
        self.writes += other.writes
        self.object_reads += other.object_reads
        self.passed += other.passed

    @property
    def is_option(self) -> bool:
        return any(write.kind == "option" for write in self.writes)

    @property
    def option_strings(self) -> frozenset[str]:
        """The long strings of the options that define the name: how argument lists spell it."""
        return frozenset(
            string
            for write in self.writes
            if write.kind == "option"
            for string in write.option_strings
        )

    @property
    def option_arity(self) -> int | None:
        """The words every option defining the name takes after its string; None when one does not
        say or they differ."""
        arities = {write.option_arity for write in self.writes if write.kind == "option"}
        return arities.pop() if len(arities) == 1 else None

    @property
    def field_reads(self) -> list[Site]:
        """What keeps an attribute alive, asserts aside; an option's name tables do not."""
        return (
            self.attribute_reads
            + self.string_reads
            + ([] if self.is_option else self.table_mentions)
        )

    @property
    def global_reads(self) -> list[Site]:
        """What keeps a module-level name alive, asserts aside."""
        return self.attribute_reads + self.name_reads + self.string_reads + self.table_mentions


ENVIRON = ("os.environ", "environ")
# Decorators that only wrap a callable: anything else may register it where no reader shows.
HARMLESS_DECORATORS = frozenset(
    {
        "staticmethod", "classmethod", "property", "abstractmethod", "abc.abstractmethod",
        "wraps", "functools.wraps", "cache", "functools.cache", "lru_cache", "functools.lru_cache",
        "cached_property", "functools.cached_property", "dataclass", "dataclasses.dataclass",
    }
)  # fmt: skip
ENVIRON_SETTERS = ("environ.setdefault", "os.putenv", "setenv")  # setenv: pytest's monkeypatch


def patched(call: ast.Call) -> tuple[str, ast.expr | None] | None:
    """What a test double sets: `mock.patch.object(C, "name", v)`, `monkeypatch.setattr(o, "name", v)`,
    `mock.patch("pkg.mod.NAME", v)`, `monkeypatch.setattr("pkg.mod.NAME", v)`: (name, the value's
    expression, None when the call gives none: a mock then stands in)."""
    func = ast_dotted(call.func)
    new = next((k.value for k in call.keywords if k.arg == "new"), None)
    if func.endswith("patch.object") or (func.endswith(".setattr") and func != "setattr"):
        if len(call.args) >= 2 and isinstance(name := literal(call.args[1]), str):
            return name, call.args[2] if len(call.args) > 2 else new
        if func.endswith("patch.object"):
            return None
    if func.endswith("patch") or func.endswith(".setattr"):
        target = literal(call.args[0]) if call.args else None
        if isinstance(target, str) and "." in target:
            return target.rsplit(".", 1)[1], call.args[1] if len(call.args) > 1 else new
    return None


def _pure(expression: ast.expr) -> bool:
    """Whether evaluating an expression only computes a value (helpers.pure_expression, which
    imports this module)."""
    from prune_flags.model.helpers import pure_expression

    return pure_expression(expression)


def _field_default(call: ast.Call) -> object:
    """The default a dataclass/attrs/pydantic field declaration gives: `field(default=False)`."""
    for keyword in call.keywords:
        if keyword.arg == "default":
            return literal(keyword.value)
    if ast_dotted(call.func) in ("Field", "pydantic.Field") and call.args:
        return literal(call.args[0])
    return UNKNOWN


def template_read(
    templates: tuple[Template, ...], node: ast.expr, names: FlagNames
) -> tuple[str, ast.expr, Template] | None:
    """The flag an expression reads through an accessor template (`extra_args.get("x", ...)`,
    `config.x.value`, `"x" in opts.enabled`), with the node that names it and the template; None
    for any other."""
    for template in templates:
        found = template.match(node, ast_unfold)
        if found is None:
            continue
        name = found.identifier if found.named is None else names.of_ast(found.named)  # type: ignore[arg-type]
        if isinstance(name, str):
            return name, found.node, template  # type: ignore[return-value]
    return None


def _option(
    call: ast.Call, wrappers: tuple[str, ...]
) -> tuple[str | None, tuple[str, ...], int | None]:
    """The flag an option call defines (argparse's, click's, or a declared wrapper's), its long
    option strings (`--turbo` may fill `dest="fast_path"`: tables spell the option so) and the
    words it takes after them (shapes.option_arity). (None, (), None) for any other call."""
    func = ast_dotted(call.func)
    if not (defines_option(func, wrappers) or func in CLICK_OPTIONS):
        return None, (), None
    strings = [
        arg.value
        for arg in call.args
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    ]
    explicit = next((literal(k.value) for k in call.keywords if k.arg == "dest"), None)
    dest = option_dest(strings, explicit if isinstance(explicit, str) else None)
    keywords = {k.arg: _option_keyword(k.value) for k in call.keywords if k.arg is not None}
    arity = option_arity(func, strings, keywords) if len(keywords) == len(call.keywords) else None
    return dest, tuple(string for string in strings if string.startswith("--")), arity


def _option_keyword(value: ast.expr) -> object:
    """An option call's keyword as shapes.option_arity reads it: a literal, or a dotted name
    (`action=argparse.BooleanOptionalAction`)."""
    found = literal(value)
    return ast_dotted(value) or found if found is UNKNOWN else found


def _is_string(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def literal(node: ast.expr | None) -> object:
    if node is None:
        return UNKNOWN
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNKNOWN


def assert_subjects(test: ast.expr) -> frozenset[str] | None:
    """The attribute names an assert test checks, or None when it also checks anything else."""
    subjects: set[str] = set()

    def walk(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            subjects.add(node.attr)
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            return isinstance(base, ast.Name)
        if isinstance(node, ast.Call):
            return (
                isinstance(node.func, ast.Name)
                and node.func.id in PURE_BUILTINS
                and not node.keywords
                and all(walk(arg) for arg in node.args)
            )
        if isinstance(node, (ast.BoolOp, ast.UnaryOp, ast.Compare, ast.BinOp)):
            return all(
                walk(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)
            )
        return isinstance(node, ast.Constant)

    return frozenset(subjects) if walk(test) and subjects else None


class _Scanner(ast.NodeVisitor):
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
        self._locals: list[ast.AST | set[str]] = (
            []
        )  # enclosing scopes, then the candidate names they bind
        self._flag_params: list[dict[str, ast.expr]] = (
            []
        )  # candidate-named parameters -> their defaults
        self._scope_nodes: list[ast.AST] = []  # the enclosing functions, lambdas and comprehensions
        self._classes: list[str] = []  # enclosing class names
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
        """What a write of `name` stores: a literal, the name's own value passed along, or UNKNOWN."""
        if isinstance(node, ast.Attribute) and node.attr == name:
            return ITSELF
        if isinstance(node, ast.Call) and ast_dotted(node.func) in FIELD_CONSTRUCTORS:
            return _field_default(node)
        if (read := template_read(self.accessors, node, self.flag_names)) is not None and read[0] == name:  # type: ignore[arg-type]
            return ITSELF  # `self.x = extra_args.get("x", False)`: the accessor is inlined to the flag's value
        if isinstance(node, ast.Name) and node.id == name:
            for parameters in reversed(self._flag_params):
                if (
                    name in parameters
                ):  # a parameter passed along holds its default unless a caller says otherwise
                    return literal(parameters[name])
        return literal(node)

    def _of(self, name: str) -> NameFacts:
        return self.facts.setdefault(name, NameFacts())

    def _site(self, node: ast.AST) -> Site:
        return Site(self.path, getattr(node, "lineno", 0))

    # -- scopes -----------------------------------------------------------------------
    def _scoped(self, node: ast.AST, kind: str) -> None:
        defaults = self._parameter_defaults(node)
        self._scopes.append(kind)
        self._globals.append(set())
        self._locals.append(
            node
        )  # its local names are learnt only if a candidate name is read in it
        self._scope_nodes.append(node)
        self._flag_params.append(defaults)
        self.generic_visit(node)
        self._flag_params.pop()
        self._scope_nodes.pop()
        self._locals.pop()
        self._globals.pop()
        self._scopes.pop()

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
        found = {}
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
                "parameter",
                value,
                name,
                position,
                method and not constructor,
                scope=scope,
            )
            self._of(argument.arg).writes.append(write)
            if value is not UNKNOWN:
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
        public_method = scope == "class" and not node.name.startswith("_")
        removable = (
            not public_method
            and not (node.name.startswith("__") and node.name.endswith("__"))
            and all(
                ast_dotted(d.func if isinstance(d, ast.Call) else d) in HARMLESS_DECORATORS
                for d in node.decorator_list
            )
        )
        kind = f"{scope}-def" if removable else "registered-def"
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
        self._qualname.append(node.name)
        self._methods.append("")
        for statement in node.body:
            self.visit(statement)
        self._methods.pop()
        self._qualname.pop()
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

    # -- writes -----------------------------------------------------------------------
    def _write(self, target: ast.expr, kind: str, value: object, node: ast.AST) -> None:
        if isinstance(target, (ast.Subscript, ast.Attribute)) and self.accessors:
            self._template_write(target, kind, node)
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._write(element, "unpack", UNKNOWN, node)
        elif isinstance(target, ast.Starred):
            self._write(target.value, "unpack", UNKNOWN, node)
        elif isinstance(target, ast.Attribute):
            if target.attr in self.names:
                owner = self._receiver_class(target.value)
                carried = (
                    self._carried(node.value, target.attr)
                    if isinstance(node, (ast.Assign, ast.AnnAssign))
                    else ""
                )
                kind = kind if kind != "name" else "attribute"
                write = Write(
                    self._site(node),
                    kind,
                    value,
                    owner,
                    from_parameter=self._from_parameter(node),
                    carried_from=carried,
                )
                self._of(target.attr).writes.append(write)
            self.visit(target.value)
        elif isinstance(target, ast.Name) and target.id in self.names:
            scope = self._scopes[-1] if self._scopes else "module"
            if scope == "function" and target.id in self._globals[-1]:
                scope = "global"
            if scope != "function":
                owner = self._classes[-1] if scope == "class" and self._classes else ""
                kind = kind if kind != "name" else scope
                write = Write(
                    self._site(node), kind, value, owner, from_parameter=self._from_parameter(node)
                )
                self._of(target.id).writes.append(write)
        else:
            self.visit(target)

    def _template_write(
        self, target: ast.Subscript | ast.Attribute, kind: str, node: ast.AST
    ) -> None:
        """A store through an accessor template (`options["x"] = v`, `config.x.value = v`, `del`,
        `+=`): a write of kind "template", which no pass removes, so that one of another value is a
        conflict (the reads after it would no longer see it)."""
        read = template_read(self.accessors, target, self.flag_names)
        if read is not None and read[0] in self.names:
            assigned = kind == "name" and isinstance(node, (ast.Assign, ast.AnnAssign))
            value = literal(node.value) if assigned else UNKNOWN  # type: ignore[union-attr]
            self._of(read[0]).writes.append(Write(self._site(node), "template", value))

    def _from_parameter(self, node: ast.AST | None) -> bool:
        """Whether a value (or an assignment's) reads a parameter of an enclosing function (not
        the method's `self` or `cls`)."""
        assignment = isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        value = node.value if assignment else node if isinstance(node, ast.expr) else None  # type: ignore[union-attr]
        functions = [
            scope
            for scope in self._scope_nodes
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        ]
        if value is None or not functions:
            return False
        receiver = self._methods[-1] if self._methods else ""
        parameters = set()
        for function in functions:
            parameters.update(parameter_names(function))  # type: ignore[arg-type]
        parameters.discard(receiver)
        return any(
            isinstance(inner, ast.Name) and inner.id in parameters for inner in ast.walk(value)
        )

    def _carried(self, value: ast.expr | None, name: str) -> str:
        """The enclosing function whose own parameter `name` the value is, qualified as Write.scope
        is, when the function never binds the name again (`helper(x, fast=fast)`); "" otherwise."""
        if not (isinstance(value, ast.Name) and value.id == name):
            return ""
        for scope in reversed(self._scope_nodes):
            if name not in local_names(scope):
                continue
            if isinstance(
                scope, (ast.FunctionDef, ast.AsyncFunctionDef)
            ) and name not in body_bindings(scope):
                return self._function_names.get(id(scope), "")
            return ""
        return ""

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
        for target in node.targets:
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            self._write(target, "name", self._value(node.value, name), node)
            if isinstance(target, ast.Subscript):
                self._environment_write(target, node.value, node)
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

    def _environment_write(self, target: ast.Subscript, value: ast.expr, node: ast.AST) -> None:
        """`os.environ["NAME"] = value` gives an environment flag a value."""
        key = literal(target.slice)
        if isinstance(key, str) and key in self.names and ast_dotted(target.value) in ENVIRON:
            self._of(key).writes.append(Write(self._site(node), "environ", literal(value)))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._table_places.add(id(node.value))
        name = (
            node.target.attr
            if isinstance(node.target, ast.Attribute)
            else getattr(node.target, "id", "")
        )
        self._write(node.target, "name", self._value(node.value, name), node)
        self.visit(node.annotation)
        if node.value is not None:
            self._defining_value([node.target], node.value)

    def _defining_value(self, targets: list[ast.expr], value: ast.expr) -> None:
        """Visit the value a name is bound to. A module constant or class attribute spelling its
        own name in it (`ENABLE_X = os.environ.get("ENABLE_X", False)`) does not read itself:
        the string is how its value is computed, and goes with the definition."""
        own = (
            [t.id for t in targets if isinstance(t, ast.Name)]
            if self._scopes[-1:] in ([], ["class"])
            else []
        )
        self._defining, outer = frozenset(own), self._defining
        self.visit(value)
        self._defining = outer

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._write(node.target, "augmented", UNKNOWN, node)
        self.visit(node.value)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._write(target, "del", UNKNOWN, node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._write(node.target, "unpack", UNKNOWN, node)
        for child in (node.iter, *node.body, *node.orelse):
            self.visit(child)

    visit_AsyncFor = visit_For

    # -- reads ------------------------------------------------------------------------
    def kept(self, statement: ast.stmt) -> None:
        """A statement the pragma keeps as it is: each mention of a name in it is a read."""
        for node in ast.walk(statement):
            if isinstance(node, ast.Attribute) and node.attr in self.names:
                self._of(node.attr).attribute_reads.append(self._site(node))
            elif isinstance(node, ast.keyword) and node.arg in self.names:
                self._of(node.arg).attribute_reads.append(self._site(node))
            elif isinstance(node, ast.Name) and node.id in self.names:
                self._of(node.id).name_reads.append(self._site(node))

    def visit_Expr(self, node: ast.Expr) -> None:
        self._statement_call = node.value
        self.visit(node.value)

    def visit_Assert(self, node: ast.Assert) -> None:
        self._assert = AssertRead(self._site(node), assert_subjects(node.test))
        self.visit(node.test)
        self._assert = None
        if node.msg is not None:
            self.visit(node.msg)

    def _template_reads(self, node: ast.expr) -> tuple[str, ast.expr, Template] | None:
        """An expression that reads a flag through an accessor template: what names the flag in it
        is not read as an object (see _receiver). The read, if it is one."""
        read = template_read(self.accessors, node, self.flag_names) if self.accessors else None
        if read is not None and read[0] in self.names:
            self._templated.add(id(read[1]))
        return read

    def _receiver(self, node: ast.expr, use: str) -> None:
        """A candidate read that `use` applies to (`.value`, `(...)`, `[...]`): an object read,
        unless an accessor template reads it so. A template's read that `use` applies to stays a
        read of the flag the rewrite cannot replace (`config.x.value.lower()`): an object read too.
        """
        if id(node) in self._templated:
            return
        read = template_read(self.accessors, node, self.flag_names) if self.accessors else None
        if read is not None and read[0] in self.names:
            self._of(read[0]).object_reads.append(
                ObjectRead(self._site(node), f"{read[2].text}{use}", declared=True)
            )
            return
        if isinstance(node, ast.Attribute) and node.attr in self.names:
            base = ast_dotted(node.value) or "..."
            self._of(node.attr).object_reads.append(
                ObjectRead(self._site(node), f"{base}.{{name}}{use}")
            )
        elif isinstance(node, ast.Name) and node.id in self.names:
            # A local that only shares the name holds something else; a flag parameter is the flag.
            if not self._is_local(node.id) or any(
                node.id in parameters for parameters in self._flag_params
            ):
                self._of(node.id).object_reads.append(
                    ObjectRead(self._site(node), f"{{name}}{use}")
                )

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._template_reads(node)
        self._receiver(node.value, "[...]")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._template_reads(node)
        self._constant_use(node.attr, node)
        self._receiver(node.value, f".{node.attr}")
        if node.attr in self.names and node is not self._written_name:
            if self._assert is not None:
                self._of(node.attr).assert_reads.append(self._assert)
            else:
                self._of(node.attr).attribute_reads.append(self._site(node))
        self.visit(node.value)

    def visit_Name(self, node: ast.Name) -> None:
        # A parameter or local that only shares the name reads itself, not the module's name.
        if (
            node.id in self.names
            and isinstance(node.ctx, ast.Load)
            and not self._is_local(node.id)
            and node is not self._written_name
        ):
            self._of(node.id).name_reads.append(self._site(node))
        if isinstance(node.ctx, ast.Load):
            self._constant_use(node.id, node)

    def _constant_use(self, constant: str, node: ast.AST) -> None:
        """A use of a constant holding a flag's name (`FAST_KEY`, `keys.FAST_KEY`, "FAST_KEY") may
        hand the name to any reader: it reads the flag, unless it names what a writer call writes.
        """
        if constant in self.constants and node is not self._written_name:
            self._of(self.constants[constant]).string_reads.append(self._site(node))

    def _is_local(self, name: str) -> bool:
        for index, scope in enumerate(self._locals):
            if not isinstance(scope, set):
                scope = self._locals[index] = local_names(scope) & self.names
            if name in scope:
                return True
        return False

    def visit_Constant(self, node: ast.Constant) -> None:
        if (
            isinstance(node.value, str)
            and node.value in self.names
            and node is not self._written_name
            and node.value not in self._defining
        ):
            self._of(node.value).string_reads.append(self._site(node))
        if isinstance(node.value, str):
            self._constant_use(node.value, node)

    def _table(self, node: ast.List | ast.Tuple | ast.Set | ast.Dict) -> None:
        """A name is a table mention (passes/tables.py goes by the same rules) as a dict key whose
        value has no side effects, or as an element of a table of names: a set, list or tuple of
        strings, none an option string (an argument list's words are no names). Either only in
        the place of a table: an assignment's value, a call's argument, a dict's value; anywhere
        else (`x == ["use_x"]`, a record `("use_x", bool)` in a list) it is a string read."""
        elements = node.keys if isinstance(node, ast.Dict) else node.elts
        table = id(node) in self._table_places and (
            isinstance(node, ast.Dict) or all(_is_string(e) and not option_like(e.value) for e in elements)  # type: ignore[union-attr]
        )
        entries = (
            [_pure(value) for value in node.values]
            if isinstance(node, ast.Dict)
            else [True] * len(elements)
        )
        for element, entry in zip(elements, entries):
            if table and entry and _is_string(element) and element.value in self.names:  # type: ignore[union-attr]
                self._of(element.value).table_mentions.append(self._site(element))  # type: ignore[union-attr]
            elif element is not None:
                self.visit(element)
        for value in node.values if isinstance(node, ast.Dict) else ():
            self._table_places.add(id(value))
            self.visit(value)

    visit_List = visit_Tuple = visit_Set = visit_Dict = _table

    def _effectful_lookup(
        self, node: ast.Call, callee: str, read: tuple[str, ast.expr, Template] | None
    ) -> None:
        """`getattr(obj, "fast", compute())`, `hasattr(make(), "fast")`, a template's call (`read`)
        given `compute()` among its arguments: a lookup whose constant would drop what its other
        arguments do, which the rewrite therefore keeps (passes/lookups.py), as a read no fold
        may replace: an object read."""
        name: object = None
        named: ast.expr | None = None
        if callee in ("getattr", "hasattr") and len(node.args) >= 2 and not node.keywords:
            name, named = (
                self.flag_names.of_ast(node.args[1]),
                node.args[1],
            )  # as lookups' named_flag
        elif read is not None:
            name, named = read[0], read[1]
        if not isinstance(name, str) or name not in self.names:
            return
        operands = [*(a for a in node.args if a is not named), *(k.value for k in node.keywords)]
        if not all(_pure(operand) for operand in operands):
            self._of(name).object_reads.append(
                ObjectRead(self._site(node), ast.unparse(node), declared=True, effects=True)
            )

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        dotted = ast_dotted(func)
        self._effectful_lookup(node, dotted, self._template_reads(node))
        if dotted.rsplit(".", 1)[-1] not in TYPE_DECLARATIONS:
            self._table_places.update(
                id(value)
                for value in [*node.args, *(k.value for k in node.keywords if k.arg is not None)]
            )
        for template in self.writers:
            written = template.written_value(node, self.flag_names)
            if (
                written is not None
                and written[0] in self.names
                and self._writer_stays_valid(node, written[1])
            ):
                self._writer_call(node, *written)
                return
        self._receiver(func, "(...)")
        callee = dotted.rsplit(".", 1)[-1]
        for keyword in node.keywords:
            if keyword.arg in self.names:
                value, carried = self._value(keyword.value, keyword.arg), self._carried(
                    keyword.value, keyword.arg
                )
                pure = _pure(keyword.value)
                self._of(keyword.arg).writes.append(
                    Write(
                        self._site(keyword),
                        "keyword",
                        value,
                        callee,
                        statement=pure,
                        carried_from=carried,
                    )
                )
        for index, argument in enumerate(node.args):
            if isinstance(argument, ast.Starred):
                break
            if (
                isinstance(argument, ast.Name)
                and argument.id in self.names
                and (carried := self._carried(argument, argument.id))
            ):
                through = isinstance(func, ast.Attribute)
                passed = Write(
                    self._site(argument),
                    "argument",
                    UNKNOWN,
                    callee,
                    index,
                    through,
                    carried_from=carried,
                )
                self._of(argument.id).passed.append(passed)
        double = patched(node)
        if double is not None and double[0] in self.names:
            self._of(double[0]).writes.append(Write(self._site(node), "patch", literal(double[1])))
        dest, strings, arity = _option(node, self.option_calls)
        if dest in self.names:
            # The option defines the flag (the user declared it stale): a definition, not a read.
            option = Write(
                self._site(node), "option", ITSELF, option_strings=strings, option_arity=arity
            )
            self._of(dest).writes.append(option)
            for child in (node.func, *node.args):
                if not isinstance(child, ast.Constant):  # option names and dest are not reads
                    self.visit(child)
            for keyword in node.keywords:
                if keyword.arg != "dest":
                    self.visit(keyword.value)
            return
        if dotted.endswith(ENVIRON_SETTERS) and len(node.args) == 2:
            key = literal(node.args[0])
            if isinstance(key, str) and key in self.names:
                self._of(key).writes.append(
                    Write(self._site(node), "environ", literal(node.args[1]))
                )
        if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3:
            name = literal(node.args[1])
            if isinstance(name, str) and name in self.names:
                statement, from_parameter = node is self._statement_call, self._from_parameter(
                    node.args[2]
                )
                write = Write(
                    self._site(node),
                    "setattr",
                    literal(node.args[2]),
                    statement=statement,
                    from_parameter=from_parameter,
                )
                self._of(name).writes.append(write)
                self.visit(node.args[0])
                self.visit(node.args[2])
                return
        self.generic_visit(node)

    def _writer_call_removable(self, node: ast.Call) -> bool:
        """A statement, a `with` item or a decorator can go; a call inside an expression cannot."""
        return node is self._statement_call or id(node) in self._setter_places

    def _writer_stays_valid(self, node: ast.Call, naming: ast.expr | None) -> bool:
        """Whether a writer call is a write whatever becomes of the flag's definition: one naming
        the flag in its callee (`config.use_x(True)`) calls what the definition holds, so where it
        cannot go it is what it looks like, a use of the flag as an object (a refusal)."""
        part: ast.expr = node.func
        while part is not naming and isinstance(part, ast.Attribute):
            part = part.value
        return part is not naming or self._writer_call_removable(node)

    def _writer_call(
        self, node: ast.Call, name: str, naming: ast.expr | None, value: ast.expr | None
    ) -> None:
        """A call of a writer template: a write of the flag; one giving no value registers it
        (`config.define_bool_state(name="use_x")`), a definition of its own value."""
        statement = self._writer_call_removable(node)
        written = ITSELF if value is None else literal(value)
        write = Write(
            self._site(node),
            "writer",
            written,
            statement=statement,
            from_parameter=self._from_parameter(value),
        )
        self._of(name).writes.append(write)
        # The node naming the flag is not a read of it (a constant holding the name is still a
        # use of the constant, seen where it is defined).
        outer, self._written_name = self._written_name, naming
        self.generic_visit(node)
        self._written_name = outer

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name in self.names:
                self._of(alias.name).name_reads.append(self._site(node))


def module_level_names(tree: ast.Module) -> set[str]:
    """Names a module's own top-level statements bind: assignments, imports, definitions."""
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in statement.names)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
    return names


def local_names(scope: ast.AST) -> set[str]:
    """Names a function, lambda or comprehension binds for itself (not those it declares global)."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return parameter_names(scope) | body_bindings(scope)
    return _bindings([generator.target for generator in scope.generators])  # type: ignore[attr-defined]


def parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """A function's parameters, `*args` and `**kwargs` included."""
    arguments = function.args
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ]
    return {argument.arg for argument in every if argument is not None}


def body_bindings(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Names a function's body binds for itself, its parameters aside."""
    return _bindings(list(function.body) if isinstance(function.body, list) else [function.body])


def _bindings(body: list[ast.AST]) -> set[str]:
    names: set[str] = set()
    declared: set[str] = set()
    stack = body
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue  # a nested scope's own names are its own
        elif isinstance(
            node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        ):
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return names - declared


@functools.lru_cache(maxsize=16)
def parse_ast(text: str) -> ast.Module:
    """The `ast` of a text, remembered: rounds and the safety gate parse the same texts again
    (nothing mutates a tree)."""
    return ast.parse(text)


def scan(
    tree: ast.Module,
    path: str,
    names: Iterable[str],
    writers: tuple[Template, ...] = (),
    accessors: tuple[Template, ...] = (),
    text: str | None = None,
    constants: Mapping[str, str] = MappingProxyType({}),
    option_calls: tuple[str, ...] = (),
) -> dict[str, NameFacts]:
    """Facts about `names` in one parsed module, with the config's setter and accessor call shapes,
    the constants of the repository that hold a flag's name (see shapes.FlagNames) and the calls
    it declares as adding options (`option_calls`).
    Given the module's text, only the top-level statements naming one of them are walked: the
    same test that spares whole files their parse (no top-level statement depends on another)."""
    names = frozenset(names)
    holding = [constant for constant, name in constants.items() if name in names]
    if text is None or not holding:
        importing = tree.body if holding else []
    else:
        importing = [
            statement
            for _, _, statement in statements_holding(tree.body, lines_naming(text, holding))
        ]
    flag_names = FlagNames.of_module(module_strings(tree), _imported(importing, holding), constants)
    scanner = _Scanner(
        path, names, module_writers(tree, writers), accessors, flag_names, option_calls
    )
    if text is None:
        scanner.visit(tree)
        return scanner.facts
    if text.count("\r") != text.count("\r\n"):
        scanner.visit(
            tree
        )  # lines are counted by "\n": with old Mac line endings they are not the `ast`'s
    else:
        # `--use-x` defines use_x (lines_naming knows), and FAST_KEY (or FK, its alias) may name a flag.
        for _, _, statement in statements_holding(
            tree.body, lines_naming(text, names | scanner.constants.keys())
        ):
            scanner.visit(statement)
    for statement in kept_by_pragma(tree.body, text):
        scanner.kept(statement)
    return scanner.facts


def kept_by_pragma(body: list[ast.stmt], text: str) -> Iterator[ast.stmt]:
    """The statements a `# prune-flags: keep` protects: a simple statement with the pragma on one
    of its lines, a compound one with the pragma on its header (up to its first nested statement).
    Taken wider than the rewrite honours it (which reads only the comment that ends the statement
    or the header): a name kept alive for nothing costs a cleanup, a name deleted under a kept
    statement breaks the code."""
    if not _KEEP_PRAGMA_TEXT.search(text):
        return
    lines = text.splitlines()
    for start, end, statement in statement_spans(body):
        blocks = nested_blocks(statement)
        nested_start = min(
            (spans[0][0] for spans in map(statement_spans, blocks) if spans), default=end + 1
        )
        header_end = nested_start - 1 if nested_start > statement.lineno else end
        if any(_KEEP_PRAGMA_TEXT.search(line) for line in lines[start - 1 : header_end]):
            yield statement
        else:
            for block in blocks:
                yield from kept_by_pragma(block, text)


def nested_blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested in a statement: bodies, `else`, `finally`, handlers, cases."""
    blocks = [
        value
        for _, value in ast.iter_fields(statement)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt)
    ]
    clauses = [*getattr(statement, "handlers", []), *getattr(statement, "cases", [])]
    return blocks + [clause.body for clause in clauses]


def _imported(statements: list[ast.stmt], names: list[str]) -> list[tuple[str, str]]:
    """(name, alias) for each `from m import NAME as ALIAS` of one of the names, at any depth."""
    found = []
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.ImportFrom):
                found += [
                    (alias.name, alias.asname)
                    for alias in node.names
                    if alias.asname and alias.name in names
                ]
    return found


def statements_holding(
    body: list[ast.stmt], lines: Iterable[int]
) -> Iterator[tuple[int, int, ast.stmt]]:
    """The statements of a body (a module's, a class's) that hold one of the lines, with their spans."""
    ordered = sorted(lines)
    for start, end, statement in statement_spans(body):
        index = bisect.bisect_left(ordered, start)
        if index < len(ordered) and ordered[index] <= end:
            yield start, end, statement


def statement_spans(body: list[ast.stmt]) -> list[tuple[int, int, ast.stmt]]:
    """Each statement of a body with its first line (decorators included) and last line."""
    return [
        (first_line(statement), statement.end_lineno or statement.lineno, statement)
        for statement in body
    ]


def merged_spans(spans: Iterable[tuple[int, int]], gap: int = 0) -> list[tuple[int, int]]:
    """Line spans, sorted, with those that share a line (or are at most `gap` lines apart)
    joined: statements either nest or follow one another, but two simple ones may share a line
    (`a = 1; b = 2`); ranges that touch are joined with a gap of 1."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + gap:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def first_line(statement: ast.stmt) -> int:
    """A statement's first line, its decorators included."""
    decorators = getattr(statement, "decorator_list", None)
    return (
        min(statement.lineno, *(decorator.lineno for decorator in decorators))
        if decorators
        else statement.lineno
    )


def is_string_statement(statement: ast.stmt) -> bool:
    """A bare string: a docstring, or the string documenting the field above it."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


class _Forwarder(NamedTuple):
    """A function with a `*args` parameter, as its calls of others see it."""

    name: str
    varargs: str  # its `*args` parameter's name
    takes: int  # its positional parameters before `*args`, self counted
    method: bool


def scan_calls(tree: ast.AST, path: str, callees: frozenset[str]) -> list[CallSite]:
    """Every call of a function named in `callees` (by its last name), with how it passes arguments."""
    return [
        _call_site(node, Site(path, node.lineno), callee, enclosing)
        for callee, node, enclosing in _calls_in(tree)
        if callee in callees
    ]


# Each tree's calls, walked once for as long as the tree is kept: the plumbing of every flag asks
# for the calls of its own functions over the same files.
_CALLS: WeakKeyDictionary[ast.AST, list[tuple[str, ast.Call, _Forwarder | None]]] = (
    WeakKeyDictionary()
)


def _calls_in(tree: ast.AST) -> list[tuple[str, ast.Call, _Forwarder | None]]:
    """Every call in a tree: its callee's last name, the call, and the enclosing function when that
    has a `*args` parameter."""
    if tree in _CALLS:
        return _CALLS[tree]
    found = []
    stack: list[tuple[ast.AST, _Forwarder | None]] = [(tree, None)]
    while stack:
        node, enclosing = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            positional = [*arguments.posonlyargs, *arguments.args]
            method = bool(positional) and positional[0].arg in ("self", "cls")
            vararg = arguments.vararg
            enclosing = (
                _Forwarder(node.name, vararg.arg, len(positional), method)
                if vararg is not None
                else None
            )
        elif isinstance(node, ast.Lambda):
            enclosing = None
        if isinstance(node, ast.Call):
            found.append((ast_dotted(node.func).rsplit(".", 1)[-1], node, enclosing))
        stack.extend((child, enclosing) for child in ast.iter_child_nodes(node))
    _CALLS[tree] = found
    return found


def _call_site(call: ast.Call, site: Site, callee: str, enclosing: _Forwarder | None) -> CallSite:
    positional, forwarding = 0, None
    for argument in call.args:
        if not isinstance(argument, ast.Starred):
            positional += 1
        elif isinstance(argument.value, (ast.Tuple, ast.List)) and not any(
            isinstance(element, ast.Starred) for element in argument.value.elts
        ):
            positional += len(argument.value.elts)
        elif (
            enclosing is not None
            and isinstance(argument.value, ast.Name)
            and argument.value.id == enclosing.varargs
        ):
            forwarding = enclosing
    plain = []
    for argument in call.args:
        if isinstance(argument, ast.Starred):
            break
        plain.append(Argument(argument.lineno, literal(argument), _pure(argument)))
    receiver = ast_dotted(call.func.value) if isinstance(call.func, ast.Attribute) else ""
    return CallSite(
        site,
        callee,
        positional,
        isinstance(call.func, ast.Attribute),
        forwarding.name if forwarding is not None else None,
        forwarding.takes if forwarding is not None else 0,
        forwarding is not None and forwarding.method,
        tuple(plain),
        len(plain) < len(call.args),
        receiver.rsplit(".", 1)[-1][:1].isupper(),
    )


DefStatement = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef

# Each tree's functions and classes by name, walked once for as long as the tree is kept.
_DEFINITIONS: WeakKeyDictionary[ast.AST, dict[str, list[DefStatement]]] = WeakKeyDictionary()


def definitions_in(tree: ast.AST) -> dict[str, list[DefStatement]]:
    """A tree's functions, methods and classes (at any depth) by name, in `ast.walk`'s order."""
    if tree not in _DEFINITIONS:
        found: dict[str, list[DefStatement]] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.setdefault(node.name, []).append(node)
        _DEFINITIONS[tree] = found
    return _DEFINITIONS[tree]


def keyword_forwards(trees: Iterable[ast.Module], function: str) -> frozenset[str] | None:
    """The callees (by last name) to which every function named `function` hands its `**kwargs`
    on (`self._inner(x, **kwargs)`), when that is all it does with them: a keyword passed to
    `function` lands there. None when there is no such function, when one is a class or has no
    `**` parameter, or uses it otherwise too (`kwargs.get("fast")`, `dict(kwargs)`)."""
    callees: set[str] = set()
    found = False
    for tree in trees:
        for node in definitions_in(tree).get(function, ()):
            if isinstance(node, ast.ClassDef):
                return None
            kwarg = node.args.kwarg
            if kwarg is None:
                return None
            uses = sum(
                isinstance(inner, ast.Name) and inner.id == kwarg.arg for inner in ast.walk(node)
            )
            handed = [
                call
                for call in ast.walk(node)
                if isinstance(call, ast.Call)
                for keyword in call.keywords
                if keyword.arg is None
                and isinstance(keyword.value, ast.Name)
                and keyword.value.id == kwarg.arg
            ]
            if not handed or len(handed) != uses:
                return None
            callees.update(ast_dotted(call.func).rsplit(".", 1)[-1] for call in handed)
            found = True
    return frozenset(callees) if found else None


def binds_everywhere(trees: Iterable[ast.Module], function: str, keyword: str) -> bool:
    """Whether every definition named `function` in the trees (functions, methods, and classes
    through their `__init__`) has a parameter named `keyword` of its own: a `keyword=` argument
    then stays there, never travelling on through **kwargs. False when there is none."""
    found = False
    for tree in trees:
        for node in definitions_in(tree).get(function, ()):
            if isinstance(node, ast.ClassDef):
                initializers = [
                    s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"
                ]
                node = initializers[0] if initializers else node
            if isinstance(node, ast.ClassDef):
                return False  # its fields, or a base's __init__, take the keyword: not told here
            arguments = node.args
            if keyword not in {
                a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
            }:
                return False
            found = True
    return found


def parameter_places(
    trees: Iterable[ast.Module], function: str, name: str
) -> set[tuple[int | None, bool]] | None:
    """Where every definition named `function` has its parameter `name` (functions, methods, and
    classes through their own `__init__`, whose self a call fills): its index among the positional
    parameters as calls count it (None for a keyword-only one), and whether the function is a
    method. None when one has no such parameter, or a class has no `__init__` of its own."""
    places: set[tuple[int | None, bool]] = set()
    for tree in trees:
        for node in definitions_in(tree).get(function, ()):
            constructor = isinstance(node, ast.ClassDef)
            if isinstance(node, ast.ClassDef):
                initializers = [
                    s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"
                ]
                if not initializers:
                    return None
                node = initializers[0]
            arguments = node.args
            positional = [argument.arg for argument in (*arguments.posonlyargs, *arguments.args)]
            method = bool(positional) and positional[0] in ("self", "cls")
            if name in positional:
                index = positional.index(name)
                places.add((index - 1, False) if constructor else (index, method))
            elif name in {argument.arg for argument in arguments.kwonlyargs}:
                places.add((None, method and not constructor))
            else:
                return None
    return places


@dataclass
class TreeNames:
    """How a module uses names, from one walk: what the engine compares before and after a
    rewrite to learn which names lost their readers. Everything is counted, so that the
    counts of some statements add up (`plus`)."""

    loads: Counter[str] = field(default_factory=Counter)  # `.attr` loads and bare-name loads
    own_updates: Counter[str] = field(
        default_factory=Counter
    )  # loads in the name's own update, `x = x or {}`
    function_locals: Counter[str] = field(default_factory=Counter)  # assignments inside functions
    imported: Counter[str] = field(default_factory=Counter)  # names imports bind
    strings: Counter[str] = field(
        default_factory=Counter
    )  # string literals: a name in one counts as used

    def plus(self, other: TreeNames) -> TreeNames:
        """The counts of two sets of statements together."""
        return TreeNames(
            self.loads + other.loads,
            self.own_updates + other.own_updates,
            self.function_locals + other.function_locals,
            self.imported + other.imported,
            self.strings + other.strings,
        )


def tree_names(tree: ast.AST) -> TreeNames:
    found = TreeNames()
    loads, own_updates = found.loads, found.own_updates
    # (node, inside a function, the names the enclosing assignment updates)
    stack: list[tuple[ast.AST, bool, frozenset[str]]] = [(tree, False, frozenset())]
    while stack:
        node, in_function, updating = stack.pop()
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            loads["." + node.attr] += 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] += 1
            if node.id in updating:
                own_updates[node.id] += 1
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.strings[node.value] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.imported.update(
                (alias.asname or alias.name).split(".")[0] for alias in node.names
            )
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = frozenset(t.id for t in targets if isinstance(t, ast.Name))
            if in_function:
                found.function_locals.update(names)
            if node.value is not None and not isinstance(node, ast.AnnAssign):
                stack.append((node.value, in_function, names))
                stack.extend(
                    (child, in_function, updating)
                    for child in ast.iter_child_nodes(node)
                    if child is not node.value
                )
                continue
        in_function = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        stack.extend((child, in_function, updating) for child in ast.iter_child_nodes(node))
    return found
