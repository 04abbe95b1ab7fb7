"""Each function's locals and the reads that can reach them, which a rewrite compares before and
after to learn which locals lost their last read."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
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
    for name, node in functions_of(tree):
        _add(found.setdefault(name, FunctionLocals()), node)
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


_NESTED = (*_FUNCTIONS, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)  # fmt: skip


def local_flag_unfit(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str | None:
    """Why a function's local `name` cannot be fixed at a value, or None when it can: it is bound
    only by plain assignments (`name = ...`) in the function's own scope, read in it and in the
    scopes nested in it, none of which binds it again; the function reads no locals by name.
    Then every read of it is the value, and every assignment its definition. "" when the
    function does not bind it at all."""
    assigned = False
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            if getattr(node, "name", None) == name:
                return f"line {node.lineno} binds it otherwise than by an assignment"
            if name in _bound_inside(node):
                return f"a nested scope binds {name} again (line {node.lineno})"
            continue
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return f"it is declared {type(node).__name__.lower()} (line {node.lineno})"
        if _reads_namespace(node):
            return f"the function reads its locals by name (line {getattr(node, 'lineno', 0)})"
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            plain = [t for t in targets if isinstance(t, ast.Name) and t.id == name]
            if plain and (len(targets) > 1 or node.value is None):
                return f"line {node.lineno} binds it with others, or declares it without a value"
            assigned = assigned or bool(plain)
            if node.value is not None:
                stack.append(node.value)
            stack.extend(t for t in targets if not (isinstance(t, ast.Name) and t.id == name))
            continue
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return f"line {node.lineno} binds it otherwise than by an assignment"
        if (isinstance(node, ast.ExceptHandler) and node.name == name) or (
            isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name
        ):
            return f"line {getattr(node, 'lineno', 0)} binds it otherwise than by an assignment"
        stack.extend(ast.iter_child_nodes(node))
    return None if assigned else ""


def _bound_inside(scope: ast.AST) -> set[str]:
    """The names a nested scope binds for itself or declares nonlocal."""
    found = {
        node.id
        for node in ast.walk(scope)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
    }
    for node in ast.walk(scope):
        if isinstance(node, ast.Nonlocal):
            found.update(node.names)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, (*_FUNCTIONS, ast.ClassDef)) and node is not scope:
            found.add(node.name)
    if isinstance(scope, (*_FUNCTIONS, ast.ClassDef)):
        found.discard(scope.name)  # its own name is bound in the enclosing scope
    return found


def functions_binding(
    tree: ast.Module, name: str
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The module's functions (by qualified name, as function_locals names them) whose own body
    binds `name`."""
    return [
        (dotted, function)
        for dotted, function in functions_of(tree)
        if name in body_bindings(function)
    ]


def functions_of(
    tree: ast.Module,
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The module's functions at any depth, each with its qualified name (`Class.method`,
    `outer.inner`), as `rewrite.scopes.scope_name` names them."""
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (*_FUNCTIONS, ast.ClassDef)):
                dotted = f"{prefix}{child.name}"
                if isinstance(child, _FUNCTIONS):
                    yield dotted, child
                stack.append((child, dotted + "."))
            else:
                stack.append((child, prefix))
