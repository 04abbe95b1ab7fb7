"""Which calls reach a method: the receivers whose class makes that sure (the repository's
classes, overrides, builtin names), and those calls by line."""

from __future__ import annotations

import ast
import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import cast

from prune_flags.model.helpers import (
    Helper,
    HelperCall,
    helper_imports,
    method_kind,
    unstably_bound,
)
from prune_flags.semantic.bindings import (
    Binding,
    module_bindings,
    parameter_names,
    top_level_stores,
)
from prune_flags.semantic.classes import ancestry
from prune_flags.semantic.facts import NameFacts
from prune_flags.syntax.statements import DefinitionNode
from prune_flags.vocabulary import WriteKind

# Names any builtin object answers to (`d.get(k)`, `s.count(x)`, `f.close()`): a method of one of
# these names is never reached by its name alone, whatever the repository defines.
BUILTIN_MEMBERS = frozenset(
    name
    for kind in (object, str, bytes, bytearray, int, float, complex, list, tuple, dict, set,
                 frozenset, type, range, slice, memoryview, BaseException, io.TextIOBase,
                 io.BufferedIOBase)
    for name in dir(kind)
)  # fmt: skip


@dataclass(frozen=True)
class MethodReach:
    """Which calls `receiver.name(...)` reach a method helper, as the repository's classes show
    (the engine works it out): any call of the name when no other definition of it may answer
    (`anywhere`); else only where the receiver's class is known: `self` or `cls` in a method of a
    class in `families` (it and each subclass reach the helper), or an instance made by, or the
    class named by, a class in `classes` (its name -> the module defining it)."""

    helper: Helper
    anywhere: bool
    families: frozenset[str]
    classes: tuple[tuple[str, str], ...]


# What may be written of a method helper's name without giving a call of it another target: its
# own definition and same-named ones elsewhere (whose classes `method_reach` tells apart), and a
# parameter or keyword of that name.
_METHOD_WRITES = frozenset(
    {
        WriteKind.REGISTERED_DEF,
        WriteKind.CLASS_DEF,
        WriteKind.MODULE_DEF,
        WriteKind.PARAMETER,
        WriteKind.KEYWORD,
    }
)


_DEFINITION_WRITES = frozenset(
    {WriteKind.REGISTERED_DEF, WriteKind.CLASS_DEF, WriteKind.MODULE_DEF}
)


def method_reach(
    helper: Helper,
    facts: NameFacts,
    classes: Callable[[str], list[tuple[str, ast.ClassDef | None]]],
    subclasses: Callable[[str], frozenset[str]],
) -> MethodReach | None:
    """Which calls reach a method helper, or None when no call surely does: the repository's
    classes of each name (`classes`: each with its module, "" when not at a module's top level;
    None for a file it cannot read) and the names of a class and of those derived from it
    (`subclasses`). An instance of class K reaches the helper when every class K derives from is
    the repository's, one class of its name, with no metaclass or decorator (which may hand it any
    method), by a plain name, and the helper's class is the only one of them whose body binds the
    name. Anything else written to the name (`obj.m = ...`, `setattr`, a mock) may hand a call
    another target: no call reaches it. Any call of the name reaches it when it is the name's one
    definition in the repository, no string spells it (`getattr(obj, "m")`), no builtin object
    answers to it (`get`, `close`), and every class derived from its own reaches it."""
    if any(write.kind not in _METHOD_WRITES for write in facts.writes):
        return None

    def answers(cls: str) -> bool:
        ancestry = _ancestry(cls, classes)
        return ancestry is not None and [
            c.name for c in ancestry if _binds_in_body(c, helper.name)
        ] == [helper.owner]

    exact = frozenset(cls for cls in subclasses(helper.owner) if answers(cls))
    if helper.owner not in exact:
        return None  # an ancestor from elsewhere may call it, or a subclass overrides it
    families = frozenset(cls for cls in exact if subclasses(cls) <= exact)
    unique = (
        sum(write.kind in _DEFINITION_WRITES for write in facts.writes) == 1
        and not facts.string_reads
        and helper.name not in BUILTIN_MEMBERS
    )
    modules = tuple(sorted((cls, module) for cls in exact for module, _ in classes(cls) if module))
    return MethodReach(helper, unique and helper.owner in families, families, modules)


