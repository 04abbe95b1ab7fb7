"""Discovery: names that hold one literal everywhere and are read in a condition, i.e. stale flags.

`scan_file` parses each file once with the standard `ast` (in a process pool when the tree
is large) and records, per name, its literal definitions, everything else that could give it
a value, and its reads. `discover` merges those facts across the repository and keeps a name
only if nothing anywhere can give it another value; this is conservative by name, as the
engine is: `node.x = y` in any file disqualifies every `x`. Then each candidate's folds are
counted, from the trees by the engine's rules (fast), or with `exact` by running the engine
with the name as the only flag (the cascade included, slow on big files); a candidate that
folds nothing is dropped: a constant that is only inlined is no stale flag.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import contextlib
import functools
import gc
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, TypeVar

from prune_flags.pool import process_pool
from prune_flags.config import Config, Flag, find_project_root
from prune_flags.values import UNKNOWN, same_value
from prune_flags.files import SourceError, discover_python_files, read_source
from prune_flags.index import Site, literal, template_read
from prune_flags.report import OVERRIDDEN, Refusal, Report, Skipped
from prune_flags.scoping import qualified
from prune_flags.shapes import (
    FlagNames,
    Template,
    ast_unfold,
    parse_template,
    parse_writer,
)

# Kinds of definition a candidate is listed with; "parameter" ones are also local bindings.
ATTRIBUTE, CLASS_ATTRIBUTE, FIELD, MODULE_CONSTANT, PARAMETER = (
    "attribute", "class-attribute", "field", "module-constant", "parameter",
)  # fmt: skip
# Definitions through the config's templates: a writer call with a literal value
# (`flags.DEFINE_boolean("use_w", False, "...")`, `set_config("x", True)`), and a flag object
# (`use_x = config.bool_state(name="app_use_x", default=False)`) that accessors read.
WRITER, FLAG_OBJECT = "writer", "flag-object"
BRANCH_ACTIONS = frozenset(
    {"removed-branch", "folded-branch", "folded-branch-kept-call", "removed-loop"}
)
INLINED = "inlined"  # the engine's action for a read that became the constant

# Calls that write an attribute named by a string argument: setattr(obj, "x", v),
# monkeypatch.setattr(obj, "x", v), mock.patch("pkg.mod.x"), patch.object(obj, "x").
WRITER_CALLS = frozenset(
    {"setattr", "delattr", "__setattr__", "__delattr__", "patch", "object", "setitem"}
)
# Command-line options whose destination becomes a name: argparse, optparse, click, typer.
OPTION_CALLS = frozenset({"add_argument", "add_option", "option", "Option", "argument", "Argument"})
READER_CALLS = frozenset({"getattr", "hasattr"})
ENVIRONMENT_CALLS = frozenset({"getenv", "putenv", "unsetenv", "get", "pop", "setdefault"})
SPECIAL_CALLS = WRITER_CALLS | OPTION_CALLS | READER_CALLS | ENVIRONMENT_CALLS
# Class decorators that leave class-body literals as plain attributes or constructor fields.
FIELD_DECORATORS = frozenset({"dataclass", "define", "frozen", "mutable", "s", "attrs"})
HARMLESS_DECORATORS = FIELD_DECORATORS | {"total_ordering", "final", "runtime_checkable"}
FUNCTION_DECORATORS = frozenset({"staticmethod", "classmethod"})
# Bases whose instances keep ordinary attribute semantics; any other base outside the
# repository may write attributes we cannot see (torch.nn.Module sets `training`).
SAFE_BASES = frozenset(
    {"ABC", "Generic", "Protocol", "NamedTuple"}
    | {name for name, value in vars(builtins).items() if isinstance(value, type)}
)
# Builtins whose results are objects from outside the repository (open(f).closed), but
# not type(self).x or super().x, which read the repository's own classes.
EXTERNAL_BUILTINS = frozenset(dir(builtins)) - {"type", "super", "object", "self", "cls"}
PARALLEL_MIN_BYTES = 2_000_000  # below this one process parses faster than a pool starts
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_FLAG_STRING = re.compile(r"[\w.-]+")  # strings a template may read as a flag's name
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Definition:
    """A literal definition of a name: `self.x = False`, `X = 3`, `x: bool = False`, `def f(x=None)`."""

    name: str
    site: Site
    kind: str
    value: object
    owner: str | None = None  # the enclosing class
    position: int | None = (
        None  # a field's place among its class's fields; a parameter's positional place
    )
    # A parameter's function; None: one with callers we cannot see (a lambda, a dunder, decorated).
    function: str | None = None
    method: bool = False  # a parameter's function is bound to its first argument


@dataclass(frozen=True)
class ClassFacts:
    name: str
    bases: tuple[
        str | None, ...
    ]  # None: a base that is not a plain name (a call, a subscript of a call)
    plain_header: (
        bool  # no metaclass, keywords or decorators that could change what its attributes hold
    )
    has_fields: bool  # dataclass-like: its annotated class-body names are constructor parameters


@dataclass(frozen=True)
class FileFacts:
    """What one file tells about every name: picklable, so workers can send it back."""

    path: str
    definitions: tuple[Definition, ...] = ()
    disqualified: frozenset[str] = frozenset()  # names something here may give another value
    local_bindings: frozenset[str] = (
        frozenset()
    )  # names bound in functions (disqualify parameters only)
    stored: frozenset[str] = frozenset()  # attribute, class-level and module-level names bound here
    mentions: frozenset[str] = frozenset()  # every name and identifier string in the code
    reads: Mapping[str, int] = field(
        default_factory=dict
    )  # x.name, module-level names, getattr(o, "name")
    condition_reads: Mapping[str, int] = field(default_factory=dict)
    # Bare reads of a name inside a function that has it as a parameter with a literal default.
    parameter_reads: Mapping[str, int] = field(default_factory=dict)
    parameter_condition_reads: Mapping[str, int] = field(default_factory=dict)
    environment: frozenset[str] = frozenset()  # environment variable names read or written
    keyword_values: Mapping[str, frozenset[str]] = field(
        default_factory=dict
    )  # name=literal, as repr
    imports: tuple[
        tuple[str, bool], ...
    ] = ()  # (name, from a repository module) for `from m import name`
    calls: Mapping[str, int] = field(
        default_factory=dict
    )  # callee name -> most positional arguments
    splat_calls: frozenset[str] = frozenset()  # callee names called with *args or **kwargs
    value_refs: frozenset[str] = (
        frozenset()
    )  # names used other than as a callee (callbacks, partial)
    spelled: frozenset[str] = frozenset()  # identifiers a string spells: getattr(o, "f"), "__all__"
    computed_names: frozenset[tuple[str, str]] = (
        frozenset()
    )  # (prefix, suffix) of getattr(o, "visit_" + kind)
    functions: frozenset[str] = frozenset()  # every function defined, at any depth
    keyword_callees: frozenset[tuple[str, str]] = (
        frozenset()
    )  # (keyword, callee) for name=literal at calls
    classes: tuple[ClassFacts, ...] = ()
    self_reads: frozenset[tuple[str, str]] = (
        frozenset()
    )  # (class, attribute) for self.x read in its methods
    # Where each name is read in a test: the lines of the outermost functions and top-level
    # statements around, all that counting its folds needs to parse again.
    segments: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    module_bound: frozenset[str] = frozenset()  # names read in a test that the module binds
    # Reads through the config's accessor templates (counted in `reads` too), the names such a
    # read spells as a string (`features.has("x")`), and those it reads as a bare name
    # (`use_x.value`, which a local of that name would read instead).
    template_reads: Mapping[str, int] = field(default_factory=dict)
    named_template_reads: frozenset[str] = frozenset()
    bare_template_reads: frozenset[str] = frozenset()
    error: str | None = None


@dataclass(frozen=True)
class Override:
    """A write of another value that the config's decision removes, in the engine's words."""

    site: Site
    reason: str  # "overrode fast = True (the config fixes it at False)"

    def __str__(self) -> str:
        return f"{self.site}: {self.reason}"


@dataclass(frozen=True)
class Candidate:
    name: str
    value: object
    kinds: tuple[str, ...]
    definitions: tuple[Site, ...]
    reads: int
    condition_reads: int
    branches: int = 0
    lines_removed: int = 0
    lines_added: int = 0
    functions: tuple[str, ...] = ()  # a parameter's functions
    named: bool = False  # the user named it: listed as apply treats it, whatever find's rules say
    overridden: tuple[Override, ...] = ()  # a named flag's writes of another value, which go
    scope: str = ""  # a named flag's qualified key's module and owner (see config.Flag)

    @property
    def source(self) -> str:
        return repr(self.value)

    @property
    def key(self) -> str:
        """The name as a config spells it: qualified when the user scoped the flag."""
        return f"{self.scope}.{self.name}" if self.scope else self.name

    def flag(self) -> Flag:
        return Flag(self.name, self.value, self.source, scope=self.scope)

    @property
    def lines(self) -> int:
        """Lines that would go: removed minus added (a fold dedents the live branch)."""
        return self.lines_removed - self.lines_added


@dataclass(frozen=True)
class FindResult:
    candidates: tuple[Candidate, ...]
    files: int
    skipped: tuple[Skipped, ...] = ()
    exact: bool = False  # counted by the engine, cascade included; else folds counted from the tree
    named: tuple[Flag, ...] = ()  # the flags the user named (config and --flag)
    refused: tuple[Refusal, ...] = ()  # those of them apply refuses, as its report says
    # The config's keys that say how flags are read, written and declared as options: the
    # config written keeps them, or apply would not see the flags it lists.
    shapes: tuple[tuple[str, tuple[str, ...]], ...] = ()


# The keys of the config that `--config-out` carries over: without them, apply would not read
# (accessors), remove (writers) or clean the options (option_calls) of the flags found through them.
SHAPE_KEYS = ("accessors", "writers", "option_calls")


@dataclass(frozen=True)
class Decided:
    """What apply does with the flags the user named, from the engine's own run: the flags it
    prunes, each with the writes it overrides, the refused ones, and the files it skipped."""

    flags: tuple[Flag, ...] = ()  # every flag named
    pruned: tuple[tuple[Flag, tuple[Override, ...]], ...] = ()
    refused: tuple[Refusal, ...] = ()
    skipped: tuple[Skipped, ...] = ()


# -- scanning one file -----------------------------------------------------------------------


def _is_plain(value: object) -> bool:
    """Values a flag can be fixed at: immutable literals whose repr reads back as themselves."""
    if isinstance(value, tuple):
        return all(_is_plain(item) for item in value)
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    return value is None or isinstance(value, (bool, int, str))


def _parameter_defaults(args: ast.arguments) -> list[tuple[int | None, ast.arg, ast.expr | None]]:
    """Each parameter that can have a default, with its position (None: keyword-only) and its
    default (None: it has none)."""
    positional = [*args.posonlyargs, *args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += args.defaults
    return [
        *((position, arg, default) for (position, arg), default in zip(enumerate(positional), defaults)),
        *((None, arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults)),
    ]


def _plain_literal(node: ast.expr | None) -> object:
    value: object
    if node.__class__ is ast.Constant:
        value = node.value  # type: ignore[union-attr]
    elif node.__class__ in (
        ast.UnaryOp,
        ast.Tuple,
        ast.BinOp,
    ):  # -1, (1, 2), "a" "b" is a Constant already
        value = literal(node)
    else:
        return UNKNOWN  # the common case, without literal_eval's exception
    return value if value is not UNKNOWN and _is_plain(value) else UNKNOWN


def _is_field_call(value: ast.expr | None) -> bool:
    """dataclasses.field(...), attr.ib(...), attrs.field(...)."""
    return isinstance(value, ast.Call) and _callee(value.func) in ("field", "ib", "attrib")


def _field_default(value: ast.expr | None) -> object:
    """A field's literal default: `= False` or `= field(default=False, ...)`, else UNKNOWN."""
    if isinstance(value, ast.Call) and _is_field_call(value):
        defaults = [keyword.value for keyword in value.keywords if keyword.arg == "default"]
        return _plain_literal(defaults[0]) if defaults else UNKNOWN
    return _plain_literal(value) if value is not None else UNKNOWN


