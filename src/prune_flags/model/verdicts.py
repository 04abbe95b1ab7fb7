"""Verdicts: whether each flag is pruned or refused, before the cascade runs, and after it whether
every write that had to go went."""

# Verdicts: whether each flag is pruned or refused, before the cascade runs. The writes of another
# value the decision overrides (or, under `strict`, that refuse the flag), the tests that pin
# another value, ambiguity (a name unrelated definitions carry, a parameter name shared with
# unrelated functions), qualified keys resolved, flags read as objects; and after the cascade,
# whether every write that had to go went. All from the `ast` index and the plumbing.

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from prune_flags.config import Config, Flag
from prune_flags.model.homes import scope_flag
from prune_flags.model.pinned import TEST_WRITES, TestPlan, is_test_path
from prune_flags.model.plumbing import Plumbing
from prune_flags.model.positions import positional_fields
from prune_flags.model.scoping import definitions, fed_by_the_flag, resolve, unrelated
from prune_flags.model.test_file import TestFile
from prune_flags.model.unmatched import lookups_with_effects
from prune_flags.report import Refusal
from prune_flags.semantic.calls import never_forwards
from prune_flags.semantic.facts import ITSELF, NameFacts, Write
from prune_flags.semantic.modules import qualified
from prune_flags.semantic.owners import Foreign
from prune_flags.syntax.spellings import FlagNames, module_strings
from prune_flags.syntax.templates import Template, module_writers
from prune_flags.syntax.values import UNKNOWN, same_value
from prune_flags.vocabulary import RefusalReason, WriteKind

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


def overridable(write: Write) -> bool:
    """A write the config's decision removes whatever value it gives: a definition (module
    constant, class attribute, field, `self.flag = ...`), a statement giving the flag a value, a
    `setattr` or configured writer call standing as a statement of its own; not a value that a
    parameter of the enclosing function carries."""
    if write.from_parameter:
        return False  # `self.fast = fast`: plumbing, which a caller decides
    return write.kind in (WriteKind.ATTRIBUTE, WriteKind.CLASS, WriteKind.MODULE) or (
        write.kind in (WriteKind.SETATTR, WriteKind.WRITER) and write.statement
    )


def computed_from_flags(
    facts: Mapping[str, NameFacts], flags: Sequence[Flag], plumbings: Mapping[str, Plumbing]
) -> dict[str, NameFacts]:
    """The facts with a write computed only from parameters that are flags of the run
    (`self.is_jupyter = _is_jupyter() if force_jupyter is None else force_jupyter`, with
    `force_jupyter` pruned too) taken for a definition, carrying no parameter: once those are
    inlined, no caller decides its value, and the config says what it is."""
    names = {flag.name for flag in flags}

    def of_flags(write: Write) -> bool:
        # (a copy or a carried parameter, `self._sort = sort`, `self.fast = fast`, is plumbing:
        # _copies_flag and _carries decide those)
        plain = not write.carried_from and write.copies is None
        return (
            plain
            and bool(write.parameters)
            and all(
                function
                and parameter in names
                and (write.site.path, function) in plumbings[parameter].functions
                for function, parameter in write.parameters
            )
        )

    return {
        name: replace(
            found,
            writes=[replace(w, parameters=()) if of_flags(w) else w for w in found.writes],
        )
        for name, found in facts.items()
    }


def overridden(flag: Flag, facts: NameFacts) -> list[Write]:
    """The flag's overridable writes of another value than the configured one (or of a value
    only known when the code runs): each goes, reported as overridden."""
    return [
        write
        for write in facts.writes
        if overridable(write)
        and write.value is not ITSELF
        and not same_value(write.value, flag.value)
    ]


