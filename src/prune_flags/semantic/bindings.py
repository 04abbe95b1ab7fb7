"""What a scope binds: a module's top-level names, a function's parameters and locals."""

from __future__ import annotations

import ast


def module_level_names(tree: ast.Module) -> set[str]:
    """Names a module's own top-level statements bind: assignments, imports, definitions."""
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in statement.names)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
    return names


def local_names(scope: ast.AST) -> set[str]:
    """Names a function, lambda or comprehension binds for itself (not those it declares global)."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return parameter_names(scope) | body_bindings(scope)
    return _bindings([generator.target for generator in scope.generators])  # type: ignore[attr-defined]


def parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """A function's parameters, `*args` and `**kwargs` included."""
    arguments = function.args
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ]
    return {argument.arg for argument in every if argument is not None}


def body_bindings(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Names a function's body binds for itself, its parameters aside."""
    return _bindings(list(function.body) if isinstance(function.body, list) else [function.body])


def _bindings(body: list[ast.AST]) -> set[str]:
    names: set[str] = set()
    declared: set[str] = set()
    stack = body
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue  # a nested scope's own names are its own
        elif isinstance(
            node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        ):
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return names - declared