def _ancestry(
    cls: str, classes: Callable[[str], list[tuple[str, ast.ClassDef | None]]]
) -> list[ast.ClassDef] | None:
    """The class and every class it derives from, when the repository defines each, once, plainly
    (see method_reach); None otherwise."""
    found: list[ast.ClassDef] = []
    for step in ancestry([cls], lambda name: [node for _, node in classes(name)]):
        if step.flaws:
            return None
        found += step.definitions
    return found


def _binds_in_body(node: ast.ClassDef, name: str) -> bool:
    return any(
        (isinstance(statement, DefinitionNode) and statement.name == name)
        or name in top_level_stores(statement)
        for statement in node.body
    )


def method_calls(
    tree: ast.Module,
    path: str,
    module: str,
    reaches: Iterable[MethodReach],
    is_package: bool = False,
) -> dict[tuple[int, str], HelperCall]:
    """The calls of method helpers this module makes, by (line, method name), with the imports
    the helper's expression needs here: only where every call of that name on the line reaches
    one and the same helper."""
    bindings, star = module_bindings(tree, module, is_package)
    if star:
        return {}
    by_name: dict[str, list[tuple[MethodReach, tuple[str, ...]]]] = {}
    for reach in reaches:
        imports = () if reach.helper.path == path else helper_imports(reach.helper, bindings)
        if imports is not None:
            by_name.setdefault(reach.helper.name, []).append((reach, imports))
    found: dict[tuple[int, str], HelperCall | None] = {}
    for call, receiver in _method_call_sites(tree, frozenset(by_name)):
        name = cast(ast.Attribute, call.func).attr  # an attribute call: see _method_call_sites
        reached = [
            HelperCall(reach.helper, imports)
            for reach, imports in by_name[name]
            if _reaches(reach, receiver, bindings, module)
        ]
        key, value = (call.lineno, name), reached[0] if len(reached) == 1 else None
        found[key] = value if found.get(key, value) == value else None
    return {key: value for key, value in found.items() if value is not None}


def _reaches(
    reach: MethodReach, receiver: tuple[str, str], bindings: dict[str, list[Binding]], module: str
) -> bool:
    """Whether a call through this receiver (see _receiver) reaches the helper. An instance
    method called through its class (`Checker.should_skip(obj, t)`) takes its instance among the
    arguments: never. A receiver an import gives (`json.dumps(x)`, `config.reader.load()`) may be
    anything from elsewhere: only a known class reaches it."""
    how, name = receiver
    if how == "class" and reach.helper.method == "instance":
        return False
    if how == "self":
        return name in reach.families or reach.anywhere
    if how == "local":
        return reach.anywhere
    bound = bindings.get(name, [])
    if how == "" or (how == "class" and dict(reach.classes).get(name) is None):
        imported = any(
            binding.key[:2] != ("from", module) and binding.key != ("global",) for binding in bound
        )
        return reach.anywhere and bool(name) and not imported
    owner = dict(reach.classes).get(name)
    return (
        how in ("instance", "class")
        and owner is not None
        and not unstably_bound(bound)
        and bound[0].key == ("from", owner, name)
    )


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _method_call_sites(
    tree: ast.Module, names: frozenset[str]
) -> list[tuple[ast.Call, tuple[str, str]]]:
    """Each call `receiver.name(...)` of one of the names, with what its receiver is (_receiver)."""
    found: list[tuple[ast.Call, tuple[str, str]]] = []

    def walk(
        node: ast.AST, functions: tuple[_Function, ...], method: tuple[str, str] | None
    ) -> None:
        for child in ast.iter_child_nodes(node):
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr in names
            ):
                found.append((child, _receiver(child, functions, method)))
            if isinstance(child, _FUNCTIONS):
                # Decorators and defaults run in the enclosing scope, the body in the function's.
                outer = [
                    *getattr(child, "decorator_list", []),
                    *child.args.defaults,
                    *child.args.kw_defaults,
                ]
                for part in outer:
                    if part is not None:
                        walk(part, functions, method)
                inner = None
                if (
                    isinstance(node, ast.ClassDef)
                    and node in tree.body
                    and not isinstance(child, ast.Lambda)
                ):
                    kind = method_kind(child)
                    receiver = (
                        [*child.args.posonlyargs, *child.args.args][0].arg
                        if kind in ("class", "instance")
                        else ""
                    )
                    inner = (node.name, receiver) if kind else None
                for part in child.body if isinstance(child.body, list) else [child.body]:
                    walk(part, (*functions, child), inner)
            else:
                walk(child, functions, method)

    walk(tree, (), None)
    return found


