"""One module's tree and the facts several questions read of it (`TreeFacts`: its calls, its
definitions and classes by name), each walked once on first need; and the names a tree loads,
updates, imports and spells as strings, which a rewrite compares before and after."""

from __future__ import annotations

import ast
import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.statements import DefinitionNode

# Other libraries' objects that stand for the repository's own definitions: Django's settings
# are the project's settings module.
MIRRORS = frozenset({("django.conf", "settings")})


class Forwarder(NamedTuple):
    """A function with a `*args` parameter, as its calls of others see it."""

    name: str
    varargs: str  # its `*args` parameter's name
    takes: int  # its positional parameters before `*args`, self counted
    method: bool


# A call as calls_in finds it: its callee's last name, the call, and the enclosing function when
# that has a `*args` parameter.
CallOf = tuple[str, ast.Call, Forwarder | None]


class TreeFacts:
    """A module's tree (`tree`) and what several questions read of it, each worked out once, on
    first need, for as long as the repository keeps the tree."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree

    @functools.cached_property
    def calls(self) -> list[CallOf]:
        """Every call in the tree (see calls_in): the plumbing of every flag asks for the calls of
        its own functions over the same files."""
        return calls_in(self.tree)

    @functools.cached_property
    def definitions(self) -> dict[str, list[DefinitionNode]]:
        """The tree's functions, methods and classes (at any depth) by name, in `ast.walk`'s
        order."""
        found: dict[str, list[DefinitionNode]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, DefinitionNode):
                found.setdefault(node.name, []).append(node)
        return found

    @functools.cached_property
    def _bindings(self) -> tuple[dict[str, set[str]], frozenset[str]]:
        """What each name an import binds comes from (the top-level module of each import of it;
        "" for a relative one), and the names bound any other way, anywhere in the tree."""
        imported: dict[str, set[str]] = {}
        other: set[str] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.asname or alias.name.partition(".")[0]
                    imported.setdefault(name, set()).add(alias.name.partition(".")[0])
            elif isinstance(node, ast.ImportFrom):
                origin = "" if node.level or not node.module else node.module.partition(".")[0]
                for alias in node.names:
                    mirror = (node.module, alias.name) in MIRRORS
                    imported.setdefault(alias.asname or alias.name, set()).add(
                        "" if mirror else origin
                    )
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                other.add(node.id)
            elif isinstance(node, DefinitionNode):
                other.add(node.name)
            elif isinstance(node, ast.arg):
                other.add(node.arg)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                other.update(node.names)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                other.add(node.name)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                other.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                other.add(node.rest)
        return imported, frozenset(other)

    @property
    def imported_names(self) -> frozenset[str]:
        """The names the module's imports bind, anywhere in it (`import *` aside)."""
        return frozenset(self._bindings[0]) - {"*"}

    def outside_names(self, internal: frozenset[str]) -> frozenset[str]:
        """The names the module binds only by imports from outside the repository (`torch` of
        `import torch`, `backends` of `from torch import backends`): whatever is read through them
        belongs to another library, never to a flag of the repository's."""
        imported, other = self._bindings
        return frozenset(
            name
            for name, origins in imported.items()
            if name not in other and all(origin and origin not in internal for origin in origins)
        )

    @functools.cached_property
    def classes(self) -> dict[str, list[ast.ClassDef]]:
        """The tree's class statements (at any depth) by name: the classes among its definitions."""
        return {
            name: classes
            for name, nodes in self.definitions.items()
            if (classes := [node for node in nodes if isinstance(node, ast.ClassDef)])
        }


def calls_in(tree: ast.AST) -> list[CallOf]:
    """Every call in a tree: its callee's last name, the call, and the enclosing function when that
    has a `*args` parameter."""
    found = []
    stack: list[tuple[ast.AST, Forwarder | None]] = [(tree, None)]
    while stack:
        node, enclosing = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args
            positional = [*arguments.posonlyargs, *arguments.args]
            method = bool(positional) and positional[0].arg in ("self", "cls")
            vararg = arguments.vararg
            enclosing = (
                Forwarder(node.name, vararg.arg, len(positional), method)
                if vararg is not None
                else None
            )
        elif isinstance(node, ast.Lambda):
            enclosing = None
        if isinstance(node, ast.Call):
            found.append((ast_dotted(node.func).rsplit(".", 1)[-1], node, enclosing))
        stack.extend((child, enclosing) for child in ast.iter_child_nodes(node))
    return found


@dataclass
class TreeNames:
    """How a module uses names, from one walk: what the engine compares before and after a
    rewrite to learn which names lost their readers. Everything is counted, so that the
    counts of some statements add up (`plus`)."""

    loads: Counter[str] = field(default_factory=Counter)  # `.attr` loads and bare-name loads
    own_updates: Counter[str] = field(
        default_factory=Counter
    )  # loads in the name's own update, `x = x or {}`
    imported: Counter[str] = field(default_factory=Counter)  # names imports bind
    # The strings that name a binding of the module (in `__all__`, `getattr(obj, "x")`,
    # `globals()["x"]`): a name in one counts as used.
    strings: Counter[str] = field(default_factory=Counter)

    def plus(self, other: TreeNames) -> TreeNames:
        """The counts of two sets of statements together."""
        return TreeNames(
            self.loads + other.loads,
            self.own_updates + other.own_updates,
            self.imported + other.imported,
            self.strings + other.strings,
        )


def tree_names(tree: ast.AST) -> TreeNames:
    found = TreeNames()
    loads, own_updates = found.loads, found.own_updates
    # (node, the names the enclosing assignment updates)
    stack: list[tuple[ast.AST, frozenset[str]]] = [(tree, frozenset())]
    while stack:
        node, updating = stack.pop()
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            loads["." + node.attr] += 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] += 1
            if node.id in updating:
                own_updates[node.id] += 1
        elif isinstance(node, (ast.Call, ast.Subscript)):
            found.strings.update(_naming_strings(node))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.imported.update(
                (alias.asname or alias.name).split(".")[0] for alias in node.names
            )
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = frozenset(t.id for t in targets if isinstance(t, ast.Name))
            if "__all__" in names and node.value is not None:
                found.strings.update(_strings_in(node.value))
            if node.value is not None and not isinstance(node, ast.AnnAssign):
                stack.append((node.value, names))
                stack.extend(
                    (child, updating)
                    for child in ast.iter_child_nodes(node)
                    if child is not node.value
                )
                continue
        stack.extend((child, updating) for child in ast.iter_child_nodes(node))
    return found


_LOOKUPS = frozenset({"getattr", "hasattr", "setattr", "delattr"})
_NAMESPACES = frozenset({"globals", "vars", "locals"})


def _naming_strings(node: ast.Call | ast.Subscript) -> list[str]:
    """The strings a call or subscript names a binding with: `getattr(obj, "x")`,
    `__all__.extend(["x"])`, `globals()["x"]`."""
    if isinstance(node, ast.Subscript):
        value = node.value
        namespace = (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in _NAMESPACES
        )
        return _strings_in(node.slice) if namespace else []
    func = node.func
    if isinstance(func, ast.Name) and func.id in _LOOKUPS and len(node.args) >= 2:
        return _strings_in(node.args[1])
    if isinstance(func, ast.Attribute) and ast_dotted(func.value) == "__all__":
        return [string for argument in node.args for string in _strings_in(argument)]
    return []


def _strings_in(node: ast.AST) -> list[str]:
    return [
        part.value
        for part in ast.walk(node)
        if isinstance(part, ast.Constant) and isinstance(part.value, str)
    ]