def _callee(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _root(node: ast.expr) -> str | None:
    """The name an attribute chain starts from: `torch` in torch.cuda.current_device().x."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return None


def _option_destinations(option: str) -> list[str]:
    """The names an option string may set: "--fast/--no-fast" -> fast, no_fast (argparse, click)."""
    return [part.lstrip("-").replace("-", "_") for part in option.split("/")]


@dataclass
class _Scope:
    kind: str  # "module", "class", "function", "comprehension"
    name: str | None = None  # a class's name
    has_fields: bool = False
    field_count: int = 0
    global_names: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Templates:
    """The config's `accessors` and `writers` as find reads them: the patterns, picklable for the
    workers, each parsed once a process (see `parsed`)."""

    accessors: tuple[str, ...] = ()
    writers: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: Config) -> Templates:
        return cls(tuple(settings.accessors), tuple(settings.writers))

    def parsed(self) -> tuple[tuple[Template, ...], tuple[Template, ...]]:
        return _parsed_templates(self.accessors, self.writers)


@functools.lru_cache(maxsize=None)
def _parsed_templates(
    accessors: tuple[str, ...], writers: tuple[str, ...]
) -> tuple[tuple[Template, ...], tuple[Template, ...]]:
    return tuple(parse_template(p) for p in accessors), tuple(parse_writer(p) for p in writers)


# find takes a flag's name from a template read or a writer call only where it is a literal: a
# constant holding it (`EXPRESS = "use_x"`) spells it in a string, which rules the name out.
_LITERAL_NAMES = FlagNames({}, {})


class _Scanner:
    """One pass over a module's tree; every handler records facts, then visits what it holds."""

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
        # The literal-default parameters of each enclosing function, and how many of them bind each name.
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
        self.scopes = [_Scope("module")]
        self.current_class: str | None = None  # the innermost class around, methods included
        self.tests = 0  # > 0 inside an if/while/ternary/comprehension test or an assert
        self.segment = (0, 0)  # the lines of the outermost function or top-level statement here
        self.segments: dict[str, set[tuple[int, int]]] = {}
        self.counted: set[int] = set()  # the and/or nodes whose reads are counted (by id)
        self.in_function = 0
        self.top_level: set[str] = set()  # what the module binds at its top level

    def visit(self, node: ast.AST) -> None:
        # Names and strings, a third of a tree, are handled here without a call of their own.
        kind = node.__class__
        if kind is _NAME:  # a name used other than as a callee: as a value it may escape
            if self.naming and id(node) in self.naming:
                return  # `use_x` of `use_x.value`, read through a template
            name = node.id  # type: ignore[attr-defined]
            self.value_refs.add(name)
            self.mentions.add(name)
            if node.ctx.__class__ is not _LOAD:  # type: ignore[attr-defined]
                self.bind_name(name, UNKNOWN, node.lineno)  # type: ignore[attr-defined]
                return
            reads = self.name_reads
            reads[name] = reads.get(name, 0) + 1
            if name in self.parameter_names:
                reads = self.parameter_reads
                reads[name] = reads.get(name, 0) + 1
            return
        if kind is _CONSTANT:
            value = node.value  # type: ignore[attr-defined]
            if value.__class__ is str and len(value) < 80:
                if not (self.naming and id(node) in self.naming):
                    self.string(value)
            return
        # Every other kind: its handler, or its children.
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, node)
            return
        # By hand rather than ast.iter_child_nodes: this loop runs for many nodes of the tree.
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _child_fields(kind)
        visit = self.visit
        for name in fields:
            child = getattr(node, name)
            if child.__class__ is list:
                for item in child:
                    if item is not None and item.__class__ is not str:
                        visit(item)
            elif child is not None and isinstance(child, ast.AST):
                visit(child)

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
        for read in _deciding_reads(test, self.counted, templated):
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
        self.top_level = _module_bindings(node)
        for statement in node.body:
            self.segment = (_first_line(statement), statement.end_lineno or statement.lineno)
            self.visit(statement)

    def site(self, line: int) -> Site:
        return Site(self.path, line)

    # -- bindings ---------------------------------------------------------------------------
    def binding_scope(self) -> _Scope:
        """The scope a name binds in: a comprehension's := binds in the scope around it."""
        return next(scope for scope in reversed(self.scopes) if scope.kind != "comprehension")

    def bind_name(self, name: str, value: object, line: int, scope: _Scope | None = None) -> None:
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
            if value is UNKNOWN:
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
        self.definitions.append(Definition(name, self.site(line), kind, value, **where))  # type: ignore[arg-type]

    def assign(self, node: ast.Assign) -> None:
        target = node.targets[0]
        if self.in_fields() and isinstance(target, ast.Name) and _is_field_call(node.value):
            self.field(target.id, node.value, node.lineno)  # attrs: x = attr.ib(default=False)
        elif not (self.accessors and self.flag_object(node)):
            value = _plain_literal(node.value)
            for target in node.targets:
                self.bind_target(target, value, node.lineno)
        self.visit(node.value)

    def flag_object(self, node: ast.Assign) -> bool:
        """`use_x = config.bool_state(name="app_use_x", default=False)` at module level: a flag
        object's definition at its literal `default=` (find proposes no other value; none without
        a literal default). Whether it is a flag is decided by the repository: read only through
        the accessors, by its identifier (see _Repository.object_holds). A string in the call
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
        value = _plain_literal(defaults[0]) if defaults else UNKNOWN
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
        default = _field_default(value)
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
            self.bind_target(target, _plain_literal(node.value), node.lineno)
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
        self.bind_name(
            node.target.id, _plain_literal(node.value), node.lineno, self.binding_scope()
        )
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
            if not internal:
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

    # -- definitions ------------------------------------------------------------------------
    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        decorators = {
            _callee(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list
        }
        self.visit_all(node.decorator_list)
        self.visit_all([*node.args.defaults, *node.args.kw_defaults])
        self.bind_name(node.name, UNKNOWN, node.lineno)
        self.functions.add(node.name)
        # Parameters of decorated functions, dunders and lambdas are filled by callers we cannot see.
        callable_by_name = decorators <= FUNCTION_DECORATORS and not node.name.startswith("__")
        scope = self.scopes[-1]
        owner = scope.name if scope.kind == "class" else None
        positional = [*node.args.posonlyargs, *node.args.args]
        method = (owner is not None and "staticmethod" not in decorators) or (
            bool(positional) and positional[0].arg in ("self", "cls")
        )
        self.scopes.append(_Scope("function"))
        parameters = self.parameters(
            node.args, node.name if callable_by_name else None, method, owner
        )
        self.enter_parameters(parameters)
        outer = self.segment
        if not self.in_function:
            self.segment = (_first_line(node), node.end_lineno or node.lineno)
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
        for position, arg, default in _parameter_defaults(args):
            value = _plain_literal(default) if default is not None else UNKNOWN
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

    def parameter_value(self, name: str) -> object:
        """The default of the innermost enclosing parameter of that name, else UNKNOWN."""
        if name in self.parameter_names:
            for parameters in reversed(self.parameter_scopes):
                if name in parameters:
                    return parameters[name]
        return UNKNOWN

    def lambda_(self, node: ast.Lambda) -> None:
        self.visit_all([*node.args.defaults, *node.args.kw_defaults])
        self.scopes.append(_Scope("function"))
        parameters = self.parameters(node.args, None, False)
        self.enter_parameters(parameters)
        self.visit(node.body)
        self.leave_parameters(parameters)
        self.scopes.pop()

    def class_(self, node: ast.ClassDef) -> None:
        self.visit_all([*node.decorator_list, *node.bases, *node.keywords])
        self.bind_name(node.name, UNKNOWN, node.lineno)
        decorators = {
            _callee(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list
        }
        bases = tuple(
            _callee(base.value if isinstance(base, ast.Subscript) else base) for base in node.bases
        )
        has_fields = bool(decorators & FIELD_DECORATORS) or "NamedTuple" in bases
        plain_header = not node.keywords and decorators <= HARMLESS_DECORATORS
        self.classes.append(ClassFacts(node.name, bases, plain_header, has_fields))
        self.scopes.append(_Scope("class", node.name, has_fields))
        outer, self.current_class = self.current_class, node.name
        self.visit_all(node.body)
        self.current_class = outer
        self.scopes.pop()

    def comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> None:
        self.scopes.append(_Scope("comprehension"))
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

    # -- reads ------------------------------------------------------------------------------
    def test_first(self, node: ast.If | ast.While | ast.IfExp | ast.Assert) -> None:
        self.visit_condition(node.test)
        if isinstance(node, ast.Assert):
            self.visit_all([node.msg])
        elif isinstance(node, ast.IfExp):
            self.visit_all([node.body, node.orelse])
        else:
            self.visit_all([*node.body, *node.orelse])

    def bool_op(self, node: ast.BoolOp) -> None:
        # Inside a test, or inside an and/or counted already, the count around has it.
        if not self.tests and id(node) not in self.counted:
            self.count_deciding_reads(node)
        for value in node.values:
            self.visit(value)

    def read_attribute(self, node: ast.Attribute) -> None:
        if self.naming and id(node) in self.naming:
            # `config.use_x` of `config.use_x.value`, read through a template: `config` is read.
            self.visit(node.value)
            return
        if self.accessors:
            self.acted_on(node.value)
        name = node.attr
        self.mentions.add(name)
        if node.ctx.__class__ is not ast.Load:
            self.bind_target(node, UNKNOWN, node.lineno)
            return
        reads = self.attribute_reads
        reads[name] = reads.get(name, 0) + 1
        owner = node.value
        if owner.__class__ is ast.Name and owner.id in ("self", "cls"):  # type: ignore[attr-defined]
            if self.current_class is not None:
                self.self_reads.add((self.current_class, name))
        # os.sep, torch.cuda.x: an attribute of something outside the repository shares the name.
        elif _root(owner) in self.external:
            self.disqualified.add(name)
        self.visit(owner)

    def attribute(self, node: ast.Attribute) -> None:
        if self.accessors:
            self.template_use(node)
        if not (self.naming and id(node) in self.naming):
            self.value_refs.add(node.attr)
        self.read_attribute(node)

    def read_name(self, node: ast.Name) -> None:
        if self.naming and id(node) in self.naming:
            return  # `{name}()` read through a template
        name = node.id
        self.mentions.add(name)
        if node.ctx.__class__ is not _LOAD:
            self.bind_name(name, UNKNOWN, node.lineno)
            return
        reads = self.name_reads
        reads[name] = reads.get(name, 0) + 1
        if name in self.parameter_names:
            reads = self.parameter_reads
            reads[name] = reads.get(name, 0) + 1

    def string(self, value: str) -> None:
        # A string that spells a name may reach it through setattr, **{...}, an options table
        # ("spec-only" in distutils' user_options) or getattr: the name is out.
        bare = value.strip("-=")
        name = bare.replace("-", "_")
        if name.isidentifier():
            self.mentions.add(name)
            self.disqualified.add(name)
            self.spelled.add(name)
        if not bare.isidentifier() and _FLAG_STRING.fullmatch(bare):
            self.disqualified.add(bare)  # "dark-mode": a flag's name where a template reads it so

    def expression_statement(self, node: ast.Expr) -> None:
        if node.value.__class__ is not ast.Constant:  # a docstring names nothing
            self.statement_call = node.value
            self.visit(node.value)

    def compare(self, node: ast.Compare) -> None:
        if self.accessors:
            self.template_use(node)
        self.visit_all([node.left, *node.comparators])

    # -- the config's templates -------------------------------------------------------------
    def template_read(self, node: ast.expr) -> tuple[str, ast.expr, Template] | None:
        """index.template_read with the names find takes, once a node: the condition, the node
        itself and what acts on it all ask."""
        templates = self.accessors_by_kind.get(node.__class__)
        if templates is None:
            return None  # only a template of the node's kind can match it
        key = id(node)
        if key not in self.template_matches:
            self.template_matches[key] = template_read(templates, node, _LITERAL_NAMES)
        return self.template_matches[key]

    def template_name(self, node: ast.expr) -> str | None:
        """The flag a read through an accessor template names with a literal, or None."""
        read = self.template_read(node)
        return read[0] if read is not None else None

    def acted_on(self, receiver: ast.expr) -> None:
        """A template read that something acts on (`config.mode.value.upper()`, called,
        subscripted) cannot become the constant: that flag is out."""
        name = self.template_name(receiver)
        if name is not None:
            self.disqualified.add(name)

    def template_use(self, node: ast.expr) -> None:
        """`node` read through an accessor template is a read of the flag it names, and what
        names the flag in it is neither a plain read nor a string of it (the rest of it is
        visited as usual)."""
        read = self.template_read(node)
        if read is None:
            return
        name, carrier, _ = read
        self.naming.add(id(carrier))
        self.mentions.add(name)
        self.template_reads[name] = self.template_reads.get(name, 0) + 1
        if isinstance(carrier, ast.Constant):
            self.named_template_reads.add(name)
        elif isinstance(carrier, ast.Name):
            self.bare_template_reads.add(name)

    def template_store(self, target: ast.Attribute | ast.Subscript) -> None:
        """`options["x"] = v`, `config.x.value = v`, `del options["x"]`: another value, whatever
        it is (the cleanup keeps a store of the same one, which reads after it could see)."""
        name = self.template_name(target)
        if name is not None:
            self.disqualified.add(name)

    def writer_call(self, node: ast.Call) -> None:
        """A call of one of the config's writers: as a statement with a literal value
        (`flags.DEFINE_boolean("use_w", False, "...")`, `set_config("x", True)`) it defines the
        flag at that value; any other (another value, a decorator, a `with`, a call whose result
        is used) gives it a value find cannot tell. The string naming the flag is no write."""
        for shape in self.writers:
            written = shape.written_value(node, _LITERAL_NAMES)
            if written is None:
                continue
            name, argument, value = written
            if argument is not None:
                self.naming.add(id(argument))
            self.mentions.add(name)
            literal_value = _plain_literal(value)
            if literal_value is UNKNOWN or node is not self.statement_call:
                self.disqualified.add(name)
            else:
                self.define(name, WRITER, literal_value, node.lineno)
            return

    def subscript(self, node: ast.Subscript) -> None:
        if self.accessors:
            self.template_use(node)
            self.acted_on(node.value)
        if _callee(node.value) == "environ":
            self.environment.update(_strings([node.slice]))
        self.visit_all([node.value, node.slice])

    def call(self, node: ast.Call) -> None:
        func = node.func
        if self.accessors:
            self.template_use(node)
            self.acted_on(func)
        if self.writers:
            self.writer_call(node)
        kind = func.__class__
        callee = (
            func.id if kind is _NAME else func.attr if kind is _ATTRIBUTE else None  # type: ignore[attr-defined]
        )
        double_star = False
        visit = self.visit
        for keyword in node.keywords:
            if keyword.arg is None:
                double_star = True
            else:
                self.keyword(keyword.arg, keyword.value, callee)
            visit(keyword.value)
        if callee is None:
            visit(func)
        else:
            self.record_call(node, callee, double_star)
            if kind is _NAME:
                self.read_name(func)  # type: ignore[arg-type]
            else:
                self.read_attribute(func)  # type: ignore[arg-type]
        args = node.args
        if kind is _NAME and callee in READER_CALLS and len(args) > 1:
            # getattr(obj, "x") only reads x: its string is counted as a read, not a writer.
            for number, arg in enumerate(args):
                if not (number == 1 and arg.__class__ is _CONSTANT):
                    visit(arg)
        else:
            for arg in args:
                visit(arg)

    def keyword(self, name: str, value: ast.expr, callee: str | None) -> None:
        """Node(fast=True), replace(c, fast=x): a keyword passes another value unless it is the same
        literal. `f(fast=fast)` inside a function whose parameter `fast` defaults to a literal
        passes that literal (a caller that gives `fast` another value rules the name out anyway)."""
        literal_value = _plain_literal(value)
        if literal_value is UNKNOWN and value.__class__ is ast.Name and value.id == name:  # type: ignore[attr-defined]
            literal_value = self.parameter_value(name)
        if literal_value is UNKNOWN:
            self.disqualified.add(name)
        else:
            self.keyword_values.setdefault(name, set()).add(repr(literal_value))
            if callee is not None:
                self.keyword_callees.add((name, callee))

    def record_call(self, node: ast.Call, callee: str, double_star: bool) -> None:
        positional = len(node.args)
        for arg in node.args:
            if arg.__class__ is _STARRED:
                positional -= 1
                double_star = True
        # Every callee is listed, with no positional argument too: one never called is an entry point.
        if positional >= self.calls.get(callee, 0):
            self.calls[callee] = positional
        if double_star:
            self.splat_calls.add(callee)
        if callee in SPECIAL_CALLS:
            self.special_call(node, callee)

    def special_call(self, node: ast.Call, callee: str) -> None:
        strings = _strings(node.args)
        if callee in WRITER_CALLS:
            self.disqualified.update(string.rsplit(".", 1)[-1] for string in strings)
        elif callee in OPTION_CALLS:
            self.disqualified.update(
                name for string in strings for name in _option_destinations(string)
            )
            self.disqualified.update(_strings(k.value for k in node.keywords if k.arg == "dest"))
        elif callee in READER_CALLS and len(node.args) >= 2:
            for name in _strings([node.args[1]]):  # getattr(obj, "x") reads x
                self.mentions.add(name)
                self.spelled.add(name)
                self.attribute_reads[name] = self.attribute_reads.get(name, 0) + 1
            pattern = _computed_name(node.args[1])
            if pattern is not None:
                self.computed_names.add(pattern)
        elif callee.endswith("env") or _reads_environ(node.func):
            self.environment.update(strings)

    # -- result -----------------------------------------------------------------------------
    def facts(self) -> FileFacts:
        # A bare name read counts for a module-level flag only where the module binds it.
        module_names = self.module_names
        reads = (
            Counter(self.attribute_reads)
            + Counter({n: c for n, c in self.name_reads.items() if n in module_names})
            + Counter(self.template_reads)
        )
        condition_reads = (
            Counter(self.attribute_condition_reads)
            + Counter({n: c for n, c in self.name_condition_reads.items() if n in module_names})
            + Counter(self.template_condition_reads)
        )
        return FileFacts(
            path=self.path,
            definitions=tuple(self.definitions),
            disqualified=frozenset(self.disqualified),
            local_bindings=frozenset(self.local_bindings),
            stored=frozenset(self.stored),
            mentions=frozenset(self.mentions),
            reads=dict(reads),
            condition_reads=dict(condition_reads),
            parameter_reads=self.parameter_reads,
            parameter_condition_reads=self.parameter_condition_reads,
            environment=frozenset(self.environment),
            keyword_values={
                name: frozenset(values) for name, values in self.keyword_values.items()
            },
            imports=tuple(self.imports),
            calls=self.calls,
            splat_calls=frozenset(self.splat_calls),
            value_refs=frozenset(self.value_refs),
            spelled=frozenset(self.spelled),
            computed_names=frozenset(self.computed_names),
            functions=frozenset(self.functions),
            keyword_callees=frozenset(self.keyword_callees),
            classes=tuple(self.classes),
            self_reads=frozenset(self.self_reads),
            segments={
                name: tuple(sorted(spans))
                for name, spans in self.segments.items()
                if name in condition_reads or name in self.parameter_condition_reads
            },
            module_bound=frozenset(self.top_level.intersection(self.name_condition_reads)),
            template_reads=self.template_reads,
            named_template_reads=frozenset(self.named_template_reads),
            bare_template_reads=frozenset(self.bare_template_reads),
        )


_NAME, _CONSTANT, _ATTRIBUTE = ast.Name, ast.Constant, ast.Attribute
_STARRED, _LOAD = ast.Starred, ast.Load
_HANDLERS: dict[type, Callable[[_Scanner, Any], None]] = {
    ast.Assign: _Scanner.assign, ast.AnnAssign: _Scanner.ann_assign, ast.AugAssign: _Scanner.rebind,
    ast.Delete: _Scanner.rebind, ast.For: _Scanner.loop, ast.AsyncFor: _Scanner.loop,
    ast.With: _Scanner.with_, ast.AsyncWith: _Scanner.with_, ast.ExceptHandler: _Scanner.except_handler,
    ast.Import: _Scanner.import_, ast.ImportFrom: _Scanner.import_from,
    ast.FunctionDef: _Scanner.function, ast.AsyncFunctionDef: _Scanner.function,
    ast.Lambda: _Scanner.lambda_, ast.ClassDef: _Scanner.class_, ast.Global: _Scanner.global_,
    ast.NamedExpr: _Scanner.named_expr,
    ast.ListComp: _Scanner.comprehension, ast.SetComp: _Scanner.comprehension,
    ast.GeneratorExp: _Scanner.comprehension, ast.DictComp: _Scanner.comprehension,
    ast.If: _Scanner.test_first, ast.While: _Scanner.test_first, ast.IfExp: _Scanner.test_first,
    ast.Assert: _Scanner.test_first, ast.BoolOp: _Scanner.bool_op,
    ast.Attribute: _Scanner.attribute, ast.Call: _Scanner.call, ast.Subscript: _Scanner.subscript,
    ast.Expr: _Scanner.expression_statement, ast.Module: _Scanner.module,
    ast.Compare: _Scanner.compare,
    ast.MatchAs: _Scanner.match_capture, ast.MatchStar: _Scanner.match_capture,
    ast.MatchMapping: _Scanner.match_capture,
}  # fmt: skip

_CHILD_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _child_fields(node_type: type[ast.AST]) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes worth visiting (not contexts or operators)."""
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        skipped = ("ctx", "op", "ops", "type_comment")
        fields = _CHILD_FIELDS[node_type] = tuple(
            name for name in node_type._fields if name not in skipped
        )
    return fields


