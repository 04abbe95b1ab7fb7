"""Each function's locals and the reads that can reach them, which a rewrite compares before and
after to learn which locals lost their last read."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field

from prune_flags.semantic.bindings import body_bindings
from prune_flags.semantic.trees import tree_names
from prune_flags.syntax.expressions import last_name

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Calls that read the calling function's locals by name, so that no local of it may go: `vars()`
# without an argument, `locals()`, `eval`/`exec` of a string.
_NAMESPACE_CALLS = frozenset({"locals", "eval", "exec"})
# A frame (`sys._getframe(1).f_locals`) reads the locals of whichever function it reaches: where
# the module takes one, none of its functions loses a local.
_FRAME_READS = frozenset({"_getframe", "currentframe", "f_locals"})


@dataclass
class FunctionLocals:
    """One function (or the functions sharing its qualified name, counted together) as a rewrite
    sees its locals: only the function and the scopes nested in it can read them."""

    loads: Counter[str] = field(default_factory=Counter)  # bare names, nested scopes included
    own_updates: Counter[str] = field(default_factory=Counter)  # in `x = x or {}`
    bound: set[str] = field(default_factory=set)  # the names its body binds for itself
    introspects: bool = False  # it or a scope in it reads locals by name


def function_locals(tree: ast.Module) -> dict[str, FunctionLocals]:
    """The module's functions by qualified name (`Class.method`, `outer.inner`), as
    `rewrite.scopes.scope_name` names them; two functions of one name count as one."""
    found: dict[str, FunctionLocals] = {}
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (*_FUNCTIONS, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if isinstance(child, _FUNCTIONS):
                    _add(found.setdefault(name, FunctionLocals()), child)
                stack.append((child, name + "."))
            else:
                stack.append((child, prefix))
    if any(_reads_frame(node) for node in ast.walk(tree)):
        for function in found.values():
            function.introspects = True
    return found


def _add(function: FunctionLocals, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    names = tree_names(ast.Module(node.body, []))
    function.loads += names.loads
    function.own_updates += names.own_updates
    function.bound |= body_bindings(node)
    function.introspects |= any(_reads_namespace(part) for part in ast.walk(node))


def _reads_namespace(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False  # `model.eval()` is a method
    name = node.func.id
    return name in _NAMESPACE_CALLS or (name == "vars" and not node.args)


def _reads_frame(node: ast.AST) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute)) and last_name(node) in _FRAME_READS
