""""""

from __future__ import annotations

import ast
import builtins
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from prune_flags.semantic.bindings import parameter_names
from prune_flags.semantic.classes import ancestry
from prune_flags.semantic.facts import NameFacts
from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.purity import pure_expression
from prune_flags.syntax.statements import is_string_statement

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


# Writes of a helper's name that may rebind it where its callers look it up (a def of the same
# name in another module, a parameter or a keyword does not).
_HARMLESS_WRITES = frozenset({"module-def", "class-def", "parameter", "keyword"})


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # "positional-only", "positional" or "keyword-only"
    has_default: bool


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


@dataclass(frozen=True)
class Helper:
    path: str  # of the module that defines it, as the index names files
    module: str  # its dotted name
    qualname: str  # `_get_channel`, or `Class.method` for a staticmethod
    # Where it is and why, for the reader: not part of what a helper is (rounds compare helpers).
    line: int = field(compare=False)  # of the def, in the rewritten text
    flag: str = field(compare=False)  # the flag whose cleanup reduced it
    parameters: tuple[Parameter, ...]
    returns: str | None  # the parameter it returns unchanged; None for a constant
    expression: str  # what it returns, as source (one line)
    needs: tuple[Binding, ...] = ()  # the helper module's bindings of the names the expression uses
    # A method's kind: "static", "class" or "instance" ("" for a module-level function). Only a
    # staticmethod is called by its spelling (`Lowering._channel(ctx)`); every method is called
    # through a receiver too (`self.checker.should_skip(t)`), where `method_calls` finds it. A
    # classmethod's or an instance method's first parameter is not among `parameters`.
    method: str = ""

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def owner(self) -> str:
        """A method's class; "" for a module-level function."""
        return self.qualname.rpartition(".")[0]


@dataclass(frozen=True)
class HelperCall:
    """A helper as one file calls it: the imports its expression needs there (maybe none)."""

    helper: Helper
    imports: tuple[str, ...] = ()


def module_name(
    path: Path,
    is_file: Callable[[Path], bool] = Path.is_file,
    packages: dict[Path, str] | None = None,
) -> tuple[str, bool]:
    """`pkg/sub/mod.py` -> ("pkg.sub.mod", False), `pkg/__init__.py` -> ("pkg", True): the
    directories above that hold an `__init__.py` are the packages. `packages` remembers each
    directory's dotted name ("" outside any package) across calls."""
    is_package = path.name == "__init__.py"
    package = _package(path.parent, is_file, {} if packages is None else packages)
    name = package if is_package else f"{package}.{path.stem}" if package else path.stem
    return name, is_package


def _package(directory: Path, is_file: Callable[[Path], bool], packages: dict[Path, str]) -> str:
    if directory not in packages:
        if directory.name and is_file(directory / "__init__.py"):
            above = _package(directory.parent, is_file, packages)
            packages[directory] = f"{above}.{directory.name}" if above else directory.name
        else:
            packages[directory] = ""
    return packages[directory]


def module_names(
    paths: Iterable[Path], is_file: Callable[[Path], bool] = Path.is_file
) -> dict[Path, tuple[str, bool]]:
    """`module_name` of each path, and only of paths whose dotted name no other path shares: two
    `utils.py` outside any package are both `utils`, and a call cannot tell which it imports."""
    packages: dict[Path, str] = {}  # a tree has far fewer directories than files
    named = {path: module_name(path, is_file, packages) for path in paths}
    counts: dict[str, int] = {}
    for name, _ in named.values():
        counts[name] = counts.get(name, 0) + 1
    return {path: named[path] for path in named if counts[named[path][0]] == 1}


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
                source = _absolute(statement, module, is_package)
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
            elif isinstance(statement, _DEFINITIONS):
                bind(_own(statement.name, module, conditional))
                continue
            else:
                simple = isinstance(
                    statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Delete)
                )
                for node in _top_level_stores(statement):
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


def _top_level_stores(statement: ast.stmt) -> list[str]:
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


def _absolute(statement: ast.ImportFrom, module: str, is_package: bool) -> str | None:
    """The module a `from ... import` reads, relative levels resolved; None if it cannot be."""
    if not statement.level:
        return statement.module
    parts = module.split(".") if module else []
    base = parts if is_package else parts[:-1]
    if statement.level - 1 > len(base) or (
        statement.level - 1 == len(base) and not statement.module
    ):
        return None
    base = base[: len(base) - (statement.level - 1)]
    dotted = ".".join([*base, *([statement.module] if statement.module else [])])
    return dotted or None


