"""Small facts of `ast` expressions: dotted names, literals, what an assert checks, test doubles."""

from __future__ import annotations

import ast
from typing import TypeGuard

from prune_flags.syntax.values import PURE_BUILTINS, UNKNOWN, literal_value


def ast_dotted(node: ast.expr) -> str:
    """`a.b.c` for a chain of attributes; for a chain on something else (`f().b.c`), `b.c`."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def last_name(node: ast.expr) -> str:
    """The last name a name or attribute spells (`CodeGenerator` of `compiler.CodeGenerator`);
    "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


ENVIRON = ("os.environ", "environ")


# Decorators that only wrap a callable: anything else may register it where no reader shows.
HARMLESS_DECORATORS = frozenset(
    {
        "staticmethod", "classmethod", "property", "abstractmethod", "abc.abstractmethod",
        "wraps", "functools.wraps", "cache", "functools.cache", "lru_cache", "functools.lru_cache",
        "cached_property", "functools.cached_property", "dataclass", "dataclasses.dataclass",
    }
)  # fmt: skip


def patched(call: ast.Call) -> tuple[str, ast.expr | None] | None:
    """What a test double sets: `mock.patch.object(C, "name", v)`, `monkeypatch.setattr(o, "name",
    v)`, `mock.patch("pkg.mod.NAME", v)`, `monkeypatch.setattr("pkg.mod.NAME", v)`: (name, the
    value's expression, None when the call gives none: a mock then stands in)."""
    func = ast_dotted(call.func)
    new = next((k.value for k in call.keywords if k.arg == "new"), None)
    if func.endswith("patch.object") or (func.endswith(".setattr") and func != "setattr"):
        if len(call.args) >= 2 and isinstance(name := literal(call.args[1]), str):
            return name, call.args[2] if len(call.args) > 2 else new
        if func.endswith("patch.object"):
            return None
    if func.endswith("patch") or func.endswith(".setattr"):
        target = literal(call.args[0]) if call.args else None
        if isinstance(target, str) and "." in target:
            return target.rsplit(".", 1)[1], call.args[1] if len(call.args) > 1 else new
    return None


def _field_default(call: ast.Call) -> object:
    """The default a dataclass/attrs/pydantic field declaration gives: `field(default=False)`."""
    for keyword in call.keywords:
        if keyword.arg == "default":
            return literal(keyword.value)
    if ast_dotted(call.func) in ("Field", "pydantic.Field") and call.args:
        return literal(call.args[0])
    return UNKNOWN


def _is_string(node: ast.expr | None) -> TypeGuard[ast.Constant]:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def literal(node: ast.expr | None) -> object:
    if node is None:
        return UNKNOWN
    try:
        return literal_value(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return UNKNOWN


def assert_subjects(test: ast.expr) -> frozenset[str] | None:
    """The attribute names an assert test checks, or None when it also checks anything else."""
    subjects: set[str] = set()

    def walk(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            subjects.add(node.attr)
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            return isinstance(base, ast.Name)
        if isinstance(node, ast.Call):
            return (
                isinstance(node.func, ast.Name)
                and node.func.id in PURE_BUILTINS
                and not node.keywords
                and all(walk(arg) for arg in node.args)
            )
        if isinstance(node, (ast.BoolOp, ast.UnaryOp, ast.Compare, ast.BinOp)):
            return all(
                walk(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)
            )
        return isinstance(node, ast.Constant)

    return frozenset(subjects) if walk(test) and subjects else None
