"""Calls by their callee's last name, and what the definitions of a name take: the facts plumbing
reads to link a flag's parameter to the arguments that pass it."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from prune_flags.semantic.facts import Argument, CallSite, Site
from prune_flags.semantic.trees import CallOf, Forwarder, TreeFacts
from prune_flags.syntax.expressions import ast_dotted, literal
from prune_flags.syntax.purity import pure_expression


def scan_calls(calls: Iterable[CallOf], path: str, callees: frozenset[str]) -> list[CallSite]:
    """Every call of a function named in `callees` (by its last name), with how it passes
    arguments."""
    return [
        _call_site(node, Site(path, node.lineno), callee, enclosing)
        for callee, node, enclosing in calls
        if callee in callees
    ]


def _call_site(call: ast.Call, site: Site, callee: str, enclosing: Forwarder | None) -> CallSite:
    positional, forwarding = 0, None
    for argument in call.args:
        if not isinstance(argument, ast.Starred):
            positional += 1
        elif isinstance(argument.value, (ast.Tuple, ast.List)) and not any(
            isinstance(element, ast.Starred) for element in argument.value.elts
        ):
            positional += len(argument.value.elts)
        elif (
            enclosing is not None
            and isinstance(argument.value, ast.Name)
            and argument.value.id == enclosing.varargs
        ):
            forwarding = enclosing
    plain = []
    for argument in call.args:
        if isinstance(argument, ast.Starred):
            break
        plain.append(Argument(argument.lineno, literal(argument), pure_expression(argument)))
    receiver = ast_dotted(call.func.value) if isinstance(call.func, ast.Attribute) else ""
    return CallSite(
        site,
        callee,
        positional,
        isinstance(call.func, ast.Attribute),
        forwarding.name if forwarding is not None else None,
        forwarding.takes if forwarding is not None else 0,
        forwarding is not None and forwarding.method,
        tuple(plain),
        len(plain) < len(call.args),
        receiver.rsplit(".", 1)[-1][:1].isupper(),
    )


def keyword_forwards(trees: Iterable[TreeFacts], function: str) -> frozenset[str] | None:
    """The callees (by last name) to which every function named `function` hands its `**kwargs`
    on (`self._inner(x, **kwargs)`), when that is all it does with them: a keyword passed to
    `function` lands there. None when there is no such function, when one is a class or has no
    `**` parameter, or uses it otherwise too (`kwargs.get("fast")`, `dict(kwargs)`)."""
    callees: set[str] = set()
    found = False
    for tree in trees:
        for node in tree.definitions.get(function, ()):
            if isinstance(node, ast.ClassDef):
                return None
            kwarg = node.args.kwarg
            if kwarg is None:
                return None
            uses = sum(
                isinstance(inner, ast.Name) and inner.id == kwarg.arg for inner in ast.walk(node)
            )
            handed = [
                call
                for call in ast.walk(node)
                if isinstance(call, ast.Call)
                for keyword in call.keywords
                if keyword.arg is None
                and isinstance(keyword.value, ast.Name)
                and keyword.value.id == kwarg.arg
            ]
            if not handed or len(handed) != uses:
                return None
            callees.update(ast_dotted(call.func).rsplit(".", 1)[-1] for call in handed)
            found = True
    return frozenset(callees) if found else None


def never_forwards(trees: Iterable[TreeFacts], function: str, keyword: str) -> bool:
    """Whether a `keyword=` argument to `function` stays there: every definition of the name in
    the trees (functions, methods, and classes through their `__init__`) has a parameter of that
    name of its own, or takes no **kwargs it could travel on through (a callee that does not take
    the keyword at all is not the flag's). False when there is none."""
    found = False
    for tree in trees:
        for node in tree.definitions.get(function, ()):
            if isinstance(node, ast.ClassDef):
                initializers = [
                    s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"
                ]
                node = initializers[0] if initializers else node
            if isinstance(node, ast.ClassDef):
                return False  # its fields, or a base's __init__, take the keyword: not told here
            arguments = node.args
            own = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
            if keyword not in own and arguments.kwarg is not None:
                return False
            found = True
    return found


def parameter_places(
    trees: Iterable[TreeFacts], function: str, name: str, by_keyword: bool = False
) -> set[tuple[int | None, bool]] | None:
    """Where every definition named `function` has its parameter `name` (functions, methods, and
    classes through their own `__init__`, whose self a call fills): its index among the positional
    parameters as calls count it (None for a keyword-only one), and whether the function is a
    method. None when one has no such parameter, or a class has no `__init__` of its own.
    `by_keyword`: for a call passing `name=`, which a definition taking neither that parameter nor
    **kwargs would refuse with a TypeError: such a one is not the callee, and is passed over
    (None when no definition is left)."""
    places: set[tuple[int | None, bool]] = set()
    passed_over = False
    for tree in trees:
        for node in tree.definitions.get(function, ()):
            constructor = isinstance(node, ast.ClassDef)
            if isinstance(node, ast.ClassDef):
                initializers = [
                    s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"
                ]
                if not initializers:
                    return None
                node = initializers[0]
            arguments = node.args
            positional = [argument.arg for argument in (*arguments.posonlyargs, *arguments.args)]
            method = bool(positional) and positional[0] in ("self", "cls")
            if name in positional:
                index = positional.index(name)
                places.add((index - 1, False) if constructor else (index, method))
            elif name in {argument.arg for argument in arguments.kwonlyargs}:
                places.add((None, method and not constructor))
            elif by_keyword and arguments.kwarg is None:
                passed_over = True
            else:
                return None
    return None if passed_over and not places else places
