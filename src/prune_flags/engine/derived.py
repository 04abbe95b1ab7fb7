"""Derived flags: fields and parameters the cleanup left constant."""

# Once the configured flags are folded away, a field whose every write in the repository is one
# literal (`self.quiet = False`, the write of True gone with the branch that held it, or `self.quiet
# = not self.verbose` become `not True`, simplified to `False`) is a flag of its own; so is a
# parameter without a default that every call passes one literal (`_render(page, False)` once `FAST`
# was inlined). The cleanup runs again, from the original texts, with each as a scoped flag on top
# of the config's (`"pkg.mod.Runner.quiet" = false`, `"pkg.mod._render.fast" = false`): its reads
# are inlined, its definitions, or its parameter and every argument passing it, go, and the cascade
# goes on, until no new one appears. The engine's rounds, plumbing and refusals are those of any
# scoped flag: a derived flag is nothing but a key the user could have written.
#
# Only what the cleanup made constant counts: a field or parameter already constant before the run
# is its author's business (as model/helpers.py has it for helpers). When in doubt, nothing is
# derived: every write must be a class's own (`self.x`, `cls.x`, a class attribute) in one chain of
# plain classes (no decorator, metaclass or base from outside the repository), every use of the name
# must be that class's as the scoping rules judge it, a function must be the only one of its name,
# called and never used otherwise; names in `keep`, a package's interface (`__all__`, an
# `__init__.py` re-export, a name a test uses) and names already flags are left alone. A derived
# flag the run again refuses is dropped and the run made without it; a run that is worse in any
# other way (a file skipped, another flag refused) is not taken: a derived flag never changes the
# exit code or adds a refusal. Its changes are credited to the configured flag whose cleanup made it
# constant, with a reason naming it (`field quiet is always False after the cleanup`).
#
# Why runs, not rounds of one cascade: a flag's scope, plumbing (which arguments pass it), conflicts
# and test plan are decided over the original texts before the cascade starts, and every round
# rewrites from them; a flag found between rounds needs all of that over the same texts, which is
# what a run with it does. Finding costs a look at the lines a run edited (`ast` only); a run again
# is paid only when something was found.

from __future__ import annotations

import ast
import builtins
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from prune_flags.config import Config
from prune_flags.engine.derived_flags import Derived, derived_field, derived_parameters
from prune_flags.report import Report
from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.lines import Spans, line_opcodes
from prune_flags.vocabulary import Action

if TYPE_CHECKING:
    from prune_flags.cascade.rounds import Cascade
    from prune_flags.semantic.repository import Repository

    Cleanup = Callable[[Config], tuple[Report, Cascade]]


_BUILTINS = frozenset(dir(builtins))  # never the repository's one function of the name


_ROUNDS = 4  # derivations on derivations: each round is a run of the cleanup


# A derived flag's own changes, whose reason is why it is a flag; an "overridden" write or argument
# gave it what the cleanup made its value, and becomes the plain removal.
_OWN_ACTIONS = (
    Action.INLINED,
    Action.REMOVED_WRITE,
    Action.REMOVED_PARAMETER,
    Action.REMOVED_ARGUMENT,
)


def settle(
    repository: Repository, config: Config, first: tuple[Report, Cascade], cleanup: Cleanup
) -> Report:
    """The run's report, with the flags the cleanup derived carried out: run again with them until
    none is new, keeping the last run that is no worse than the first (see the module's doc)."""
    report, cascade = first
    accepted: dict[str, Derived] = {}
    for _ in range(_ROUNDS):
        trial = {**accepted, **discover(repository, config, cascade, accepted)}
        outcome = None
        while trial.keys() - accepted.keys():
            # Each run starts from the original texts, and scopes its flags afresh.
            repository.rewritten.clear()
            repository.foreign.clear()
            again = cleanup(
                replace(config, flags=config.flags + tuple(d.flag for d in trial.values()))
            )
            refused = {refusal.flag for refusal in again[0].refused} & trial.keys()
            if refused & accepted.keys():
                break  # what held before does not now: the run before stands
            if not refused:
                outcome = again
                break
            trial = {name: found for name, found in trial.items() if name not in refused}
        if outcome is None or _worse(outcome[0], first[0]):
            break
        (report, cascade), accepted = outcome, trial
    return _credited(report, config, accepted)


def _worse(report: Report, first: Report) -> bool:
    """Whether a run with derived flags skipped a file or refused a flag the first run did not."""
    return not {s.display for s in report.skipped} <= {s.display for s in first.skipped} or not {
        r.flag for r in report.refused
    } <= {r.flag for r in first.refused}


def _credited(report: Report, config: Config, derived: dict[str, Derived]) -> Report:
    """The report as the config speaks of it: the derived flags' changes credited to their causes,
    no derived flag among the flags or the warnings."""
    if not derived:
        return report
    configured = {flag.name for flag in config.flags}
    report.flags = {name: source for name, source in report.flags.items() if name in configured}
    report.warnings = [warning for warning in report.warnings if warning.flag not in derived]
    for index, result in enumerate(report.files):
        changes = []
        for change in result.changes:
            found = derived.get(change.flag)
            if found is not None:
                action = found.removal if change.action == Action.OVERRIDDEN else change.action
                reason = found.reason if action in _OWN_ACTIONS else change.reason
                change = replace(change, flag=found.cause, action=action, reason=reason)
            changes.append(change)
        report.files[index] = replace(result, changes=tuple(changes))
    return report


