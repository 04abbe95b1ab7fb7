"""What a scope binds: a module's top-level names, a function's parameters and locals."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from prune_flags.semantic.modules import absolute_module
from prune_flags.syntax.statements import DefinitionNode

# What binds names of its own: a function, a lambda, a comprehension.
ScopeNode = (
    ast.FunctionDef
    | ast.AsyncFunctionDef
    | ast.Lambda
    | ast.ListComp
    | ast.SetComp
    | ast.DictComp
    | ast.GeneratorExp
)


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


def local_names(scope: ScopeNode) -> set[str]:
    """Names a function, lambda or comprehension binds for itself (not those it declares global)."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return parameter_names(scope) | body_bindings(scope)
    return _bindings([generator.target for generator in scope.generators])


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


def bound_to_modules(statements: list[ast.stmt], names: frozenset[str]) -> frozenset[str]:
    """The names among `names` that an `import` binds in these statements and nothing else does:
    a module wherever they are read, never a flag of that name."""
    imported: set[str] = set()
    bound: set[str] = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Import):
                imported.update(
                    (alias.asname or alias.name).partition(".")[0] for alias in node.names
                )
            elif isinstance(node, ast.ImportFrom):
                bound.update(alias.asname or alias.name for alias in node.names)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
            elif isinstance(node, DefinitionNode):
                bound.add(node.name)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                bound.update(node.names)
    return frozenset((imported - bound) & names)


def class_bindings(cls: ast.ClassDef) -> set[str]:
    """Names a class body binds for itself: what a bare name read in the body may be."""
    return _bindings(list(cls.body))


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


@dataclass(frozen=True)
class Binding:
    """How a module binds a top-level name: comparable across modules, and the import that gives
    another module the same binding."""

    name: str
    key: tuple[
        str, ...
    ]  # ("import", "a.b"), ("import-as", "a.b"), ("from", "M", "Y"), ("builtin",)
    statement: str = ""  # `from M import Y`; empty for a builtin
    conditional: bool = False  # inside an if/try/with/loop at the top, or rebound through `global`


def module_bindings(
    tree: ast.Module, module: str, is_package: bool = False
) -> tuple[dict[str, list[Binding]], bool]:
    """Every binding of each top-level name of a module, and whether it star-imports."""
    found: dict[str, list[Binding]] = {}
    star = False

    def bind(binding: Binding) -> None:
        found.setdefault(binding.name, []).append(binding)

    def walk(statements: list[ast.stmt], conditional: bool) -> None:
        nonlocal star
        for statement in statements:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        key, text = (
                            "import-as",
                            alias.name,
                        ), f"import {alias.name} as {alias.asname}"
                        bind(Binding(alias.asname, key, text, conditional))
                    else:
                        root, key = alias.name.split(".")[0], ("import", alias.name)
                        bind(Binding(root, key, f"import {alias.name}", conditional))
            elif isinstance(statement, ast.ImportFrom):
                source = absolute_module(statement, module, is_package)
                for alias in statement.names:
                    if alias.name == "*":
                        star = True
                    elif source is not None and source != "__future__":
                        local = alias.asname or alias.name
                        text = f"from {source} import {alias.name}" + (
                            f" as {local}" if local != alias.name else ""
                        )
                        bind(Binding(local, ("from", source, alias.name), text, conditional))
                    else:
                        bind(Binding(alias.asname or alias.name, ("unknown",), "", conditional))
            elif isinstance(statement, DefinitionNode):
                bind(_own(statement.name, module, conditional))
                continue
            else:
                simple = isinstance(
                    statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Delete)
                )
                for node in top_level_stores(statement):
                    bind(_own(node, module, conditional or not simple))
            for block in ("body", "orelse", "finalbody"):
                walk(getattr(statement, block, []), True)
            for handler in getattr(statement, "handlers", []):
                walk(handler.body, True)
            for case in getattr(statement, "cases", []):
                for pattern in ast.walk(case.pattern):
                    for name in (getattr(pattern, "name", None), getattr(pattern, "rest", None)):
                        if name:
                            bind(_own(name, module, True))
                walk(case.body, True)

    walk(tree.body, False)
    for node in ast.walk(tree):  # `global x` in a function rebinds the module's x when it runs
        if isinstance(node, ast.Global):
            for name in node.names:
                bind(Binding(name, ("global",), "", True))
    return found, star


def _own(name: str, module: str, conditional: bool) -> Binding:
    return Binding(name, ("from", module, name), f"from {module} import {name}", conditional)


def top_level_stores(statement: ast.stmt) -> list[str]:
    """Names a top-level statement binds outside its nested blocks and scopes."""
    roots: list[ast.AST] = []
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        roots = [statement]
    elif isinstance(statement, (ast.For, ast.AsyncFor)):
        roots = [statement.target, statement.iter]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        roots = list(statement.items)
    elif isinstance(statement, (ast.If, ast.While)):
        roots = [statement.test]
    elif isinstance(statement, (ast.Expr, ast.Delete, ast.Return)):
        roots = [statement]
    names = []
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.append(node.id)
    names += [h.name for h in getattr(statement, "handlers", []) if h.name]
    return names
