"""The facts the index keeps of a name: where it is read, written, asserted, passed on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from prune_flags.vocabulary import WriteKind


@dataclass(frozen=True)
class Site:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Write:
    site: Site
    kind: WriteKind
    value: object  # the literal written, ITSELF, or UNKNOWN
    # Whose the write is: for a parameter, its function; for a class-level field, its class;
    # for a keyword, the callee's (last) name. A keyword reaches a flag only through an owner.
    owner: str = ""
    position: int | None = None  # a positional parameter's index, counting self
    method: bool = False  # the parameter's function takes self/cls: an attribute call passes it
    option_strings: tuple[str, ...] = ()  # an option's long strings, `--use-x`, `--turbo`
    option_arity: int | None = (
        None  # the words an option takes after its string (options.option_arity)
    )
    # A `setattr` or writer call that is a statement of its own, or a writer call as a `with` item
    # binding nothing or a decorator (the prune pass can remove it); one inside an expression is
    # not. A keyword whose value may have side effects (`run(fast=next(modes))`) is not either:
    # its argument cannot go without them.
    statement: bool = True
    # A parameter's function, qualified within its module (`Class.method`, `outer.inner`); "" for
    # a lambda's.
    scope: str = ""
    # A keyword or an attribute assignment whose value is the enclosing function's own parameter
    # of the name, never rebound there (`helper(x, fast=fast)`, `self.fast = fast`): that
    # function, qualified as `scope` is. The parameter's value travels on along a chain.
    carried_from: str = ""
    # An attribute assignment whose value is a parameter of another name of the enclosing function,
    # never rebound there (`self._sort = sort`): that function, qualified as `scope` is, and the
    # parameter. Where the parameter is a flag pruned at the same value, the copy gives it that.
    copies: tuple[str, str] | None = None
    # The parameters of the functions it is written in that the value carries, each as (function
    # qualified as `scope` is, or "" where it is `*args`/`**kwargs` or bound again; its name).
    parameters: tuple[tuple[str, str], ...] = ()
    # A field `__init__` computes by looking the flag's own name up in its `**kwargs`
    # (`self.fast = options.pop("fast", False)`): the class takes the flag's keyword there.
    takes_keyword: bool = False

    @property
    def from_parameter(self) -> bool:
        """The value reads a parameter of the function it is written in (`self.fast = fast`): a
        caller decides it, so the write is plumbing, not a definition the config overrides."""
        return bool(self.parameters)


class Argument(NamedTuple):
    """A plain positional argument at a call: where it is, what it passes, whether it can go."""

    line: int
    value: object  # a literal, or UNKNOWN
    pure: bool  # evaluating it has no side effect (syntax.purity.pure_expression)


@dataclass(frozen=True)
class CallSite:
    """A call of a function by its (last) name: enough to tell which positional parameters it
    fills."""

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


# How a parameter gets its value: its default, a keyword or a positional argument at a call (the
# index keeps no store of a function's bare name).
_PARAMETER_WRITES = frozenset({WriteKind.PARAMETER, WriteKind.KEYWORD, WriteKind.ARGUMENT})


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

    def of_parameter(self) -> NameFacts:
        """The facts a function's parameter of the name can have: the bare name read, the
        parameter, the calls passing it. An attribute of the name, a string spelling it or a
        write through either is another object's, which only shares the name."""
        return NameFacts(
            name_reads=list(self.name_reads),
            assert_reads=[read for read in self.assert_reads if read.subjects is None],
            writes=[write for write in self.writes if write.kind in _PARAMETER_WRITES],
            object_reads=[read for read in self.object_reads if read.template.startswith("{name}")],
            passed=list(self.passed),
        )

    @property
    def is_option(self) -> bool:
        return any(write.kind == WriteKind.OPTION for write in self.writes)

    @property
    def option_strings(self) -> frozenset[str]:
        """The long strings of the options that define the name: how argument lists spell it."""
        return frozenset(
            string
            for write in self.writes
            if write.kind == WriteKind.OPTION
            for string in write.option_strings
        )

    @property
    def option_arity(self) -> int | None:
        """The words every option defining the name takes after its string; None when one does not
        say or they differ."""
        arities = {write.option_arity for write in self.writes if write.kind == WriteKind.OPTION}
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
