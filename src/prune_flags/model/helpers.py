"""Helpers that fold to a constant: what the cleanup may inline at their calls."""

# A helper is a module-level function, or a staticmethod of a module-level class, whose body
# (docstring aside) is one `return EXPR`, where EXPR either has no side effect and uses none of the
# parameters (`_get_channel(ctx)` -> `mlir.COLLECTIVE_CHANNEL_ID`), or is one of the parameters
# (`_maybe_cast(x)` -> `x`). Only a helper the cleanup made counts: a function that already had that
# shape is its author's business. A public name is inlined too (`should_skip` folded to `return
# False`), unless the module exports it (`__all__`) or a package's `__init__.py` re-exports it (the
# engine checks that): those are an interface for callers outside the repository. Dunders never are
# helpers.
#
# A method (an instance, class or static method of a module-level class) is a helper of the same
# shape, its `self` or `cls` neither used nor among its parameters. A call reaches it only where the
# receiver's class makes that sure (`method_reach`, `method_calls`): anywhere when the repository
# defines the name once and no builtin answers to it, else through `self`, a local bound to
# `Class(...)` or the class itself, where no subclass overrides it.
#
# The engine asks two things, with `ast` only (like the index, this module never imports LibCST):
# `folded_helpers` over the files a round changed, and `helper_calls` over each file that mentions a
# helper: how the file spells a call of it, and the imports the expression needs there. A name the
# expression uses must be bound once, unconditionally, at the top of the helper's module; a file
# that binds it to something else, binds it conditionally or star-imports is left alone.

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import cast

from prune_flags.semantic.bindings import (
    Binding,
    module_bindings,
    top_level_stores,
)
from prune_flags.semantic.facts import NameFacts
from prune_flags.semantic.modules import exported_names
from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.purity import pure_expression
from prune_flags.syntax.statements import DefinitionNode, is_string_statement
from prune_flags.vocabulary import WriteKind

# Writes of a helper's name that may rebind it where its callers look it up (a def of the same
# name in another module, a parameter or a keyword does not).
_HARMLESS_WRITES = frozenset(
    {WriteKind.MODULE_DEF, WriteKind.CLASS_DEF, WriteKind.PARAMETER, WriteKind.KEYWORD}
)


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # "positional-only", "positional" or "keyword-only"
    has_default: bool


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
    exported = exported_names(after) if "__all__" in source else set()
    found = []
    for qualname, node in shaped.items():
        top = qualname.split(".")[0]
        if top in exported:
            continue
        if unstably_bound(bindings.get(top, [])):
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
    if "." not in qualname or method_kind(node) not in ("class", "instance"):
        return False
    receiver = [*node.args.posonlyargs, *node.args.args][0].arg
    value = _returned(node)
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
            names = [n for s in statement.body for n in top_level_stores(s)]
            names += [s.name for s in statement.body if isinstance(s, DefinitionNode)]
            for method in statement.body:
                if (
                    isinstance(method, ast.FunctionDef)
                    and names.count(method.name) == 1
                    and method_kind(method)
                ):
                    found.append((f"{statement.name}.{method.name}", method))
    return found


def _one_return(node: ast.FunctionDef) -> bool:
    """The body, its docstring aside, is one `return` of a value."""
    body = node.body[1:] if is_string_statement(node.body[0]) else node.body
    return len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None


def _returned(node: ast.FunctionDef) -> ast.expr:
    """The value a function of one `return` (see _one_return) returns."""
    return cast(ast.expr, cast(ast.Return, node.body[-1]).value)


def _dunder(name: str) -> bool:
    """`__call__`, `__getattr__`: Python calls it, not only the code."""
    return name.startswith("__") and name.endswith("__")


def method_kind(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
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


def unstably_bound(bindings: list[Binding]) -> bool:
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
    value = _returned(node)  # a function of one `return`: see _shaped
    assert value is not None
    method = method_kind(node) if "." in qualname else ""
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
            not unstably_bound(found) and found[0].key[0] not in ("unknown", "global")
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
        imports = () if helper.path == path else helper_imports(helper, bindings)
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
        if unstably_bound(bound):
            continue
        key = bound[0].key
        if key == ("import-as", helper.module):
            found.append(f"{name}.{helper.qualname}")
        elif key[0] == "from" and f"{key[1]}.{key[2]}" == helper.module:
            found.append(f"{name}.{helper.qualname}")
        elif key == ("from", helper.module, top):
            found.append(name + (f".{rest}" if rest else ""))
    return found


def helper_imports(helper: Helper, bindings: dict[str, list[Binding]]) -> tuple[str, ...] | None:
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
        elif unstably_bound(bound) or bound[0].key != need.key:
            return None
    return tuple(imports)
