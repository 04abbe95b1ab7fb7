"""Which names a module binds to flags, and which names a function rebinds locally."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

import libcst as cst

from prune_flags.config import Flag
from prune_flags.rewrite.constants import constant_node, constant_value
from prune_flags.rewrite.editors.shapes import module_level
from prune_flags.rewrite.passes.options import click_flags
from prune_flags.rewrite.purity import is_pure
from prune_flags.syntax.values import same_value


def elsewhere(receiver: cst.BaseExpression, outside: frozenset[str]) -> bool:
    """Whether a receiver is plainly another library's object: its chain starts at a name the
    module binds only to another library (`torch` of `import torch`; see
    semantic.trees.TreeFacts.outside_names). An attribute of it is never a flag of its name."""
    while isinstance(receiver, (cst.Attribute, cst.Subscript, cst.Call)):
        receiver = receiver.func if isinstance(receiver, cst.Call) else receiver.value
    return isinstance(receiver, cst.Name) and receiver.value in outside


def flag_bindings(module: cst.Module, flags: Mapping[str, object]) -> dict[str, str]:
    """Local name -> flag, for flags the module assigns at top level or imports by name, in its
    body or in the blocks of its module-level statements (`try: import x; HAS_X = True`)."""
    bindings: dict[str, str] = {}
    for statement in module_level(module.body):
        for small in statement.body:
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    imported = alias.name.value if isinstance(alias.name, cst.Name) else None
                    if imported is not None and imported in flags:
                        local = alias.asname.name if alias.asname else alias.name
                        if isinstance(local, cst.Name):
                            bindings[local.value] = imported
            for target in _assigned(small):
                if isinstance(target, cst.Name) and target.value in flags:
                    bindings[target.value] = target.value
    return bindings


def _assigned(small: cst.BaseSmallStatement) -> list[cst.BaseExpression]:
    if isinstance(small, cst.Assign):
        return [target.target for target in small.targets]
    if isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        return [small.target]
    return []


class _Binder(cst.CSTVisitor):
    """Collects the names a function body binds, without entering nested scopes."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.globals: set[str] = set()

    def _bind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None and isinstance(node.name, cst.Name):
            self.names.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.globals.update(item.name.value for item in node.names)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def bound_names(function: cst.CSTNode) -> frozenset[str]:
    """Parameters and locals of a function, or a comprehension's targets: a flag's name among
    them is not the flag."""
    if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
        binder = _Binder()
        for_in = getattr(function, "for_in", None)
        while for_in is not None:
            binder._bind(for_in.target)
            for_in = for_in.inner_for_in
        return frozenset(binder.names)
    names = {param.name.value for param in all_params(function)}
    if isinstance(function, cst.FunctionDef):
        binder = _Binder()
        function.body.visit(binder)
        names |= binder.names - binder.globals
    return frozenset(names)


def all_params(function: cst.FunctionDef | cst.Lambda) -> list[cst.Param]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    return every + [
        star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)
    ]


def flag_parameters(
    scope: cst.CSTNode, flags: Mapping[str, Flag], linked: frozenset[str] = frozenset()
) -> frozenset[str]:
    """Parameters of a function that are flags: named like one and defaulting to its value, or
    linked to it along a chain of calls whatever their default (`linked`, see linked_flags)."""
    if not isinstance(scope, (cst.FunctionDef, cst.Lambda)):
        return frozenset()
    found = (
        {name for name in click_flags(scope) if name in flags}
        if isinstance(scope, cst.FunctionDef)
        else set()
    )
    for param in all_params(scope):
        flag = flags.get(param.name.value)
        if flag is None:
            continue
        if flag.name in linked or (
            param.default is not None and same_value(constant_value(param.default), flag.value)
        ):
            found.add(flag.name)
    return frozenset(found)


def linked_flags(
    functions: Mapping[str, frozenset[str]], scopes: Sequence[cst.CSTNode]
) -> frozenset[str]:
    """The flags whose parameter the innermost of `scopes`, a function, has as the flag along a
    chain of calls: the engine names those functions (RewriteContext.flag_functions)."""
    if not functions or not scopes or not isinstance(scopes[-1], cst.FunctionDef):
        return frozenset()
    name = scope_name(scopes)
    return frozenset(flag for flag, names in functions.items() if name in names)


