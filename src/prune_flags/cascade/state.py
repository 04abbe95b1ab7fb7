"""What the parts of the cascade share: `Plan`, what the model planned for it (the same every
round), and `Learnt`, what its rounds learnt so far."""

# What the parts of the cascade share: what the model planned for it (`Plan`, the same every round)
# and what its rounds learnt so far (`Learnt`, which every round's rewrites are given).
#
# The parts are the rounds (cascade/rounds.py), what a file's rewrite is given
# (cascade/contexts.py), the helpers a round folded (cascade/helpers.py) and which names a round
# left without a reader may really go (cascade/liveness.py); each reads these two and nothing of the
# others' state.

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from prune_flags.config import Config, Flag
from prune_flags.model.build import Model
from prune_flags.model.helpers import Helper, HelperCall
from prune_flags.model.library import KeywordPlace, LibraryDefault
from prune_flags.model.methods import MethodReach
from prune_flags.model.pinned import TestPlan
from prune_flags.model.plumbing import Plumbing
from prune_flags.rewrite.context import Death, Rewritten
from prune_flags.vocabulary import WriteKind


@dataclass(frozen=True)
class Plan:
    """The flags the model prunes and what carries them, for one cascade."""

    config: Config
    flags: dict[str, Flag]
    flag_owners: dict[str, frozenset[str]]
    plumbings: dict[str, Plumbing]  # parameters, calls passing them
    tests: TestPlan  # what becomes of the tests that write a flag
    name_constants: dict[str, str]
    # Flags a command-line option defines -> its strings, and the words it takes after them
    # (None: not known).
    option_flags: dict[str, frozenset[str]]
    option_arities: dict[str, int | None]
    library_keywords: Mapping[Path, dict[KeywordPlace, LibraryDefault]]  # see model/library.py
    parameters: frozenset[str]  # flags that are a function's parameter: only a bare name reads one
    # Flags that are a function's local, per file (display) and function (dotted): RewriteContext's.
    local_flags: Mapping[str, Mapping[str, frozenset[str]]] = field(default_factory=dict)
    # The flags' overridden attribute writes, per file (by display) and line: flag.
    overridden_writes: Mapping[str, Mapping[int, str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        config: Config,
        model: Model,
        library_keywords: Mapping[Path, dict[KeywordPlace, LibraryDefault]],
    ) -> Plan:
        flags = model.pruned
        facts = {name: model.flags[name].facts for name in flags}
        option_flags = {name: facts[name].option_strings for name in flags if facts[name].is_option}
        return cls(
            config=config,
            flags=flags,
            flag_owners={name: model.flags[name].plumbing.owners for name in flags},
            plumbings={name: model.flags[name].plumbing for name in flags},
            tests=model.tests,
            name_constants={
                constant: name for constant, name in model.name_constants.items() if name in flags
            },
            option_flags=option_flags,
            option_arities={name: facts[name].option_arity for name in option_flags},
            library_keywords=library_keywords,
            parameters=frozenset(name for name in flags if model.flags[name].parameter),
            local_flags=_local_flags(model, flags),
            overridden_writes=_overridden_writes(model, flags),
        )


def _local_flags(model: Model, flags: Mapping[str, Flag]) -> dict[str, dict[str, frozenset[str]]]:
    found: dict[str, dict[str, frozenset[str]]] = {}
    for name in flags:
        local = model.flags[name].local
        if local is not None:
            path, function = local
            functions = found.setdefault(path, {})
            functions[function] = functions.get(function, frozenset()) | {name}
    return found


def _overridden_writes(model: Model, flags: Mapping[str, Flag]) -> dict[str, dict[int, str]]:
    found: dict[str, dict[int, str]] = {}
    for name in flags:
        for write in model.flags[name].overridden:
            if write.kind == WriteKind.ATTRIBUTE and write.statement:
                found.setdefault(write.site.path, {})[write.site.line] = name
    return found


@dataclass
class Learnt:
    """What the rounds learnt so far. Every round rewrites from the original texts with all of
    it."""

    dead: dict[str, Death] = field(default_factory=dict)
    # Where each dead name that is not a flag is written or asserted on, in the original texts:
    # elsewhere the word is another thing (`output_grads` a parameter where `self.output_grads`
    # died), which no pass acts on, so those files are not parsed for it.
    dead_places: dict[str, frozenset[str]] = field(default_factory=dict)
    dead_globals: dict[Path, dict[str, Death]] = field(default_factory=dict)
    removable_asserts: dict[Path, frozenset[int]] = field(default_factory=dict)
    results: dict[Path, Rewritten] = field(default_factory=dict)  # each file's last rewrite
    # Helpers a round folded to a constant or to a parameter ("module.qualname" -> helper): once
    # found they stay, since every round rewrites from the original text.
    helpers: dict[str, Helper] = field(default_factory=dict)
    helper_calls: dict[Path, dict[str, HelperCall]] = field(
        default_factory=dict
    )  # per file: callee spelling -> call
    # Method helpers (by key, as `helpers`) and which calls reach them; per file, the calls
    # by (line, method name).
    method_reaches: dict[str, MethodReach] = field(default_factory=dict)
    method_calls: dict[Path, dict[tuple[int, str], HelperCall]] = field(default_factory=dict)
    # Names that only skipped files read (name -> those files): they keep their definitions,
    # and every import of them stays.
    kept: dict[str, set[str]] = field(default_factory=dict)
    # The names each file imports that another file imports from it (`from pkg.functions import
    # loads`): its imports of them stay, whatever the file itself still reads.
    reexported: dict[Path, set[str]] = field(default_factory=dict)