def conflicts(
    repository: Repository,
    flags: Sequence[Flag],
    facts: dict[str, NameFacts],
    plumbings: Mapping[str, Plumbing],
    strict: bool = False,
) -> dict[str, list[str]]:
    """Flags something gives another value than the configured one, with where and how. Unless
    strict, the writes that the rewrite removes (see overridable, and the plumbing's) are no
    conflict, nor is a value a flag parameter carries on."""
    found: dict[str, list[str]] = {}
    by_name = {flag.name: flag for flag in flags}
    for flag in flags:
        flag_facts = facts[flag.name]
        pipes = plumbings[flag.name]
        problems = []
        for write in flag_facts.writes:
            if write.value is ITSELF or write.kind == WriteKind.PARAMETER:
                continue  # a parameter not linked to the flag is a local that only shares the name
            if _copies_flag(write, flag, by_name, plumbings):
                continue  # `self._sort = sort`: once `sort` is inlined, the same value
            if not strict and (
                overridable(write) or write in pipes.overridden or _carries(write, pipes)
            ):
                continue
            if write.kind == WriteKind.KEYWORD and write.owner not in pipes.owners:
                # A keyword a function binds to its own parameter (another variable), or that it
                # does not take at all, goes no further.
                trees = repository.trees_naming(write.owner)
                own = never_forwards(trees, write.owner, flag.name)
                if repository.defines(write.owner) and not own:
                    problems.append(
                        f"{write.site} (passed to {write.owner}, which does not take it as"
                        " the flag)"
                    )
                # a keyword of a function outside the repository is that function's business
                continue
            if not same_value(write.value, flag.value):
                problems.append(f"{write.site}{_why_it_stays(write) if not strict else ''}")
        problems += pipes.problems
        problems += positional_fields(repository, flag_facts)
        if problems:
            found[flag.name] = problems
    return found


def _copies_flag(
    write: Write, flag: Flag, flags: Mapping[str, Flag], plumbings: Mapping[str, Plumbing]
) -> bool:
    """Whether a write copies another flag's parameter (`self._sort = sort`) pruned at the same
    value as this flag's: once that parameter is inlined, the write gives the flag its value."""
    if write.copies is None:
        return False
    function, parameter = write.copies
    other = flags.get(parameter)
    return (
        other is not None
        and other.name != flag.name
        and (write.site.path, function) in plumbings[parameter].functions
        and same_value(other.value, flag.value)
    )


def pinning_plan(
    repository: Repository,
    config: Config,
    facts: Mapping[str, NameFacts],
    plumbings: Mapping[str, Plumbing],
) -> TestPlan:
    """What becomes of the tests that write a flag (see model/pinned.py): planned over the original
    texts of the test files holding such writes. Under strict, nothing (each is a conflict)."""
    if config.strict:
        return TestPlan()
    flags = {flag.name: flag for flag in config.flags}
    by_display = repository.by_display()
    holding = {
        write.site.path
        for name in flags
        for write in facts[name].writes
        if write.kind in TEST_WRITES and is_test_path(write.site.path)
    } | {  # a test's call handed a dict entry of the flag (test_shapes.table_entry_written)
        site.path
        for name in flags
        for site in facts[name].table_mentions
        if is_test_path(site.path)
    }
    files = {}
    for display in sorted(holding):
        path = by_display[display]
        text = repository.text(path, original=True) if repository.source(path) is not None else None
        tree = repository.tree(path, text) if text is not None else None
        if tree is not None and text is not None:
            files[display] = (tree, text)
    flag_owners = {name: plumbings[name].owners for name in flags}
    writers, constants = repository.writers, repository.flag_constants
    computed = _computed_from_environment(repository, flags, facts)
    return plan_tests(
        files, flags, flag_owners, writers, constants, computed, delete=config.tests == "delete"
    )


def _computed_from_environment(
    repository: Repository, flags: Mapping[str, Flag], facts: Mapping[str, NameFacts]
) -> dict[str, ast.expr]:
    """The value of each flag's one module-level definition that reads the environment variable
    of its name (`USE_V2 = os.environ.get("USE_V2", "0") == "1"`): a test writing the variable
    gives the flag what that computes (model/test_environment.py)."""
    by_display = repository.by_display()
    found = {}
    for name, flag in flags.items():
        definitions = [write for write in facts[name].writes if write.kind == WriteKind.MODULE]
        if flag.value is None or isinstance(flag.value, str) or len(definitions) != 1:
            continue
        site = definitions[0].site
        path = by_display.get(site.path)
        if path is None or repository.source(path) is None:
            continue  # a file the run leaves as it is (skipped, outside the paths)
        text = repository.text(path, original=True)
        tree = repository.tree(path, text)
        for statement in tree.body if tree is not None else ():
            if (
                isinstance(statement, ast.Assign)
                and statement.lineno == site.line
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and name
                in {c.value for c in ast.walk(statement.value) if isinstance(c, ast.Constant)}
            ):
                found[name] = statement.value
    return found