def discover(
    repository: Repository, config: Config, cascade: Cascade, known: dict[str, Derived]
) -> dict[str, Derived]:
    """The fields and parameters the last run left constant that are not flags yet."""
    fields, calls = [], []  # per changed file: (path, shapes before, shapes after)
    for path, text in repository.rewritten.items():
        original = repository.sources[path].text
        if path in repository.skipped or text == original:
            continue
        before, after = repository.tree(path, original), repository.tree(path, text)
        if before is not None and after is not None:
            old, new = _edited_lines(original, text)
            (old_fields, old_calls), (new_fields, new_calls) = _shapes(before, old), _shapes(
                after, new
            )
            fields.append((path, old_fields, new_fields))
            calls.append((path, old_calls, new_calls))
    taken = {flag.name for flag in config.flags} | known.keys() | cascade.learnt.dead.keys()
    found = [
        replace(derived, cause=_cause(cascade, known, fields, name))
        for name in sorted(_changed(fields) - taken)
        if (derived := derived_field(repository, cascade, name)) is not None
    ]
    found += [
        replace(derived, cause=_cause(cascade, known, calls, callee))
        for callee in sorted(_reshaped(calls) - _BUILTINS)
        for derived in derived_parameters(repository, cascade, callee)
        if derived.flag.name not in taken
    ]
    # One name is one flag in a run: parameters (or a field) of one name are all left alone.
    names = Counter(derived.flag.name for derived in found)
    return {derived.flag.name: derived for derived in found if names[derived.flag.name] == 1}


Shape = tuple[str, int, int]  # a write's or call's `ast` dump, first and last line


Shapes = dict[str, list[Shape]]  # name -> its writes' or calls' shapes in one module


Changed = list[tuple[Path, Shapes, Shapes]]  # per changed file: its shapes before and after the run


def _reshaped(changed: Changed) -> set[str]:
    """The callees a changed file calls with other arguments than before (a call only removed
    passes nothing: the calls left are as they were)."""
    found: set[str] = set()
    for _, old, new in changed:
        found.update(
            name for name, shapes in new.items() if _counted(shapes) - _counted(old.get(name))
        )
    return found


def _changed(changed: Changed) -> set[str]:
    """The names whose writes (or calls) a changed file holds otherwise than before."""
    found: set[str] = set()
    for _, old, new in changed:
        found.update(
            name
            for name in old.keys() | new.keys()
            if _counted(old.get(name)) != _counted(new.get(name))
        )
    return found


def _counted(shapes: list[Shape] | None) -> Counter[str]:
    return Counter(shape for shape, _, _ in shapes or ())


def _cause(cascade: Cascade, known: dict[str, Derived], changed: Changed, name: str) -> str:
    """The configured flag whose cleanup changed the name's writes (or calls): the flag of the
    change on such a write's lines, else of the last change above it (the branch that held it)."""
    for path, old, new in changed:
        left = _counted(new.get(name))
        changes = sorted(cascade.learnt.results[path].changes, key=lambda change: change.line)
        for shape, first, last in old.get(name, ()):
            if left[shape]:
                left[shape] -= 1
                continue
            on = [change for change in changes if first <= change.line <= last]
            above = [change for change in changes if change.line < first]
            for change in on or above[-1:]:
                flag = known[change.flag].cause if change.flag in known else change.flag
                if flag in cascade.plan.flags and flag not in known:
                    return flag
    return next(iter(cascade.plan.flags), "")


def _lines(node: ast.stmt | ast.expr) -> Shape:
    return ast.dump(node), node.lineno, node.end_lineno or node.lineno


def _edited_lines(before: str, after: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The runs of lines (first, last, from 1) the run edited, in the text before and after it:
    only statements there can write or call otherwise, so only they are looked at."""
    old: list[tuple[int, int]] = []
    new: list[tuple[int, int]] = []
    for tag, first, last, other_first, other_last in line_opcodes(
        before.splitlines(), after.splitlines()
    ):
        if tag != "equal":
            old.append((first + 1, max(first + 1, last)))
            new.append((other_first + 1, max(other_first + 1, other_last)))
    return old, new


def _shapes(tree: ast.Module, lines: list[tuple[int, int]]) -> tuple[Shapes, Shapes]:
    """Within the lines, each attribute the module writes (`x.name = ...`, `del x.name`, a class
    attribute) with its writes' shapes, and each callee (by last name) with its calls' shapes."""
    fields: Shapes = {}
    calls: Shapes = {}
    stack: list[ast.AST] = [tree]
    edited = Spans(lines)
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            first, last = getattr(child, "lineno", None), getattr(child, "end_lineno", None)
            if first is not None and not edited.meets(first, last or first):
                continue
            stack.append(child)
            if isinstance(node, ast.ClassDef) and isinstance(child, (ast.Assign, ast.AnnAssign)):
                for target in child.targets if isinstance(child, ast.Assign) else [child.target]:
                    if isinstance(target, ast.Name):
                        fields.setdefault(target.id, []).append(_lines(child))
            if isinstance(child, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Delete)):
                for target in (
                    child.targets if isinstance(child, (ast.Assign, ast.Delete)) else [child.target]
                ):
                    if isinstance(target, ast.Attribute):
                        fields.setdefault(target.attr, []).append(_lines(child))
            elif isinstance(child, ast.Call) and (
                callee := ast_dotted(child.func).rsplit(".", 1)[-1]
            ):
                calls.setdefault(callee, []).append(_lines(child))
    return fields, calls
