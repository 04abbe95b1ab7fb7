"""Whose a flag's name is: qualified keys resolved to one definition, and definitions of one name
grouped by the chains of bases that link them."""

# Whose a flag's name is. Definitions of one name that no chain of bases links (two classes' `fast`,
# two modules' `FAST`, two functions' `use_x` parameters) are different variables: a qualified key
# (`"pkg.mod.Class.fast" = false`) says which one the flag is, and the others are left alone.
#
# A scoped flag's home is its definition's class with its subclasses and ancestors that define the
# name (or its module with the modules importing the name from it, or its function). Every other
# definition is foreign, and so is every class or function that touches only foreign ones. A place
# that could be either (`car.fast` on a receiver of unknown class) is never guessed: the flag is
# refused as ambiguous, naming where. The engine hides a scoped flag from the index inside its
# foreign classes and functions (`foreign_spans`), and the passes leave them alone
# (`rewrite.editors.statements.BodyEditor`).

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from prune_flags.config import ConfigError, Flag
from prune_flags.semantic.classes import (
    class_bases,
)
from prune_flags.semantic.facts import ITSELF, NameFacts, Site
from prune_flags.semantic.locals import functions_binding, local_flag_unfit
from prune_flags.semantic.modules import absolute_module, names_module, qualified
from prune_flags.syntax.expressions import literal
from prune_flags.syntax.statements import DefinitionNode, FunctionNode
from prune_flags.syntax.values import UNKNOWN
from prune_flags.vocabulary import WriteKind

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


@dataclass(frozen=True)
class Scope:
    """Where a qualified key's definition lives: a module constant (`owner` empty), a class's
    attribute (`owner` the class) or a function's parameter or local (`owner` the function's
    dotted path in its module, `parameter` true)."""

    path: str  # display path of the module
    owner: str = ""
    parameter: bool = False
    # A function's local, which only assignments there bind (semantic.locals.local_flag_unfit):
    # read as a bare name, as a parameter is, but never passed by a keyword.
    local: bool = False


def string_named(repository: Repository, flag: Flag, accessors: bool) -> bool:
    """Whether a dotted key is a flag's string name (`"cart.page_size"`, which an accessor reads),
    not a qualified key: with accessors, a key whose first part names no module in scope."""
    first = flag.scope.split(".")[0]
    modules = (qualified(repository.display(path), "") for path in repository.raw)
    return (
        accessors and bool(flag.scope) and not any(first in module.split(".") for module in modules)
    )


def local_homes(
    repository: Repository, name: str, original: bool = False
) -> list[tuple[str, str | None]]:
    """The functions whose own body binds `name`, each qualified (`pkg.mod.func`) with why its
    local cannot be fixed at a value (semantic.locals.local_flag_unfit; None when it can)."""
    homes = []
    for path in repository.mentioning(frozenset([name]), original):
        tree = repository.tree(path, repository.text(path, original))
        display = repository.display(path)
        for dotted, function in functions_binding(tree, name) if tree is not None else ():
            homes.append((qualified(display, dotted), local_flag_unfit(function, name)))
    return homes


def local_home(repository: Repository, flag: Flag) -> str:
    """For a bare name the repository holds only as locals (no definition, attribute, global or
    parameter of it): the one function whose local it is, qualified (`pkg.mod.func`), when only
    one binds it and it can be fixed there; else ""."""
    if flag.scope:
        return ""
    homes = local_homes(repository, flag.name)
    if len(homes) != 1 or homes[0][1] is not None:
        return ""  # (decided before the index is asked: most names are no function's local)
    facts = repository.facts(frozenset([flag.name]))[flag.name]
    if (
        facts.writes
        or facts.attribute_reads
        or facts.name_reads
        or facts.assert_reads
        or facts.passed
        or facts.table_mentions
    ):
        return ""
    return homes[0][0]


def local_assignments(repository: Repository, flag: Flag, scope: Scope) -> list[tuple[int, object]]:
    """The assignments of a local flag in its function: each one's line and the literal it
    assigns (UNKNOWN where it is computed)."""
    path = repository.by_display()[scope.path]
    tree = repository.tree(path, repository.text(path))
    function = _owner(tree.body, scope.owner.split(".")) if tree is not None else None
    found: list[tuple[int, object]] = []
    for node in ast.walk(function) if function is not None else ():
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == flag.name for t in targets):
                found.append((node.lineno, literal(node.value)))
    return sorted(found, key=lambda assignment: assignment[0])


def resolve(repository: Repository, flag: Flag) -> Scope:
    """Where a qualified key's definition lives, or a ConfigError naming the key when its module,
    class, function or parameter does not exist. A class attribute or module constant may be gone
    (a run before removed it): the flag is then read where it is still read, as any flag whose
    definition is gone."""
    parts = flag.scope.split(".")
    files = {repository.display(path): path for path in repository.raw}
    for split in range(len(parts), 0, -1):
        module, inner = ".".join(parts[:split]), parts[split:]
        paths = sorted(path for path in files if names_module(path, module))
        if not paths:
            continue
        if len(paths) > 1:
            _key_error(
                flag,
                f"{module} names more than one module: {', '.join(paths)}; spell more of its path",
            )
        path = files[paths[0]]
        tree = (
            repository.tree(path, repository.text(path))
            if repository.source(path) is not None
            else None
        )
        if tree is None:
            _key_error(flag, f"{paths[0]} does not parse, so {flag.key} cannot be found in it")
        return _scope_in(tree, paths[0], module, inner, flag)
    _key_error(
        flag,
        f"no module {parts[0]} among the files in scope; a qualified key is the module's "
        'dotted name, then the class or function, then the flag, e.g. "pkg.mod.Class.fast"',
    )