def folded_helpers(
    before: ast.Module | None,
    after: ast.Module,
    source: str,
    path: str,
    module: str,
    flag_of: Callable[[str], str],
    is_package: bool = False,
) -> list[Helper]:
    """The helpers of a module the cleanup made: definitions in `after` (parsed from `source`)
    of a helper's shape that `before` (the original) did not already have as they are now, each
    credited to the flag whose cleanup made it (`flag_of` its dotted path in the module)."""
    # Most rewrites make no helper: the cheap shape test first, the module's bindings only then.
    shaped = made_shapes(before, after)
    if not shaped:
        return []
    bindings, star = module_bindings(after, module, is_package)
    exported = _exported(after) if "__all__" in source else set()
    found = []
    for qualname, node in shaped.items():
        top = qualname.split(".")[0]
        if top in exported:
            continue
        if _unstable(bindings.get(top, [])):
            continue
        helper = _helper(node, qualname, path, module, flag_of(qualname), source, bindings, star)
        if helper is not None:
            found.append(helper)
    return found


def made_shapes(before: ast.Module | None, after: ast.Module) -> dict[str, ast.FunctionDef]:
    """The functions of `after` of a helper's shape that `before` (the original) did not already
    have as they are now: the cheap test that spares a round that made no helper the rest of the
    work (the repository's module names among it)."""
    shaped = _shaped(after)
    if not shaped or before is None:
        return shaped
    original = {
        qualname: ast.dump(node) for qualname, node in _callables(before) if qualname in shaped
    }
    return {
        qualname: node
        for qualname, node in shaped.items()
        if original.get(qualname) != ast.dump(node)
    }


def _shaped(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {
        qualname: node
        for qualname, node in _callables(tree)
        if not _dunder(node.name) and _one_return(node) and not _reads_receiver(qualname, node)
    }


def _reads_receiver(qualname: str, node: ast.FunctionDef) -> bool:
    """A method returning what its instance or class holds (`return self.size`), the commonest
    one-line method: never a helper, and cheap to tell before the rest of the work."""
    if "." not in qualname or _method_kind(node) not in ("class", "instance"):
        return False
    receiver = [*node.args.posonlyargs, *node.args.args][0].arg
    value = node.body[-1].value  # type: ignore[attr-defined]  (a `return` of a value: see _one_return)
    return any(isinstance(n, ast.Name) and n.id == receiver for n in ast.walk(value))


def _callables(tree: ast.Module) -> list[tuple[str, ast.FunctionDef]]:
    """Module-level functions, and the methods of module-level classes (without a metaclass or a
    class decorator, each method name defined once in its class) that are plain, static or class
    methods."""
    found: list[tuple[str, ast.FunctionDef]] = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef):
            found.append((statement.name, statement))
        elif (
            isinstance(statement, ast.ClassDef)
            and not statement.decorator_list
            and not statement.keywords
        ):
            names = [n for s in statement.body for n in _top_level_stores(s)]
            names += [s.name for s in statement.body if isinstance(s, _DEFINITIONS)]
            for method in statement.body:
                if (
                    isinstance(method, ast.FunctionDef)
                    and names.count(method.name) == 1
                    and _method_kind(method)
                ):
                    found.append((f"{statement.name}.{method.name}", method))
    return found


def _one_return(node: ast.FunctionDef) -> bool:
    """The body, its docstring aside, is one `return` of a value."""
    body = node.body[1:] if is_string_statement(node.body[0]) else node.body
    return len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None


def _dunder(name: str) -> bool:
    """`__call__`, `__getattr__`: Python calls it, not only the code."""
    return name.startswith("__") and name.endswith("__")


def reexports(tree: ast.Module, name: str) -> bool:
    """Whether a package's `__init__.py` imports `name` from a module (`from .mod import name`),
    making it the package's interface."""
    return any(
        isinstance(node, ast.ImportFrom) and any(alias.name == name for alias in node.names)
        for node in ast.walk(tree)
    )


def _method_kind(method: ast.FunctionDef) -> str:
    """ "static", "class" or "instance" (taking its instance first); "" for a method that another
    decorator may wrap (`property`, a cache) or that takes no first parameter to bind."""
    decorators = [ast_dotted(d) for d in method.decorator_list]
    if decorators == ["staticmethod"]:
        return "static"
    if decorators and decorators != ["classmethod"]:
        return ""
    if not [*method.args.posonlyargs, *method.args.args]:
        return ""
    return "class" if decorators else "instance"


