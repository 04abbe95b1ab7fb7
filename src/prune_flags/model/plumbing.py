"""Plumbing: the parameters that are a flag along chains of calls, and the arguments that go with
them."""

# Plumbing: the parameters that are a flag along chains of calls, and the arguments that go with
# them. A parameter linked to the flag's own definitions by calls (a keyword, a position, `**kwargs`
# handed on, `super().__init__`) is the flag whatever its default; each argument passing it goes: by
# keyword, through `**kwargs`, or by position where no other argument shifts. All from the `ast`
# index; the engine plans from it and passes/params.py carries it out.

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prune_flags.config import Flag
from prune_flags.model.positions import positional_passes
from prune_flags.semantic.calls import keyword_forwards, parameter_places
from prune_flags.semantic.classes import class_bases
from prune_flags.semantic.facts import (
    ITSELF,
    NameFacts,
    Write,
)
from prune_flags.semantic.modules import qualified
from prune_flags.syntax.values import UNKNOWN, same_value
from prune_flags.vocabulary import WriteKind

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


@dataclass(frozen=True)
class Plumbing:
    """How a flag's value travels through parameters (see plumbing): which are the flag, which
    calls pass it, and what of that goes."""

    # The callees (last names) whose `flag=` keyword reaches the flag: functions whose parameter
    # is the flag, classes whose field is, `__init__` (`super().__init__(flag=...)`), and functions
    # that hand their **kwargs on only to those.
    owners: frozenset[str] = frozenset()
    functions: frozenset[tuple[str, str]] = (
        frozenset()
    )  # (path, scope) of each function whose parameter is the flag
    # Callees whose calls pass the flag by position and lose that argument: (its place, self
    # counted, and whether the callee is a method).
    positions: Mapping[str, tuple[int, bool]] = field(default_factory=dict)
    overridden: tuple[
        Write, ...
    ] = ()  # keywords and arguments of another value: they go, reported as overridden
    # What goes with the flag once nothing reads it (its parameters go): every argument passing it,
    # parameters whose default is another value or that have none, those whose place calls lose.
    removed: tuple[Write, ...] = ()
    problems: tuple[
        str, ...
    ] = ()  # calls passing it where no argument can go, as conflicts name them
    unlinked: tuple[
        Write, ...
    ] = ()  # parameters of its name that may or may not be it (see _ambiguous_parameters)


_FLAG_NODE = ("", "")  # the flag's own definitions, among the functions a chain of calls links


def plumbing(
    repository: Repository, flag: Flag, facts: NameFacts, strict: bool = False
) -> Plumbing:
    """The flag's parameters and the calls that pass them. Under strict, a parameter is the flag
    when it defaults to the configured value, as before the config became the decision; otherwise
    when a chain of calls links it to the flag (see _linked_parameters), whatever its default, and
    every argument passing it goes: by keyword, through **kwargs, or by position where no other
    argument shifts (see positional_passes)."""
    parameters = [write for write in facts.writes if write.kind == WriteKind.PARAMETER]
    unlinked: list[Write]
    if strict:
        flagged, unlinked = [
            write for write in parameters if same_value(write.value, flag.value)
        ], []
    else:
        flagged, unlinked = _linked_parameters(repository, flag, facts, parameters)
    fields = frozenset(
        w.owner
        for w in facts.writes
        if w.kind == WriteKind.CLASS and (not strict or same_value(w.value, flag.value))
    )
    owners = {write.owner for write in flagged} | fields
    takers = _keyword_takers(repository, facts)
    owners |= takers
    if owners:
        owners.add("__init__")  # `super().__init__(flag=...)` inside a subclass reaches one of them
    owners.discard("")
    forwarders = (
        frozenset()
        if strict
        else _keyword_forwarders(
            repository, facts, frozenset(owners), {w.owner for w in parameters}
        )
    )
    owners |= forwarders
    functions = frozenset((write.site.path, write.scope) for write in flagged if write.scope)
    problems, arguments, positions = positional_passes(repository, flag, flagged, strict)
    keywords = _keywords_to_go(
        repository, flag, facts, frozenset(owners), fields | forwarders | takers | {"__init__"}
    )
    overridden = (
        []
        if strict
        else [*_other_values(flag, keywords, functions), *_other_values(flag, arguments, functions)]
    )
    # The parameters a chain of calls links to the flag go at their own line (see passes/params):
    # those the calls lose an argument of, or that hold another value than the configured one.
    taken = [
        write
        for write in flagged
        if write.scope
        and not strict
        and (not same_value(write.value, flag.value) or write.owner in positions)
    ]
    removed = (*keywords, *arguments, *taken)
    return Plumbing(
        frozenset(owners),
        functions,
        positions,
        tuple(overridden),
        removed,
        tuple(problems),
        tuple(unlinked),
    )


