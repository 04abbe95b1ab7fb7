"""Whether a call may drop a keyword whose dict the cleanup emptied (`init(extra={})` to `init()`):
only when every function of the callee's name takes an empty dict as it takes none."""

# Whether a call may drop a keyword whose dict the cleanup emptied (`init(extra={"use_x": True})`
# becomes `init(extra={})`, then `init()`), with `ast`: only when the call surely behaves the same.
#
# That holds when every function of the callee's name in the repository takes the keyword with a
# default of `None` or `{}`, under no decorator that may look at its arguments, and reads it only
# for its truth (`extra or {}`, `if extra:`, `not extra`, `bool(extra)`), never rebinding it: an
# empty dict and either default are then alike. A class, a function without the parameter or with
# another default, any other read (`extra is None`, `extra.get(...)`, `f(extra)`): the keyword
# stays.

from __future__ import annotations

import ast
from collections.abc import Iterable

from prune_flags.semantic.trees import TreeFacts
from prune_flags.syntax.expressions import HARMLESS_DECORATORS, ast_dotted


def empty_dict_is_default(trees: Iterable[TreeFacts], function: str, keyword: str) -> bool:
    """Whether `function(..., keyword={})` does what `function(...)` does, for every function so
    named in the trees; False when there is none."""
    found = False
    for tree in trees:
        for node in tree.definitions.get(function, ()):
            if isinstance(node, ast.ClassDef):
                return False  # its __init__, a base's, or its fields take the keyword: not told
            if not _empty_default(node, keyword) or not _read_for_truth_only(node, keyword):
                return False
            found = True
    return found


def _empty_default(function: ast.FunctionDef | ast.AsyncFunctionDef, keyword: str) -> bool:
    """The function takes `keyword` with a default of None or `{}`, and no decorator that may see
    it."""
    if any(
        ast_dotted(d.func if isinstance(d, ast.Call) else d) not in HARMLESS_DECORATORS
        for d in function.decorator_list
    ):
        return False
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = dict(
        zip(
            [a.arg for a in positional[len(positional) - len(arguments.defaults) :]],
            arguments.defaults,
        )
    )
    defaults.update(
        (a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None
    )
    if keyword in {a.arg for a in arguments.posonlyargs}:
        return False  # a keyword cannot fill it: the call was an error, leave it
    default = defaults.get(keyword)
    empty_dict = isinstance(default, ast.Dict) and not default.keys
    return (isinstance(default, ast.Constant) and default.value is None) or empty_dict


def _read_for_truth_only(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Every use of `name` in the body only asks whether it is true, and nothing rebinds it."""
    parents = {
        id(child): node for node in ast.walk(function) for child in ast.iter_child_nodes(node)
    }
    for node in ast.walk(function):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if not (isinstance(node, ast.Name) and node.id == name):
            continue
        if not isinstance(node.ctx, ast.Load) or not _truth_test(node, parents.get(id(node))):
            return False
    return True


def _truth_test(node: ast.expr, parent: ast.AST | None) -> bool:
    """Whether `parent` only asks for `node`'s truth: a test, `not`, `bool()`, or an operand of
    `and`/`or` whose value is not the result (every one but the last)."""
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return parent.test is node
    if isinstance(parent, ast.UnaryOp):
        return isinstance(parent.op, ast.Not)
    if isinstance(parent, ast.BoolOp):
        return parent.values[-1] is not node
    if isinstance(parent, ast.Call):
        return (
            isinstance(parent.func, ast.Name)
            and parent.func.id == "bool"
            and parent.args == [node]
            and not parent.keywords
        )
    return False
