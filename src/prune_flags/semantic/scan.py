"""Scanning one module for the facts of some names: one walk, by the handlers of scan_*."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from prune_flags.semantic.bindings import bound_to_modules
from prune_flags.semantic.facts import NameFacts
from prune_flags.semantic.scan_calls import Calls
from prune_flags.semantic.scan_reads import Reads
from prune_flags.semantic.scan_writes import Writes
from prune_flags.source.words import lines_naming
from prune_flags.syntax.spellings import FlagNames, module_strings
from prune_flags.syntax.statements import kept_by_pragma, statements_holding
from prune_flags.syntax.templates import Template, module_writers


class Scanner(Writes, Reads, Calls):
    """One walk over a module's statements, recording the facts of the names asked about."""


def scan(
    tree: ast.Module,
    path: str,
    names: Iterable[str],
    writers: tuple[Template, ...] = (),
    accessors: tuple[Template, ...] = (),
    text: str | None = None,
    constants: Mapping[str, str] = MappingProxyType({}),
    option_calls: tuple[str, ...] = (),
    outside: frozenset[str] = frozenset(),
) -> dict[str, NameFacts]:
    """Facts about `names` in one parsed module, with the config's setter and accessor call shapes,
    the constants of the repository that hold a flag's name (see spellings.FlagNames) and the calls
    it declares as adding options (`option_calls`); `outside`, the names the module binds only to
    other libraries (TreeFacts.outside_names): nothing read through them is the repository's.
    Given the module's text, only the top-level statements naming one of them are walked: the
    same test that spares whole files their parse (no top-level statement depends on another)."""
    names = frozenset(names)
    holding = [constant for constant, name in constants.items() if name in names]
    if text is None or not holding:
        importing = tree.body if holding else []
    else:
        importing = [
            statement
            for _, _, statement in statements_holding(tree.body, lines_naming(text, holding))
        ]
    flag_names = FlagNames.of_module(module_strings(tree), _imported(importing, holding), constants)
    scanner = Scanner(
        path, names, module_writers(tree, writers), accessors, flag_names, option_calls
    )
    if text is None or text.count("\r") != text.count("\r\n"):
        # (lines are counted by "\n": with old Mac line endings they are not the `ast`'s)
        statements = tree.body
    else:
        # `--use-x` defines use_x (lines_naming knows), and FAST_KEY (or FK, its alias) may name a
        # flag.
        statements = [
            statement
            for _, _, statement in statements_holding(
                tree.body, lines_naming(text, names | scanner.constants.keys())
            )
        ]
    scanner.modules = bound_to_modules(statements, names)
    scanner.outside = outside
    for statement in statements:
        scanner.visit(statement)
    if text is None:
        return scanner.facts
    for statement in kept_by_pragma(tree.body, text):
        scanner.kept(statement)
    return scanner.facts


def _imported(statements: list[ast.stmt], names: list[str]) -> list[tuple[str, str]]:
    """(name, alias) for each `from m import NAME as ALIAS` of one of the names, at any depth."""
    found = []
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.ImportFrom):
                found += [
                    (alias.name, alias.asname)
                    for alias in node.names
                    if alias.asname and alias.name in names
                ]
    return found