def _scope_in(tree: ast.Module, path: str, module: str, inner: list[str], flag: Flag) -> Scope:
    if not inner:
        return Scope(path)
    owner = _owner(tree.body, inner)
    if owner is None:
        no_module = len(inner) > 1 and _owner(tree.body, inner[:1]) is None
        missing = f"{module} has no class or function {inner[0] if no_module else '.'.join(inner)}"
        _key_error(
            flag, missing + (f", and there is no module {module}.{inner[0]}" if no_module else "")
        )
    if isinstance(owner, ast.ClassDef):
        return Scope(path, owner.name)
    arguments = owner.args
    where = f"{module}.{'.'.join(inner)}"
    if flag.name in {
        a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    }:
        return Scope(path, ".".join(inner), parameter=True)
    unfit = local_flag_unfit(owner, flag.name) if isinstance(owner, FunctionNode) else ""
    if unfit is None:
        return Scope(path, ".".join(inner), parameter=True, local=True)
    if unfit:
        _key_error(flag, f"{where}'s local {flag.name} cannot be fixed: {unfit}")
    _key_error(
        flag,
        f"{where} has no parameter {flag.name} and assigns no local of that name (if a run"
        " pruned it, drop the key)",
    )


def _key_error(flag: Flag, message: str) -> NoReturn:
    raise ConfigError(flag.origin or "--flag", f"flags.{flag.key}", message)


def _owner(body: list[ast.stmt], path: list[str]) -> DefinitionNode | None:
    found = next(
        (s for s in body if isinstance(s, DefinitionNode) and s.name == path[0]),
        None,
    )
    if found is None or len(path) == 1:
        return found
    return _owner(found.body, path[1:])


def definitions(name: str, facts: NameFacts) -> tuple[dict[str, list[Site]], dict[str, str]]:
    """The name's definitions by qualified name (module constants, classes' attributes), with
    where each is; and the class of each class attribute's qualified name."""
    found: dict[str, list[Site]] = {}
    classes: dict[str, str] = {}
    for write in facts.writes:
        if write.value is ITSELF:
            continue  # `self.fast = config.fast` carries the flag itself along
        if write.kind == WriteKind.MODULE:
            found.setdefault(qualified(write.site.path, name), []).append(write.site)
        elif write.kind in (WriteKind.CLASS, WriteKind.ATTRIBUTE) and write.owner:
            key = qualified(write.site.path, f"{write.owner}.{name}")
            found.setdefault(key, []).append(write.site)
            classes[key] = write.owner
    return found, classes


def fed_by_the_flag(facts: NameFacts) -> frozenset[str]:
    """The classes whose field of the name is declared without a value and filled only with the
    flag's own read (`ConsoleOptions(legacy_windows=self.legacy_windows)`): the flag passed down,
    not another definition of the name."""
    declared = {w.owner for w in facts.writes if w.kind == WriteKind.CLASS and w.owner}
    found = set()
    for owner in declared:
        defined = [w for w in facts.writes if w.owner == owner and w.kind != WriteKind.KEYWORD]
        passed = [w for w in facts.writes if w.owner == owner and w.kind == WriteKind.KEYWORD]
        if (
            passed
            and all(w.kind == WriteKind.CLASS and w.value is UNKNOWN for w in defined)
            and all(w.value is ITSELF for w in passed)
        ):
            found.add(owner)
    return frozenset(found)


def unrelated(
    repository: Repository, keys: list[str], classes: Mapping[str, str]
) -> list[set[str]]:
    """The definitions grouped by what links them: a class's attribute is one with its ancestors'
    (a subclass overrides it), through the chain of bases the repository's class statements spell
    (by the bases' last names); siblings under a base that does not define it are not linked. A
    module constant is linked only with the one of a module it star-imports (`_overlays`)."""
    defining = frozenset(classes.values())
    bases = class_bases(repository, defining)
    group = {name: name for name in defining}
    for name in sorted(defining):
        seen, stack = set(), list(bases.get(name, ()))
        while stack:
            ancestor = stack.pop()
            if ancestor in seen:
                continue
            seen.add(ancestor)
            if ancestor in defining:
                low, high = sorted((group[name], group[ancestor]))
                group = {
                    member: low if joined == high else joined for member, joined in group.items()
                }
            stack.extend(bases.get(ancestor, ()))
    modules = {key: key for key in keys if key not in classes}
    for overlay, base in _overlays(repository, sorted(modules)):
        low, high = sorted((modules[overlay], modules[base]))
        modules = {key: low if joined == high else joined for key, joined in modules.items()}
    groups: dict[str, set[str]] = {}
    for key in keys:
        groups.setdefault(group[classes[key]] if key in classes else modules[key], set()).add(key)
    return list(groups.values())


def _overlays(repository: Repository, keys: list[str]) -> list[tuple[str, str]]:
    """The module constants that overlay another of the name: `settings/test.py` doing
    `from .base import *` and then `USE_X = False` sets base's `USE_X` at another stage of one
    setting (as Django's settings modules do), and is one definition with it."""
    by_display = repository.by_display()
    files = {
        key: display
        for display in by_display
        for key in keys
        if qualified(display, key.rpartition(".")[2]) == key
    }
    linked = []
    for key, display in sorted(files.items()):
        path = by_display[display]
        tree = repository.tree(path, repository.text(path, original=True))
        starred = [
            absolute_module(node, qualified(display, ""), display.endswith("__init__.py"))
            for node in (tree.body if tree is not None else ())
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        ]
        linked += [
            (key, base)
            for base, where in files.items()
            if base != key and any(m and names_module(where, m) for m in starred)
        ]
    return linked