def _deciding_reads(
    test: ast.expr,
    counted: set[int] | None = None,
    templated: Callable[[ast.expr], str | None] | None = None,
) -> Iterable[ast.Attribute | ast.Name | str]:
    """The reads whose value alone may decide the test once inlined: through `not`, `and`/`or`,
    bool() and comparisons with literals, as the engine simplifies. `f(FLAG)` and `x >= LIMIT`
    stay unknown whatever the flag holds, so a name read only like that folds nothing. The ids
    of the and/or nodes gone through are added to `counted`. A read through an accessor
    template (a membership test `"x" in opts.enabled` included) is the name `templated` gives."""
    name = templated(test) if templated is not None else None
    if name is not None:
        yield name
    elif isinstance(test, (ast.Attribute, ast.Name)):
        yield test
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _deciding_reads(test.operand, counted, templated)
    elif isinstance(test, ast.BoolOp):
        if counted is not None:
            counted.add(id(test))
        for value in test.values:
            yield from _deciding_reads(value, counted, templated)
    elif isinstance(test, ast.Call) and _callee(test.func) == "bool" and len(test.args) == 1:
        yield from _deciding_reads(test.args[0], counted, templated)
    elif isinstance(test, ast.Compare):
        operands = [test.left, *test.comparators]
        unknown = [operand for operand in operands if _plain_literal(operand) is UNKNOWN]
        if len(unknown) == 1:
            yield from _deciding_reads(unknown[0], counted, templated)