def plan_tests(
    files: Mapping[str, tuple[ast.Module, str]],
    flags: Mapping[str, Flag],
    owners: Mapping[str, frozenset[str]],
    writers: tuple[Template, ...],
    constants: Mapping[str, str],
    computed: Mapping[str, ast.expr],
    delete: bool,
) -> TestPlan:
    """The plan over the files (path -> tree and text) that write the flags; only test files
    get edits. `owners` are the functions and classes whose parameter or field each flag is
    (what a keyword reaches); `constants` the repository's constants holding a flag's name;
    `computed` the value of each flag's definition computed from its environment variable."""
    plan = TestPlan()
    for path, (tree, text) in files.items():
        if not is_test_path(path):
            continue
        names = FlagNames.of_module(module_strings(tree), [], constants)
        edits, handled = TestFile(
            tree, text, path, flags, owners, module_writers(tree, writers), names, computed, delete
        ).plan()
        if edits.removals:
            plan.files[path] = edits
            plan.handled.update(
                ((flag, path, line), change) for (flag, line), change in handled.items()
            )
    return plan


def _why_it_stays(write: Write) -> str:
    """Why a keyword of another value at a call of an owner cannot go (see _keywords_to_go)."""
    if write.kind != WriteKind.KEYWORD:
        return ""
    if not write.statement:
        return " (its value may have side effects)"
    return f" (another function named {write.owner} may not take it)"


def _carries(write: Write, pipes: Plumbing) -> bool:
    """Whether a write passes on a parameter that is the flag (`self.fast = fast`,
    `helper(fast=fast)` to a function whose parameter is the flag too): after inlining it gives the
    flag its own value.
    """
    carried = (write.site.path, write.carried_from) in pipes.functions
    return carried and (write.kind != WriteKind.KEYWORD or write.owner in pipes.owners)


def still_written(flag: Flag, writes: list[Write]) -> Refusal:
    """The refusal of a flag whose writes (see _to_go) did not all go: those giving it another
    value, and the arguments and parameters passing it."""
    sites = sorted({str(write.site) for write in writes})
    given = sorted({str(write.site) for write in writes if _gives_another_value(flag, write)})
    passed = sorted(set(sites) - set(given))
    said = [f"it is given another value at {', '.join(given)}"] if given else []
    said += [f"it is passed or taken at {', '.join(passed)}"] if passed else []
    message = (
        f"{flag.name}: not pruned: {', and '.join(said)}, and not every read of it,"
        " or not every such write, could go"
    )
    return Refusal(flag.name, RefusalReason.ANOTHER_VALUE, tuple(sites), message)


def _gives_another_value(flag: Flag, write: Write) -> bool:
    """Whether a write gives the flag another value than the configured one: not one passing the
    flag on, nor a parameter without a literal default (it holds what its callers pass)."""
    if write.value is ITSELF or (write.kind == WriteKind.PARAMETER and write.value is UNKNOWN):
        return False
    return not same_value(write.value, flag.value)


def ambiguous_names(
    repository: Repository,
    flags: Sequence[Flag],
    facts: dict[str, NameFacts],
    plumbings: Mapping[str, Plumbing],
) -> list[Refusal]:
    """Flags whose writes of another value would go while unrelated definitions carry the name:
    a module constant in two modules, or attributes of two classes that no chain of bases in the
    repository links. A write or read of it may be either's, so none is guessed: the flag is
    refused, naming each definition as the qualified key that would scope it. A flag with no
    write of another value is pruned as before (every definition agrees with the config). The
    flag passed down is no other definition: a class's attribute where the class's `__init__`
    takes the flag's parameter, or a field only the flag fills (scoping.fed_by_the_flag)."""
    found = []
    for flag in flags:
        flag_facts = facts[flag.name]
        if not overridden(flag, flag_facts):
            continue
        defined, classes = definitions(
            flag.name, flag_facts
        )  # qualified name -> where it is defined
        fed = fed_by_the_flag(flag_facts) | {
            scope.split(".")[-2]
            for _, scope in plumbings[flag.name].functions
            if scope.endswith(".__init__")
        }
        defined = {key: sites for key, sites in defined.items() if classes.get(key) not in fed}
        if len(unrelated(repository, list(defined), classes)) < 2:
            continue
        sites = sorted({str(site) for sites in defined.values() for site in sites})
        # Writes on another receiver than a class's own `self` or `cls` (`car.fast = True`)
        unattributed = sorted(
            {
                str(w.site)
                for w in flag_facts.writes
                if w.kind in (WriteKind.ATTRIBUTE, WriteKind.SETATTR) and not w.owner
            }
        )
        scope_with = tuple(sorted(defined))
        message = (
            f"{flag.name}: not pruned: the name is ambiguous: unrelated definitions carry it "
            f"({', '.join(scope_with)}, at {', '.join(sites)}); a read or write of it "
            f"{'(' + ', '.join(unattributed) + ') ' if unattributed else ''}may be"
            " either's; to prune one of them, scope the flag with its qualified key, e.g."
            f' "{scope_with[0]}" = {toml_value(flag)}'
        )
        found.append(
            Refusal(
                flag.name,
                RefusalReason.AMBIGUOUS,
                tuple(sorted({*sites, *unattributed})),
                message,
                scope_with,
            )
        )
    return found


