"""What a derived flag is: a field whose every write the cleanup left is one literal, or a
parameter that every call it left passes one literal, in classes and functions plain enough
to be sure of."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from prune_flags.config import Config, ConfigError, Flag
from prune_flags.model.homes import scope_flag
from prune_flags.model.scoping import definitions, resolve, unrelated
from prune_flags.report import Report
from prune_flags.semantic.classes import (
    DECORATED,
    KEYWORDS,
    UNDEFINED,
    UNNAMED_BASE,
    ancestry,
    class_statements,
    with_subclasses,
)
from prune_flags.semantic.facts import ITSELF, NameFacts
from prune_flags.semantic.modules import qualified
from prune_flags.semantic.owners import owner_spans
from prune_flags.syntax.expressions import ast_dotted, literal
from prune_flags.syntax.values import UNKNOWN, plain_value, same_value
from prune_flags.vocabulary import Action, WriteKind

if TYPE_CHECKING:
    from prune_flags.cascade.rounds import Cascade
    from prune_flags.semantic.repository import Repository

    Cleanup = Callable[[Config], tuple[Report, Cascade]]


@dataclass(frozen=True)
class Derived:
    flag: Flag
    reason: str  # why it is a flag: `field quiet is always False after the cleanup`
    removal: Action  # the action of a removed write or argument of it
    cause: str = ""  # the configured flag whose cleanup made it constant


def derived_field(repository: Repository, cascade: Cascade, name: str) -> Derived | None:
    """The field as a flag when every write of it is one literal of its class chain's own and was
    not before the run, every use is that chain's, and nothing outside can see it."""
    if repository.skipped_holding(frozenset([name])):
        return None  # a file the run left as it is may write or read it in ways no index shows
    facts = repository.facts(frozenset([name]))[name]
    value = _one_literal(facts, (WriteKind.ATTRIBUTE, WriteKind.CLASS))
    if value is UNKNOWN or not facts.attribute_reads:
        return None
    if (
        facts.string_reads
        or facts.table_mentions
        or facts.object_reads
        or facts.name_reads
        or facts.passed
    ):
        return None
    original = repository.facts(frozenset([name]), original=True)[name]
    if _one_literal(original, (WriteKind.ATTRIBUTE, WriteKind.CLASS)) is not UNKNOWN:
        return None  # constant before the run: its author's business
    keys, classes = definitions(name, facts)
    groups = unrelated(repository, list(keys), classes)
    if len(groups) != 1 or not set(keys) <= set(classes):
        return None
    chain = frozenset(classes[key] for key in groups[0])
    if (
        not _plain(repository, chain)
        or cascade.liveness.protected(name, facts)
        or cascade.liveness.interface(name)
    ):
        return None
    if any(cascade.liveness.interface(cls) or _spelt(repository, cls) for cls in chain):
        return None
    key = min(groups[0])
    flag = Flag(name, value, repr(value), scope=key[: -len(name) - 1], origin="derived")
    if not _scoped(repository, flag, facts):
        return None
    reason = f"field {name} is always {flag.source} after the cleanup"
    return Derived(flag, reason, Action.REMOVED_WRITE)


def _one_literal(facts: NameFacts, kinds: tuple[WriteKind, ...]) -> object:
    """The one literal every write of a name gives, each a class's own of one of the kinds; else
    UNKNOWN."""
    values = []
    for write in facts.writes:
        if (
            write.kind not in kinds
            or not write.owner
            or write.from_parameter
            or write.value in (UNKNOWN, ITSELF)
        ):
            return UNKNOWN
        values.append(write.value)
    return _one(values)


def _one(values: list[object]) -> object:
    """The one value all are (a flag's kind of value), else UNKNOWN."""
    if (
        not values
        or not plain_value(values[0])
        or not all(same_value(value, values[0]) for value in values)
    ):
        return UNKNOWN
    return values[0]