def _keyword_takers(repository: Repository, facts: NameFacts) -> frozenset[str]:
    """The classes whose `__init__` takes the flag's keyword out of its `**kwargs` (Write.
    takes_keyword): a keyword of the flag at a call of one reaches the flag. A call is matched by
    its last name, so only a class no other definition in the repository shares a name with."""
    classes = {write.owner for write in facts.writes if write.takes_keyword and write.owner}
    return frozenset(
        name
        for name in classes
        if sum(len(tree.definitions.get(name, ())) for tree in repository.trees_naming(name)) == 1
    )


def _other_values(
    flag: Flag, writes: list[Write], functions: frozenset[tuple[str, str]]
) -> list[Write]:
    """The arguments among `writes` that give the flag another value: not a parameter that is the
    flag passed on, nor the configured value itself."""
    return [
        write
        for write in writes
        if write.value is not ITSELF
        and (write.site.path, write.carried_from) not in functions
        and not same_value(write.value, flag.value)
    ]


def _keywords_to_go(
    repository: Repository,
    flag: Flag,
    facts: NameFacts,
    owners: frozenset[str],
    unchecked: frozenset[str],
) -> list[Write]:
    """The keywords that go with a flag parameter (or field): at a call of an owner, without side
    effects. A function or constructor is matched by its last name: every definition of that name
    must take the flag (another may read it from its **kwargs); a class's field, `super().__init__`
    and a function handing its **kwargs on to owners (`unchecked`) take it as they are."""
    taking = {
        owner: True for owner in unchecked
    }  # owner -> whether every definition of its name takes the flag
    found = []
    for write in facts.writes:
        if write.kind != WriteKind.KEYWORD or write.owner not in owners or not write.statement:
            continue
        if write.owner not in taking:
            taking[write.owner] = (
                parameter_places(
                    repository.trees_naming(write.owner), write.owner, flag.name, by_keyword=True
                )
                is not None
            )
        if taking[write.owner]:
            found.append(write)
    return found