def _strings(nodes: Iterable[ast.expr]) -> list[str]:
    return [
        node.value
        for node in nodes
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def _computed_name(node: ast.expr) -> tuple[str, str] | None:
    """The fixed start and end of a name built at run time: `"visit_" + kind`, f"do_{cmd}",
    `"on_%s" % event`, `"{}_hook".format(x)` -> ("visit_", ""), ("do_", ""), ("on_", ""), ("", "_hook").
    None for a literal or a name with nothing fixed."""
    parts: list[ast.expr]
    if isinstance(node, ast.JoinedStr):
        parts = list(node.values)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = []
        stack: list[ast.expr] = [node]
        while stack:  # flatten a + b + c, left to right
            item = stack.pop()
            if isinstance(item, ast.BinOp) and isinstance(item.op, ast.Add):
                stack += [item.right, item.left]
            else:
                parts.append(item)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        template = node.left
        if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
            return None
        pieces = template.value.split("%")
        return (pieces[0], "") if pieces[0] else None
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        text = node.func.value.value
        prefix, suffix = text.split("{")[0], text.rsplit("}", 1)[-1]
        return (prefix, suffix) if "{" in text and (prefix or suffix) else None
    else:
        return None
    fixed = [
        part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else None
        for part in parts
    ]
    prefix, suffix = fixed[0] or "", fixed[-1] or ""
    return (prefix, suffix) if prefix or suffix else None


def _first_line(statement: ast.stmt) -> int:
    """A statement's first line, its decorators included."""
    decorators = getattr(statement, "decorator_list", None)
    return (
        min(statement.lineno, *(d.lineno for d in decorators)) if decorators else statement.lineno
    )


def _reads_environ(func: ast.expr) -> bool:
    """os.environ.get(...), environ.setdefault(...)."""
    return isinstance(func, ast.Attribute) and _callee(func.value) == "environ"


def scan_file(
    path: Path,
    display: str,
    internal_modules: frozenset[str],
    mentions: bool = True,
    templates: Templates = Templates(),
) -> FileFacts:
    """Facts about every name in one file, the reads and writes through the config's
    `templates` included. A file that cannot be read or parsed disqualifies every identifier in
    its text: it might write any of them. `mentions` (every name the file mentions) only serve
    to measure with the engine; without them the facts travel lighter."""
    try:
        text = read_source(path).text
    except SourceError as err:
        return _unparsed(display, _raw_text(path), str(err))
    with _collector_paused():
        try:
            scanner = _Scanner(display, internal_modules, templates)
            scanner.visit(ast.parse(text))
            facts = scanner.facts()
        except SyntaxError as err:
            return _unparsed(display, text, f"does not parse: {err.msg} (line {err.lineno})")
        except (RecursionError, MemoryError, ValueError):
            return _unparsed(display, text, "too deeply nested to analyse")
    return facts if mentions else replace(facts, mentions=frozenset())


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Trees and facts hold no cycles: the collector would only rescan them, over and over, as
    they grow (a parse makes a million objects; the facts of a big repository as many)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _raw_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _unparsed(display: str, text: str, error: str) -> FileFacts:
    words = frozenset(_IDENTIFIER.findall(text))
    return FileFacts(
        path=display, disqualified=words, local_bindings=words, mentions=words, error=error
    )


# -- merging across the repository ------------------------------------------------------------


@dataclass
class _Repository:
    """Every file's facts merged by name."""

    internal_modules: frozenset[str]
    definitions: dict[str, list[Definition]] = field(default_factory=dict)
    disqualified: set[str] = field(default_factory=set)
    local_bindings: set[str] = field(default_factory=set)
    environment: set[str] = field(default_factory=set)
    keyword_values: dict[str, set[str]] = field(default_factory=dict)
    imports: dict[str, set[bool]] = field(default_factory=dict)
    reads: Counter[str] = field(default_factory=Counter)
    condition_reads: Counter[str] = field(default_factory=Counter)
    parameter_reads: Counter[str] = field(default_factory=Counter)
    parameter_condition_reads: Counter[str] = field(default_factory=Counter)
    calls: dict[str, int] = field(default_factory=dict)
    splat_calls: set[str] = field(default_factory=set)
    value_refs: set[str] = field(default_factory=set)
    spelled: set[str] = field(default_factory=set)
    computed_names: set[tuple[str, str]] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    keyword_callees: dict[str, set[str]] = field(default_factory=dict)
    classes: dict[str, list[ClassFacts]] = field(default_factory=dict)
    self_reads: set[tuple[str, str]] = field(default_factory=set)
    template_reads: Counter[str] = field(default_factory=Counter)
    named_template_reads: set[str] = field(default_factory=set)
    bare_template_reads: set[str] = field(default_factory=set)
    _plain: dict[str, bool] = field(default_factory=dict)
    _subclasses: dict[str, frozenset[str]] = field(default_factory=dict)
    _children: dict[str, set[str]] | None = None

    def add(self, facts: FileFacts) -> None:
        for definition in facts.definitions:
            self.definitions.setdefault(definition.name, []).append(definition)
        self.disqualified |= facts.disqualified
        self.local_bindings |= facts.local_bindings
        self.environment |= {name.lower() for name in facts.environment}
        for name, values in facts.keyword_values.items():
            self.keyword_values.setdefault(name, set()).update(values)
        for name, internal in facts.imports:
            self.imports.setdefault(name, set()).add(internal)
        self.reads.update(facts.reads)
        self.condition_reads.update(facts.condition_reads)
        self.parameter_reads.update(facts.parameter_reads)
        self.parameter_condition_reads.update(facts.parameter_condition_reads)
        for callee, count in facts.calls.items():
            self.calls[callee] = max(self.calls.get(callee, 0), count)
        self.splat_calls |= facts.splat_calls
        self.value_refs |= facts.value_refs
        self.spelled |= facts.spelled
        self.computed_names |= facts.computed_names
        self.functions |= facts.functions
        for name, callee in facts.keyword_callees:
            self.keyword_callees.setdefault(name, set()).add(callee)
        for class_facts in facts.classes:
            self.classes.setdefault(class_facts.name, []).append(class_facts)
        self.self_reads |= facts.self_reads
        self.template_reads.update(facts.template_reads)
        self.named_template_reads |= facts.named_template_reads
        self.bare_template_reads |= facts.bare_template_reads

    def rule_out_inherited_attributes(self) -> None:
        """`self.training` in a torch.nn.Module subclass is torch's to set, whatever the repository
        writes elsewhere: what a class outside the repository's reach reads of itself is out."""
        self.disqualified |= {name for owner, name in self.self_reads if not self.plain(owner)}

    # -- what can give a name another value ---------------------------------------------------
    def written_elsewhere(self, name: str) -> bool:
        """Anything but a literal definition: a write, setattr, keyword, option, env var, import."""
        return (
            name in self.disqualified
            or name.lower() in self.environment
            or not self.imports_resolve(name)
        )

    def imports_resolve(self, name: str) -> bool:
        """`from m import name` binds the repository's constant only if m is ours and name no submodule."""
        found = self.imports.get(name)
        if not found:
            return True
        return found == {True} and name not in self.internal_modules

    def plain(self, class_name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether the class's attributes hold what the repository writes: no metaclass, no base
        from outside the repository that could write them, no enum."""
        if class_name in SAFE_BASES:
            return True
        if class_name not in self.classes or class_name in seen:
            return False
        if class_name not in self._plain:
            self._plain[class_name] = all(
                facts.plain_header
                and all(
                    base is not None and self.plain(base, seen | {class_name})
                    for base in facts.bases
                )
                for facts in self.classes[class_name]
            )
        return self._plain[class_name]

    def subclasses(self, class_name: str) -> frozenset[str]:
        """The class and every class below it, by name."""
        children = self._children
        if children is None:
            children = self._children = {}
            for facts_list in self.classes.values():
                for facts in facts_list:
                    for base in facts.bases:
                        if base is not None:
                            children.setdefault(base, set()).add(facts.name)
        known = self._subclasses.get(class_name)
        if known is None:
            found, stack = {class_name}, [class_name]
            while stack:
                for child in children.get(stack.pop(), ()):
                    if child not in found:
                        found.add(child)
                        stack.append(child)
            known = self._subclasses[class_name] = frozenset(found)
        return known

    def field_set_by_constructor(self, definition: Definition) -> bool:
        """A field that a call of its class (or a subclass) may fill positionally or from **kwargs."""
        assert definition.owner is not None and definition.position is not None
        return any(
            constructor in self.splat_calls or self.calls.get(constructor, 0) > definition.position
            for constructor in self.subclasses(definition.owner)
        )

    def parameter_holds(self, definition: Definition) -> bool:
        """Whether no call can give the parameter another value than its default: its function is
        called by name in the repository (one never called is an entry point, a hook or an API
        whose callers are elsewhere), never with *args or **kwargs, by no call that reaches its
        place, never used as a value (a callback, an alias, partial), spelled by no string
        (getattr(o, "f"), __all__) or name built at run time ("visit_" + kind), and is not a
        method of a class that code outside the repository may call (a base, or a subclass with a
        base, from outside). Keywords are checked by name, as for every kind."""
        function = definition.function
        if function is None or function not in self.calls:
            return False
        if function in self.value_refs or function in self.splat_calls or function in self.spelled:
            return False
        if any(
            function.startswith(prefix) and function.endswith(suffix)
            for prefix, suffix in self.computed_names
        ):
            return False
        owner = definition.owner
        if owner is not None and not all(self.plain(name) for name in self.subclasses(owner)):
            return False
        if definition.position is None:  # keyword-only: only a keyword replaces it
            return True
        # A bound method's first positional argument fills place 1; a plain call fills place 0.
        reach = self.calls[function] + (1 if definition.method else 0)
        return reach <= definition.position

    def object_holds(self, name: str) -> bool:
        """A flag object is the flag only where the accessors read it by its identifier
        (`config.use_x.value`, `use_x.value`): any other read (`if use_x:`, `use_x.set(True)`,
        `f(config.use_x)`) uses the object, and a template naming it by a string
        (`features.has("use_x")`) reads something else than its default."""
        only_templates = self.reads[name] == self.template_reads[name]
        return only_templates and name not in self.named_template_reads

    def definition_holds(self, definition: Definition) -> bool:
        if definition.kind == PARAMETER:
            return self.parameter_holds(definition)
        if definition.kind == FLAG_OBJECT:
            return self.object_holds(definition.name)
        if definition.owner is not None and not self.plain(definition.owner):
            return False
        return not (definition.kind == FIELD and self.field_set_by_constructor(definition))

    # -- candidates -----------------------------------------------------------------------
    def candidate(self, name: str) -> Candidate | None:
        if name.startswith("__") or self.written_elsewhere(name):
            return None
        # `use_x.value` in a function with a local `use_x` reads the local, which the cleanup
        # leaves alone while find's counts would fold it.
        if name in self.bare_template_reads and name in self.local_bindings:
            return None
        definitions = self.definitions[name]
        shared = [d for d in definitions if d.kind != PARAMETER]
        if shared:
            found = self.listed(name, shared, self.reads[name], self.condition_reads[name])
            # The cleanup takes a parameter that defaults to the flag's value for the flag too.
            same = [
                d
                for d in definitions
                if d.kind == PARAMETER and found is not None and same_value(d.value, found.value)
            ]
            return found if all(self.parameter_holds(d) for d in same) else None
        # A parameter is a local name: any other local binding of the name may be it, rebound.
        # The cleanup inlines `x.name` as the flag too: an attribute of that name is out.
        if name in self.local_bindings or self.reads[name] or self.keyword_elsewhere(name):
            return None
        found = self.listed(
            name, definitions, self.parameter_reads[name], self.parameter_condition_reads[name]
        )
        functions = tuple(sorted({d.function for d in definitions if d.function is not None}))
        return replace(found, functions=functions) if found is not None else None

    def keyword_elsewhere(self, name: str) -> bool:
        """`name=` passed to a function or class of the repository that has no such parameter
        (it may forward it anywhere): the cleanup would refuse the flag."""
        owners = {d.function for d in self.definitions[name]} | {"__init__"}
        return any(
            callee not in owners and (callee in self.functions or callee in self.classes)
            for callee in self.keyword_callees.get(name, ())
        )

    def listed(
        self, name: str, definitions: list[Definition], reads: int, condition_reads: int
    ) -> Candidate | None:
        # One value everywhere, keywords at calls included; repr tells False from 0 and 0.0.
        values = {repr(d.value) for d in definitions} | self.keyword_values.get(name, set())
        if (
            len(values) != 1
            or not condition_reads
            or not all(self.definition_holds(d) for d in definitions)
        ):
            return None
        return Candidate(
            name=name,
            value=definitions[0].value,
            kinds=tuple(sorted({d.kind for d in definitions})),
            definitions=tuple(
                sorted({d.site for d in definitions}, key=lambda s: (s.path, s.line))
            ),
            reads=reads,
            condition_reads=condition_reads,
        )

    def named(self, flag: Flag, overridden: tuple[Override, ...]) -> Candidate:
        """A flag the user named and the engine prunes, at the configured value, whatever find's
        own rules say: its definitions are the literal ones seen (a parameter only where the name
        has no other kind, as `candidate` takes them) and the writes it overrides (a computed
        definition among them); its reads those of that kind."""
        found = self.definitions.get(flag.name, [])
        definitions = [d for d in found if self.in_scope(d, flag.scope)]
        shared = [d for d in definitions if d.kind != PARAMETER]
        parameter = not shared and bool(definitions)
        chosen = shared or definitions
        reads, condition_reads = (
            (self.parameter_reads, self.parameter_condition_reads)
            if parameter
            else (self.reads, self.condition_reads)
        )
        sites = {d.site for d in chosen} | {write.site for write in overridden}
        return Candidate(
            name=flag.name,
            value=flag.value,
            kinds=tuple(sorted({d.kind for d in chosen})),
            definitions=tuple(sorted(sites, key=lambda s: (s.path, s.line))),
            reads=reads[flag.name],
            condition_reads=condition_reads[flag.name],
            functions=tuple(sorted({d.function for d in chosen if d.function is not None})),
            named=True,
            overridden=overridden,
            scope=flag.scope,
        )

    def in_scope(self, definition: Definition, scope: str) -> bool:
        """Whether a definition is the one a qualified key's scope names (`pkg.mod` for a module
        constant, `pkg.mod.Class` for a class's attribute or field, `pkg.mod.func` for a
        parameter), or an override of that attribute in a subclass; every one is, unscoped."""
        if not scope:
            return True
        if definition.kind == PARAMETER:
            inner = ".".join(part for part in (definition.owner, definition.function) if part)
        else:
            inner, scoped_class = definition.owner or "", scope.rpartition(".")[2]
            if inner != scoped_class and inner in self.subclasses(scoped_class):
                return True
        home = qualified(definition.site.path, inner)
        # The key may leave out the directories above the package, as scoping.names_module.
        return home == scope or home.endswith("." + scope)


def discover(
    facts: Iterable[FileFacts],
    internal_modules: frozenset[str] = frozenset(),
    decided: Decided | None = None,
) -> tuple[Candidate, ...]:
    """Names with one literal value everywhere that a condition reads, before measuring, and the
    flags the user named that the engine prunes (see `decide`), each at its configured value; a
    named flag the engine refuses is no candidate, whatever find's own rules say of its name.

    Where the name has attribute, class-level or module-level definitions, only those are
    listed (a parameter sharing the name is a different variable); otherwise parameters.
    """
    repository = _Repository(internal_modules)
    for file_facts in facts:
        repository.add(file_facts)
    repository.rule_out_inherited_attributes()
    decided = decided or Decided()
    named = {flag.name for flag in decided.flags}
    own = (repository.candidate(n) for n in sorted(repository.definitions) if n not in named)
    listed = [repository.named(flag, overridden) for flag, overridden in decided.pruned]
    return tuple(candidate for candidate in own if candidate is not None) + tuple(listed)


# -- counting the folds from the tree (the default) ---------------------------------------------


class _FoldCounter:
    """The branches one flag folds in one module and the lines that go with them, from the `ast`,
    by the engine's rules: a test that is constant once the flag is inlined keeps only its live
    branch; comments just above a dead `if` go with it. Lines the cascade removes later (fields
    only the dead code read) are not counted: `exact` runs the engine for those."""

    def __init__(
        self,
        trees: Sequence[tuple[ast.Module, int]],
        lines: Sequence[str],
        name: str,
        value: object,
        parameter: bool = False,
        module_bound: bool = False,
        accessors: tuple[Template, ...] = (),
    ) -> None:
        """Counts over `trees`: the module's, or the parts of it that read the flag in a test
        (whole functions and top-level statements), each with what to add to its line numbers;
        `lines` are the module's, split as the tokenizer splits them; `module_bound`: the module
        binds the name at its top level; `accessors`: the config's templates that read flags."""
        self.lines_of_text = lines
        self.accessors = accessors
        self.name = name
        self.value = value
        # A parameter flag: its bare reads inside a function that has it as a parameter with
        # that default (the function's nested scopes included) are the flag.
        self.parameter = parameter
        self.in_parameter = 0
        # Only the statements whose lines spell the name can fold: the walk skips the rest.
        word = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        self.mentioned = [
            n for n, line in enumerate(lines, 1) if name in line and word.search(line)
        ]
        self.module_bound = module_bound
        self.shadowed = 0  # > 0 inside a function that binds the name itself
        self.branches = 0
        self.lines = 0
        self.used = False  # whether the flag's value went into the last truth
        self.offset = 0
        for tree, self.offset in trees:
            self.visit(tree)

    # -- values -------------------------------------------------------------------------------
    def constant(self, node: ast.expr) -> object:
        if self.accessors and (read := template_read(self.accessors, node, _LITERAL_NAMES)):
            if read[0] != self.name:
                return UNKNOWN  # another flag's read (config.use_y.value), not an attribute `value`
            found = read[2].match(node, ast_unfold)
            assert found is not None
            self.used = True
            # A membership read is a bool, as the cleanup inlines it: `"x" in opts.enabled`.
            return bool(self.value) != found.negated if found.membership else self.value
        if (
            isinstance(node, ast.Attribute)
            and node.attr == self.name
            and isinstance(node.ctx, ast.Load)
        ):
            self.used = True
            return self.value
        if (
            isinstance(node, ast.Name)
            and node.id == self.name
            and (self.in_parameter if self.parameter else self.module_bound and not self.shadowed)
        ):
            self.used = True
            return self.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            truth = self.truth(node.operand)
            return UNKNOWN if truth is None else not truth
        if isinstance(node, ast.Compare):
            return self.compare(node)
        return _plain_literal(node)

    def compare(self, node: ast.Compare) -> object:
        values = [self.constant(operand) for operand in (node.left, *node.comparators)]
        if any(value is UNKNOWN for value in values):
            return UNKNOWN
        try:
            return all(
                _compare(op, left, right) for op, left, right in zip(node.ops, values, values[1:])
            )
        except TypeError:
            return UNKNOWN

    def decided(self, test: ast.expr) -> bool | None:
        """The truth of a test the flag decides; None for one it does not (`if 0:`, `while True:`
        are the user's own constants, which the cleanup leaves alone)."""
        self.used = False
        truth = self.truth(test)
        return truth if self.used else None

    def truth(self, node: ast.expr) -> bool | None:
        """bool(node) once the flag is inlined, or None when it still depends on something else."""
        if isinstance(node, ast.BoolOp):
            truths = [self.truth(value) for value in node.values]
            deciding = isinstance(node.op, ast.Or)  # a true operand decides `or`, a false one `and`
            if deciding in truths:
                return deciding
            return (not deciding) if all(truth is not None for truth in truths) else None
        if isinstance(node, ast.Call) and _callee(node.func) == "bool" and len(node.args) == 1:
            return self.truth(node.args[0])
        value = self.constant(node)
        return None if value is UNKNOWN else bool(value)

    # -- the walk -----------------------------------------------------------------------------
    def mentions(self, node: ast.AST) -> bool:
        start = getattr(node, "lineno", None)
        if start is None:  # the module, arguments, comprehensions: no lines of their own
            return True
        after = bisect.bisect_left(self.mentioned, start + self.offset)
        return (
            after < len(self.mentioned)
            and self.mentioned[after] <= node.end_lineno + self.offset  # type: ignore[attr-defined]
        )

    def visit(self, node: ast.AST) -> None:
        if not self.mentions(node):
            return
        if isinstance(node, ast.If):
            self.fold_if(node, is_elif=False)
        elif isinstance(node, ast.While):
            self.fold_while(node)
        elif isinstance(node, ast.IfExp):
            self.fold_ternary(node)
        elif isinstance(node, ast.Assert) and self.decided(node.test):
            self.lines += _span(node)  # `assert True` goes
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if self.parameter:
                arguments = node.args
                self.visit_all([*node.args.defaults, *(d for d in arguments.kw_defaults if d)])
                defines = self.defines_parameter(arguments)
                self.in_parameter += defines
                body = node.body if isinstance(node.body, list) else [node.body]
                self.visit_all(body)
                self.in_parameter -= defines
                return
            binds = self.module_bound and self.name in _function_bindings(node)
            self.shadowed += binds
            self.visit_all(ast.iter_child_nodes(node))
            self.shadowed -= binds
        else:
            self.visit_all(ast.iter_child_nodes(node))

    def visit_all(self, nodes: Iterable[ast.AST]) -> None:
        for node in nodes:
            self.visit(node)

    def defines_parameter(self, arguments: ast.arguments) -> bool:
        return any(
            argument.arg == self.name
            and default is not None
            and same_value(_plain_literal(default), self.value)
            for _, argument, default in _parameter_defaults(arguments)
        )

    def fold_if(self, node: ast.If, is_elif: bool) -> None:
        truth = self.decided(node.test)
        orelse = node.orelse
        has_elif = (
            len(orelse) == 1
            and isinstance(orelse[0], ast.If)
            and orelse[0].col_offset == node.col_offset
        )
        if truth is None:
            self.visit_all([node.test, *node.body])
            if has_elif:
                self.fold_if(orelse[0], is_elif=True)  # type: ignore[arg-type]
            else:
                self.visit_all(orelse)
            return
        self.branches += 1
        header = node.test.end_lineno - node.lineno + 1  # type: ignore[operator]
        if truth:
            # The header goes (an elif's becomes `else:`), the body stays dedented, later branches go.
            after = node.end_lineno - node.body[-1].end_lineno if orelse else 0  # type: ignore[operator]
            self.lines += header - is_elif + after
            self.visit_all(node.body)
        elif not orelse:
            self.lines += _span(node) + (0 if is_elif else self.comments_above(node))
        else:
            # Header and body go; an `elif` below becomes the `if`, an `else:` line goes with them.
            gone = orelse[0].lineno - node.lineno - (1 if is_elif and not has_elif else 0)
            self.lines += gone + (0 if is_elif else self.comments_above(node))
            if has_elif:
                self.fold_if(orelse[0], is_elif)  # type: ignore[arg-type]
            else:
                self.visit_all(orelse)

    def fold_while(self, node: ast.While) -> None:
        if self.decided(node.test) is False:
            self.branches += 1
            self.lines += _span(node) + self.comments_above(node)
        else:
            self.visit_all([node.test, *node.body, *node.orelse])

    def fold_ternary(self, node: ast.IfExp) -> None:
        truth = self.decided(node.test)
        if truth is None:
            self.visit_all([node.test, node.body, node.orelse])
        else:
            self.branches += 1
            self.visit(node.body if truth else node.orelse)

    def comments_above(self, node: ast.stmt) -> int:
        """Comment lines right above a statement: the engine removes them with it."""
        count = 0
        line = node.lineno + self.offset - 2  # the index of the line above
        while line >= 0 and self.lines_of_text[line].lstrip().startswith("#"):
            count += 1
            line -= 1
        return count


def _span(node: ast.stmt) -> int:
    return node.end_lineno - node.lineno + 1  # type: ignore[operator]


def _compare(op: ast.cmpop, left: object, right: object) -> bool:
    # Equality by type as well as value, as the engine folds: 1 == True is no constant test.
    if isinstance(op, (ast.Eq, ast.NotEq)):
        return same_value(left, right) == isinstance(op, ast.Eq)
    if isinstance(op, (ast.Is, ast.IsNot)):
        if not any(value is None or isinstance(value, bool) for value in (left, right)):
            raise TypeError("identity of other constants is not defined")
        return (left is right) == isinstance(op, ast.Is)
    if isinstance(op, (ast.In, ast.NotIn)):
        return (left in right) == isinstance(op, ast.In)  # type: ignore[operator]
    comparisons = {ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__", ast.GtE: "__ge__"}
    result = getattr(left, comparisons[type(op)])(right)
    if result is NotImplemented:
        raise TypeError("not comparable")
    return bool(result)


def _module_bindings(tree: ast.Module) -> set[str]:
    """Names the module binds at top level by assignment or import: their bare reads are flag reads."""
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            names.update(target.id for target in statement.targets if isinstance(target, ast.Name))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            names.add(statement.target.id)
        elif isinstance(statement, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in statement.names)
    return names


def _function_bindings(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
    names.update(
        n.id
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    )
    return names


def count_folds(
    path: Path,
    flags: Sequence[tuple[str, object] | tuple[str, object, bool]],
    spans: Sequence[tuple[int, int]] = (),
    module_bound: frozenset[str] | None = None,
    templates: Templates = Templates(),
) -> dict[str, tuple[int, int]]:
    """(branches, lines) each flag folds in one file; a file that no longer reads or parses counts
    nothing. A flag is (name, value), or (name, value, True) for a parameter flag; its reads
    through the `templates`' accessors are the flag too.

    With `spans` (the lines of the functions and top-level statements where the scan saw the
    flags read in a test) and `module_bound` (the names the module binds at its top level), only
    those parts are parsed again, not the whole file; if one does not parse alone, the file does."""
    try:
        text = read_source(path).text
    except SourceError:
        return {}
    lines = _LINE_BREAK.split(text)
    trees = _span_trees(lines, spans) if spans and module_bound is not None else None
    if trees is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return {}
        trees, module_bound = [(tree, 0)], frozenset(_module_bindings(tree))
    assert module_bound is not None
    accessors, _ = templates.parsed()
    counted = (
        _FoldCounter(  # type: ignore[misc]
            trees, lines, *flag, module_bound=flag[0] in module_bound, accessors=accessors
        )
        for flag in flags
    )
    return {counter.name: (counter.branches, counter.lines) for counter in counted}


_LINE_BREAK = re.compile(
    r"\r\n|\r|\n"
)  # the tokenizer's lines (str.splitlines also splits at \f, \x1c...)


def _span_trees(
    lines: Sequence[str], spans: Iterable[tuple[int, int]]
) -> list[tuple[ast.Module, int]] | None:
    """The statements on those lines, each run parsed on its own, with what to add to its line
    numbers; a run that starts indented (a method) inside a `class _:` that is dropped again.
    None if one does not parse alone. Runs a few lines apart are parsed as one, lines between
    included (whole statements too, or the headers of those around the next run)."""
    trees = []
    for start, end in _merged(spans, gap=_SPAN_GAP):
        chunk = lines[start - 1 : end]
        indented = chunk[0][:1] in (" ", "\t")
        try:
            module = ast.parse(("class _:\n" if indented else "") + "\n".join(chunk))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if indented:
            wrapper = module.body[0]
            assert isinstance(wrapper, ast.ClassDef)
            module = ast.Module(body=[*wrapper.body, *module.body[1:]], type_ignores=[])
        trees.append((module, start - 1 - indented))
    return trees


_SPAN_GAP = 20  # lines between two runs that are parsed with them rather than apart


def _merged(spans: Iterable[tuple[int, int]], gap: int = 0) -> list[tuple[int, int]]:
    """Line spans with those that share a line (or are at most `gap` lines apart) joined:
    statements either nest or follow one another, but two simple ones may share a line
    (`a = 1; b = 2`)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + gap:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


_CountTask = tuple[
    Path, Sequence[tuple[str, object, bool]], Sequence[tuple[int, int]], frozenset[str], Templates
]


def _count_chunk(tasks: Sequence[_CountTask]) -> list[dict[str, tuple[int, int]]]:
    return [count_folds(*task) for task in tasks]


def _estimate_all(
    candidates: Sequence[Candidate],
    files: Sequence[Path],
    all_facts: Sequence[FileFacts],
    pool: Executor | None,
    templates: Templates = Templates(),
) -> list[Candidate]:
    """Candidates with their folds counted from the tree; those that fold nothing are dropped,
    but for named flags (the user asked about them)."""
    wanted = {c.name: c for c in candidates}
    tasks = []
    for path, facts in zip(files, all_facts):
        flags = [
            (name, wanted[name].value, is_parameter)
            for is_parameter, reads in (
                (False, facts.condition_reads),
                (True, facts.parameter_condition_reads),
            )
            for name in reads
            if name in wanted and (PARAMETER in wanted[name].kinds) == is_parameter
        ]
        if flags:
            spans = {span for name, _, _ in flags for span in facts.segments.get(name, ())}
            tasks.append((path, flags, tuple(spans), facts.module_bound, templates))
    totals: dict[str, list[int]] = {name: [0, 0] for name in wanted}
    for counts in _chunked_map(pool, _count_chunk, tasks):
        for name, (branches, lines) in counts.items():
            totals[name][0] += branches
            totals[name][1] += lines
    estimated = []
    for name, (branches, lines) in totals.items():
        candidate = wanted[name]
        if branches or candidate.named:
            # The flag's own definitions go as well, a line each (a parameter: no line of its own).
            own = 0 if candidate.kinds == (PARAMETER,) else len(candidate.definitions)
            estimated.append(replace(candidate, branches=branches, lines_removed=lines + own))
    return estimated


# -- measuring with the engine (exact) --------------------------------------------------------


@dataclass(frozen=True)
class _MeasureIndex:
    """Which files mention each name that a definition stores: the engine's files for a candidate,
    and for the fields and constants the cascade may find dead on the way."""

    files: tuple[Path, ...]
    mentions: Mapping[str, tuple[int, ...]]

    def files_mentioning(self, names: Iterable[str]) -> set[Path]:
        return {self.files[i] for name in names for i in self.mentions.get(name, ())}


_index: _MeasureIndex | None = None  # set in each worker once, so tasks do not carry it


def _set_index(index: _MeasureIndex) -> None:
    global _index
    _index = index


def measure(
    candidate: Candidate, settings: Config, cwd: Path, files: Sequence[Path] | None = None
) -> Candidate | None:
    """The candidate with the engine's counts, or None when the engine would refuse it or fold
    nothing. A named flag is kept whatever its counts (the engine decided it with the others),
    and counted over `files` (default: the index's, every file): it may be read where its name is
    not spelt (an accessor given a constant that holds it)."""
    from prune_flags.engine import run  # LibCST is loaded only when there is something to measure

    config = replace(settings, flags=(candidate.flag(),))
    if candidate.named:
        everywhere = files if files is not None else _index.files if _index is not None else ()
        return _with_counts(candidate, run(config, sorted(everywhere), cwd))
    assert _index is not None
    paths = _index.files_mentioning([candidate.name])
    while True:
        report = run(config, sorted(paths), cwd)
        if report.conflicts:
            return None
        # The cascade deleted fields and constants whose readers it saw gone; files outside this
        # set may still read them, so run again with those files in view, until nothing new.
        wider = paths | _index.files_mentioning(_names_losing_writes(report) - {candidate.name})
        if wider == paths:
            return _with_counts(candidate, report)
        paths = wider


def _names_losing_writes(report: Report) -> set[str]:
    lost: set[str] = set()
    for changed in report.changed_files:
        before = _store_counts(ast.parse(changed.old_text))
        after = _store_counts(ast.parse(changed.new_text))
        lost |= {name for name, count in before.items() if count > after.get(name, 0)}
    return lost


def _store_counts(tree: ast.Module) -> Counter[str]:
    """Attribute writes anywhere and module-level assignments: what the cascade deletes across files."""
    counts = Counter(
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)
    )
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            counts.update(target.id for target in targets if isinstance(target, ast.Name))
    return counts


def _with_counts(candidate: Candidate, report: Report) -> Candidate | None:
    """The counts, or None when nothing folds: a constant that is only inlined is no stale flag
    (unless the user named it). A scoped flag's reads are those the engine inlined (find's own
    counts are by name, other definitions' included), and one in a condition for each fold (a
    read decides one branch)."""
    changes = [change for changed in report.changed_files for change in changed.changes]
    branches = sum(change.action in BRANCH_ACTIONS for change in changes)
    # The engine records folded statements; a folded `a if FLAG else b` shows only in the tree.
    branches += sum(_ternaries(f.old_text) - _ternaries(f.new_text) for f in report.changed_files)
    if branches <= 0 and not candidate.named:
        return None
    removed, added = report.line_counts()
    counted = replace(candidate, branches=branches, lines_removed=removed, lines_added=added)
    if not candidate.scope:
        return counted
    reads = sum(change.action == INLINED for change in changes)
    return replace(counted, reads=reads, condition_reads=branches)


def _ternaries(text: str) -> int:
    return sum(isinstance(node, ast.IfExp) for node in ast.walk(ast.parse(text)))


def _measure_all(
    candidates: Sequence[Candidate], index: _MeasureIndex, settings: Config, cwd: Path, workers: int
) -> list[Candidate]:
    if not candidates:
        return []
    import prune_flags.engine  # noqa: F401  loaded before forking, so workers inherit it

    count = len(candidates)
    if workers == 1 or count == 1:
        _set_index(index)
        results = [measure(candidate, settings, cwd) for candidate in candidates]
    else:
        # The most mentioned names take longest: start them first.
        ordered = sorted(candidates, key=lambda c: -len(index.mentions.get(c.name, ())))
        with process_pool(workers, initializer=_set_index, initargs=(index,)) as pool:
            results = list(pool.map(measure, ordered, [settings] * count, [cwd] * count))
    return [candidate for candidate in results if candidate is not None]


# -- the whole run ------------------------------------------------------------------------------


def internal_module_names(files: Iterable[Path], root: Path) -> frozenset[str]:
    """Every directory and module name in the tree: an import whose first part is one of them
    comes from the repository."""
    names: set[str] = set()
    for path in files:
        relative = Path(os.path.relpath(path, root))
        names.update(part for part in relative.parent.parts if part not in ("..", "."))
        names.add(path.stem)
    return frozenset(names)


def find(
    paths: Sequence[Path],
    cwd: Path,
    settings: Config | None = None,
    jobs: int | None = None,
    exact: bool = False,
) -> FindResult:
    """Stale-flag candidates under `paths`, most lines first.

    Folds are counted from the tree; with `exact`, by running the engine with each candidate
    as the only flag (the cascade included, but LibCST is slow on big files). The flags of
    `settings` are the ones the user named: the engine decides them (see `decide`).
    """
    settings = settings or Config(flags=())
    templates = Templates.of(settings)
    root = find_project_root(paths[0] if paths else cwd)
    files = discover_python_files(paths, root, settings.exclude)
    decided = decide(settings, paths, cwd, jobs) if settings.flags and files else Decided()
    internal = internal_module_names(files, root)
    displays = [Path(os.path.relpath(path, cwd)).as_posix() for path in files]
    workers = jobs or os.cpu_count() or 1
    if workers == 1 or sum(_size(path) for path in files) < PARALLEL_MIN_BYTES:
        workers = 1
    # Workers collect as usual (scan_file pauses the collector per file); this process, which
    # only gathers the facts, does not, or each collection would walk all gathered so far.
    pool_context = (
        process_pool(workers, initializer=gc.enable)
        if workers > 1
        else contextlib.nullcontext()
    )
    with pool_context as pool, _collector_paused():
        all_facts = _scan_all(pool, files, displays, internal, exact, templates)
        candidates = list(discover(all_facts, internal, decided))
        counted = [] if exact else _estimate_all(candidates, files, all_facts, pool, templates)
    if exact:
        index = _measure_index(files, all_facts, {c.name for c in candidates})
        counted = _measure_all(candidates, index, settings, cwd, workers)
    else:
        # Folds counted by name would count other definitions' too: the engine counts a scoped flag.
        counted = [(measure(c, settings, cwd, files) or c) if c.scope else c for c in counted]
    skipped = tuple(Skipped(facts.path, facts.error) for facts in all_facts if facts.error)
    seen = {entry.display for entry in skipped}
    skipped += tuple(entry for entry in decided.skipped if entry.display not in seen)
    ordered = sorted(counted, key=lambda c: (-c.lines, -c.branches, c.name))
    return FindResult(
        candidates=tuple(ordered),
        files=len(files),
        skipped=skipped,
        exact=exact,
        named=settings.flags,
        refused=decided.refused,
        shapes=tuple(
            (key, tuple(getattr(settings, key))) for key in SHAPE_KEYS if getattr(settings, key)
        ),
    )


def decide(settings: Config, paths: Sequence[Path], cwd: Path, jobs: int | None) -> Decided:
    """What apply does with the flags the user named: the engine's own run over the same files
    (nothing written, no black), so that find and apply cannot disagree. The refused flags come
    with apply's words; every other one with the writes it overrides."""
    from prune_flags.engine import run  # LibCST is loaded only when a flag is named

    report = run(replace(settings, format="none"), paths, cwd, jobs=jobs)
    refused = {refusal.flag for refusal in report.refused}
    overridden: dict[str, list[Override]] = {
        flag.name: [] for flag in settings.flags if flag.name not in refused
    }
    for result in report.changed_files:
        for change in result.changes:
            if change.action == OVERRIDDEN and change.flag in overridden:
                site = Site(result.display, change.line)
                overridden[change.flag].append(Override(site, change.reason))
    pruned = tuple(
        (flag, tuple(sorted(overridden[flag.name], key=lambda o: (o.site.path, o.site.line))))
        for flag in settings.flags
        if flag.name in overridden
    )
    return Decided(settings.flags, pruned, tuple(report.refused), tuple(report.skipped))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _chunked_map(
    pool: Executor | None, function: Callable[[Sequence[T]], list[R]], items: Sequence[T]
) -> list[R]:
    """function over items in one process, or over a pool in chunks, biggest work first."""
    if pool is None:
        return function(items)
    chunk_count = min(len(items), 16)
    chunks = [items[i::chunk_count] for i in range(chunk_count)]
    return [result for chunk in pool.map(function, chunks) for result in chunk]


def _scan_chunk(
    chunk: Sequence[tuple[Path, str, frozenset[str], bool, Templates]]
) -> list[FileFacts]:
    return [scan_file(*task) for task in chunk]


def _scan_all(
    pool: Executor | None,
    files: Sequence[Path],
    displays: Sequence[str],
    internal: frozenset[str],
    mentions: bool = True,
    templates: Templates = Templates(),
) -> list[FileFacts]:
    # Biggest files first, dealt round the chunks, so no worker is left with a long tail.
    tasks = sorted(
        ((path, display, internal, mentions, templates) for path, display in zip(files, displays)),
        key=lambda task: -_size(task[0]),
    )
    scanned = {facts.path: facts for facts in _chunked_map(pool, _scan_chunk, tasks)}
    return [scanned[display] for display in displays]


def _measure_index(
    files: Sequence[Path], all_facts: Sequence[FileFacts], candidates: set[str]
) -> _MeasureIndex:
    storable = candidates.union(*(facts.stored for facts in all_facts))
    mentions: dict[str, list[int]] = {}
    for number, facts in enumerate(all_facts):
        for name in facts.mentions & storable:
            mentions.setdefault(name, []).append(number)
    return _MeasureIndex(tuple(files), {name: tuple(numbers) for name, numbers in mentions.items()})


# -- output -----------------------------------------------------------------------------------


def to_json(result: FindResult) -> dict[str, object]:
    """The candidates with their evidence; named flags say so, with the writes they override;
    `flags` (each key named, with its value) and `refused` as in apply's report."""
    return {
        "version": 1,
        "files": result.files,
        "exact": result.exact,
        "flags": {flag.key: flag.source for flag in result.named},
        "candidates": [
            {
                "name": c.key,
                "value": c.source,
                "kinds": list(c.kinds),
                "defined_at": [str(site) for site in c.definitions],
                "functions": list(c.functions),
                "reads": c.reads,
                "condition_reads": c.condition_reads,
                "branches": c.branches,
                "lines": c.lines,
                "lines_removed": c.lines_removed,
                "lines_added": c.lines_added,
                "named": c.named,
                "overridden": [
                    {"location": str(write.site), "reason": write.reason} for write in c.overridden
                ],
            }
            for c in result.candidates
        ],
        "skipped": [{"path": s.display, "error": s.error} for s in result.skipped],
        "refused": [refusal.to_json() for refusal in result.refused],
    }


def evidence(candidate: Candidate) -> str:
    where = ", ".join(str(site) for site in candidate.definitions) or "no definition seen"
    if candidate.functions:
        functions = ", ".join(f"{function}()" for function in candidate.functions)
        # Find's own rules checked the calls; for a named flag the engine decided instead.
        checked = "" if candidate.named else "; no call passes another value"
        where += f" (default of a parameter of {functions}{checked})"
    return (
        f"{'named: ' if candidate.named else ''}{candidate.source} at {where}; "
        f"{_count(candidate.reads, 'read')}, "
        f"{candidate.condition_reads} in conditions; folds {_count(candidate.branches, 'branch', 'es')}, "
        f"removes {_count(candidate.lines, 'line')}"
    )


def _count(number: int, word: str, plural: str = "s") -> str:
    return f"{number} {word}{'' if number == 1 else plural}"


def config_toml(result: FindResult) -> str:
    """A config `prune-flags apply --config FILE` takes as it is, one commented flag per candidate
    (a named flag's comment lists the writes apply would override), and each refused named flag
    commented out with apply's reason."""
    counted = (
        "by the cleanup itself"
        if result.exact
        else "from the folds alone; --exact adds the cascade"
    )
    lines = [
        f"# Written by `prune-flags find` (lines counted {counted}). Review each flag before applying.",
        *(f"{key} = [{', '.join(map(_toml_string, patterns))}]" for key, patterns in result.shapes),
        "[flags]",
    ]
    for candidate in result.candidates:
        lines.append(f"# {evidence(candidate)}")
        lines += [f"#   overrides {write}" for write in candidate.overridden]
        lines.append(f"{_toml_key(candidate.key)} = {_toml_value(candidate.value)}")
    for flag in result.named:
        refusals = [refusal for refusal in result.refused if refusal.flag == flag.name]
        for refusal in refusals:
            lines.append(f"# refused ({refusal.why}), as apply would: {refusal.message}")
        if refusals:
            lines.append(f"# {_toml_key(flag.key)} = {_toml_value(flag.value)}")
    return "\n".join(lines) + "\n"


def _toml_key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _toml_string(name)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str) and value.isprintable():
        return _toml_string(value)
    # None, tuples and strings TOML cannot hold as they are: the Python source.
    return "{ python = " + _toml_string(repr(value)) + " }"


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m.group()):04x}", escaped) + '"'
