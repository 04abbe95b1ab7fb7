"""Flags fixed at a list, dict or set: each read may become the literal only where it is used up.

A definition `CHECKS = ["a", "b"]` makes one object that every read shares; an inlined literal
makes a new one at each read. That is the same program only where nothing could change the object
or tell it from a copy: a membership test, a comparison, a truth test, iteration, a pure builtin
over it, an item of it. A read that hands the object on (an argument, an assignment, a return, a
default, an identity test, a store through an item) may let something change what every other
read sees, so no read of such a flag is safe to replace: the flag is refused, naming the reads.
(Its methods, `.append` and the like, are reads as an object, refused as such; `.get` is an
item.)"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, TypeGuard

from prune_flags.config import Flag
from prune_flags.report import Refusal
from prune_flags.semantic.facts import NameFacts
from prune_flags.syntax.values import MUTABLE_TYPES
from prune_flags.vocabulary import RefusalReason

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository

# Builtins that use the items of what they are given and keep no hold of it (an iterator over
# it is no way to change it).
_USING_ITEMS: Final = frozenset(
    {"all", "any", "bool", "dict", "enumerate", "frozenset", "isinstance", "iter", "len", "list",
     "max", "min", "repr", "reversed", "set", "sorted", "str", "sum", "tuple", "zip"}
)  # fmt: skip
_ORDERING: Final = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_TESTS: Final = (ast.If, ast.While, ast.IfExp, ast.Assert)


def handed_on(
    repository: Repository, flags: Iterable[Flag], facts: dict[str, NameFacts]
) -> list[Refusal]:
    """One refusal for each flag fixed at a list, dict or set that a read hands on."""
    found = []
    for flag in flags:
        if not isinstance(flag.value, MUTABLE_TYPES):
            continue
        sites = _handing_on(repository, flag.name, facts[flag.name])
        if sites:
            kind = type(flag.value).__name__
            message = (
                f"{flag.name}: not pruned: its value is a {kind}, one object all its reads share,"
                f" and {', '.join(sites)} {'hands' if len(sites) == 1 else 'hand'} it on, where"
                " it may be changed; only reads that test, compare, index or iterate it could"
                " become the literal (if nothing changes it, make it a tuple or frozenset, in the"
                " code and in the config)"
            )
            found.append(Refusal(flag.name, RefusalReason.HANDED_ON, tuple(sites), message))
    return found


def _handing_on(repository: Repository, name: str, facts: NameFacts) -> list[str]:
    """The `path:line` of each read of the flag that does not use it up."""
    lines: dict[str, set[int]] = {}
    for site in facts.name_reads + facts.attribute_reads:
        lines.setdefault(site.path, set()).add(site.line)
    for read in facts.assert_reads:
        lines.setdefault(read.site.path, set()).add(read.site.line)
    by_display = repository.by_display()
    found: set[tuple[str, int]] = set()
    for display, at in lines.items():
        path = by_display.get(display)
        tree = repository.tree(path, repository.text(path, original=True)) if path else None
        if tree is None:
            continue
        parents = {
            id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)
        }
        for node in ast.walk(tree):
            if _reads(node, name) and _lines(node, parents) & at and not _used_up(node, parents):
                found.add((display, node.lineno))
    return [f"{display}:{line}" for display, line in sorted(found)]


def _reads(node: ast.AST, name: str) -> TypeGuard[ast.Name | ast.Attribute]:
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, ast.Load)
    return isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.ctx, ast.Load)


def _lines(node: ast.expr, parents: dict[int, ast.AST]) -> set[int]:
    """The node's line, and the first line of an assert holding it (where an assert read is)."""
    found = {node.lineno}
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, ast.stmt):
        parent = parents.get(id(parent))
    if isinstance(parent, ast.Assert):
        found.add(parent.lineno)
    return found


def _used_up(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether the value of `node` is used where it is, with no hold kept of it."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Compare):
        operands = [parent.left, *parent.comparators]
        index = next(i for i, operand in enumerate(operands) if operand is node)
        before = parent.ops[index - 1] if index else None
        after = parent.ops[index] if index < len(parent.ops) else None
        return (before is None or isinstance(before, (*_ORDERING, ast.In, ast.NotIn))) and (
            after is None or isinstance(after, _ORDERING)
        )
    if isinstance(parent, ast.Subscript) and node is parent.value:
        return isinstance(parent.ctx, ast.Load)  # an item (immutable, as the config has it)
    if isinstance(parent, ast.Attribute) and parent.attr == "get":  # `OPTIONS.get(key)`
        return isinstance(call := parents.get(id(parent)), ast.Call) and call.func is parent
    if isinstance(parent, ast.Starred):
        return isinstance(parents.get(id(parent)), (ast.Call, ast.List, ast.Tuple, ast.Set))
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and node is parent.iter:
        return True
    if isinstance(parent, ast.Call) and any(arg is node for arg in parent.args):
        return _using_items(parent)
    return isinstance(parent, ast.FormattedValue) or _truth_tested(node, parents)


def _using_items(call: ast.Call) -> bool:
    if isinstance(call.func, ast.Name):
        return call.func.id in _USING_ITEMS and not call.keywords
    return (  # `", ".join(names)`
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "join"
        and isinstance(call.func.value, ast.Constant)
        and isinstance(call.func.value.value, str)
    )


def _truth_tested(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether only the truth of `node` is used: an `if`'s test, `not`'s operand, an operand of
    `and`/`or` whose own truth only is used (elsewhere `x or y` gives one of them on)."""
    parent = parents.get(id(node))
    if isinstance(parent, _TESTS):
        return node is parent.test
    if isinstance(parent, ast.comprehension):
        return any(test is node for test in parent.ifs)
    if isinstance(parent, ast.UnaryOp):
        return isinstance(parent.op, ast.Not)
    if isinstance(parent, ast.BoolOp):
        return _truth_tested(parent, parents)
    return False
