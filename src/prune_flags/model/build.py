"""The model of the flags a run prunes, built once from the `ast` index before the cascade: each
flag's facts, plumbing, overridden writes and verdict, and the run's tests plan."""

# The model of the flags a run prunes, built once from the `ast` index before the cascade runs: for
# each flag of the config, what the repository holds of it (its definitions, reads and writes:
# `NameFacts`), the parameters and arguments that carry it (`Plumbing`), the writes of another value
# the decision overrides, and its verdict: pruned, or refused and why. The tests' plan (what becomes
# of tests pinning another value) is the model's too.
#
# The engine plans its rounds from the model and asks it which flags are still pruned; what the
# cascade finds later (a read left as an object, a write that could not go) only refuses more
# (`Model.refusing`). Every verdict ends in the report's `refused` list, which `find` (through
# `find.run.decide`) and `batch` (each repository's flags) read.

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from prune_flags.config import Config, Flag
from prune_flags.model.pinned import TestPlan
from prune_flags.model.plumbing import Plumbing, plumbing
from prune_flags.model.scoping import Scope, local_assignments, local_home, resolve, string_named
from prune_flags.model.shared_values import handed_on
from prune_flags.model.verdicts import (
    ambiguous_names,
    ambiguous_parameters,
    computed_from_flags,
    conflicts,
    overridden,
    pinning_plan,
    read_as_objects,
    scope_refusals,
)
from prune_flags.report import Refusal
from prune_flags.semantic.facts import NameFacts, Write
from prune_flags.syntax.values import same_value
from prune_flags.vocabulary import RefusalReason

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


@dataclass(frozen=True)
class FlagModel:
    """One flag as the repository holds it, in the original texts."""

    flag: Flag
    facts: NameFacts  # its definitions, reads and writes (without other definitions', when scoped)
    plumbing: Plumbing  # the parameters that are the flag and the calls that pass it
    # The flag's own writes of another value (definitions included): they go, reported as
    # overridden.
    overridden: tuple[Write, ...]
    parameter: bool = False  # a function's parameter (a qualified key): only its bare name reads it
    # A function's local (a qualified key): the file (display) and the function, dotted.
    local: tuple[str, str] | None = None

    @property
    def tried_as_object(self) -> bool:
        """Read as an object (`USE_X.value`): tried all the same, since a fold may take every such
        read with the dead code; one left after the cleanup refuses the flag."""
        return bool(self.facts.object_reads)


@dataclass(frozen=True)
class Model:
    """The config's flags, in its order, with their verdicts."""

    flags: Mapping[str, FlagModel]
    tests: TestPlan  # the tests' edits, planned over the original texts
    # Constants that spell a flag's name (`FAST = "fast"`, read as `getattr(opts, FAST)`), when
    # only that flag's: constant -> flag.
    name_constants: Mapping[str, str]
    refused: tuple[Refusal, ...] = ()  # in the order they were made; a flag may have more than one

    @property
    def pruned(self) -> dict[str, Flag]:
        """The flags still pruned, by name, in the config's order."""
        refused = {refusal.flag for refusal in self.refused}
        return {name: model.flag for name, model in self.flags.items() if name not in refused}

    def refusing(self, refusals: Iterable[Refusal]) -> Model:
        """The model once the cascade refused more flags."""
        return replace(self, refused=self.refused + tuple(refusals))

    def writes_to_go(self, name: str, unread: bool) -> list[Write]:
        """What must go for the config's value to be all the code says of a flag: its overridden
        writes and arguments, and the tests' writes the tests' plan removes (each once); once
        nothing reads it, also every argument and parameter passing it that the rewrite removes
        (one left behind would pass it to a parameter that went)."""
        model = self.flags[name]
        writes = [
            *model.overridden,
            *self.tests.writes(name, model.facts),
            *model.plumbing.overridden,
        ]
        writes += model.plumbing.removed if unread else ()
        return list({id(write): write for write in writes}.values())


def resolve_flags(repository: Repository, config: Config) -> Config:
    """The config with each flag named as the code reads it: a flag read only as a string (a
    template's `"backtrack-on-build-failures"`) keeps its whole key as its name; a bare name that
    only one function's local carries is scoped to it (`tee` of `tqdm.cli.main`)."""
    flags = tuple(
        (
            replace(flag, name=flag.key, scope="")
            if string_named(repository, flag, bool(config.accessors))
            else replace(flag, scope=home) if (home := local_home(repository, flag)) else flag
        )
        for flag in config.flags
    )
    return replace(config, flags=flags)


