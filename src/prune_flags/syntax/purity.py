"""Whether evaluating an `ast` expression only computes a value: the side-effect model's `ast` side
(rewrite/purity.py is its LibCST side)."""

from __future__ import annotations

import ast

from prune_flags.syntax.expressions import ast_dotted
from prune_flags.syntax.values import FIELD_CONSTRUCTORS, PURE_BUILTINS

# Nodes whose evaluation computes a value and nothing else: the `ast` side of purity.is_pure
# (calls are checked apart). Lambdas, comprehensions, `:=`, `await` and `yield` are not among
# them: a helper returning one is not inlined.
_VALUE_NODES = (
    ast.Constant, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.BinOp, ast.BoolOp,
    ast.UnaryOp, ast.Compare, ast.IfExp, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.JoinedStr,
    ast.FormattedValue, ast.keyword, ast.expr_context, ast.operator, ast.boolop, ast.unaryop,
    ast.cmpop,
)  # fmt: skip


def pure_expression(expression: ast.expr) -> bool:
    """Whether evaluating `expression` only computes a value, by the rules of purity.is_pure:
    names, attribute reads, subscripts, operators, literals and calls of builtins that only compute.
    """
    for node in ast.walk(expression):
        if isinstance(node, ast.Call):
            builtin = isinstance(node.func, ast.Name) and node.func.id in PURE_BUILTINS
            if not builtin and ast_dotted(node.func) not in FIELD_CONSTRUCTORS:
                return False
        elif not isinstance(node, _VALUE_NODES):
            return False
    return True