def _plain(repository: Repository, classes: frozenset[str]) -> bool:
    """Whether the classes, their subclasses and bases are all the repository's own plain classes:
    no decorator, metaclass or keyword, every base defined in the repository (only such a class's
    attributes are all its code sets: a framework's base may set or read them)."""
    family = with_subclasses(repository, classes)
    # Every step looked up before the answer, as the answer needs when it is yes.
    steps = list(ancestry(sorted(family), partial(class_statements, repository)))
    return not any(
        step.flaws & {UNDEFINED, DECORATED, KEYWORDS, UNNAMED_BASE}
        or any(_sets_by_name(node) for node in step.definitions)
        for step in steps
    )


def _sets_by_name(node: ast.ClassDef) -> bool:
    """Whether a class may set attributes by computed names (`setattr(self, key, value)`,
    `self.__dict__.update(...)`, `vars(self)`), which no write in the index shows."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute) and inner.attr in ("__dict__", "__setattr__"):
            return True
        if isinstance(inner, ast.Call) and ast_dotted(inner.func) in ("setattr", "vars"):
            named = len(inner.args) > 1 and isinstance(inner.args[1], ast.Constant)
            if not named:
                return True
    return False


def _spelt(repository: Repository, name: str) -> bool:
    """Whether a string spells the name (`__all__`, `getattr(mod, "Runner")`): used where no read
    shows."""
    return bool(repository.facts(frozenset([name]))[name].string_reads)


def _scoped(repository: Repository, flag: Flag, facts: NameFacts) -> bool:
    """Whether the scoping rules take every use of the name as the flag's or plainly another
    definition's (over the texts as the cleanup left them)."""
    try:
        scope = resolve(repository, flag)
    except ConfigError:
        return False
    return isinstance(scope_flag(repository, flag, scope, facts), dict)


def derived_parameters(repository: Repository, cascade: Cascade, callee: str) -> Iterable[Derived]:
    """The parameters without a default of the one function of this name that every call passes
    one literal, which not every call passed before the run."""
    found = _the_function(repository, callee)
    if found is None or cascade.liveness.protected(
        callee, repository.facts(frozenset([callee]))[callee]
    ):
        return
    path, scope, function, method = found
    if cascade.liveness.interface(callee) or _spelt(repository, callee):
        return
    if method and not _plain(repository, frozenset([scope.split(".")[0]])):
        return
    parameters = _without_default(function, method)
    after = _passed(repository, callee, parameters, method, original=False)
    before = _passed(repository, callee, parameters, method, original=True)
    for name, values in after.items():
        value = _one(values)
        # Before the run, the calls passed that literal or something the cleanup made it (a call
        # passing another literal went some other way, which a run with the flag may not take);
        # not all the literal: that was its author's business.
        made = [old for old in before.get(name, ()) if not same_value(old, value)]
        if value is UNKNOWN or not made or any(old is not UNKNOWN for old in made):
            continue
        flag = Flag(
            name,
            value,
            repr(value),
            scope=qualified(repository.display(path), scope),
            origin="derived",
        )
        if _scoped(repository, flag, repository.facts(frozenset([name]))[name]):
            reason = (
                f"parameter {name} of {callee}() is passed {flag.source} at every call"
                " after the cleanup"
            )
            yield Derived(flag, reason, Action.REMOVED_ARGUMENT)


