"""The hooks a cleanup may drop once emptied (`__post_init__`, `__del__`, a bare `__init__(self)`):
those no base can define."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from prune_flags.semantic.classes import (
    DOTTED_BASE,
    KEYWORDS,
    UNDEFINED,
    ancestry,
    base_name,
    class_statements,
    flaws,
    with_subclasses,
)
from prune_flags.semantic.owners import owner_spans

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository


HOOKS = ("__post_init__", "__del__", "__init__")  # what the runtime calls: emptied, they may go


def droppable_hooks(
    repository: Repository,
    tree: ast.Module,
    folding: Callable[[ast.FunctionDef | ast.AsyncFunctionDef], bool],
) -> frozenset[str]:
    """The hooks of a module's classes (`Config.__post_init__`, by dotted path) whose method may go
    once its body folds away: nothing in the repository names the hook but its definitions (no
    `super().__del__()` in a class derived from it, that would then find none), and no ancestor
    defines it, which the class's
    bases (plain names or `object`, each defined in the repository) show. A base from outside the
    repository might define it, and then the empty method was what overrode it. Only hooks that
    `folding` says the cleanup may empty are looked at."""
    classes = {
        dotted: node for dotted, _, _, node in owner_spans(tree) if isinstance(node, ast.ClassDef)
    }
    found = set()
    for dotted, node in classes.items():
        hooks = [
            s
            for s in node.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and s.name in HOOKS
            and folding(s)
        ]
        for method in hooks:
            hook = method.name
            if _inherits(repository, node, hook):
                continue
            if hook == "__init__":
                # `def __init__(self): pass` is object's own: any call of it, `super().__init__()`
                # included, does the same without it; unless a decorator builds one in its place
                # (a dataclass) or a subclass's other base would then be initialised instead.
                if _bare(method) and not node.decorator_list and _single_based(repository, node):
                    found.add(f"{dotted}.{hook}")
                continue
            # `super().__post_init__()` reaches the class's hook only from a class derived from it.
            derived = with_subclasses(repository, frozenset([node.name])) != {node.name}
            if not _hook_named_elsewhere(repository, hook, derived):
                found.add(f"{dotted}.{hook}")
    return frozenset(found)


def _bare(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`def __init__(self)`: no parameter but self, no decorator, not async."""
    arguments = function.args
    return (
        isinstance(function, ast.FunctionDef)
        and not function.decorator_list
        and not arguments.posonlyargs
        and len(arguments.args) == 1
        and not (arguments.vararg or arguments.kwonlyargs or arguments.kwarg)
    )


def _single_based(repository: Repository, node: ast.ClassDef) -> bool:
    """Whether every class derived from this one has one base: in a class of several bases, the
    method resolution order could reach another base's `__init__` once this one's is gone."""
    derived = with_subclasses(repository, frozenset([node.name])) - {node.name}
    for path in repository.mentioning(frozenset(derived)) if derived else []:
        tree = repository.tree(path, repository.text(path))
        for other in ast.walk(tree) if tree is not None else ():
            if isinstance(other, ast.ClassDef) and other.name in derived and len(other.bases) != 1:
                return False
    return True


def _hook_named_elsewhere(repository: Repository, hook: str, through_super: bool) -> bool:
    """Whether any file names the hook other than by defining it: a call, a string, a store; a call
    through `super()` only when `through_super` (a class derived from the hook's may make it).
    """
    for path in repository.mentioning(frozenset([hook])):
        tree = repository.tree(path, repository.text(path))
        if tree is None:
            return True
        for node in ast.walk(tree):
            if (
                (
                    isinstance(node, ast.Attribute)
                    and node.attr == hook
                    and (through_super or not _of_super(node))
                )
                or (isinstance(node, ast.Name) and node.id == hook)
                or (isinstance(node, ast.Constant) and node.value == hook)
            ):
                return True
    return False


def _of_super(node: ast.Attribute) -> bool:
    """`super().name`, `super(Cls, self).name`."""
    value = node.value
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    )


def _inherits(repository: Repository, node: ast.ClassDef, hook: str) -> bool:
    """Whether an ancestor of the class may define the hook: one the repository does not define,
    or gives a metaclass (which may hand the class anything), or not by a plain name, may; one it
    defines does when its body binds the hook."""
    if flaws([node]) & {KEYWORDS, DOTTED_BASE}:
        return True
    return any(
        step.flaws & {UNDEFINED, KEYWORDS, DOTTED_BASE}
        or any(class_binds(definition, hook) for definition in step.definitions)
        for step in ancestry(
            [base_name(base) for base in node.bases], partial(class_statements, repository)
        )
    )


def class_binds(node: ast.ClassDef, name: str) -> bool:
    """Whether a class statement's body binds the name: a method, or an assignment's target."""
    return any(
        isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign))
        and name in _bound(s)
        for s in node.body
    )


def _bound(
    statement: ast.FunctionDef | ast.AsyncFunctionDef | ast.Assign | ast.AnnAssign,
) -> set[str]:
    """The names a class-body statement binds."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {statement.name}
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