def _receiver(
    call: ast.Call, functions: tuple[_Function, ...], method: tuple[str, str] | None
) -> tuple[str, str]:
    """What a call's receiver is: ("self", C) for the instance or class a method of module-level
    class C receives (never rebound in it), ("instance", C) for a local of the innermost function
    bound once, at the top of its body above the call, to `C(...)`, ("class", C) for a name no
    enclosing function binds (the module's binding says what it is); ("local", R) for another
    receiver whose root name R (`runner` of `runner.checker`) an enclosing function binds, not by
    an import, and ("", R) for one whose root name it does not; ("", "") for anything else."""
    value = cast(ast.Attribute, call.func).value  # an attribute call: see _method_call_sites
    if not isinstance(value, ast.Name):
        root = value
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or any(
            _imports_name(function, root.id) for function in functions
        ):
            return "", ""
        return (
            "local" if any(_binds(function, root.id) for function in functions) else ""
        ), root.id
    name = value.id
    if any(_imports_name(function, name) for function in functions):
        return "", ""
    if method is not None and method[1] == name and not _rebinds(functions[-1], name):
        return "self", method[0]
    if functions and isinstance(functions[-1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        cls = _constructed_local(functions[-1], name, call.lineno)
        if cls is not None and not any(_binds(function, cls) for function in functions):
            return "instance", cls
    if any(_binds(function, name) for function in functions):
        return "local", name
    return "class", name


def _rebinds(function: ast.AST, name: str) -> bool:
    """Whether anything in a function (nested scopes included, to be safe) may bind `name`
    besides the function's own parameter."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.asname or a.name).split(".")[0] == name for a in node.names
        ):
            return True
        if node is not function and isinstance(node, DefinitionNode) and node.name == name:
            return True
        if getattr(node, "name", None) == name and isinstance(
            node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)
        ):
            return True
        if isinstance(node, ast.MatchMapping) and node.rest == name:
            return True
    return False


def _imports_name(function: ast.AST, name: str) -> bool:
    return any(
        isinstance(node, (ast.Import, ast.ImportFrom))
        and any((a.asname or a.name).split(".")[0] == name for a in node.names)
        for node in ast.walk(function)
    )


def _binds(function: _Function, name: str) -> bool:
    return name in parameter_names(function) or _rebinds(function, name)


def _constructed_local(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, line: int
) -> str | None:
    """The class C when the function's one binding of `name` is `name = C(...)`, a statement of
    its body's top level ending above `line` (so it ran before anything there reads the name)."""
    if name in parameter_names(function):
        return None
    stores = [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
    ]
    for statement in function.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and statement.targets[0] in stores
            and len(stores) == 1
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name)
            and (statement.end_lineno or statement.lineno) < line
        ):
            rest = ast.Module(
                body=[s for s in function.body if s is not statement], type_ignores=[]
            )
            return None if _rebinds(rest, name) else statement.value.func.id
    return None
