"""The names a tree loads, updates, imports and spells as strings: what a rewrite compares before
and after to tell which names lost their readers."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class TreeNames:
    """How a module uses names, from one walk: what the engine compares before and after a
    rewrite to learn which names lost their readers. Everything is counted, so that the
    counts of some statements add up (`plus`)."""

    loads: Counter[str] = field(default_factory=Counter)  # `.attr` loads and bare-name loads
    own_updates: Counter[str] = field(
        default_factory=Counter
    )  # loads in the name's own update, `x = x or {}`
    function_locals: Counter[str] = field(default_factory=Counter)  # assignments inside functions
    imported: Counter[str] = field(default_factory=Counter)  # names imports bind
    strings: Counter[str] = field(
        default_factory=Counter
    )  # string literals: a name in one counts as used

    def plus(self, other: TreeNames) -> TreeNames:
        """The counts of two sets of statements together."""
        return TreeNames(
            self.loads + other.loads,
            self.own_updates + other.own_updates,
            self.function_locals + other.function_locals,
            self.imported + other.imported,
            self.strings + other.strings,
        )


def tree_names(tree: ast.AST) -> TreeNames:
    found = TreeNames()
    loads, own_updates = found.loads, found.own_updates
    # (node, inside a function, the names the enclosing assignment updates)
    stack: list[tuple[ast.AST, bool, frozenset[str]]] = [(tree, False, frozenset())]
    while stack:
        node, in_function, updating = stack.pop()
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            loads["." + node.attr] += 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] += 1
            if node.id in updating:
                own_updates[node.id] += 1
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.strings[node.value] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.imported.update(
                (alias.asname or alias.name).split(".")[0] for alias in node.names
            )
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = frozenset(t.id for t in targets if isinstance(t, ast.Name))
            if in_function:
                found.function_locals.update(names)
            if node.value is not None and not isinstance(node, ast.AnnAssign):
                stack.append((node.value, in_function, names))
                stack.extend(
                    (child, in_function, updating)
                    for child in ast.iter_child_nodes(node)
                    if child is not node.value
                )
                continue
        in_function = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        stack.extend((child, in_function, updating) for child in ast.iter_child_nodes(node))
    return found