def scope_name(scopes: Sequence[cst.CSTNode]) -> str:
    """The innermost scope's qualified name in its module (`Class.method`, `outer.inner`), as the
    index names a parameter's function (Write.scope)."""
    return ".".join(
        scope.name.value for scope in scopes if isinstance(scope, (cst.FunctionDef, cst.ClassDef))
    )


class _StoreCounter(_Binder):
    """Counts the bindings of each name in a function body (nested scopes aside)."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}

    def _bind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.counts[target.value] = self.counts.get(target.value, 0) + 1
        super()._bind(target)


Carried = tuple[str, cst.BaseExpression]  # the flag a local carries, and the constant it holds
Lookup = Callable[
    [cst.BaseExpression], "Carried | None"
]  # what a lookup by name reads (passes.lookups)


_ESCAPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Del, cst.Global, cst.Nonlocal)


class Mentions(cst.CSTVisitor):
    """The names a statement mentions (read, bound or deleted), and those it mentions inside a
    nested function, class or lambda, deletes, or declares global or nonlocal (another scope's
    code may bind them, a call away): a local carrying a flag may be none of those."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.escaping: set[str] = set()
        self._escapes = 0  # how many enclosing nodes make a mention escape

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        if self._escapes:
            self.escaping.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # its attr is no name of the scope
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # nor is a keyword
        return False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _ESCAPES):
            self._escapes += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, _ESCAPES):
            self._escapes -= 1
        super().on_leave(original_node)


def mentions(node: cst.CSTNode) -> Mentions:
    found = Mentions()
    node.visit(found)
    return found


def _carried_value(
    value: cst.BaseExpression,
    flags: Mapping[str, Flag],
    names: Mapping[str, str],
    carried: Mapping[str, Carried],
    lookup: Lookup,
    outside: frozenset[str],
) -> Carried | None:
    """What a local assigned `value` carries: a flag's read of any kind the passes inline
    (`self.use_x`, a module flag or flag parameter among `names`, a lookup by name:
    `getattr(settings, "X", "")`, `os.environ.get("MODE")`, an accessor template's call), or what
    another such local carries."""
    if (
        isinstance(value, cst.Attribute)
        and value.attr.value in flags
        and not elsewhere(value.value, outside)
    ):
        flag = flags[value.attr.value]
        return flag.name, constant_node(flag.value)
    if isinstance(value, cst.Name):
        if value.value in carried:
            return carried[value.value]  # a plain alias: `weights_b = weights_a`
        flag_name = names.get(value.value)
        return None if flag_name is None else (flag_name, constant_node(flags[flag_name].value))
    return lookup(value)


def flag_locals(
    function: cst.CSTNode,
    flags: Mapping[str, Flag],
    module_flags: Mapping[str, str],
    parameters: frozenset[str],
    lookup: Lookup,
    outside: frozenset[str] = frozenset(),
) -> dict[str, Carried]:
    """Locals that only carry a flag: `use_x = self.use_x` (or a module flag, one of the flag
    `parameters`, a lookup by name: `lookup` says what one reads) at the top of the function
    body, bound nowhere else. Their reads are the flag's constant.

    Every read must run after the assignment and see its value: the name is mentioned in no
    statement before it, in no nested function, class or lambda (which could run earlier, or
    rebind it through `nonlocal`), in no `del` and no `global` or `nonlocal` of the function. A
    top-level statement runs once, in no loop."""
    if not isinstance(function, cst.FunctionDef) or not isinstance(
        function.body, cst.IndentedBlock
    ):
        return {}
    names = {**module_flags, **{name: name for name in parameters}}
    if not any(
        _assigns_flag(statement, flags, names, lookup, outside) for statement in function.body.body
    ):
        return {}  # the common case, decided without walking the body
    counter = _StoreCounter()
    function.body.visit(counter)
    escaping = mentions(function.body).escaping | {p.name.value for p in all_params(function)}
    carried: dict[str, Carried] = {}
    seen: set[str] = set()  # the names mentioned so far, in source order
    for statement in function.body.body:
        for small in (
            statement.body if isinstance(statement, cst.SimpleStatementLine) else (statement,)
        ):
            target = _single_name_target(small)
            if (
                target is not None
                and counter.counts.get(target) == 1
                and target not in escaping | seen
            ):
                assert isinstance(small, cst.Assign)
                value = _carried_value(small.value, flags, names, carried, lookup, outside)
                if value is not None and target not in mentions(small.value).names:
                    carried[target] = value
            seen |= mentions(small).names
    return carried