def toml_value(flag: Flag) -> str:
    """The flag's value as a config file spells it."""
    if isinstance(flag.value, bool):
        return str(flag.value).lower()
    if isinstance(flag.value, (int, float)):
        return flag.source
    return (
        json.dumps(flag.value)
        if isinstance(flag.value, str)
        else f"{{ python = {json.dumps(flag.source)} }}"
    )


def ambiguous_parameters(flags: Sequence[Flag], plumbings: Mapping[str, Plumbing]) -> list[Refusal]:
    """Flags whose name parameters carry that no chain of calls links to the flag, holding another
    value (`def similar(a, b, fuzzy=0.8)` beside `def search(q, fuzzy=False)`), or sharing a
    last name with a function whose parameter is the flag, by which calls are matched: such a
    parameter may be the flag or another variable, so none is guessed. The flag is refused,
    naming each function's parameter as the qualified key that would scope it."""
    found = []
    for flag in flags:
        pipes = plumbings[flag.name]
        if not pipes.unlinked:
            continue
        unlinked = sorted(
            {qualified(write.site.path, f"{write.scope}.{flag.name}") for write in pipes.unlinked}
        )
        keys = {qualified(path, f"{scope}.{flag.name}") for path, scope in pipes.functions}
        sites = sorted({str(write.site) for write in pipes.unlinked})
        scope_with = tuple(sorted(keys.union(unlinked)))
        message = (
            f"{flag.name}: not pruned: the name is ambiguous: parameters that no chain of"
            " calls links to the flag "
            f"carry it ({', '.join(unlinked)}, at {', '.join(sites)}), each the flag or"
            " another variable; to prune "
            "it, give each the configured value as its default (a parameter that agrees is"
            " the flag), or scope the "
            f'flag with a qualified key, e.g. "{scope_with[0]}" = {toml_value(flag)}'
        )
        found.append(Refusal(flag.name, RefusalReason.AMBIGUOUS, tuple(sites), message, scope_with))
    return found


def scope_refusals(
    repository: Repository, flags: Sequence[Flag], facts: dict[str, NameFacts]
) -> tuple[list[Refusal], dict[str, Foreign]]:
    """Scoped flags (qualified keys): the refusal of each one still ambiguous, and where the
    others' names are other definitions' (which the index is to leave out, see
    Repository.leave_out). A key that names nothing is a config error (raised)."""
    refused, foreign = [], {}
    for flag in flags:
        if flag.scope:
            scoped = scope_flag(repository, flag, resolve(repository, flag), facts[flag.name])
            if isinstance(scoped, Refusal):
                refused.append(scoped)
            elif scoped:
                foreign[flag.name] = scoped
    return refused, foreign


def read_as_objects(facts: dict[str, NameFacts]) -> list[Refusal]:
    """Flags read as objects (`USE_NEW.value`, `FLAG()`, `obj.flag[0]`): the name holds an object
    whose value the code asks for, so no read of it may become the constant, and nothing of it
    goes. The message names where, and the accessor template that would read it."""
    found = []
    for name, flag_facts in sorted(facts.items()):
        reads = sorted(flag_facts.object_reads, key=lambda read: (read.site.path, read.site.line))
        if not reads:
            continue
        where = ", ".join(
            f"{read.site} ({read.template if read.effects else read.template.format(name=name)})"
            for read in reads
        )
        advice = next((read.template for read in reads if not read.declared), None)
        how = (
            f'declare how it is read, as an accessor template such as accessors = ["{advice}"]'
            if advice is not None
            else "a read through an accessor template that something acts on stays (a"
            " constant is never a receiver)"
        )
        if all(read.effects for read in reads):
            message = f"{name}: not pruned: {lookups_with_effects(where)}"
        else:
            message = f"{name}: not pruned: it is read as an object at {where}; {how}"
        found.append(
            Refusal(
                name,
                RefusalReason.READ_AS_OBJECT,
                tuple(dict.fromkeys(str(read.site) for read in reads)),
                message,
            )
        )
    return found