def build(repository: Repository, config: Config) -> Model:
    """The model of the config's flags (named as `resolve_flags` names them) over the repository's
    original texts, with the verdicts that need no rewrite: qualified keys resolved (a key naming
    nothing raises ConfigError), writes of another value (refused under strict, else overridden
    unless something keeps them), tests pinning another value, names and parameters unrelated
    definitions carry, flags read as objects that something also gives another value."""
    names = frozenset(flag.name for flag in config.flags)
    constants, ambiguous = repository.name_constants(names)
    repository.read_names_through(constants)
    facts = repository.facts(names)
    refused, foreign = scope_refusals(repository, config.flags, facts)
    # A function's parameter is its bare name only: `cfg.use_old` there is another object's.
    scopes = {flag.name: resolve(repository, flag) for flag in config.flags if flag.scope}
    parameters = frozenset(name for name, scope in scopes.items() if scope.parameter)
    if foreign or parameters:
        repository.leave_out(foreign, parameters)
        facts = repository.facts(names)  # without what is other definitions'
    plumbings = {
        flag.name: plumbing(repository, flag, facts[flag.name], config.strict)
        for flag in config.flags
    }
    if not config.strict:
        facts = computed_from_flags(facts, config.flags, plumbings)
    tests = pinning_plan(repository, config, facts, plumbings)
    # A flag read as an object that something also gives another value (`USE_X = Flag(...)`) is
    # refused as read as an object: what the user must do is declare how it is read.
    conflicting = conflicts(
        repository, config.flags, tests.without_handled(facts), plumbings, config.strict
    )
    refused += read_as_objects({name: facts[name] for name in conflicting})
    for name, sites in conflicting.items():
        if not facts[name].object_reads:
            message = f"{name}: not pruned: it is given another value at {', '.join(sites)}"
            if config.strict:
                message += " (strict: a flag given another value is refused)"
            refused.append(
                Refusal(
                    name,
                    RefusalReason.ANOTHER_VALUE,
                    tuple(site.split(" ")[0] for site in sites),
                    message,
                )
            )
    if config.strict:
        refused += _strict_locals(repository, config, scopes)
    named = {refusal.flag for refusal in refused}
    refused += handed_on(
        repository, [flag for flag in config.flags if flag.name not in named], facts
    )
    if not config.strict:
        named = {refusal.flag for refusal in refused}
        deciding = [
            flag for flag in config.flags if flag.name not in conflicting and flag.name not in named
        ]
        refused += ambiguous_names(repository, deciding, facts, plumbings)
        named = {refusal.flag for refusal in refused}
        refused += ambiguous_parameters(
            [flag for flag in deciding if flag.name not in named], plumbings
        )
    flags = {
        flag.name: FlagModel(
            flag,
            facts[flag.name],
            plumbings[flag.name],
            tuple(overridden(flag, facts[flag.name])),
            flag.name in parameters,
            (
                (scope.path, scope.owner)
                if (scope := scopes.get(flag.name)) is not None and scope.local
                else None
            ),
        )
        for flag in config.flags
    }
    constants = {
        constant: name
        for constant, name in repository.flag_constants.items()
        if constant not in ambiguous
    }
    return Model(flags, tests, constants, tuple(refused))


def _strict_locals(
    repository: Repository, config: Config, scopes: Mapping[str, Scope]
) -> list[Refusal]:
    """Under strict, the local flags an assignment gives another value (or one only known when
    the code runs), as for any other flag."""
    found = []
    for flag in config.flags:
        scope = scopes.get(flag.name)
        if scope is None or not scope.local:
            continue
        sites = [
            f"{scope.path}:{line}"
            for line, value in local_assignments(repository, flag, scope)
            if not same_value(value, flag.value)
        ]
        if sites:
            message = (
                f"{flag.name}: not pruned: it is given another value at {', '.join(sites)}"
                " (strict: a flag given another value is refused)"
            )
            found.append(Refusal(flag.name, RefusalReason.ANOTHER_VALUE, tuple(sites), message))
    return found
