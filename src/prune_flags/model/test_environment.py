"""A test's writes of the environment as writes of a flag: of one that is the variable, or of one
its definition computes from the variable (`USE_V2 = os.environ.get("USE_V2", "0") == "1"`)."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from prune_flags.config import Flag
from prune_flags.model.test_shapes import TestWrite
from prune_flags.syntax.environment import computed_value, environment_writes
from prune_flags.syntax.expressions import literal, patched
from prune_flags.syntax.values import UNKNOWN


def environment_written(
    node: ast.AST, flags: Mapping[str, Flag], computed: Mapping[str, ast.expr]
) -> tuple[Flag, ast.expr] | None:
    """The flag a write of the environment writes, and what it gives the flag: for a flag that is
    the variable (a string, or None for unset), the value written; for one its definition
    computes from the variable of its name (`computed`: the definition's value), what the
    definition gives with the variable so set, when that is known."""
    for written in environment_writes(node):
        flag = flags.get(written.variable)
        if flag is None:
            continue
        if flag.value is None or isinstance(flag.value, str):
            return flag, written.value
        setting = literal(written.value)
        definition = computed.get(flag.name)
        if definition is not None and isinstance(written.value, ast.Name):
            return flag, written.value  # a parametrize parameter's: each entry is given
        if definition is not None and (setting is None or isinstance(setting, str)):
            value = computed_value(definition, flag.name, setting)
            if value is None or isinstance(value, (bool, int, float, str)):
                return flag, ast.Constant(value)
    return None


def environment_dicts(tree: ast.Module, flags: Mapping[str, Flag]) -> list[ast.Dict]:
    """The dicts of the `mock.patch.dict(os.environ, {...})` calls that write a flag: the tests'
    writes, whose entries only the tests' plan removes."""
    return [
        given
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and any(written.variable in flags for written in environment_writes(node))
        for given in (*node.args, *(k.value for k in node.keywords))
        if isinstance(given, ast.Dict)
    ]


def value_given(write: TestWrite, setting: object, computed: Mapping[str, ast.expr]) -> object:
    """What a parametrize entry's value gives the flag through a write of the environment: for a
    flag computed from the variable, what its definition computes from that string (UNKNOWN for
    anything but a string or None); else the value itself."""
    definition = computed.get(write.flag.name)
    if definition is None or not environment_writes(write.node):
        return setting
    if setting is not None and not isinstance(setting, str):
        return UNKNOWN
    return computed_value(definition, write.flag.name, setting)


def goes_alone(write: TestWrite) -> bool:
    """Whether removing a write's statement, decorator or `with` item removes nothing else: not
    so for `mock.patch.dict(os.environ, ...)` of other keys too, or clearing the rest."""
    return all(
        written.alone
        for written in environment_writes(write.node)
        if written.variable == write.flag.name
    )


def void_once_pruned(write: TestWrite) -> bool:
    """Whether a write of the configured value does nothing once the flag is pruned: a test
    double would have no definition left to patch, an environment variable no reader."""
    node = write.node
    return bool(environment_writes(node)) or (isinstance(node, ast.Call) and bool(patched(node)))
