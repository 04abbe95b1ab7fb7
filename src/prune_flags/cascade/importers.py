"""Which names a rewrite dropped from a module's imports that other modules import from it."""

# A module's import is its interface as much as its definitions are: `from json import loads` in
# `pkg/functions.py` binds `pkg.functions.loads`, which `from pkg.functions import loads` elsewhere
# reads. The rewrite of one file sees only its own reads, so it drops an import whose last read
# there went; the cascade asks here, after each round, whether another file imports the name from
# the module (by name, by `import *`, or through the module's attribute), and keeps the import.

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from prune_flags.semantic.modules import absolute_module
from prune_flags.semantic.repository import Repository
from prune_flags.syntax.expressions import ast_dotted


class Importers:
    """Who imports what from the repository's modules."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository

    def dropped(self, path: Path) -> set[str]:
        """The names the module bound by an import before the run and binds by none after it."""
        before = self.repository.tree_facts(path, self.repository.sources[path].text)
        after = self.repository.tree_facts(path, self.repository.text(path))
        if before is None or after is None:
            return set()
        return set(before.imported_names - after.imported_names)

    def imported_from(self, path: Path, names: Iterable[str]) -> set[str]:
        """The names among `names` that another file of the repository imports from the module at
        `path`, or reads as its attributes having imported it; all of them when the module's
        dotted name is not known (two files share it)."""
        names = set(names)
        if not names:
            return set()
        modules = self.repository.module_names()
        if path not in modules:
            return names
        module, _ = modules[path]
        found: set[str] = set()
        # A file importing from a module spells its last name (`from .functions import`, `from
        # pkg import functions`, `import pkg.functions`) and the name it reads; from a package,
        # `from . import loads` need not.
        spelling = (
            None
            if path.name == "__init__.py"
            else set(self.repository.mentioning(frozenset([module.rpartition(".")[2]])))
        )
        for other in self.repository.mentioning(frozenset(names)):
            if other == path or other not in modules:
                continue
            if spelling is not None and other not in spelling:
                continue
            tree = self.repository.tree(other, self.repository.text(other))
            if tree is not None:
                found |= _reads_from(tree, *modules[other], module, names)
        return found


def _reads_from(
    tree: ast.Module, own: str, is_package: bool, module: str, names: set[str]
) -> set[str]:
    """The names a module reads from `module`: imported from it by name (all of them for
    `import *`), or as attributes of the module where it imports it whole (`compat.loads` after
    `from pkg import compat`, `pkg.compat.loads` after `import pkg.compat`)."""
    found: set[str] = set()
    spellings: set[str] = set()  # how the module reads `module` itself: `compat`, `pkg.compat`
    parent, _, last = module.rpartition(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = absolute_module(node, own, is_package)
            if source == module:
                if any(alias.name == "*" for alias in node.names):
                    return set(names)
                found |= {alias.name for alias in node.names if alias.name in names}
            elif source == parent:
                spellings |= {alias.asname or last for alias in node.names if alias.name == last}
        elif isinstance(node, ast.Import):
            spellings |= {alias.asname or module for alias in node.names if alias.name == module}
    if spellings:
        found |= {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and node.attr in names
            and ast_dotted(node.value) in spellings
        }
    return found