def _the_function(
    repository: Repository, name: str
) -> tuple[Path, str, ast.FunctionDef, bool] | None:
    """The only definition of the name in the repository, when it is a plain module-level function
    or method of a module-level class (no decorator, no `*args` or `**kwargs`, no dunder): its
    file, qualified name in its module, node and whether it is a method."""
    if (
        name.startswith("__")
        or not repository.defines(name)
        or repository.skipped_holding(frozenset([name]))
    ):
        return None  # (a skipped file's calls are not seen)
    found = []
    for path in repository.mentioning(frozenset([name])):
        tree = repository.tree(path, repository.text(path))
        for dotted, _, _, node in owner_spans(tree) if tree is not None else ():
            if node.name == name:
                found.append((path, dotted, node))
    if len(found) != 1:
        return None
    path, dotted, node = found[0]
    if (
        not isinstance(node, ast.FunctionDef)
        or node.decorator_list
        or node.args.vararg
        or node.args.kwarg
    ):
        return None
    tree = repository.tree(path, repository.text(path))
    assert tree is not None  # found in it
    method = dotted != name
    if method and not any(
        isinstance(s, ast.ClassDef) and f"{s.name}.{name}" == dotted for s in tree.body
    ):
        return None  # a nested function, or a method of a nested class
    return path, dotted, node, method


def _without_default(function: ast.FunctionDef, method: bool) -> dict[str, int | None]:
    """Its parameters without a default, each with its place among the positional arguments a
    call passes (None for a keyword-only one); a method's self is not among them."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaulted = len(positional) - len(arguments.defaults)
    found: dict[str, int | None] = {
        parameter.arg: index - int(method)
        for index, parameter in enumerate(positional[:defaulted])
        if index >= int(method)
    }
    found.update(
        (p.arg, None)
        for p, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
        if default is None
    )
    return found


def _passed(
    repository: Repository,
    callee: str,
    parameters: dict[str, int | None],
    method: bool,
    original: bool,
) -> dict[str, list[object]]:
    """For each parameter, the literal each call passes it (UNKNOWN for anything else), over the
    texts before or after the run; nothing when the function is used but as the callee of plain
    calls (`*args`, a callback, `Class.method(obj, ...)`)."""
    values: dict[str, list[object]] = {name: [] for name in parameters}
    for path in repository.mentioning(frozenset([callee]), original):
        tree = repository.tree(path, repository.text(path, original))
        if tree is None:
            return {}
        called = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast_dotted(node.func).rsplit(".", 1)[-1] == callee:
                called.add(id(node.func))
                passing = _call_values(node, parameters, method)
                if passing is None:
                    return {}
                for name, value in passing.items():
                    values[name].append(value)
        for node in ast.walk(tree):
            spelt = (
                node.id
                if isinstance(node, ast.Name)
                else node.attr if isinstance(node, ast.Attribute) else None
            )
            if spelt == callee and id(node) not in called:
                return {}
            if (
                isinstance(node, ast.alias)
                and node.name.rsplit(".", 1)[-1] == callee
                and node.asname not in (None, callee)
            ):
                return {}  # `from m import f as g`: its calls are spelt otherwise
    return values if any(values.values()) else {}


def _instance(receiver: ast.expr) -> bool:
    """Whether a method's receiver is plainly an instance, which passes self: a variable or an
    attribute chain not spelt as a class (`Canvas`, `cls`, `self.__class__`), or a class called
    (`Canvas()`); never `type(self)` or `super(Canvas, self)`'s like, whose calls may pass self."""
    if isinstance(receiver, ast.Call):
        called = ast_dotted(receiver.func).rsplit(".", 1)[-1]
        return called[:1].isupper() or called == "super" and not receiver.args
    last = ast_dotted(receiver).rsplit(".", 1)[-1]
    return bool(last) and not last[:1].isupper() and not last.startswith("__") and last != "cls"


def _call_values(
    call: ast.Call, parameters: dict[str, int | None], method: bool
) -> dict[str, object] | None:
    """What one call passes each parameter; None when it cannot be seen (`*args`, `**kwargs`, a
    method called through its class or a bare name, a function through an instance)."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if method and (receiver is None or not _instance(receiver)):
        return None
    if not method and receiver is not None and ast_dotted(receiver) in ("self", "cls"):
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    passed: dict[str, object] = {}
    for name, place in parameters.items():
        if name in keywords:
            passed[name] = literal(keywords[name])
        elif place is not None and place < len(call.args):
            passed[name] = literal(call.args[place])
        else:
            passed[name] = UNKNOWN
    return passed
