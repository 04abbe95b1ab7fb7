"""The facts every stage of find shares: what a file tells about each name, a candidate, a
result; frozen and picklable, so workers can send them back."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

from prune_flags.config import Config, Flag
from prune_flags.report import Refusal, Skipped
from prune_flags.semantic.facts import Site
from prune_flags.syntax.spellings import FlagNames
from prune_flags.syntax.templates import Template, parse_template, parse_writer

# Kinds of definition a candidate is listed with; "parameter" ones are also local bindings.
ATTRIBUTE, CLASS_ATTRIBUTE, FIELD, MODULE_CONSTANT, PARAMETER = (
    "attribute", "class-attribute", "field", "module-constant", "parameter",
)  # fmt: skip
# Definitions through the config's templates: a writer call with a literal value
# (`flags.DEFINE_boolean("use_w", False, "...")`, `set_config("x", True)`), and a flag object
# (`use_x = config.bool_state(name="app_use_x", default=False)`) that accessors read.
WRITER, FLAG_OBJECT = "writer", "flag-object"


@dataclass(frozen=True)
class Definition:
    """A literal definition of a name: `self.x = False`, `X = 3`, `x: bool = False`, `def
    f(x=None)`."""

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
    # Names some import binds to another library: an attribute read through one is that
    # library's, not a flag's (as the cleanup has it: TreeFacts.outside_names, a subset).
    outside: frozenset[str] = frozenset()
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
    # A named flag the engine left a site of as it was (a re-export): its definitions stay, and of
    # its writes only those it overrides go.
    left: bool = False
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
    # Names find's own rules found that the model of a flag refuses: apply would leave them.
    held_back: tuple[Refusal, ...] = ()
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
    left: frozenset[str] = frozenset()  # the pruned flags with a site left as it was


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


@functools.cache
def _parsed_templates(
    accessors: tuple[str, ...], writers: tuple[str, ...]
) -> tuple[tuple[Template, ...], tuple[Template, ...]]:
    return tuple(parse_template(p) for p in accessors), tuple(parse_writer(p) for p in writers)


# find takes a flag's name from a template read or a writer call only where it is a literal: a
# constant holding it (`EXPRESS = "use_x"`) spells it in a string, which rules the name out.
LITERAL_NAMES = FlagNames({}, {})