def _exported(tree: ast.Module) -> set[str]:
    """Names in the module's `__all__`: public API, called as it is, never inlined."""
    names: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            names.update(
                c.value
                for c in ast.walk(node)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            )
    return names


def _unstable(bindings: list[Binding]) -> bool:
    """A name bound more than once, or only under a condition: what it is depends on the run."""
    return len(bindings) != 1 or bindings[0].conditional


def _plain_imports(bindings: list[Binding]) -> bool:
    """A name bound only by `import a`, `import a.b`...: each binds the same package `a`."""
    return bool(bindings) and all(b.key[0] == "import" and not b.conditional for b in bindings)


def _helper(
    node: ast.FunctionDef,
    qualname: str,
    path: str,
    module: str,
    flag: str,
    source: str,
    bindings: dict[str, list[Binding]],
    star: bool,
) -> Helper | None:
    """The helper `node` is, or None. Decorators other than `staticmethod` (on a method) change
    what a call does (a cache hands back one shared object, `property` and `classmethod` change
    how it is called), so a decorated module-level function is no helper."""
    arguments = node.args
    if (node.decorator_list and "." not in qualname) or arguments.vararg or arguments.kwarg:
        return None
    value = node.body[-1].value  # type: ignore[attr-defined]  (a `return` of a value: see _shaped)
    assert value is not None
    method = _method_kind(node) if "." in qualname else ""
    positional = [*arguments.posonlyargs, *arguments.args]
    implicit = (
        positional[0].arg if method in ("class", "instance") else None
    )  # self or cls: the receiver
    defaults = [False] * (len(positional) - len(arguments.defaults)) + [True] * len(
        arguments.defaults
    )
    kinds = ["positional-only"] * len(arguments.posonlyargs) + ["positional"] * len(arguments.args)
    parameters = tuple(
        [Parameter(a.arg, kind, d) for a, kind, d in zip(positional, kinds, defaults)]
        + [
            Parameter(a.arg, "keyword-only", d is not None)
            for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
        ]
    )
    if implicit is not None:
        parameters = parameters[1:]
    names = {p.name for p in parameters}
    if isinstance(value, ast.Name) and value.id in names:
        return Helper(
            path, module, qualname, node.lineno, flag, parameters, value.id, value.id, method=method
        )
    used = sorted({n.id for n in ast.walk(value) if isinstance(n, ast.Name)})
    if (names | {implicit}) & set(used) or not pure_expression(value):
        return None
    needs = []
    for name in used:
        found = bindings.get(name, [])
        if not found and not star and hasattr(builtins, name):
            needs.append(Binding(name, ("builtin",)))
        elif _plain_imports(found) or (
            not _unstable(found) and found[0].key[0] not in ("unknown", "global")
        ):
            needs += found  # `import a.b` and `import a.c` both bind `a`: a caller may need either
        else:
            return None
    text = ast.get_source_segment(source, value)
    if text is None or "\n" in text:
        text = ast.unparse(value)
    return Helper(
        path, module, qualname, node.lineno, flag, parameters, None, text, tuple(needs), method
    )


def rebound(facts: NameFacts) -> bool:
    """Whether anything in the repository may give a helper's name another value (an attribute
    write, `setattr`, `mock.patch`, a module-level assignment, a decorated def of that name...):
    then its callers may not be calling what the definition says."""
    return any(write.kind not in _HARMLESS_WRITES for write in facts.writes)


def helper_calls(
    tree: ast.Module, path: str, module: str, helpers: Iterable[Helper], is_package: bool = False
) -> dict[str, HelperCall]:
    """How this module spells a call of each helper it can reach (`_get_channel`,
    `channels._get_channel`, `pkg.channels._get_channel`), with the imports the helper's
    expression needs here. A helper this module cannot be given the names it needs is absent."""
    bindings, star = module_bindings(tree, module, is_package)
    if star:
        return {}
    calls: dict[str, HelperCall] = {}
    for helper in helpers:
        if helper.method not in ("", "static"):
            continue  # called through a receiver that fills its first parameter: see method_calls
        imports = () if helper.path == path else _imports(helper, bindings)
        if imports is None:
            continue
        for spelling in _spellings(helper, helper.path == path, bindings):
            calls[spelling] = HelperCall(helper, imports)
    return calls