def _single_name_target(small: cst.BaseSmallStatement | cst.BaseStatement) -> str | None:
    """The name `name = value` binds."""
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value
    return None


def _assigns_flag(
    statement: cst.BaseStatement,
    flags: Mapping[str, Flag],
    names: Mapping[str, str],
    lookup: Lookup,
    outside: frozenset[str],
) -> bool:
    """A top-level `name = <flag read>` statement: worth a closer look."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return any(
        _single_name_target(small) is not None
        and _carried_value(cast(cst.Assign, small).value, flags, names, {}, lookup, outside)
        is not None
        for small in statement.body
    )


class _FirstBinding(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found: tuple[cst.CSTNode, bool] | None = None
        self._loops = 0

    def _check(self, target: cst.BaseExpression) -> None:
        if self.found is None and isinstance(target, cst.Name) and target.value == self.name:
            self.found = (target, self._loops > 0)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._check(element.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._check(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._check(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._check(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._check(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._check(node.target)
        self._loops += 1

    def leave_For(self, original_node: cst.For) -> None:
        self._loops -= 1

    def visit_While(self, node: cst.While) -> None:
        self._loops += 1

    def leave_While(self, original_node: cst.While) -> None:
        self._loops -= 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def first_binding(function: cst.CSTNode, name: str) -> tuple[cst.CSTNode, bool] | None:
    """The first node in a function body (in source order) that binds `name`, and whether it
    sits in a loop."""
    if not isinstance(function, cst.FunctionDef):
        return None
    finder = _FirstBinding(name)
    function.body.visit(finder)
    return finder.found


def truthy_names(body: Sequence[cst.BaseStatement]) -> dict[int, frozenset[str]]:
    """For each `if` of a block (by id), the names known truthy when it runs: those an early exit
    earlier in the block leaves under their falsiness (`if not (client and client.ready): return`),
    with only statements between that can neither rebind nor change them (see
    _keeps_truthiness). The block is straight-line code: a loop or branch is a block of its own."""
    known: dict[int, frozenset[str]] = {}
    facts: frozenset[str] = frozenset()
    for statement in body:
        if facts and isinstance(statement, cst.If):
            known[id(statement)] = facts
        guarded = _guarded_names(statement)
        if guarded is not None:
            facts |= guarded
        elif facts and not _keeps_truthiness(statement, facts):
            facts = frozenset()
    return known


def _guarded_names(statement: cst.BaseStatement) -> frozenset[str] | None:
    """What an early exit says past it: `if <test>: ...; return` (or raise, break, continue)
    with no else and a test without effects, after which the test was false. None for anything
    else."""
    if (
        not isinstance(statement, cst.If)
        or statement.orelse is not None
        or not is_pure(statement.test)
    ):
        return None
    last = statement.body.body[-1] if statement.body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1]
    if not isinstance(last, (cst.Return, cst.Raise, cst.Break, cst.Continue)):
        return None
    return _truthy_if_false(statement.test)


def _truthy_if_false(test: cst.BaseExpression) -> frozenset[str]:
    """The names truthy when `test` is false: `not (a and b)`, `not a or not b`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _truthy_if_true(test.expression)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return _truthy_if_false(test.left) | _truthy_if_false(test.right)  # both ran, both false
    return frozenset()


def _truthy_if_true(test: cst.BaseExpression) -> frozenset[str]:
    """The names truthy when `test` is true: `a`, `a and b`."""
    if isinstance(test, cst.Name):
        return frozenset({test.value})
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _truthy_if_true(test.left) | _truthy_if_true(test.right)
    return frozenset()


def _keeps_truthiness(statement: cst.BaseStatement, names: frozenset[str]) -> bool:
    """A statement that can change no name's truthiness: `pass`, and expressions and
    assignments of other plain names, all without effects (no call could empty a list; no
    attribute store could change what `__bool__` reads)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, cst.Pass):
            continue
        if isinstance(small, cst.Expr) and is_pure(small.value):
            continue
        targets = (
            [t.target for t in small.targets]
            if isinstance(small, cst.Assign)
            else [getattr(small, "target", None)]
        )
        if not isinstance(small, (cst.Assign, cst.AnnAssign)) or (
            small.value is not None and not is_pure(small.value)
        ):
            return False
        if not all(
            isinstance(target, cst.Name) and target.value not in names for target in targets
        ):
            return False
    return True