def _linked_parameters(
    repository: Repository, flag: Flag, facts: NameFacts, parameters: list[Write]
) -> tuple[list[Write], list[Write]]:
    """The parameters of the flag's name that are the flag, and those that may or may not be.

    A function passing its own parameter on (`helper(x, fast=fast)`, also through functions that
    hand their **kwargs on) links it to the callee's parameter of the name, up and down the chain;
    a parameter stored into the flag (`self.fast = fast`) or given the flag's read
    (`helper(fast=self.fast)`) is linked to the flag. A group of linked parameters is the flag when
    it is linked to the flag or one of them defaults to the configured value, whatever the
    others' defaults; a group with no literal default is its functions' own variable. A group
    holding only other values is the flag when it is all that carries the name; otherwise it may
    be either, as may a function's own variable that shares a last name with a function whose
    parameter is the flag (calls are matched by last name)."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(key: tuple[str, str]) -> tuple[str, str]:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    def link(one: tuple[str, str], other: tuple[str, str]) -> None:
        parent[root(one)] = root(other)

    by_owner: dict[str, list[Write]] = {}
    for write in parameters:
        if write.scope:
            by_owner.setdefault(write.owner, []).append(write)
    landing = _KeywordLanding(repository, frozenset(by_owner))
    for write in facts.writes:
        if write.kind == WriteKind.KEYWORD and (write.value is ITSELF or write.carried_from):
            source = _FLAG_NODE if write.value is ITSELF else (write.site.path, write.carried_from)
            for callee in landing.callees(write):
                for parameter in by_owner.get(callee, ()):
                    link(source, (parameter.site.path, parameter.scope))
        elif write.kind in (WriteKind.ATTRIBUTE, WriteKind.CLASS) and write.carried_from:
            link(_FLAG_NODE, (write.site.path, write.carried_from))
    for passed in facts.passed:  # `helper(x, fast)`: the callee's parameter at that place
        for parameter in by_owner.get(passed.owner, ()):
            offset = 1 if parameter.method and passed.method else 0
            if parameter.position is not None and parameter.position - offset == passed.position:
                link(
                    (passed.site.path, passed.carried_from), (parameter.site.path, parameter.scope)
                )
    for write in parameters:  # a qualified key naming a function's parameter: that one is the flag
        function = qualified(write.site.path, write.scope) if flag.scope and write.scope else ""
        if function and (function == flag.scope or function.endswith("." + flag.scope)):
            link(_FLAG_NODE, (write.site.path, write.scope))
    groups: dict[tuple[str, str], list[Write]] = {}
    for write in parameters:
        if write.scope:
            groups.setdefault(root((write.site.path, write.scope)), []).append(write)
    flagged = [
        w for w in parameters if not w.scope and same_value(w.value, flag.value)
    ]  # lambdas: by default
    others: list[list[Write]] = []
    own: list[Write] = []
    for key, members in groups.items():
        if key == root(_FLAG_NODE) or any(same_value(w.value, flag.value) for w in members):
            flagged += members
        elif any(w.value is not UNKNOWN for w in members):
            others.append(members)
        else:
            own += members
    elsewhere = (
        facts.attribute_reads
        or facts.name_reads
        or any(w.kind not in (WriteKind.PARAMETER, WriteKind.KEYWORD) for w in facts.writes)
    )
    if len(others) == 1 and not elsewhere and len(flagged) == 0:
        flagged, others = others[0], []  # all that carries the name: the config names it
    names = {write.owner for write in flagged}
    return flagged, [w for members in others for w in members] + [
        w for w in own if w.owner in names
    ]


class _KeywordLanding:
    """Where a keyword at a call lands: in the callee's own parameter, or through a callee that
    hands its **kwargs on, in those of the functions it hands them to (at any depth); through
    `super().__init__`, in the constructors of the enclosing class's bases."""

    def __init__(self, repository: Repository, binding: frozenset[str]) -> None:
        self.repository = repository
        self.binding = binding  # callees that have a parameter of the name: the keyword stops there
        self._forwards: dict[str, frozenset[str] | None] = {}

    def forwards(self, name: str) -> frozenset[str] | None:
        """The callees a function of this name hands its **kwargs on to (see
        semantic.calls.keyword_forwards)."""
        if name not in self._forwards:
            self._forwards[name] = (
                None
                if name in self.binding
                else keyword_forwards(self.repository.trees_naming(name), name)
            )
        return self._forwards[name]

    def callees(self, write: Write) -> set[str]:
        if write.owner == "__init__":
            enclosing = write.carried_from.split(".")
            if len(enclosing) < 2:
                return set()
            bases = class_bases(self.repository, frozenset([enclosing[-2]]))
            return {name for name in bases if name != enclosing[-2]}
        found, stack = set(), [write.owner]
        while stack:
            name = stack.pop()
            if name not in found:
                found.add(name)
                stack.extend(self.forwards(name) or ())
        return found


def _keyword_forwarders(
    repository: Repository, facts: NameFacts, owners: frozenset[str], binding: set[str]
) -> frozenset[str]:
    """Functions a flag keyword is passed to that hand their **kwargs on only to owners, at any
    depth (`_apply(x, compact_ids=True)` with `def _apply(self, x, **kwargs): return
    self._inner(x, **kwargs)`): the keyword lands on the flag, and goes at their calls too."""
    landing = _KeywordLanding(repository, frozenset(binding))
    candidates = sorted(
        {w.owner for w in facts.writes if w.kind == WriteKind.KEYWORD} - owners - binding
    )
    found: set[str] = set()
    grown = True
    while grown:
        grown = False
        for name in candidates:
            targets = landing.forwards(name)
            if name not in found and targets and targets <= owners | found:
                found.add(name)
                grown = True
    return frozenset(found)