def _spellings(helper: Helper, own: bool, bindings: dict[str, list[Binding]]) -> list[str]:
    if own:
        return [helper.qualname]
    top, _, rest = helper.qualname.partition(".")
    found = []
    for name, bound in bindings.items():
        if _plain_imports(bound):
            if ("import", helper.module) in {b.key for b in bound}:
                found.append(f"{helper.module}.{helper.qualname}")
            continue
        if _unstable(bound):
            continue
        key = bound[0].key
        if key == ("import-as", helper.module):
            found.append(f"{name}.{helper.qualname}")
        elif key[0] == "from" and f"{key[1]}.{key[2]}" == helper.module:
            found.append(f"{name}.{helper.qualname}")
        elif key == ("from", helper.module, top):
            found.append(name + (f".{rest}" if rest else ""))
    return found


def _imports(helper: Helper, bindings: dict[str, list[Binding]]) -> tuple[str, ...] | None:
    """The imports a module with these bindings needs for the helper's expression; None when a
    name it needs is bound there to something else (or conditionally)."""
    imports: list[str] = []
    for need in helper.needs:
        bound = bindings.get(need.name, [])
        if need.key == ("builtin",):
            if bound:
                return None
        elif need.key[0] == "import" and (not bound or _plain_imports(bound)):
            if need.key not in {b.key for b in bound}:
                imports.append(
                    need.statement
                )  # `import a.b` beside `import a.c` binds the same `a`
        elif not bound:
            imports.append(need.statement)
        elif _unstable(bound) or bound[0].key != need.key:
            return None
    return tuple(imports)


# Names any builtin object answers to (`d.get(k)`, `s.count(x)`, `f.close()`): a method of one of
# these names is never reached by its name alone, whatever the repository defines.
BUILTIN_MEMBERS = frozenset(
    name
    for kind in (object, str, bytes, bytearray, int, float, complex, list, tuple, dict, set, frozenset, type,
                 range, slice, memoryview, BaseException, io.TextIOBase, io.BufferedIOBase)
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
_METHOD_WRITES = frozenset({"registered-def", "class-def", "module-def", "parameter", "keyword"})


_DEFINITION_WRITES = frozenset({"registered-def", "class-def", "module-def"})


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
        (isinstance(statement, _DEFINITIONS) and statement.name == name)
        or name in _top_level_stores(statement)
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
        imports = () if reach.helper.path == path else _imports(reach.helper, bindings)
        if imports is not None:
            by_name.setdefault(reach.helper.name, []).append((reach, imports))
    found: dict[tuple[int, str], HelperCall | None] = {}
    for call, receiver in _method_call_sites(tree, frozenset(by_name)):
        name = call.func.attr  # type: ignore[attr-defined]  (see _method_call_sites)
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
        and not _unstable(bound)
        and bound[0].key == ("from", owner, name)
    )


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _method_call_sites(
    tree: ast.Module, names: frozenset[str]
) -> list[tuple[ast.Call, tuple[str, str]]]:
    """Each call `receiver.name(...)` of one of the names, with what its receiver is (_receiver)."""
    found: list[tuple[ast.Call, tuple[str, str]]] = []

    def walk(node: ast.AST, functions: tuple[ast.AST, ...], method: tuple[str, str] | None) -> None:
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
                    kind = _method_kind(child)  # type: ignore[arg-type]
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
    call: ast.Call, functions: tuple[ast.AST, ...], method: tuple[str, str] | None
) -> tuple[str, str]:
    """What a call's receiver is: ("self", C) for the instance or class a method of module-level
    class C receives (never rebound in it), ("instance", C) for a local of the innermost function
    bound once, at the top of its body above the call, to `C(...)`, ("class", C) for a name no
    enclosing function binds (the module's binding says what it is); ("local", R) for another
    receiver whose root name R (`runner` of `runner.checker`) an enclosing function binds, not by
    an import, and ("", R) for one whose root name it does not; ("", "") for anything else."""
    value = call.func.value  # type: ignore[attr-defined]  (an attribute call: see _method_call_sites)
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
        if node is not function and isinstance(node, _DEFINITIONS) and node.name == name:
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


def _binds(function: ast.AST, name: str) -> bool:
    return name in parameter_names(function) or _rebinds(function, name)  # type: ignore[arg-type]


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
