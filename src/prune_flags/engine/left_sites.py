"""Sites of a pruned flag the run leaves as they were: a re-export of it."""

# A package's `__init__.py` importing the flag (`from .const import PY310_PLUS`), a module importing
# it without reading it, or an `__all__` naming it makes it an interface: code outside the
# repository may import it from there, so that import stays, and so does the definition it reads,
# whatever the config says of the value. Every other site of the flag is carried out: reads
# inlined, branches folded. The re-export is reported as left, with what the user could do; the
# flag is refused whole only when something else keeps it.

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

from prune_flags.report import Left
from prune_flags.semantic.facts import Site, Write
from prune_flags.vocabulary import LeftReason, WriteKind

if TYPE_CHECKING:
    from prune_flags.semantic.repository import Repository

REEXPORT_HINT = (
    "outside code may import it from here, so this stays, and so does the definition it reads;"
    " delete it by hand once no user imports it, then run again"
)


def reexports_left(
    repository: Repository, name: str, reads: Iterable[Site], writes_not_gone: Iterable[Write]
) -> list[Left] | None:
    """The re-exports keeping a flag alive once the cascade did all else, one Left each at its
    line in the original file: imports of it in a package's `__init__.py`, a module's `__all__`
    naming it. None when a read left in the rewritten texts is anything else, or a write that was
    to go and did not is not a definition (those the re-exports read stay)."""
    if any(write.kind != WriteKind.MODULE for write in writes_not_gone):
        return None
    by_display = repository.by_display()
    files: set[str] = set()
    for site in reads:
        path = by_display.get(site.path)
        if path is None or path not in repository.sources:
            return None  # a file the run left as it is (skipped, outside the paths) reads it
        tree = repository.tree(path, repository.text(path))
        spans = _reexports(path.name, tree, name) if tree is not None else []
        if not any(first <= site.line <= last for first, last in spans):
            return None
        files.add(site.path)
    found = []
    for display in sorted(files):
        path = by_display[display]
        tree = repository.tree(path, repository.text(path, original=True))
        spans = _reexports(path.name, tree, name) if tree is not None else []
        found += [
            Left(name, display, line, LeftReason.REEXPORTED, REEXPORT_HINT) for line, _ in spans
        ]
    return found or None


def _reexports(file_name: str, tree: ast.Module, name: str) -> list[tuple[int, int]]:
    """The first and last lines of the top-level statements re-exporting a name: an import of it
    from a module in a package's `__init__.py` (`from .const import PY310_PLUS`), or in a module
    that never reads it (a deprecated alias module: `from .utils import IS_WIN  # NOQA`, which
    the cleanup would have removed had it made it unused); an `__all__` naming it."""
    spans = []
    read_here = any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
        for node in ast.walk(tree)
    )
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom):
            exports = (file_name == "__init__.py" or not read_here) and any(
                alias.name == name and alias.asname in (None, name) for alias in statement.names
            )
        else:
            exports = _assigns_all(statement) and any(
                isinstance(node, ast.Constant) and node.value == name
                for node in ast.walk(statement)
            )
        if exports:
            spans.append((statement.lineno, statement.end_lineno or statement.lineno))
    return spans


def _assigns_all(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    else:
        return False
    return any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)
