"""Each function's locals and the reads that can reach them, which a rewrite compares before and
after to learn which locals lost their last read."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field

from prune_flags.semantic.trees import tree_names

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
    assigned: set[str] = field(default_factory=set)  # its own locals that statements assign
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
    declared: set[str] = set()
    for statement in _own_statements(node.body):
        if isinstance(statement, (ast.Global, ast.Nonlocal)):
            declared.update(statement.names)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            function.assigned.update(t.id for t in targets if isinstance(t, ast.Name))
    function.assigned -= declared
    function.introspects |= any(_reads_namespace(part) for part in ast.walk(node))


def _own_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a function body, nested blocks included, nested scopes left out."""
    found: list[ast.stmt] = []
    stack = list(body)
    while stack:
        statement = stack.pop()
        found.append(statement)
        if isinstance(statement, (*_FUNCTIONS, ast.ClassDef)):
            continue
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                stack.append(child)
            elif isinstance(child, ast.ExceptHandler):
                stack.extend(child.body)
            elif isinstance(child, ast.match_case):
                stack.extend(child.body)
    return found


def _reads_namespace(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False  # `model.eval()` is a method
    name = node.func.id
    return name in _NAMESPACE_CALLS or (name == "vars" and not node.args)


def _reads_frame(node: ast.AST) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute)) and _last_name(node) in _FRAME_READS


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""
